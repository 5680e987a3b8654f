package sqsq_test

import (
	"context"
	gofmt "fmt"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// TestRedelivery is the README's test on a mock clock, kept here so
// it cannot rot.
func TestRedelivery(t *testing.T) {
	ctx, clk := context.Background(), clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	q.Send(ctx, sqsq.SendInput{MessageBody: "order-1"})
	first, _ := q.Receive(ctx, sqsq.ReceiveInput{}) // hidden for 30 s
	clk.Add(30 * time.Second)                       // the consumer "crashed"
	again, _ := q.Receive(ctx, sqsq.ReceiveInput{}) // redelivered, new handle
	if first[0].ReceiptHandle == again[0].ReceiptHandle {
		t.Fatal("receipt handles rotate")
	}
	q.Delete(ctx, again[0].ReceiptHandle)
}

// TestReadmeLongPoll is the README's long poll on a mock clock.
func TestReadmeLongPoll(t *testing.T) {
	ctx, clk := context.Background(), clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})

	done := make(chan []sqsq.Message, 1)
	go func() {
		msgs, _ := q.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		done <- msgs
	}()
	q.WaitForReceivers(ctx, 1) // returns once the receiver's timer is armed
	clk.Add(20 * time.Second)
	msgs := <-done // empty: the wait ended

	if len(msgs) != 0 {
		t.Fatalf("got %d messages, want none", len(msgs))
	}
}

// TestReadmePeek is the README's look at a queue with Peek.
func TestReadmePeek(t *testing.T) {
	ctx, clk := context.Background(), clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	q.Send(ctx, sqsq.SendInput{MessageBody: "order-1"})
	q.Receive(ctx, sqsq.ReceiveInput{})
	clk.Add(10 * time.Second)

	// fmt records what the README's snippet prints, so the test checks it.
	var printed []string
	fmt := struct{ Println func(...any) }{func(a ...any) { printed = append(printed, gofmt.Sprintln(a...)) }}
	out, _ := q.Peek(ctx, sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateInFlight}})
	for _, m := range out.Messages {
		fmt.Println(m.Body, m.ReceiveCount, m.Until.Sub(clk.Now())) // order-1 1 20s
	}

	if len(printed) != 1 || printed[0] != "order-1 1 20s\n" {
		t.Errorf("printed %q, want order-1 1 20s", printed)
	}
}
