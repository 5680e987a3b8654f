package sqsq_test

import (
	"context"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// TestReadmeRedelivery is the README's test on a mock clock, kept here so
// it cannot rot.
func TestReadmeRedelivery(t *testing.T) {
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
