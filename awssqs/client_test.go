package awssqs_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
	"github.com/sqsq/sqsq/internal/suite"
)

// The suite's API is the SDK's method set, so this also checks that a
// Client has all of it.
var _ suite.API = (*awssqs.Client)(nil)

// TestMethodSet fails when the SDK in go.mod has an operation the Client
// lacks, or one whose signature differs: an SDK upgrade that adds an
// operation is caught here.
func TestMethodSet(t *testing.T) {
	t.Parallel()
	suite.CheckMethodSet(t, reflect.TypeFor[*awssqs.Client](), "*awssqs.Client")
}

func newClient(t *testing.T, opts ...awssqs.Option) (*awssqs.Client, *sqsq.Broker) {
	t.Helper()
	b, _ := suite.NewBroker(t)
	return awssqs.New(b, opts...), b
}

func TestWithBaseURL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, b := newClient(t, awssqs.WithBaseURL("http://127.0.0.1:9324/"))
	want := "http://127.0.0.1:9324/000000000000/dlq"
	out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("dlq")})
	if err != nil || aws.ToString(out.QueueUrl) != want {
		t.Fatalf("CreateQueue = %v, %v; want %s", aws.ToString(out.QueueUrl), err, want)
	}
	q, _ := b.GetQueue(ctx, "dlq")
	src, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("src"), Attributes: map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"` + q.ARN() + `","maxReceiveCount":1}`}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("dlq")})
	if err != nil || aws.ToString(got.QueueUrl) != want {
		t.Errorf("GetQueueUrl = %v, %v; want %s", aws.ToString(got.QueueUrl), err, want)
	}
	list, err := c.ListQueues(ctx, nil)
	if err != nil || !reflect.DeepEqual(list.QueueUrls, []string{want, aws.ToString(src.QueueUrl)}) {
		t.Errorf("ListQueues = %v, %v; want the base in every URL", list.QueueUrls, err)
	}
	sources, err := c.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(want)})
	if err != nil || !reflect.DeepEqual(sources.QueueUrls, []string{"http://127.0.0.1:9324/000000000000/src"}) {
		t.Errorf("ListDeadLetterSourceQueues = %v, %v", sources.QueueUrls, err)
	}
	if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q.URL()), MessageBody: aws.String("x")}); err != nil {
		t.Errorf("the broker's own URL still resolves: %v", err)
	}
}

func TestNilInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _ := newClient(t)
	if _, err := c.ListQueues(ctx, nil); err != nil {
		t.Errorf("ListQueues(nil) = %v; a nil input is an empty one, as in the SDK", err)
	}
	_, err := c.SendMessage(ctx, nil)
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "MissingParameter" || api.ErrorMessage() != "The request must contain the parameter QueueUrl." {
		t.Errorf("SendMessage(nil) = %v; want MissingParameter QueueUrl", err)
	}
}

// TestOptFnsIgnored shows that per-call options, which configure the SDK's
// transport, are accepted.
func TestOptFnsIgnored(t *testing.T) {
	t.Parallel()
	c, _ := newClient(t)
	_, err := c.ListQueues(context.Background(), &sqs.ListQueuesInput{}, func(o *sqs.Options) { o.Region = "eu-west-1" })
	if err != nil {
		t.Fatal(err)
	}
}

// TestQueueURLForms checks the URL forms the broker must resolve to the
// same queue, or to none, whichever way the adapter reads them.
func TestQueueURLForms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _ := newClient(t)
	if _, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref   string
		found bool
	}{
		{"orders", true},
		{"/000000000000/orders", true},
		{"000000000000/orders", true},
		{"https://sqs.us-east-1.amazonaws.com/000000000000/orders", true},
		{"https://sqs.us-east-1.amazonaws.com/000000000000/orders/", true},
		{"http://localhost:4566/queue/us-east-1/000000000000/orders", true},
		{"https://host/000000000000/ord%65rs", true},
		{"https://host/000000000000/orders?x=1", true},
		{"arn:aws:sqs:us-east-1:000000000000:orders", true},
		{"https://000000000000/orders", false}, // the account is the host here
		{"https://host/x000000000000/orders", false},
		{"https://host/111122223333/orders", false},
		{"https://host/orders", false},
		{"", false},
	}
	for _, tt := range tests {
		_, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(tt.ref)})
		if (err == nil) != tt.found {
			t.Errorf("QueueUrl %q: error %v, want found = %v", tt.ref, err, tt.found)
		}
	}
}
