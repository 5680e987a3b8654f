package durable_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/durable"
)

// Durable mode in a Go program: every change is written as it is made,
// and Sync returns once the calls before it are on disk, so they survive
// a crash. The next start restores the broker from the store.
func ExampleStore_Attach() {
	dir, err := os.MkdirTemp("", "sqsq-data")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	// open builds the broker from what the store holds, or a new one.
	open := func() (*durable.Store, *sqsq.Broker) {
		store, err := durable.Open(dir)
		if err != nil {
			log.Fatal(err)
		}
		w, err := store.Load()
		if err != nil {
			log.Fatal(err)
		}
		var b *sqsq.Broker
		if w == nil {
			b = sqsq.NewBroker(store.Journal())
		} else if b, err = durable.Restore(w, store.Journal()); err != nil {
			log.Fatal(err)
		}
		if err := store.Attach(b); err != nil {
			log.Fatal(err)
		}
		return store, b
	}

	store, b := open()
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	_, _ = q.Send(ctx, sqsq.SendInput{MessageBody: "order 1"})
	if err := store.Sync(ctx); err != nil { // on disk from here on
		log.Fatal(err)
	}
	b.Close()
	_ = store.Close()

	store, b = open() // the next start
	defer store.Close()
	defer b.Close()
	q, _ = b.GetQueue(ctx, "orders")
	got, _ := q.Receive(ctx, sqsq.ReceiveInput{})
	fmt.Println(got[0].Body)
	// Output: order 1
}
