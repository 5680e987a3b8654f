package suite

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq"
)

// PeekFunc returns a Harness.Peek over b's queues.
func PeekFunc(b *sqsq.Broker) func(ctx context.Context, queueURL string, in sqsq.PeekInput) (sqsq.PeekOutput, error) {
	return func(ctx context.Context, queueURL string, in sqsq.PeekInput) (sqsq.PeekOutput, error) {
		q, err := b.GetQueue(ctx, queueURL)
		if err != nil {
			return sqsq.PeekOutput{}, err
		}
		return q.Peek(ctx, in)
	}
}

var peekTests = []test{
	{"peek shows every state and changes nothing", testPeekChangesNothing},
}

// peekAll pages through a queue's messages, one message a page so that the
// cursor is exercised, and returns them by body.
func (e *env) peekAll(url string, in sqsq.PeekInput) map[string]sqsq.PeekedMessage {
	e.t.Helper()
	got := map[string]sqsq.PeekedMessage{}
	in.Limit = 1
	for pages := 0; pages < 100; pages++ {
		out, err := e.h.Peek(e.ctx, url, in)
		if err != nil {
			e.t.Fatalf("Peek: %v", err)
		}
		for _, m := range out.Messages {
			if _, dup := got[m.Body]; dup {
				e.t.Errorf("Peek returned %q twice across pages", m.Body)
			}
			got[m.Body] = m
		}
		if out.NextCursor == "" {
			return got
		}
		in.Cursor = out.NextCursor
	}
	e.t.Fatal("Peek: no end after 100 pages")
	return nil
}

// state is what the suite can compare of a queue without Peek: its counts
// and every attribute.
func (e *env) state(url string) map[string]string {
	e.t.Helper()
	out, err := e.api().GetQueueAttributes(e.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
	if err != nil {
		e.t.Fatalf("GetQueueAttributes: %v", err)
	}
	return out.Attributes
}

// Peek is not SQS: it shows a queue's messages in every state, and a queue
// peeked behaves exactly as one that was not — same counts and attributes,
// the same receive results with the same receive counts, handles still
// valid, no long poll woken.
func testPeekChangesNothing(e *env) {
	if e.h.Peek == nil {
		e.t.Skip("this front door has no Peek")
	}
	std := e.createQueue("peek", map[string]string{"VisibilityTimeout": "60"})
	e.send(std, "available")
	e.sendIn(&sqs.SendMessageInput{QueueUrl: aws.String(std), MessageBody: aws.String("delayed"), DelaySeconds: 120})
	e.send(std, "inflight")
	received := e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(std), MaxNumberOfMessages: 2})
	e.diff([]string{"available", "inflight"}, bodies(received), "the two visible messages")
	e.must(changeVisibility(e, std, received[0], 0), "make the first visible again") // available, received once
	fifo := e.fifoQueue("peek.fifo", map[string]string{"VisibilityTimeout": "60", "ContentBasedDeduplication": "true"})
	for _, m := range [][2]string{{"a1", "a"}, {"a2", "a"}, {"b1", "b"}} {
		e.sendIn(&sqs.SendMessageInput{QueueUrl: aws.String(fifo), MessageBody: aws.String(m[0]), MessageGroupId: aws.String(m[1])})
	}
	head := e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(fifo), MaxNumberOfMessages: 1})
	e.diff([]string{"a1"}, bodies(head), "the FIFO queue's first message")
	sentAt := e.h.Clock.Now()

	beforeStd, beforeFIFO := e.state(std), e.state(fifo)
	peeked := e.peekAll(std, sqsq.PeekInput{})
	peekedFIFO := e.peekAll(fifo, sqsq.PeekInput{})
	var states []string
	for _, body := range []string{"available", "delayed", "inflight"} {
		states = append(states, string(peeked[body].State))
	}
	for _, body := range []string{"a1", "a2", "b1"} {
		states = append(states, string(peekedFIFO[body].State))
	}
	e.diff([]string{"available", "delayed", "inflight", "inflight", "held", "available"}, states,
		"the states Peek reports: available, delayed, in flight, and a FIFO message behind its group's in-flight one held")
	e.diff([]int{1, 0, 1, 1}, []int{peeked["available"].ReceiveCount, peeked["delayed"].ReceiveCount,
		peeked["inflight"].ReceiveCount, peekedFIFO["a1"].ReceiveCount}, "receive counts as stored")
	if u := peeked["inflight"].Until.Sub(sentAt); u < 59*time.Second || u > 61*time.Second+Slack {
		e.t.Errorf("the in-flight message is visible again %v from now, want 60 s", u)
	}
	if u := peeked["delayed"].Until.Sub(sentAt); u < 119*time.Second || u > 121*time.Second+Slack {
		e.t.Errorf("the delayed message is visible %v from now, want 120 s", u)
	}
	e.diff("a", peekedFIFO["a2"].GroupId, "a FIFO message's group")
	only := e.peekAll(std, sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateInFlight}})
	e.diff([]string{"inflight"}, sortedKeys(only), "a state filter")

	e.diff(beforeStd, e.state(std), "every attribute of the standard queue after Peek")
	e.diff(beforeFIFO, e.state(fifo), "every attribute of the FIFO queue after Peek")
	// Handles and receives are as if nobody had looked.
	e.must(changeVisibility(e, std, received[1], 60), "the in-flight message's handle still works after Peek")
	again := e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(std), MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount}})
	e.diff([]string{"available"}, bodies(again), "a receive after Peek: only the available message")
	if len(again) == 1 {
		e.diff("2", again[0].Attributes["ApproximateReceiveCount"], "Peek counted no receive")
	}
	next := e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(fifo), MaxNumberOfMessages: 10})
	e.diff([]string{"b1"}, bodies(next), "group a stays locked behind a1 after Peek; b1 is free")
}

func changeVisibility(e *env, url string, m types.Message, seconds int32) error {
	_, err := e.api().ChangeMessageVisibility(e.ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url),
		ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: seconds})
	return err
}
