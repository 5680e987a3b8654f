package sqsqtest

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// The kit's helpers take the smallest testing interface they need, so they
// work under *testing.T, *testing.B and *rapid.T alike, and call Helper
// when the value has it (all three do), so a failure names the caller's
// line, not the kit's.

// Fataler is what a helper needs to fail a test.
type Fataler interface {
	Fatalf(format string, args ...any)
}

// CleanupFataler is what a helper needs to fail a test and register cleanup.
type CleanupFataler interface {
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// CleanupLogger is what a helper needs to report something after a failed
// test.
type CleanupLogger interface {
	Cleanup(func())
	Failed() bool
	Logf(format string, args ...any)
}

// helperT is a test that can mark helpers. Each reporting function of the
// kit asserts it and calls Helper itself: Helper marks the function that
// calls it, so a shared func helper(t) would mark only itself.
type helperT interface{ Helper() }

// Epoch is the instant every clock the kit makes starts at: a fixed date, so
// that timestamps in test output are the same on every run.
var Epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// NewBroker returns a Broker on a mock clock set to [Epoch], with a
// [Recorder] installed (so [History] works) and opts applied after the
// kit's own. The broker is closed when the test ends, which wakes every
// parked receive; the cleanup then checks that every long poll has returned
// (a receive still parked is reported as a leak). Pair the kit with goleak
// in TestMain to check the rest of your goroutines.
func NewBroker(t CleanupFataler, opts ...sqsq.Option) (*sqsq.Broker, *clock.Mock) {
	if h, ok := t.(helperT); ok {
		h.Helper() // here, in the function that reports: Helper marks its caller
	}
	clk := clock.NewMock()
	clk.Set(Epoch)
	rec := NewRecorder()
	all := append([]sqsq.Option{sqsq.WithClock(clk), sqsq.WithObserver(rec)}, opts...)
	b := sqsq.NewBroker(all...)
	register(rec)
	t.Cleanup(func() {
		if h, ok := t.(helperT); ok {
			h.Helper() // a leak is reported at the NewBroker call
		}
		_ = b.Close()
		unregister(rec)
		// Close has woken every parked receive; they return at once. The
		// bound only turns a leak into a failure instead of a hang.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.WaitIdle(ctx); err != nil {
			t.Fatalf("sqsqtest: a receive was still parked after the broker closed: %v", err)
		}
	})
	return b, clk
}

// clockLimit bounds the clocks Advance moves: they stay before this
// instant. sqsq keeps times as int64 Unix nanoseconds, which end at
// 2262-04-11T23:47:16.854775807Z; the 100 days left over cover every
// deadline a broker sets ahead of now (retention, at most 14 days, is the
// longest).
var clockLimit = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)

// Advance moves a mock clock forward by d and returns the new time. Time
// moves only here, so nothing waits on the wall clock; wait with
// [WaitParked] first if a long poll must see the move.
//
// Move a mock from one goroutine, or only through Advance: clock.Mock.Add
// is not safe for concurrent use (concurrent Adds lose time and move Now
// backwards), so Advance serialises the moves of each mock and concurrent
// Advances add up exactly. It fails the test if d is negative or would take
// the clock to 2262 (sqsq's times are int64 nanoseconds, which end in April
// 2262); zero is a no-op.
func Advance(t Fataler, clk *clock.Mock, d time.Duration) time.Time {
	if h, ok := t.(helperT); ok {
		h.Helper() // here, in the function that reports: Helper marks its caller
	}
	mu := moveLock(clk)
	mu.Lock()
	now := clk.Now()
	switch {
	case d < 0:
		mu.Unlock()
		t.Fatalf("sqsqtest.Advance: negative duration %v", d)
		return now
	case !now.Add(d).Before(clockLimit):
		mu.Unlock()
		t.Fatalf("sqsqtest.Advance(%v): the clock would reach %v; it must stay before %v", d, now.Add(d), clockLimit)
		return now
	}
	clk.Add(d)
	now = clk.Now()
	mu.Unlock()
	return now
}

// moveLocks holds one mutex per mock that Advance has moved. The key is
// weak and a cleanup drops the entry, so a finished test's mock (and the
// timers it holds) can be collected.
var moveLocks sync.Map // weak.Pointer[clock.Mock] → *sync.Mutex

func moveLock(clk *clock.Mock) *sync.Mutex {
	k := weak.Make(clk)
	if mu, ok := moveLocks.Load(k); ok {
		return mu.(*sync.Mutex)
	}
	mu, loaded := moveLocks.LoadOrStore(k, new(sync.Mutex))
	if !loaded {
		runtime.AddCleanup(clk, func(k weak.Pointer[clock.Mock]) { moveLocks.Delete(k) }, k)
	}
	return mu.(*sync.Mutex)
}

// WaitParked blocks until at least n long-poll receives are parked on q with
// their clock timers armed, so that advancing a mock clock now reaches them.
// It waits on the receivers, never on time; it fails the test if the
// broker closes or the queue is deleted first.
func WaitParked(t Fataler, q *sqsq.Queue, n int) {
	if h, ok := t.(helperT); ok {
		h.Helper() // here, in the function that reports: Helper marks its caller
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := q.WaitForReceivers(ctx, n); err != nil {
		t.Fatalf("sqsqtest.WaitParked(%s, %d): %v", q.Name(), n, err)
	}
}

// Drain receives and deletes every message visible on q, with short polls,
// and returns them in the order received. In-flight and delayed messages
// stay. It fails the test on any error, so use it without a fault policy.
func Drain(t Fataler, q *sqsq.Queue) []sqsq.Message {
	if h, ok := t.(helperT); ok {
		h.Helper() // here, in the function that reports: Helper marks its caller
	}
	ctx := context.Background()
	var out []sqsq.Message
	for {
		s, err := q.Stats()
		if err != nil {
			t.Fatalf("sqsqtest.Drain(%s): %v", q.Name(), err)
			return out
		}
		if s.Visible == 0 {
			return out
		}
		msgs, err := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, WaitTimeSeconds: sqsq.Some(time.Duration(0))})
		if err != nil {
			t.Fatalf("sqsqtest.Drain(%s): %v", q.Name(), err)
			return out
		}
		for _, m := range msgs {
			if err := q.Delete(ctx, m.ReceiptHandle); err != nil {
				t.Fatalf("sqsqtest.Drain(%s): %v", q.Name(), err)
				return out
			}
		}
		out = append(out, msgs...)
	}
}

// fastClock is the harness's clock: Now reads an atomic pointer to the
// instant, so moving it costs nothing (clock.Mock sleeps a millisecond of
// real time on every move) and reading it, which the broker and the kit do
// many times a step, takes no lock and no arithmetic (adding an offset to
// a base instant was a twenty-fifth of a run's instructions). Timers,
// which only long polls use, go to a mock made and brought to the same
// time on first use.
type fastClock struct {
	at   atomic.Pointer[time.Time]
	mu   sync.Mutex
	mock *clock.Mock // nil until a timer is asked for
}

func newFastClock() *fastClock {
	c := &fastClock{}
	start := Epoch // a copy: Epoch is a variable
	c.at.Store(&start)
	return c
}

func (c *fastClock) set(t time.Time) {
	t = t.Round(0).UTC() // as an offset from Epoch gave it: no monotonic reading, in UTC
	c.mu.Lock()
	c.at.Store(&t)
	mock := c.mock
	c.mu.Unlock()
	if mock != nil {
		mock.Set(t)
	}
}

func (c *fastClock) timed() *clock.Mock {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mock == nil {
		c.mock = clock.NewMock()
		c.mock.Set(c.Now())
	}
	return c.mock
}

func (c *fastClock) Now() time.Time                  { return *c.at.Load() }
func (c *fastClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c *fastClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }
func (c *fastClock) After(d time.Duration) <-chan time.Time {
	return c.timed().After(d)
}
func (c *fastClock) AfterFunc(d time.Duration, f func()) *clock.Timer {
	return c.timed().AfterFunc(d, f)
}
func (c *fastClock) Sleep(d time.Duration)                 { c.timed().Sleep(d) }
func (c *fastClock) Tick(d time.Duration) <-chan time.Time { return c.timed().Tick(d) }
func (c *fastClock) Ticker(d time.Duration) *clock.Ticker  { return c.timed().Ticker(d) }
func (c *fastClock) Timer(d time.Duration) *clock.Timer    { return c.timed().Timer(d) }
func (c *fastClock) WithDeadline(p context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return c.timed().WithDeadline(p, d)
}
func (c *fastClock) WithTimeout(p context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return c.timed().WithTimeout(p, d)
}

var _ clock.Clock = (*fastClock)(nil)
