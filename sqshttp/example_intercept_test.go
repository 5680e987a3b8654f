package sqshttp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqshttp"
)

// throttleSends answers every SendMessage with throttling, as AWS does to
// a client over its rate; package chaos has an Interceptor driven by rules.
type throttleSends struct{}

func (throttleSends) Intercept(_ context.Context, c sqshttp.Call) sqshttp.Intervention {
	if c.Operation == "SendMessage" {
		return sqshttp.Intervention{Code: "ThrottlingException", Message: "Rate exceeded"}
	}
	return sqshttp.Intervention{}
}

// Fault injection on the wire: an Interceptor answers an error instead of
// the call, in the shape SQS uses, so the SDK sees what it sees from AWS.
func ExampleWithInterceptor() {
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
	defer b.Close()
	srv := httptest.NewServer(sqshttp.NewHandler(b, sqshttp.WithInterceptor(throttleSends{})))
	defer srv.Close()
	client := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: aws.AnonymousCredentials{}, RetryMaxAttempts: 1})
	ctx := context.Background()

	q, _ := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	_, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hi")})
	var ae smithy.APIError
	if errors.As(err, &ae) {
		fmt.Println(ae.ErrorCode()+":", ae.ErrorMessage())
	}
	// Output:
	// ThrottlingException: Rate exceeded
}
