//go:build go1.25

package sqsq_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sqsq/sqsq"
)

// TestOrders is the README's synctest test, kept here so it cannot rot.
func TestOrders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		b := sqsq.NewBroker() // created inside the bubble: its clock is the bubble's
		defer b.Close()
		q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
		got := make(chan []sqsq.Message, 1)
		go func() {
			msgs, _ := q.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
			got <- msgs
		}()
		synctest.Wait()             // the receive is parked
		time.Sleep(5 * time.Second) // instant in the bubble
		q.Send(ctx, sqsq.SendInput{MessageBody: "order-1"})
		msgs := <-got                // woken by the send, at once
		time.Sleep(30 * time.Second) // not deleted: visible again
		again, _ := q.Receive(ctx, sqsq.ReceiveInput{})
		if again[0].MessageId != msgs[0].MessageId {
			t.Fatal("redelivered after the visibility timeout")
		}
	})
}
