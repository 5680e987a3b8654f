package history_test

import (
	"context"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/history"
)

// A consumer that was too slow: its message came back to a second
// consumer, and its late delete, with the first (stale) handle, removed
// nothing. The history shows both receives and both deletes.
func Example() {
	ctx := context.Background()
	clk := clock.NewMock()
	start := clk.Now()
	rec := history.New()
	b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithObserver(rec))
	defer b.Close()
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	sent, _ := q.Send(ctx, sqsq.SendInput{MessageBody: `{"order":1}`})

	in := sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(30 * time.Second)}
	slow, _ := q.Receive(ctx, in) // the first consumer takes too long
	clk.Add(30 * time.Second)
	fast, _ := q.Receive(ctx, in) // the second gets the message again
	_ = q.Delete(ctx, fast[0].ReceiptHandle)
	clk.Add(5 * time.Second)
	_ = q.Delete(ctx, slow[0].ReceiptHandle) // the first finishes, late

	h, _ := rec.Message(sent.MessageId)
	fmt.Println("history of", h.Body, "on", h.Queue)
	for _, e := range h.Entries {
		fmt.Printf("t=%v %s receives=%d removed=%v\n", e.At.Sub(start), e.Kind, e.ReceiveCount, e.Removed)
	}
	// Output:
	// history of {"order":1} on orders
	// t=0s sent receives=0 removed=false
	// t=0s received receives=1 removed=false
	// t=30s received receives=2 removed=false
	// t=30s deleted receives=2 removed=true
	// t=35s deleted receives=0 removed=false
}
