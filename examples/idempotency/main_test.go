package main

import (
	"flag"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/sqsq/sqsq/internal/exampletest"
	"github.com/sqsq/sqsq/internal/racexit"
	"github.com/sqsq/sqsq/internal/testsize"
	"github.com/sqsq/sqsq/sqsqtest"
)

var measure = flag.Bool("measure", false, "measure how fast the kit finds each bug (TestMeasure)")

// TestMain plays testsize.KitRuns schedules per Scenario.Test in the quick
// suite, sqsqtest.DefaultRuns with SQSQ_LONG=1 (-sqsqtest.runs and
// SQSQTEST_RUNS still win), and shares each version's search between
// TestOutput and the version's test.
func TestMain(m *testing.M) {
	flag.Parse()
	testsize.QuickKit()
	find = exampletest.Shared(find)
	racexit.Exit(m.Run())
}

// inBubble runs f in a testing/synctest bubble (Go 1.25+, see
// synctest_test.go); nil before Go 1.25.
var inBubble func(t *testing.T, f func())

// maxShrunkSteps bounds the drawn steps of a shrunk failing schedule: the
// double charge needs a send, a delivery, the charge and one mishap (a crash
// before the delete, a failed delete, a duplicate delivery); a redrive
// needs a few more to push the message to the dead-letter queue.
const maxShrunkSteps = 8

// TestOutput runs the program and compares its output with the golden file:
// with as many schedules as main under SQSQ_LONG=1 (SQSQ_LONG=1 go test
// ./examples/idempotency -run TestOutput -update rewrites the file), with a fifth
// of them in the quick suite (see exampletest.Output).
func TestOutput(t *testing.T) {
	t.Parallel()
	exampletest.Output(t, run, runs)
}

// The service code keeps its own interfaces: nothing in consumer.go
// imports the kit, so nothing of the kit reaches production.
func TestServiceCodeDoesNotImportTheKit(t *testing.T) {
	t.Parallel()
	exampletest.StandsAlone(t, "consumer.go")
}

// The consumer without an inbox charges twice, and the kit says so with a
// short schedule.
func TestNoInboxIsCaught(t *testing.T) {
	t.Parallel()
	n := exampletest.Runs(runs)
	f := find("no inbox", Scenario(NoInbox), n)
	if f.Runs == 0 {
		t.Fatalf("the double charge was not found in %d runs", n)
	}
	if f.Shrunk.Steps > maxShrunkSteps {
		t.Errorf("shrunk schedule has %d steps, want ≤ %d:\n%v", f.Shrunk.Steps, maxShrunkSteps, f.Shrunk)
	}
	if !strings.Contains(f.Shrunk.Err.Error(), "committed 2 times") {
		t.Errorf("want a double charge, got %v", f.Shrunk.Err)
	}
}

// An inbox keyed by MessageId absorbs redeliveries but not a redrive, which
// gives the message a new MessageId.
func TestInboxByMessageIDFailsAfterRedrive(t *testing.T) {
	t.Parallel()
	n := exampletest.Runs(runs)
	f := find("inbox keyed by MessageId", Scenario(InboxByMessageID), n)
	if f.Runs == 0 {
		t.Fatalf("the double charge after a redrive was not found in %d runs", n)
	}
	if f.Shrunk.Steps > maxShrunkSteps {
		t.Errorf("shrunk schedule has %d steps, want ≤ %d:\n%v", f.Shrunk.Steps, maxShrunkSteps, f.Shrunk)
	}
	if !strings.Contains(f.Shrunk.Timeline.String(), "redrive(") {
		t.Errorf("the failing schedule has no redrive:\n%v", f.Shrunk)
	}
	// Without dead-letter queue the same consumer is correct.
	s := Scenario(InboxByMessageID)
	s.MaxReceiveCount, s.Redrive = 0, false
	s.Seeds(t, 1, testsize.Scale(60, 300))
}

// The inbox keyed by the order id passes a hundred seeded schedules
// (hundreds with SQSQ_LONG=1)…
func TestInboxByOrderPassesSeeds(t *testing.T) {
	t.Parallel()
	Scenario(InboxByOrder).Seeds(t, 1, testsize.Scale(100, 500))
}

// …and rapid-drawn ones, which rapid would shrink if one failed.
func TestInboxByOrderPassesRapid(t *testing.T) {
	t.Parallel()
	rapid.Check(t, Scenario(InboxByOrder).Check)
}

// The whole receive loop, Poll, as a loop consumer: long polls through the
// kit's SDK-shaped client, batch deletes, crashes anywhere.
func TestPollLoop(t *testing.T) {
	t.Parallel()
	t.Run("NoInboxIsCaught", func(t *testing.T) {
		t.Parallel()
		f := PollScenario(NoInbox).Find(1, 1000)
		if f.Runs == 0 {
			t.Fatal("the double charge was not found in 1000 runs")
		}
		if f.Shrunk.Steps > maxShrunkSteps {
			t.Errorf("shrunk schedule has %d steps, want ≤ %d:\n%v", f.Shrunk.Steps, maxShrunkSteps, f.Shrunk)
		}
		if tl := f.Shrunk.Timeline.String(); !strings.Contains(tl, "delete batch(") {
			t.Errorf("no batch delete in the timeline:\n%v", f.Shrunk)
		}
	})
	t.Run("InboxByOrderPasses", func(t *testing.T) {
		t.Parallel()
		PollScenario(InboxByOrder).Seeds(t, 1, testsize.Scale(60, 300))
	})
}

// TestMeasure measures the kit on this example (see README.md):
//
//	go test ./examples/idempotency -run Measure -v -measure -timeout 1200s
//
// (TestMeasureSpeed included).
func TestMeasure(t *testing.T) {
	if !*measure {
		t.Skip("run with -measure")
	}
	plain := func(f func()) { f() }
	bugs := []struct {
		name string
		s    sqsqtest.Scenario
	}{
		{"no inbox", Scenario(NoInbox)},
		{"inbox keyed by MessageId", Scenario(InboxByMessageID)},
		{"no inbox (Poll loop)", PollScenario(NoInbox)},
	}
	for _, b := range bugs {
		t.Log(exampletest.Searches(t, b.name, b.s, plain))
	}
	for _, c := range []struct {
		name string
		s    sqsqtest.Scenario
	}{
		{"inbox keyed by order id", Scenario(InboxByOrder)},
		{"inbox keyed by order id (Poll loop)", PollScenario(InboxByOrder)},
	} {
		start := time.Now()
		f := c.s.Find(1, 10000)
		t.Logf("%s: %s in 10000 runs (%v)", c.name, exampletest.Found(f), time.Since(start).Round(time.Millisecond))
	}
}

// TestMeasureSpeed measures the kit's speed, in schedules per second on
// the correct consumer: the median of 3 runs of 2000 schedules, plain and
// in a synctest bubble.
//
//	go test ./examples/idempotency -run MeasureSpeed -v -measure
func TestMeasureSpeed(t *testing.T) {
	if !*measure {
		t.Skip("run with -measure")
	}
	const n = 2000
	speed := func(play func()) float64 {
		var rates []float64
		for range 3 {
			start := time.Now()
			play()
			rates = append(rates, n/time.Since(start).Seconds())
		}
		return exampletest.Median(rates)
	}
	s := Scenario(InboxByOrder)
	rate := speed(func() {
		for i := range n {
			s.Run(sqsqtest.Seed(uint64(i + 1)))
		}
	})
	t.Logf("speed (inbox keyed by order id, median of 3×%d schedules): %.0f/s plain", n, rate)
	if inBubble != nil {
		bubble := speed(func() {
			inBubble(t, func() {
				for i := range n {
					s.Run(sqsqtest.Seed(uint64(i + 1)))
				}
			})
		})
		t.Logf("speed (the same in a synctest bubble): %.0f/s", bubble)
	}
}
