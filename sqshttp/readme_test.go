package sqshttp_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqshttp"
)

// TestReadmeHTTPTest is the README's real SDK against the handler in an
// httptest.Server, kept here so it compiles and works.
func TestReadmeHTTPTest(t *testing.T) {
	clk := clock.NewMock()

	b := sqsq.NewBroker(sqsq.WithClock(clk))
	srv := httptest.NewServer(sqshttp.NewHandler(b))
	defer srv.Close()
	client := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: aws.AnonymousCredentials{}})

	out, err := client.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	if err != nil || *out.QueueUrl != srv.URL+"/000000000000/orders" {
		t.Fatalf("CreateQueue = %v, %v", out, err)
	}
}
