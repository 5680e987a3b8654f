package sqsq_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// The benchmarks measure each hot path at several queue depths, so growth
// with depth shows up as a difference between sub-benchmarks:
//
//	go test -run '^$' -bench . -benchtime=200000x -count=1 .
//
// Every sub-benchmark works on a standard queue holding a fixed number of
// available messages with 1 KiB bodies ("depth=1M"); the "+inflight100k"
// variants also hold 100,000 messages received with a 12-hour visibility
// timeout, so the in-flight index is large too. The clock is a mock that
// never moves during the timed loop: nothing expires behind the
// benchmark's back, and ns/op is sqsq's work alone (plus the mock's Now).
//
// Depth is kept honest by putting back, outside the timer, what the timed
// code took away (or taking away what it added), in chunks of at most
// depth/20 operations: the depth stays within 5% of its nominal value
// however large b.N is. Pre-filling depth+b.N instead would measure a queue
// 200 times deeper than "1k" at -benchtime=200000x, and stopping the timer
// around every single operation would run two stop-the-world
// runtime.ReadMemStats calls (inside StopTimer and StartTimer) per
// operation, which disturbs the caches of the very code being measured.
//
// Two things about the Go runtime, not sqsq, show in the numbers. A new
// fixture is warmed up first (see [benchFixture.warmUp]). And the GC runs
// at a pace set by the live heap: a 1k-deep queue's heap is a few MB, so
// the GC runs every ~10k operations inside the timed loop, while a 1M-deep
// queue's 240 MB heap reaches no GC within 200k operations. Shallow queues
// can therefore look slower than deep ones; to compare sqsq's own work
// across depths, run with GOGC=off GOMEMLIMIT=4GiB as well.

// benchBody is the 1 KiB body the benchmarks send. Sharing one string keeps
// a 1M-message fixture small; sqsq stores the string without copying it, so
// sharing changes nothing about the work per operation. TestMemoryPerMessage
// measures with distinct bodies.
var benchBody = strings.Repeat("x", 1024)

// benchDepth is one queue shape a benchmark runs against.
type benchDepth struct {
	name     string
	avail    int // available messages
	inflight int // messages in flight with a 12-hour visibility timeout
}

var benchDepths = []benchDepth{
	{"depth=1k", 1_000, 0},
	{"depth=100k", 100_000, 0},
	{"depth=1M", 1_000_000, 0},
	{"depth=1k+inflight100k", 1_000, 100_000},
	{"depth=100k+inflight100k", 100_000, 100_000},
	{"depth=1M+inflight100k", 1_000_000, 100_000},
}

// benchFixture is a filled queue on a mock clock.
type benchFixture struct {
	depth benchDepth
	clk   *clock.Mock
	b     *sqsq.Broker
	q     *sqsq.Queue
}

// benchCache keeps the last fixture, so the run with b.N = 1 and the timed
// run that follows (and -count repeats) fill it once. It is valid to reuse
// because every benchmark puts the queue back at its nominal depth, which
// [benchFixture.check] verifies after each run. Only one fixture is kept so
// a full run never holds several million-message queues at once.
var benchCache *benchFixture

// forEachDepth runs fn as a sub-benchmark per depth, on a filled queue.
func forEachDepth(b *testing.B, fn func(b *testing.B, f *benchFixture)) {
	for _, d := range benchDepths {
		b.Run(d.name, func(b *testing.B) {
			f := benchCache
			if f == nil || f.depth != d {
				benchCache = nil // let the old fixture go before filling the new one
				f = newBenchFixture(b, d)
				benchCache = f
			}
			runtime.GC() // don't bill the fill's garbage to the timed loop
			b.ReportAllocs()
			b.ResetTimer()
			fn(b, f)
			b.StopTimer()
			f.check(b)
		})
	}
}

// newBenchFixture fills a queue: first the in-flight messages (sent, then
// received with a 12-hour visibility, so they are the oldest), then the
// available ones.
func newBenchFixture(tb testing.TB, d benchDepth) *benchFixture {
	tb.Helper()
	ctx := context.Background()
	clk := clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	f := &benchFixture{depth: d, clk: clk, b: b, q: q}
	f.send(tb, d.inflight)
	for left := d.inflight; left > 0; {
		msgs, err := q.Receive(ctx, sqsq.ReceiveInput{
			MaxNumberOfMessages: min(left, 10),
			VisibilityTimeout:   sqsq.Some(12 * time.Hour),
		})
		if err != nil {
			tb.Fatal(err)
		}
		if len(msgs) == 0 {
			tb.Fatalf("fill: receive returned nothing with %d messages left to put in flight", left)
		}
		left -= len(msgs)
	}
	f.send(tb, d.avail)
	f.warmUp(tb, benchWarmUp)
	f.check(tb)
	return f
}

// benchWarmUp is how many send → receive → delete cycles run on a new
// fixture before it is measured.
const benchWarmUp = 200_000

// warmUp runs n cycles, leaving the depth as it was, and collects their
// garbage. Right after a fill every allocation needs a span fresh from the
// heap (mcentral.grow zeroes its heap bits), which made the first timed run
// on a new fixture up to twice as slow as later ones; a long-running
// process allocates from spans the GC has swept instead. The warm-up makes
// every timed run start from that steady state.
func (f *benchFixture) warmUp(tb testing.TB, n int) {
	tb.Helper()
	ctx := context.Background()
	in := sqsq.SendInput{MessageBody: benchBody}
	for i := 0; i < n; i++ {
		if _, err := f.q.Send(ctx, in); err != nil {
			tb.Fatal(err)
		}
		msgs, err := f.q.Receive(ctx, sqsq.ReceiveInput{})
		if err != nil || len(msgs) != 1 {
			tb.Fatalf("warm-up receive: %d messages, %v", len(msgs), err)
		}
		if err := f.q.Delete(ctx, msgs[0].ReceiptHandle); err != nil {
			tb.Fatal(err)
		}
	}
	runtime.GC()
}

// chunk is how many operations may run between two depth corrections: at
// most 5% of the depth, and at most 1,000.
func (f *benchFixture) chunk() int {
	return max(1, min(1000, f.depth.avail/20))
}

// send adds n available messages.
func (f *benchFixture) send(tb testing.TB, n int) {
	tb.Helper()
	ctx := context.Background()
	in := sqsq.SendInput{MessageBody: benchBody}
	for i := 0; i < n; i++ {
		if _, err := f.q.Send(ctx, in); err != nil {
			tb.Fatal(err)
		}
	}
}

// drain receives and deletes the n oldest available messages.
func (f *benchFixture) drain(tb testing.TB, n int) {
	tb.Helper()
	ctx := context.Background()
	for n > 0 {
		msgs, err := f.q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: min(n, 10)})
		if err != nil {
			tb.Fatal(err)
		}
		if len(msgs) == 0 {
			tb.Fatalf("drain: receive returned nothing with %d messages left to drain", n)
		}
		for _, m := range msgs {
			if err := f.q.Delete(ctx, m.ReceiptHandle); err != nil {
				tb.Fatal(err)
			}
		}
		n -= len(msgs)
	}
}

// check fails unless the queue is at its nominal depth.
func (f *benchFixture) check(tb testing.TB) {
	tb.Helper()
	s, err := f.q.Stats()
	if err != nil {
		tb.Fatal(err)
	}
	if s.Visible != f.depth.avail || s.InFlight != f.depth.inflight || s.Delayed != 0 {
		tb.Fatalf("queue left at visible=%d in flight=%d delayed=%d, want %d, %d, 0",
			s.Visible, s.InFlight, s.Delayed, f.depth.avail, f.depth.inflight)
	}
}

// BenchmarkSend measures SendMessage of a 1 KiB body. After each chunk the
// oldest messages are received and deleted, untimed, to restore the depth.
func BenchmarkSend(b *testing.B) {
	forEachDepth(b, func(b *testing.B, f *benchFixture) {
		ctx := context.Background()
		in := sqsq.SendInput{MessageBody: benchBody}
		for i := 0; i < b.N; {
			n := min(f.chunk(), b.N-i)
			for j := 0; j < n; j++ {
				if _, err := f.q.Send(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
			i += n
			b.StopTimer()
			f.drain(b, n)
			b.StartTimer()
		}
	})
}

// BenchmarkReceiveDelete measures a receive of one message (the oldest)
// followed by the delete of its handle. After each chunk as many messages
// are sent again, untimed, so the depth stays within 5% of nominal.
func BenchmarkReceiveDelete(b *testing.B) {
	forEachDepth(b, func(b *testing.B, f *benchFixture) {
		ctx := context.Background()
		for i := 0; i < b.N; {
			n := min(f.chunk(), b.N-i)
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
			}
			i += n
			b.StopTimer()
			f.send(b, n)
			b.StartTimer()
		}
	})
}

// BenchmarkCycle measures one message's whole life: send a 1 KiB body,
// receive (which returns the oldest available message, not the one just
// sent) and delete it. Each cycle adds one message and removes one, so the
// depth is constant without any correction.
func BenchmarkCycle(b *testing.B) {
	forEachDepth(b, func(b *testing.B, f *benchFixture) {
		ctx := context.Background()
		in := sqsq.SendInput{MessageBody: benchBody}
		for i := 0; i < b.N; i++ {
			if _, err := f.q.Send(ctx, in); err != nil {
				b.Fatal(err)
			}
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
		}
	})
}

// BenchmarkChangeVisibility measures ChangeMessageVisibility with the latest
// handle of one in-flight message, alternating 60 s and 120 s so the message
// stays in flight and every call moves its deadline (the 60 s entries sort
// below the 120 s ones, so half the pushes take the index's out-of-order
// path). The clock does not move, so the 12-hour budget never runs out.
func BenchmarkChangeVisibility(b *testing.B) {
	timeouts := [2]time.Duration{60 * time.Second, 120 * time.Second}
	forEachDepth(b, func(b *testing.B, f *benchFixture) {
		ctx := context.Background()
		b.StopTimer()
		msgs, err := f.q.Receive(ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(timeouts[1])})
		if err != nil || len(msgs) != 1 {
			b.Fatalf("receive: %d messages, %v", len(msgs), err)
		}
		h := msgs[0].ReceiptHandle
		b.StartTimer()
		for i := 0; i < b.N; i++ {
			if err := f.q.ChangeVisibility(ctx, h, timeouts[i&1]); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		// Visible again at once: the depth is back where it was.
		if err := f.q.ChangeVisibility(ctx, h, 0); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkParallel runs the send → receive → delete cycle from
// GOMAXPROCS goroutines at once on one queue (b.RunParallel): every
// goroutine is both producer and consumer. Each goroutine sends before it
// receives, so at least depth−GOMAXPROCS messages are always available and
// no receive comes back empty.
func BenchmarkParallel(b *testing.B) {
	forEachDepth(b, func(b *testing.B, f *benchFixture) {
		var empty atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			in := sqsq.SendInput{MessageBody: benchBody}
			for pb.Next() {
				if _, err := f.q.Send(ctx, in); err != nil {
					b.Error(err)
					return
				}
				msgs, err := f.q.Receive(ctx, sqsq.ReceiveInput{})
				if err != nil {
					b.Error(err)
					return
				}
				if len(msgs) == 0 {
					empty.Add(1)
					continue
				}
				if err := f.q.Delete(ctx, msgs[0].ReceiptHandle); err != nil {
					b.Error(err)
					return
				}
			}
		})
		if n := empty.Load(); n > 0 {
			b.Fatalf("%d receives came back empty", n)
		}
	})
}

// TestMemoryPerMessage measures the heap a stored message costs, its 1 KiB
// body included: the HeapAlloc growth, after a GC, from sending 1M messages
// with distinct bodies, divided by 1M. It then puts them all in flight and
// measures again. It takes a few seconds and a few GB, so it runs only with
// SQSQ_MEMTEST=1:
//
//	SQSQ_MEMTEST=1 go test -run TestMemoryPerMessage -v .
//
// It does not call t.Parallel: other tests allocating at the same time
// would be counted too.
func TestMemoryPerMessage(t *testing.T) {
	if os.Getenv("SQSQ_MEMTEST") != "1" {
		t.Skip("set SQSQ_MEMTEST=1 to measure the memory per stored message")
	}
	const (
		n        = 1_000_000
		bodySize = 1024
	)
	ctx := context.Background()
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()), sqsq.WithInFlightLimit(n))
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "memory"})
	if err != nil {
		t.Fatal(err)
	}

	base := heapAlloc()
	buf := make([]byte, bodySize)
	for i := 0; i < n; i++ {
		// A distinct body per message: its number, then a letter that varies.
		// string(buf) copies buf into a fresh 1,024-byte allocation.
		digits := strconv.AppendInt(buf[:0], int64(i), 10)
		for j := len(digits); j < bodySize; j++ {
			buf[j] = 'a' + byte(i%26)
		}
		if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: string(buf)}); err != nil {
			t.Fatal(err)
		}
	}
	stored := heapAlloc()
	perStored := float64(stored-base) / n
	t.Logf("available: %.0f bytes per message (%d-byte body + %.0f bytes of bookkeeping)",
		perStored, bodySize, perStored-bodySize)

	for left := n; left > 0; {
		msgs, err := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(12 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			t.Fatalf("receive returned nothing with %d messages left", left)
		}
		left -= len(msgs)
	}
	inflight := heapAlloc()
	perInflight := float64(inflight-base) / n
	t.Logf("in flight: %.0f bytes per message (%d-byte body + %.0f bytes of bookkeeping)",
		perInflight, bodySize, perInflight-bodySize)

	s, err := q.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if s.InFlight != n {
		t.Fatalf("in flight = %d, want %d", s.InFlight, n)
	}
	runtime.KeepAlive(q)
}

// heapAlloc returns the live heap after a full collection.
func heapAlloc() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
