package durable_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/durable"
)

// Keep a broker's queues and messages across a restart of a Go program:
// snapshot and save at shutdown, load and restore at the next start. A
// message in flight stays in flight, and its receipt handle still works.
func ExampleRestore() {
	dir, err := os.MkdirTemp("", "sqsq-data")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	clk := clock.NewMock()

	b := sqsq.NewBroker(sqsq.WithClock(clk))
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	_, _ = q.Send(ctx, sqsq.SendInput{MessageBody: "order 1"})
	held, _ := q.Receive(ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(30 * time.Second)})

	store, err := durable.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	w, err := durable.Snapshot(b)
	if err != nil {
		log.Fatal(err)
	}
	if err := store.Save(w); err != nil {
		log.Fatal(err)
	}
	_ = b.Close()
	_ = store.Close()

	// The next start.
	store, err = durable.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	if w, err = store.Load(); err != nil {
		log.Fatal(err)
	}
	b, err = durable.Restore(w, sqsq.WithClock(clk))
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	q, _ = b.GetQueue(ctx, "orders")
	st, _ := q.Stats()
	fmt.Println("in flight after the restart:", st.InFlight)
	fmt.Println("delete with the handle of before:", q.Delete(ctx, held[0].ReceiptHandle))
	// Output:
	// in flight after the restart: 1
	// delete with the handle of before: <nil>
}
