//go:build go1.25

package sqsqtest

import (
	"testing"
	"testing/synctest"

	"pgregory.net/rapid"
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

// Test plays the scenario's schedules inside a testing/synctest bubble, as
// rapid draws them, and fails t with the shortest failing schedule it
// shrinks to. Inside the bubble the consumers may start goroutines of
// their own, wait for them (sync.WaitGroup, channels, errgroup) and use
// time.Sleep, timers and tickers: the run's clock is the bubble's. Call it
// from the test function itself, not from a goroutine (synctest.Test
// rules).
func (s Scenario) Test(t *testing.T) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		rapid.Check(rapidTB{t}, s.Check)
	})
}

// rapidTB is t without Deadline, which panics inside a bubble and which
// rapid calls when it has it.
type rapidTB struct{ rapid.TB }
