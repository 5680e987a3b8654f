//go:build go1.25

package main

import (
	"testing"
	"testing/synctest"
)

func init() {
	inBubble = func(t *testing.T, f func()) {
		var stop any
		synctest.Test(t, func(*testing.T) {
			defer func() { stop = recover() }() // rapid's, from a draw: it goes on outside
			f()
		})
		if stop != nil {
			panic(stop)
		}
	}
}

// The receive loop in a testing/synctest bubble (Scenario.Test): the same
// schedules, drawn by rapid, on the bubble's clock. The loop is plain Go,
// so it runs in both modes unchanged.
func TestPollLoopInBubble(t *testing.T) {
	t.Parallel()
	PollScenario(InboxByOrder).Test(t)
}
