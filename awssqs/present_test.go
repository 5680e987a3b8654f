package awssqs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq/awssqs"
	"github.com/sqsq/sqsq/internal/present"
	"github.com/sqsq/sqsq/internal/suite"
)

// TestExplicitZeros checks both readings of an int32 member the SDK omits
// when 0: "not set" for a Go caller, and 0 when the wire layer marks it as
// sent (package present).
func TestExplicitZeros(t *testing.T) {
	t.Parallel()
	b, _ := suite.NewBroker(t)
	c := awssqs.New(b)
	ctx := context.Background()
	out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("zeros"),
		Attributes: map[string]string{"DelaySeconds": "60", "VisibilityTimeout": "30"}})
	if err != nil {
		t.Fatal(err)
	}
	url := out.QueueUrl

	// SDK rule: DelaySeconds 0 is not set, so the queue's 60 s apply.
	if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("delayed")}); err != nil {
		t.Fatal(err)
	}
	// Marked as sent: 0 overrides the queue's delay, in a batch entry too.
	send := &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("now")}
	if _, err := c.SendMessage(present.NewContext(ctx, present.Zeros{&send.DelaySeconds: {}}), send); err != nil {
		t.Fatal(err)
	}
	batch := &sqs.SendMessageBatchInput{QueueUrl: url, Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String("batch-delayed")},
		{Id: aws.String("b"), MessageBody: aws.String("batch-now")},
	}}
	if _, err := c.SendMessageBatch(present.NewContext(ctx, present.Zeros{&batch.Entries[1].DelaySeconds: {}}), batch); err != nil {
		t.Fatal(err)
	}

	// VisibilityTimeout marked as a sent 0 leaves the messages visible.
	recv := &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10}
	zero := present.NewContext(ctx, present.Zeros{&recv.VisibilityTimeout: {}})
	for range 2 {
		got, err := c.ReceiveMessage(zero, recv)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Messages) != 2 || *got.Messages[0].Body != "now" || *got.Messages[1].Body != "batch-now" {
			t.Fatalf("received %d messages, want now and batch-now, visible again", len(got.Messages))
		}
	}

	// MaxNumberOfMessages marked as a sent 0 is refused; unmarked it is 1.
	recv = &sqs.ReceiveMessageInput{QueueUrl: url}
	_, err = c.ReceiveMessage(present.NewContext(ctx, present.Zeros{&recv.MaxNumberOfMessages: {}}), recv)
	if err == nil || !strings.Contains(err.Error(), "Value 0 for parameter MaxNumberOfMessages is invalid") {
		t.Errorf("MaxNumberOfMessages 0 sent: %v", err)
	}
	got, err := c.ReceiveMessage(ctx, recv)
	if err != nil || len(got.Messages) != 1 {
		t.Errorf("MaxNumberOfMessages 0 unset: %v, %d messages, want 1", err, len(got.Messages))
	}
}
