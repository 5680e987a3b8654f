package sqsq_test

import (
	"context"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/state"
)

// BenchmarkJournal measures what the change journal (journal.go) adds to
// a send, receive and delete of one message on a small standard queue:
// "none" has no journal installed (each hook is a nil check; compare with
// BenchmarkCycle/depth=1k, or with this sub-benchmark on a tree without
// the journal), "collecting" keeps every record as a store's buffer would
// before a group commit.
//
//	go test -run '^$' -bench Journal -benchtime=200000x -count=5 .
func BenchmarkJournal(b *testing.B) {
	run := func(b *testing.B, opts ...sqsq.Option) {
		ctx := context.Background()
		br := sqsq.NewBroker(append([]sqsq.Option{sqsq.WithClock(clock.NewMock())}, opts...)...)
		defer br.Close()
		q, err := br.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		in := sqsq.SendInput{MessageBody: benchBody}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := q.Send(ctx, in); err != nil {
				b.Fatal(err)
			}
			msgs, err := q.Receive(ctx, sqsq.ReceiveInput{})
			if err != nil {
				b.Fatal(err)
			}
			if len(msgs) != 1 {
				b.Fatalf("receive returned %d messages, want 1", len(msgs))
			}
			if err := q.Delete(ctx, msgs[0].ReceiptHandle); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("none", func(b *testing.B) { run(b) })
	b.Run("collecting", func(b *testing.B) {
		var recs []state.Change
		j := state.Journal(func(c state.Change) {
			if len(recs) == 4096 { // a commit: the buffer is written and reused
				clear(recs)
				recs = recs[:0]
			}
			recs = append(recs, c)
		}).(sqsq.Option)
		run(b, j)
	})
}
