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

// BenchmarkFIFO measures the FIFO hot paths at several queue shapes:
//
//	go test -run '^$' -bench FIFO -benchtime=100000x .
//
// A shape is a FIFO queue holding depth available messages (1 KiB bodies,
// the shared benchBody) spread round-robin over a number of groups, plus
// optionally 10,000 more groups that are locked: each has its head in
// flight with a 12-hour visibility timeout and one message waiting behind
// it. The operations:
//
//   - ReceiveDelete: receive one message, delete it, and send one back to the
//     same group, so depth and groups stay exactly nominal. Compare with
//     BenchmarkCycle on a standard queue.
//   - Send: a send with a new deduplication id (stored); after each chunk
//     the oldest messages are received and deleted, untimed, as in
//     BenchmarkSend.
//   - SendDuplicate: a send whose deduplication id is in the cache: answered
//     with the original's id, nothing stored.
//
// The clock never moves, so nothing expires behind the benchmark's back;
// that includes deduplication ids, so the cache holds every id sent since
// the fill (depth + b.N entries at the end of a run), as a queue sending
// that fast for five minutes would. Deduplication ids are made untimed, in
// chunks, so ns/op and allocs/op are sqsq's work alone.
//
// The fill ends with untimed warm-up cycles (receive, delete, send back):
// a FIFO queue's indexes keep entries of received messages until they
// compact, so at 1M messages the first 50k cycles grow them past 2^20
// entries, a one-time reallocation of tens of MB plus the GC work it
// triggers. Without the warm-up that cost lands on whichever sub-benchmark
// crosses the boundary (the first ReceiveDelete at 1M measured ~20 µs/op
// and 2 KB/op instead of ~5 µs/op and 600 B/op in later runs).
func BenchmarkFIFO(b *testing.B) {
	for _, shape := range fifoBenchShapes {
		b.Run(shape.name, func(b *testing.B) {
			f := fifoBenchCache
			if f == nil || f.shape != shape {
				fifoBenchCache = nil // let the old fixture go before filling the new one
				f = newFIFOBenchFixture(b, shape)
				fifoBenchCache = f
			}
			// Send changes the depth until its chunk is drained: its chunks
			// are at most 5% of the depth, as in BenchmarkSend.
			sendChunk := max(1, min(fifoBenchIDChunk, shape.depth/20))
			b.Run("ReceiveDelete", func(b *testing.B) {
				f.run(b, fifoBenchIDChunk, func(b *testing.B, n int) { f.receiveDelete(b, n) })
			})
			b.Run("Send", func(b *testing.B) { f.run(b, sendChunk, f.sendNew) })
			b.Run("SendDuplicate", func(b *testing.B) { f.run(b, fifoBenchIDChunk, f.sendDuplicate) })
		})
	}
}

// fifoBenchShape is one queue shape BenchmarkFIFO runs against.
type fifoBenchShape struct {
	name   string
	depth  int // available messages in receivable groups
	groups int // groups the depth is spread over
	locked int // extra groups with their head in flight and one message behind it
}

var fifoBenchShapes = []fifoBenchShape{
	{"depth=1k,groups=1", 1_000, 1, 0},
	{"depth=1k,groups=1k", 1_000, 1_000, 0},
	{"depth=1M,groups=1", 1_000_000, 1, 0},
	{"depth=1M,groups=1k", 1_000_000, 1_000, 0},
	{"depth=1M,groups=100k", 1_000_000, 100_000, 0},
	{"depth=1M,groups=1+locked10k", 1_000_000, 1, 10_000},
	{"depth=1M,groups=1k+locked10k", 1_000_000, 1_000, 10_000},
	{"depth=1M,groups=100k+locked10k", 1_000_000, 100_000, 10_000},
}

// fifoBenchCache keeps the last fixture, so the three operations of a shape,
// the run with b.N = 1 and the timed run share one fill. Every operation
// puts the queue back at its nominal shape, which check verifies.
var fifoBenchCache *fifoBenchFixture

// fifoBenchIDChunk is how many deduplication ids are made, untimed, at once.
const fifoBenchIDChunk = 10_000

type fifoBenchFixture struct {
	shape  fifoBenchShape
	q      *sqsq.Queue
	names  []string // group names, precomputed so the timed loop does not build them
	next   int      // round-robin position: the group of the next send
	serial int      // deduplication ids made so far
	ids    []string // ids for the current chunk
	dupID  string   // an id in the deduplication cache
}

func newFIFOBenchFixture(tb testing.TB, shape fifoBenchShape) *fifoBenchFixture {
	tb.Helper()
	ctx := context.Background()
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{
		QueueName:  "bench.fifo",
		Attributes: sqsq.QueueAttributes{FifoQueue: sqsq.Some(true)},
	})
	if err != nil {
		tb.Fatal(err)
	}
	f := &fifoBenchFixture{shape: shape, q: q}
	for i := 0; i < shape.groups; i++ {
		f.names = append(f.names, "g-"+strconv.Itoa(i))
	}
	// The locked groups go first: their heads are the oldest messages, so
	// receives of one message take exactly one head per group.
	for i := 0; i < shape.locked; i++ {
		name := "locked-" + strconv.Itoa(i)
		for j := 0; j < 2; j++ {
			f.mustSend(tb, name, f.newID())
		}
	}
	for i := 0; i < shape.locked; i++ {
		msgs, err := q.Receive(ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(12 * time.Hour)})
		if err != nil || len(msgs) != 1 {
			tb.Fatalf("locking group %d: %d messages, %v", i, len(msgs), err)
		}
	}
	for i := 0; i < shape.depth; i++ {
		f.mustSend(tb, f.names[i%shape.groups], f.newID())
	}
	f.next = shape.depth % shape.groups
	f.dupID = "dedup-0"
	for left := min(shape.depth/10, 100_000); left > 0; {
		n := min(left, fifoBenchIDChunk)
		f.refill(n)
		f.receiveDelete(tb, n)
		left -= n
	}
	f.check(tb)
	runtime.GC() // don't bill the fill's garbage to the first timed loop
	return f
}

// newID returns a deduplication id never used before.
func (f *fifoBenchFixture) newID() string {
	id := "dedup-" + strconv.Itoa(f.serial)
	f.serial++
	return id
}

// refill makes the ids of the next chunk, for the timer to be stopped around.
func (f *fifoBenchFixture) refill(n int) {
	f.ids = f.ids[:0]
	for i := 0; i < n; i++ {
		f.ids = append(f.ids, f.newID())
	}
}

func (f *fifoBenchFixture) mustSend(tb testing.TB, group, dedupID string) {
	tb.Helper()
	_, err := f.q.Send(context.Background(), sqsq.SendInput{
		MessageBody: benchBody, MessageGroupId: group, MessageDeduplicationId: dedupID,
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// run times op over b.N operations in chunks of at most chunk; op does n
// operations and returns with the timer running.
func (f *fifoBenchFixture) run(b *testing.B, chunk int, op func(b *testing.B, n int)) {
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; {
		n := min(chunk, b.N-i)
		b.StopTimer()
		f.refill(n)
		b.StartTimer()
		op(b, n)
		i += n
	}
	b.StopTimer()
	f.check(b)
}

// receiveDelete receives the message at the head of the earliest group,
// deletes it and sends one back. Fills are round-robin, so the group served
// next is always the next in round-robin order: the send goes back to the
// group just served.
func (f *fifoBenchFixture) receiveDelete(b testing.TB, n int) {
	ctx := context.Background()
	in := sqsq.SendInput{MessageBody: benchBody}
	for j := 0; j < n; j++ {
		msgs, err := f.q.Receive(ctx, sqsq.ReceiveInput{})
		if err != nil {
			b.Fatal(err)
		}
		if len(msgs) != 1 {
			b.Fatalf("receive returned %d messages, want 1", len(msgs))
		}
		if err := f.q.Delete(ctx, msgs[0].ReceiptHandle); err != nil {
			b.Fatal(err)
		}
		in.MessageGroupId, in.MessageDeduplicationId = f.names[f.next], f.ids[j]
		if _, err := f.q.Send(ctx, in); err != nil {
			b.Fatal(err)
		}
		f.next = (f.next + 1) % len(f.names)
	}
}

// sendNew sends n new messages round-robin over the groups, then, untimed,
// receives and deletes the n oldest.
func (f *fifoBenchFixture) sendNew(b *testing.B, n int) {
	ctx := context.Background()
	in := sqsq.SendInput{MessageBody: benchBody}
	for j := 0; j < n; j++ {
		in.MessageGroupId, in.MessageDeduplicationId = f.names[f.next], f.ids[j]
		if _, err := f.q.Send(ctx, in); err != nil {
			b.Fatal(err)
		}
		f.next = (f.next + 1) % len(f.names)
	}
	b.StopTimer()
	for left := n; left > 0; {
		msgs, err := f.q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 1})
		if err != nil || len(msgs) != 1 {
			b.Fatalf("drain: %d messages, %v", len(msgs), err)
		}
		if err := f.q.Delete(ctx, msgs[0].ReceiptHandle); err != nil {
			b.Fatal(err)
		}
		left--
	}
	b.StartTimer()
}

// sendDuplicate sends n duplicates of a message sent during the fill.
func (f *fifoBenchFixture) sendDuplicate(b *testing.B, n int) {
	ctx := context.Background()
	in := sqsq.SendInput{MessageBody: benchBody, MessageGroupId: f.names[0], MessageDeduplicationId: f.dupID}
	for j := 0; j < n; j++ {
		res, err := f.q.Send(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		if res.MessageId == "" {
			b.Fatal("duplicate send returned no message id")
		}
	}
}

// check fails unless the queue has its nominal shape.
func (f *fifoBenchFixture) check(tb testing.TB) {
	tb.Helper()
	s, err := f.q.Stats()
	if err != nil {
		tb.Fatal(err)
	}
	sh := f.shape
	got := [5]int{s.Visible, s.InFlight, s.Delayed, s.Groups, s.LockedGroups}
	want := [5]int{sh.depth + sh.locked, sh.locked, 0, sh.groups + sh.locked, sh.locked}
	if got != want {
		tb.Fatalf("queue left at [visible inflight delayed groups locked] = %v, want %v", got, want)
	}
}
