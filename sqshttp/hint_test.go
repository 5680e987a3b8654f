package sqshttp_test

// The region trap: a client of another region than the queue's follows the
// queue URL sqsq returned and reaches the queue; a request by name in the
// wrong region keeps AWS's error and says where the queue is.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/suite"
	"github.com/sqsq/sqsq/sqshttp"
)

func TestRegionTrap(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b, _ := suite.NewBroker(t)
			var last *sqshttp.RequestInfo
			h := sqshttp.NewHandler(b)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r, info := sqshttp.WithRequestInfo(r)
				h.ServeHTTP(w, r)
				last = info // the SDK's calls are sequential
			}))
			t.Cleanup(srv.Close)
			cli := signedClient(srv, "us-east-1", "AKIDEXAMPLE", p.opt)
			consumer := signedClient(srv, "eu-west-1", "AKIDEXAMPLE", p.opt)
			out, err := cli.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
			if err != nil {
				t.Fatal(err)
			}
			url := *out.QueueUrl
			if _, err := cli.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("order-1")}); err != nil {
				t.Fatal(err)
			}
			// The consumer of another region follows the URL to the queue.
			got, err := consumer.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url})
			if err != nil || len(got.Messages) != 1 {
				t.Fatalf("a client of eu-west-1 with the us-east-1 queue's URL received %v, %v", got, err)
			}
			if last.Account != "000000000000" || last.Region != "us-east-1" || last.Queue != "orders" {
				t.Errorf("RequestInfo %+v", *last)
			}
			// By name, the request is for its own region: AWS's error, with the way out.
			_, err = consumer.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("orders")})
			wantHint := "sqsq: no queue orders in eu-west-1 (account 000000000000), " +
				"the region this request is signed for; a queue of that name exists in us-east-1 (account 000000000000): " + url + "."
			var api smithy.APIError
			var missing *types.QueueDoesNotExist
			if !errors.As(err, &missing) || !errors.As(err, &api) || !strings.HasPrefix(api.ErrorMessage(), "The specified queue does not exist") ||
				!strings.HasSuffix(api.ErrorMessage(), " "+wantHint) {
				t.Errorf("GetQueueUrl in the wrong region: %v\nwant the hint %s", err, wantHint)
			}
			if last.Hint != wantHint || last.Region != "eu-west-1" || last.ErrorCode != "AWS.SimpleQueueService.NonExistentQueue" {
				t.Errorf("RequestInfo of the refused request %+v", *last)
			}
			// A hand-made URL without a region names the default region.
			west, err := consumer.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("west-only")})
			if err != nil {
				t.Fatal(err)
			}
			if want := srv.URL + "/queue/eu-west-1/000000000000/west-only"; *west.QueueUrl != want {
				t.Errorf("the eu-west-1 queue's URL %s, want %s", *west.QueueUrl, want)
			}
			handMade := srv.URL + "/000000000000/west-only"
			_, err = consumer.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &handMade, MessageBody: aws.String("x")})
			if !errors.As(err, &api) || !strings.Contains(api.ErrorMessage(),
				"no queue west-only in us-east-1 (account 000000000000), the account its queue URL names, in the endpoint's default region "+
					"(a queue URL without /queue/{region}/ names it); "+
					"a queue of that name exists in eu-west-1 (account 000000000000): "+*west.QueueUrl) {
				t.Errorf("a region-less URL of an eu-west-1 queue: %v", err)
			}
			// No hint when the name exists nowhere.
			_, err = consumer.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("nowhere")})
			if !errors.As(err, &api) || strings.Contains(api.ErrorMessage(), "sqsq:") || last.Hint != "" {
				t.Errorf("a queue that exists nowhere: %v, hint %q", err, last.Hint)
			}
		})
	}
}

// TestRegionTrapWhy: the hint says why the request looked where it did.
func TestRegionTrapWhy(t *testing.T) {
	t.Parallel()
	b, _ := suite.NewBroker(t)
	if _, err := b.Scope("000000000000", "eu-west-1").CreateQueue(context.Background(), sqsqInput("orders")); err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, b)
	for _, tt := range []struct{ reason, host, auth, want string }{
		{"no credential, plain host", "", "", "the endpoint's default region: this request's credential names no region"},
		{"a regional host", "sqs.ap-south-1.localhost", "", "the region of the host this request was sent to, sqs.ap-south-1.localhost"},
		{"a credential region that is no region", "", "AWS4-HMAC-SHA256 Credential=AKID/20240101/local/sqs/aws4_request, SignedHeaders=host, Signature=00",
			"the endpoint's default region: this request is signed for local, which is not an AWS region's name"},
	} {
		status, body := getAs(t, srv, "/?Action=GetQueueUrl&QueueName=orders", tt.host, tt.auth)
		if status != http.StatusBadRequest || !strings.Contains(body, tt.want) || !strings.Contains(body, "exists in eu-west-1") {
			t.Errorf("%s: %d %s\nwant %q", tt.reason, status, body, tt.want)
		}
	}
}

func sqsqInput(name string) sqsq.CreateQueueInput { return sqsq.CreateQueueInput{QueueName: name} }
