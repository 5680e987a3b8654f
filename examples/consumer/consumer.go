package main

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/benbjohnson/clock"
)

// This file is the service code: it knows nothing of sqsq. It depends on
// three methods of *sqs.Client, through an interface of its own, the way
// production services are written.

// API is the part of *sqs.Client the consumer uses.
type API interface {
	ReceiveMessage(context.Context, *sqs.ReceiveMessageInput, ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessage(context.Context, *sqs.DeleteMessageInput, ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
	ChangeMessageVisibility(context.Context, *sqs.ChangeMessageVisibilityInput, ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
}

// In production the API is the SDK's client.
var _ API = (*sqs.Client)(nil)

// Consumer takes messages from one queue, one at a time, and hands each to
// Handle. While Handle runs, a heartbeat extends the message's visibility
// timeout, so a long job is not delivered to another worker meanwhile. A
// message is deleted when Handle succeeds and released for another try at
// once (visibility 0) when it fails.
type Consumer struct {
	API      API
	QueueURL string
	// Visibility is the visibility timeout of received messages, renewed
	// by each heartbeat; Heartbeat is how often it is renewed.
	Visibility, Heartbeat time.Duration
	// Clock drives the heartbeat: clock.New() in production.
	Clock clock.Clock
	// Handle does the work. Its error releases the message.
	Handle func(ctx context.Context, m types.Message) error
	// Logf reports what the consumer does.
	Logf func(format string, args ...any)
}

// Run consumes until ctx ends, and then returns ctx's error; it returns
// early on a receive error.
func (c *Consumer) Run(ctx context.Context) error {
	for {
		out, err := c.API.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:                    aws.String(c.QueueURL),
			WaitTimeSeconds:             20, // long poll
			VisibilityTimeout:           int32(c.Visibility / time.Second),
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount},
		})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("receive: %w", err)
		}
		if len(out.Messages) == 0 {
			c.Logf("long poll ended with no message")
		}
		for _, m := range out.Messages {
			c.process(ctx, m)
		}
	}
}

// process runs Handle on m with a heartbeat, then deletes or releases m.
func (c *Consumer) process(ctx context.Context, m types.Message) {
	c.Logf("received %s %q (delivery %s)", aws.ToString(m.MessageId), aws.ToString(m.Body), m.Attributes["ApproximateReceiveCount"])
	beat, stop := context.WithCancel(ctx)
	ready, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		c.heartbeat(beat, m, ready)
	}()
	<-ready
	err := c.Handle(ctx, m)
	stop()
	<-done
	if err != nil {
		c.Logf("%s failed: %v; releasing it for another try", aws.ToString(m.MessageId), err)
		c.changeVisibility(ctx, m, 0)
		return
	}
	if _, err := c.API.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(c.QueueURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
		c.Logf("delete %s: %v", aws.ToString(m.MessageId), err)
		return
	}
	c.Logf("deleted %s", aws.ToString(m.MessageId))
}

// heartbeat renews m's visibility every Heartbeat until ctx ends. It closes
// ready once its ticker runs, so the work starts under its cover.
func (c *Consumer) heartbeat(ctx context.Context, m types.Message, ready chan<- struct{}) {
	t := c.Clock.Ticker(c.Heartbeat)
	defer t.Stop()
	close(ready)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := c.changeVisibility(ctx, m, c.Visibility); err != nil {
				return
			}
			c.Logf("heartbeat: %s hidden for %v more", aws.ToString(m.MessageId), c.Visibility)
		}
	}
}

func (c *Consumer) changeVisibility(ctx context.Context, m types.Message, d time.Duration) error {
	_, err := c.API.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl:          aws.String(c.QueueURL),
		ReceiptHandle:     m.ReceiptHandle,
		VisibilityTimeout: int32(d / time.Second), // always sent: 0 is a real 0
	})
	if err != nil && ctx.Err() == nil {
		c.Logf("change visibility of %s: %v", aws.ToString(m.MessageId), err)
	}
	return err
}
