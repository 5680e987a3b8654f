//go:build go1.25

package main

import (
	"testing"
	"testing/synctest"

	"github.com/sqsq/sqsq/sqsqtest"
)

// The concurrent version starts a goroutine per message: the kit sees and
// schedules those goroutines only inside a testing/synctest bubble.

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

// Posting a batch concurrently lets one account's entries race: caught
// with a database that never fails, so the race itself is what breaks the
// order; and with the failing one.
func TestConcurrentIsCaught(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		s    sqsqtest.Scenario
	}{{"Race", RaceScenario(Concurrent)}, {"RaceOrFailure", Scenario(Concurrent)}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				checkCaught(t, c.s.Find(1, 1000), 1000)
			})
		})
	}
}

// The sequential version passes rapid-drawn schedules in a bubble too.
func TestSequentialPassesInBubble(t *testing.T) {
	t.Parallel()
	Scenario(Sequential).Test(t)
}
