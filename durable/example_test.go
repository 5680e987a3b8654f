package durable_test

import (
	"fmt"
	"log"
	"os"

	"github.com/sqsq/sqsq/durable"
	"github.com/sqsq/sqsq/internal/state"
)

// Save the state before a shutdown and load it at the next start.
func Example() {
	dir, err := os.MkdirTemp("", "sqsq-data")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	store, err := durable.Open(dir, durable.Version("sqsq example"))
	if err != nil {
		log.Fatal(err) // ErrInUse, ErrFormat, ErrDamaged: the message says what to do
	}
	w := &state.World{Scopes: []state.Scope{{
		Account: "000000000000", Region: "us-east-1",
		Queues: []state.Queue{{ID: 1, Name: "orders", Seq: 1, Messages: []state.Message{
			{ID: "m1", Body: "hello", Seq: 1, State: state.Available, FirstReceiveAt: state.NotReceived},
		}}},
	}}}
	if err := store.Save(w); err != nil {
		log.Fatal(err)
	}
	if err := store.Close(); err != nil {
		log.Fatal(err)
	}

	// The next start.
	store, err = durable.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	got, err := store.Load()
	if err != nil {
		log.Fatal(err)
	}
	q := got.Scopes[0].Queues[0]
	fmt.Println(q.Name, q.Messages[0].ID, q.Messages[0].Body)
	// Output: orders m1 hello
}
