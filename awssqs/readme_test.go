package awssqs_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
)

// The README's section "Swap sqsq in for an SQS client": a service written
// against a small interface, and its test on sqsq, kept here so they
// compile and pass.

// SQS is what the service needs of a client: *sqs.Client has it, and so
// has sqsq's *awssqs.Client.
type SQS interface {
	SendMessage(context.Context, *sqs.SendMessageInput, ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

type Service struct {
	sqs      SQS
	queueURL string
}

func NewService(c SQS, queueURL string) *Service { return &Service{c, queueURL} }

func (s *Service) Place(ctx context.Context, order string) error {
	_, err := s.sqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &s.queueURL, MessageBody: aws.String(order)})
	return err
}

var _ SQS = (*sqs.Client)(nil) // production's client fits too

func TestPlace(t *testing.T) {
	ctx, clk := context.Background(), clock.NewMock()
	client := awssqs.New(sqsq.NewBroker(sqsq.WithClock(clk)))
	out, _ := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	svc := NewService(client, *out.QueueUrl)
	if err := svc.Place(ctx, "order-1"); err != nil {
		t.Fatal(err)
	}
	got, _ := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: out.QueueUrl})
	if len(got.Messages) != 1 || *got.Messages[0].Body != "order-1" {
		t.Fatalf("received %+v", got.Messages)
	}
}
