package sqsq_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/state"
)

// The export and import benchmarks measure a restart of the largest
// endpoint the durable mode targets: one standard queue of 1,000,000 small
// messages, a tenth of them in flight, which a restart must have ready in
// under 5 s including the store's decoding:
//
//	go test -run '^$' -bench 'Export|Import' -benchtime 1x .
//
// ns/op is one whole Export or Import; B/op and allocs/op are what it
// allocates, the returned state or broker included.

const benchRestartMessages = 1_000_000

// benchRestart is the endpoint both benchmarks start from, built once
// (a million sends take a few seconds): its broker and its exported state.
var benchRestart = sync.OnceValues(func() (*sqsq.Broker, *state.World) {
	ctx := context.Background()
	clk := clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "restart"})
	if err != nil {
		panic(err)
	}
	entries := make([]sqsq.SendBatchEntry, 10)
	for i := 0; i < benchRestartMessages; i += len(entries) {
		for j := range entries {
			entries[j] = sqsq.SendBatchEntry{Id: strconv.Itoa(j), SendInput: sqsq.SendInput{MessageBody: "message " + strconv.Itoa(i+j)}}
		}
		if _, err := q.SendBatch(ctx, entries); err != nil {
			panic(err)
		}
		if i%(benchRestartMessages/1000) == 0 {
			clk.Add(time.Millisecond) // a send time that moves, as in life
		}
	}
	for i := 0; i < benchRestartMessages/10; i += 10 {
		if _, err := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Hour)}); err != nil {
			panic(err)
		}
	}
	w, err := state.Export(b)
	if err != nil {
		panic(err)
	}
	return b, w
})

func BenchmarkExport(b *testing.B) {
	br, _ := benchRestart()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := state.Export(br); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkImport(b *testing.B) {
	_, w := benchRestart()
	clk := clock.NewMock()
	clk.Set(time.Unix(0, w.Now))
	opts := []sqsq.Option{sqsq.WithClock(clk)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nb, err := state.Import(w, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		nb.(*sqsq.Broker).Close()
		b.StartTimer()
	}
}
