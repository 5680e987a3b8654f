package sqsqtest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqsq/sqsq/sqsqtest"
)

// charge commits "charge:<body>" once per body (an inbox) and reports
// whether it did.
func charge(env *sqsqtest.Env, body string) error {
	return env.Commit("charge "+body, func(tx *sqsqtest.Tx) error {
		if _, seen := tx.Get(body); seen {
			tx.Suppress(body)
			return nil
		}
		tx.Put(body, "charged")
		tx.Effect("charge:" + body)
		return nil
	})
}

func chargeEach(env *sqsqtest.Env) sqsqtest.Handler {
	q := env.Queue()
	return func(ctx context.Context, m sqsqtest.Msg) error {
		if err := charge(env, m.Body); err != nil {
			return err
		}
		return q.Delete(ctx, m.ReceiptHandle)
	}
}

func timelineText(o *sqsqtest.Outcome) string {
	var b strings.Builder
	for _, e := range o.Timeline {
		fmt.Fprintf(&b, "%v %s\n", e.At, e.Text)
	}
	return b.String()
}

// The same draws give the same run, line for line, even with several
// consumers, faults and crashes.
func TestRunsAreDeterministic(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{Messages: []string{"a", "b", "c"}, Batch: 2, Faults: sqsqtest.AllFaults(10), Crash: 10,
		MaxReceiveCount: 2, Redrive: true, MaxGap: time.Hour, Slowness: time.Minute, Consumer: chargeEach}
	for seed := uint64(1); seed <= 50; seed++ {
		a, b := s.Run(sqsqtest.Seed(seed)), s.Run(sqsqtest.Seed(seed))
		if timelineText(a) != timelineText(b) {
			t.Fatalf("seed %d gave two runs:\n%s\nand\n%s", seed, timelineText(a), timelineText(b))
		}
	}
}

// On a FIFO queue the kit's per-message loop stops a group at its first
// failure: the rest of the group stays in flight and comes back after the
// failed message, so a correct consumer keeps its order.
func TestFIFOGroupStopsAtFailure(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{Messages: []string{"a1", "a2", "a3"}, FIFO: true, Batch: 10, Consumers: 1,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				if m.Body == "a1" && m.ReceiveCount == 1 {
					return errors.New("downstream unavailable")
				}
				if err := charge(env, m.Body); err != nil {
					return err
				}
				return q.Delete(ctx, m.ReceiptHandle)
			}
		}}
	o := s.Run(sqsqtest.Lucky())
	var order []string
	for _, r := range o.Ledger.Log {
		order = append(order, r.Key)
	}
	if got := strings.Join(order, " "); got != "charge:a1 charge:a2 charge:a3" {
		t.Errorf("effects in order %q, want a1 a2 a3:\n%v", got, o)
	}
	if !strings.Contains(timelineText(o), "c1 leaves B in flight: group g stopped at A") {
		t.Errorf("the timeline does not show the group stopped:\n%v", o)
	}
}

// A crash drawn in a goroutine the consumer started through env.Go fences
// the whole consumer: the goroutine's kit calls fail with ErrCrashed and
// change nothing, and nothing panics.
func TestCrashInEnvGoroutine(t *testing.T) {
	t.Parallel()
	var crashed atomic.Int64
	s := sqsqtest.Scenario{Messages: []string{"a", "b"}, Crash: 30, Batch: 2,
		BatchConsumer: func(env *sqsqtest.Env) sqsqtest.BatchHandler {
			q := env.Queue()
			return func(ctx context.Context, msgs []sqsqtest.Msg) error {
				for _, m := range msgs {
					env.Go(func() {
						if err := charge(env, m.Body); errors.Is(err, sqsqtest.ErrCrashed) {
							crashed.Add(1) // fenced goroutines run on their own
							return
						}
						_ = q.Delete(ctx, m.ReceiptHandle)
					})
				}
				return nil
			}
		},
		Invariants: []sqsqtest.Invariant{
			sqsqtest.EffectOnce(func(b string) string { return "charge:" + b }),
			sqsqtest.NothingLeft(),
		}}
	for seed := uint64(1); seed <= 200; seed++ {
		if o := s.Run(sqsqtest.Seed(seed)); o.Err != nil {
			t.Fatalf("seed %d: %v", seed, o)
		}
	}
	if crashed.Load() == 0 {
		t.Error("no goroutine saw ErrCrashed in 200 runs with 30% crashes")
	}
}

// Outside a bubble only goroutines the kit started may call it: one the
// handler started with a go statement fails the run with a message that
// says what to do, instead of hanging or racing.
func TestRawGoroutineOutsideBubble(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{Messages: []string{"a"},
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			return func(ctx context.Context, m sqsqtest.Msg) error {
				done := make(chan error)
				go func() { done <- charge(env, m.Body) }()
				return <-done
			}
		}}
	o := s.Run(sqsqtest.Lucky())
	if o.Err == nil || !strings.Contains(o.Err.Error(), "Scenario.Test") {
		t.Fatalf("a kit call from a raw goroutine: %v", o.Err)
	}
}

// Every kit call is checked, not only a run's first: a handler that
// charges on its own thread and then deletes from a goroutine it started
// fails its first run with the same message, in every run of a loop.
func TestRawGoroutineAfterAKitCall(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{Messages: []string{"a", "b"},
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				if err := charge(env, m.Body); err != nil {
					return err
				}
				done := make(chan error)
				go func() { done <- q.Delete(ctx, m.ReceiptHandle) }()
				return <-done
			}
		}}
	for seed := uint64(1); seed <= 50; seed++ {
		o := s.Run(sqsqtest.Seed(seed))
		if o.Err == nil || !strings.Contains(o.Err.Error(), "from a goroutine the kit did not start") {
			t.Fatalf("seed %d: a kit call from a raw goroutine after one from the handler: %v", seed, o.Err)
		}
	}
}

// Idle time at the scale of days reaches retention: a consumer that is
// away as long as the queue keeps messages (4 days by default) loses them,
// and the kit shrinks to the smallest gap that does it.
func TestIdleGapsReachRetention(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{Messages: []string{"a"}, Consumers: 1, MaxGap: 5 * 24 * time.Hour,
		Consumer: chargeEach,
		Invariants: []sqsqtest.Invariant{{Name: "charged", Check: func(r *sqsqtest.Result) error {
			if r.Ledger.Effects["charge:a"] == 0 {
				return errors.New("never charged")
			}
			return nil
		}}}}
	f := s.Find(1, 2000)
	if f.Runs == 0 {
		t.Fatal("a 5-day gap never lost a message to the 4-day retention")
	}
	if text := f.Shrunk.String(); !strings.Contains(text, "idle for 96h0m0s") {
		t.Errorf("the shrunk schedule does not show the 4-day gap:\n%s", text)
	}
}

// Slowness delays a consumer's kit call past the visibility timeout: a
// consumer without an inbox then charges twice.
func TestSlownessPastVisibility(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{Messages: []string{"a"}, Slowness: time.Minute,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				if err := env.Commit("charge", func(tx *sqsqtest.Tx) error { tx.Effect("charge:" + m.Body); return nil }); err != nil {
					return err
				}
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.EffectOnce(func(b string) string { return "charge:" + b })}}
	f := s.Find(1, 2000)
	if f.Runs == 0 {
		t.Fatal("a minute of slowness never outlasted the 30 s visibility timeout")
	}
	if !strings.Contains(f.Shrunk.String(), "is slow: 1m0s") {
		t.Errorf("the shrunk schedule does not show the slow call:\n%v", f.Shrunk)
	}
}

// A consumer's own draw (a downstream call that may fail) is part of the
// schedule: the kit finds the failure and shrinks to it.
func TestUserDraw(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{Messages: []string{"a"}, Consumers: 1,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				if env.Draw("payment API fails", 2) == 1 {
					return q.Delete(ctx, m.ReceiptHandle) // the bug: drops the order
				}
				if err := charge(env, m.Body); err != nil {
					return err
				}
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.EffectOnce(func(b string) string { return "charge:" + b })}}
	f := s.Find(1, 200)
	if f.Runs == 0 || !strings.Contains(f.Shrunk.String(), "drew payment API fails: 1") {
		t.Fatalf("the failing draw was not found or not shown: %v", f)
	}
}

// env.Sleep waits on the run's clock, which never jumps past it.
func TestSleepOnRunClock(t *testing.T) {
	t.Parallel()
	var slept []time.Duration
	s := sqsqtest.Scenario{Messages: []string{"a"}, Consumers: 1, MaxGap: 24 * time.Hour,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				start := env.Now()
				env.Sleep(20 * time.Second)
				slept = append(slept, env.Now().Sub(start))
				return q.Delete(ctx, m.ReceiptHandle)
			}
		}}
	for seed := uint64(1); seed <= 100; seed++ {
		slept = nil
		s.Run(sqsqtest.Seed(seed))
		for _, d := range slept {
			if d != 20*time.Second {
				t.Fatalf("seed %d: slept %v, want exactly 20s", seed, d)
			}
		}
	}
}
