//go:build go1.25

package sqsq_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sqsq/sqsq"
)

// TestExampleSynctest is the README's synctest example: sqsq.NewBroker()
// with its default real clock inside a synctest bubble (Go 1.25+). Sleeps
// and long polls take no real time, and synctest.Wait() says when every
// goroutine, the parked receiver included, is blocked: no mock clock, no
// handshake with the broker.
func TestExampleSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		b := sqsq.NewBroker() // created inside the bubble: its clock is the bubble's
		defer b.Close()
		q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
		if err != nil {
			t.Fatal(err)
		}

		// A consumer long-polls for 20 s.
		got := make(chan []sqsq.Message, 1)
		go func() {
			msgs, _ := q.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
			got <- msgs
		}()
		synctest.Wait()             // the receive is parked
		time.Sleep(5 * time.Second) // instant in the bubble
		start := time.Now()
		if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "order-1"}); err != nil {
			t.Fatal(err)
		}
		msgs := <-got
		if len(msgs) != 1 || time.Since(start) != 0 {
			t.Fatalf("got %d messages %v after the send; want the order at once", len(msgs), time.Since(start))
		}

		// Not deleted: it is back after the 30 s visibility timeout.
		time.Sleep(30 * time.Second)
		again, err := q.Receive(ctx, sqsq.ReceiveInput{})
		if err != nil || len(again) != 1 || again[0].MessageId != msgs[0].MessageId {
			t.Fatalf("after 30 s: %v, %v; want the same message again", again, err)
		}
	})
}
