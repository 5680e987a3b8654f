package sqsq_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// BenchmarkPeek measures one page of 100 messages (one op) at depths of 1k,
// 100k and 1M messages, so that a cost growing with the queue would show
// as a difference between depths:
//
//	go test -run '^$' -bench BenchmarkPeek -benchtime=20000x -count=1 .
//
// On a standard queue of 1 KiB available messages (the fixture of
// bench_test.go): the first page, a page from a cursor in the middle, a
// walk that pages through the whole queue (starting over at the end), and a
// filter that no message matches, which stops after its scan budget of
// 10,000 messages with a cursor. On a FIFO queue whose 10 groups each
// have their first message in flight, so that every other message is held:
// a page from the middle of the queue, and one from the middle of one
// group (a GroupId filter walks that group's own list).
func BenchmarkPeek(b *testing.B) {
	for _, d := range benchDepths[:3] {
		b.Run(d.name, func(b *testing.B) {
			f := benchCache
			if f == nil || f.depth != d {
				benchCache = nil
				f = newBenchFixture(b, d)
				benchCache = f
			}
			q := f.q
			mid := peekCursorAt(b, q, sqsq.PeekInput{}, d.avail/2)
			b.Run("standard/first", func(b *testing.B) {
				benchPeekPages(b, q, sqsq.PeekInput{}, false)
			})
			b.Run("standard/middle", func(b *testing.B) {
				benchPeekPages(b, q, sqsq.PeekInput{Cursor: mid}, false)
			})
			b.Run("standard/walk", func(b *testing.B) {
				benchPeekPages(b, q, sqsq.PeekInput{}, true)
			})
			b.Run("standard/filter-matching-none", func(b *testing.B) {
				benchPeekPages(b, q, sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateInFlight}}, true)
			})
			f.check(b)

			fq := newPeekFIFOBench(b, d.avail)
			b.Run("fifo-held/middle", func(b *testing.B) {
				benchPeekPages(b, fq, sqsq.PeekInput{Cursor: peekCursorAt(b, fq, sqsq.PeekInput{}, d.avail/2)}, false)
			})
			b.Run("fifo-held/group-middle", func(b *testing.B) {
				in := sqsq.PeekInput{GroupId: "g-3"}
				in.Cursor = peekCursorAt(b, fq, in, max(0, d.avail/20-100)) // the group's middle page
				benchPeekPages(b, fq, in, false)
			})
		})
	}
}

// benchPeekPages peeks b.N pages of 100 with in: the same page every time,
// or, with walk, the next page each time.
func benchPeekPages(b *testing.B, q *sqsq.Queue, in sqsq.PeekInput, walk bool) {
	ctx := context.Background()
	in.Limit = 100
	start := in.Cursor
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := q.Peek(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		if !walk {
			if len(out.Messages) != 100 {
				b.Fatalf("a page of %d messages", len(out.Messages))
			}
			continue
		}
		in.Cursor = out.NextCursor
		if in.Cursor == "" {
			in.Cursor = start
		}
	}
}

// peekCursorAt returns the cursor after the first n messages that in
// selects, paging untimed.
func peekCursorAt(b *testing.B, q *sqsq.Queue, in sqsq.PeekInput, n int) string {
	b.Helper()
	for n > 0 {
		in.Limit = min(n, 1000)
		out, err := q.Peek(context.Background(), in)
		if err != nil || out.NextCursor == "" {
			b.Fatalf("Peek: %d messages, cursor %q, %v", len(out.Messages), out.NextCursor, err)
		}
		n -= len(out.Messages)
		in.Cursor = out.NextCursor
	}
	return in.Cursor
}

// newPeekFIFOBench fills a FIFO queue with n messages of 1 KiB over 10
// groups, and puts each group's first message in flight.
func newPeekFIFOBench(b *testing.B, n int) *sqsq.Queue {
	b.Helper()
	ctx := context.Background()
	broker := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
	q, err := broker.CreateQueue(ctx, sqsq.CreateQueueInput{
		QueueName:  "peek.fifo",
		Attributes: sqsq.QueueAttributes{FifoQueue: sqsq.Some(true)},
	})
	if err != nil {
		b.Fatal(err)
	}
	groups := make([]string, 10)
	for i := range groups {
		groups[i] = "g-" + strconv.Itoa(i)
	}
	for i := 0; i < n; i++ {
		in := sqsq.SendInput{MessageBody: benchBody, MessageGroupId: groups[i%10], MessageDeduplicationId: strconv.Itoa(i)}
		if _, err := q.Send(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	for range groups {
		msgs, err := q.Receive(ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(12 * time.Hour)})
		if err != nil || len(msgs) != 1 {
			b.Fatalf("locking a group: %d messages, %v", len(msgs), err)
		}
	}
	return q
}
