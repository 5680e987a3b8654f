package sqsqtest

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// Outside a bubble the engine's threads are coroutines the scheduler
// resumes from the run's goroutine. These tests hold what must not reach
// that goroutine or stop the run: a thread that calls runtime.Goexit, one
// of a crashed consumer that never stops calling the kit, and one blocked
// outside the kit.

// A handler that calls runtime.Goexit (t.FailNow in a handler does) ends
// its thread only: the run goes on, the message comes back and is handled.
func TestGoexitEndsOnlyTheThread(t *testing.T) {
	t.Parallel()
	s := Scenario{Messages: []string{"a"},
		Consumer: func(env *Env) Handler {
			q := env.Queue()
			return func(ctx context.Context, m Msg) error {
				if m.ReceiveCount == 1 {
					runtime.Goexit()
				}
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
		Invariants: []Invariant{NothingLeft()},
	}
	for seed := uint64(1); seed <= 20; seed++ {
		if o := s.Run(Seed(seed)); o.Err != nil {
			t.Fatalf("seed %d: %v", seed, o)
		}
	}
}

// A crashed consumer whose handler ignores ErrCrashed and calls the kit
// for ever is ended after fencedCallLimit calls; the run ends, with no
// panic reported.
func TestFencedThreadEnds(t *testing.T) {
	t.Parallel()
	s := Scenario{Messages: []string{"a", "b"}, Crash: 50,
		Consumer: func(env *Env) Handler {
			q := env.Queue()
			return func(ctx context.Context, m Msg) error {
				for env.Commit("charge", func(tx *Tx) error { return nil }) != nil {
				}
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
	}
	crashed := 0
	for seed := uint64(1); seed <= 20; seed++ {
		o := s.Run(Seed(seed))
		if o.Err != nil {
			t.Fatalf("seed %d: %v", seed, o)
		}
		if strings.Contains(timelineText(o.Timeline), "crashed") {
			crashed++
		}
	}
	if crashed == 0 {
		t.Fatal("no run of 20 crashed a consumer")
	}
}

func timelineText(tl Timeline) string {
	var b strings.Builder
	for _, e := range tl {
		b.WriteString(e.Text)
		b.WriteByte('\n')
	}
	return b.String()
}
