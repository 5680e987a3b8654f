//go:build go1.25

package sqsqtest

import (
	"testing"
	"testing/synctest"
)

// inBubble reports whether the caller runs inside a testing/synctest
// bubble: synctest.Wait panics outside one.
func inBubble() (in bool) {
	defer func() {
		if recover() != nil {
			in = false
		}
	}()
	synctest.Wait()
	return true
}

// bubbleWait waits until every other goroutine of the bubble is durably
// blocked: the engine's quiescence inside a bubble.
func bubbleWait() { synctest.Wait() }

// Test plays [Runs] of the scenario's schedules ([DefaultRuns] unless
// -sqsqtest.runs or SQSQTEST_RUNS says otherwise), each inside a
// testing/synctest bubble, as rapid draws them, and fails t with the
// shortest failing schedule it shrinks to, printed once. It calls
// rapid.Check as many times as it takes at -rapid.checks schedules each,
// and stops at the first failure. Inside the bubble the consumers may start
// goroutines of their own, wait for them (sync.WaitGroup, channels,
// errgroup) and use time.Sleep, timers and tickers: the run's clock is the
// bubble's. Call it from the test function itself, not from a goroutine
// (synctest.Test rules). [Scenario.TestPlain] does the same without a
// bubble.
//
// Each schedule plays in a bubble of its own, while rapid runs outside
// them: rapid times its shrinking with time.Now, which inside a bubble is
// the runs' virtual clock, so one bubble around rapid would spend the
// shrinking's 30 seconds in a few runs.
func (s Scenario) Test(t *testing.T) {
	t.Helper()
	// Runs in bubbles of their own reuse nothing from one another, but
	// the collector weighs on them as on a loop's (see relaxGC).
	defer relaxGC()()
	s.checkRuns(t, s.inBubbles(t))
}

// inBubbles plays each run it is given in a testing/synctest bubble of
// its own.
func (s Scenario) inBubbles(t *testing.T) player {
	return func(src Source, silent bool) *Outcome {
		var o *Outcome
		var stop any
		synctest.Test(t, func(*testing.T) {
			// A panic of rapid's draws (see rapidSource) goes on outside,
			// on rapid's goroutine.
			defer func() { stop = recover() }()
			o = s.play(src, silent)
		})
		if stop != nil {
			panic(stop)
		}
		return o
	}
}
