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

// maxShrunkSteps bounds the drawn steps of a shrunk failing schedule: the
// sends, a receive, a failed post, a goroutine's post going first.
const maxShrunkSteps = 8

// TestOutput runs the program and compares its output with the golden file:
// with as many schedules as main under SQSQ_LONG=1 (SQSQ_LONG=1 go test
// ./examples/fifo-ledger -run TestOutput -update rewrites the file), with a fifth
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

// Stopping an account at its first failure keeps every account in order,
// under seeded schedules…
func TestSequentialPassesSeeds(t *testing.T) {
	t.Parallel()
	Scenario(Sequential).Seeds(t, 1, testsize.Scale(100, 500))
}

// …and rapid-drawn ones.
func TestSequentialPassesRapid(t *testing.T) {
	t.Parallel()
	rapid.Check(t, Scenario(Sequential).Check)
}

// Going on with an account past a failed entry posts the next one first.
func TestPastFailureIsCaught(t *testing.T) {
	t.Parallel()
	n := exampletest.Runs(runs)
	f := find("sequential, going on past a failure", Scenario(PastFailure), n)
	checkCaught(t, f, n)
	if !strings.Contains(f.Shrunk.Timeline.String(), "database fails") {
		t.Errorf("no database failure in the timeline:\n%v", f.Shrunk)
	}
}

// checkCaught checks that a search of n runs found an entry posted out of
// order, with a short schedule.
func checkCaught(t *testing.T, f sqsqtest.Finding, n int) {
	t.Helper()
	if f.Runs == 0 {
		t.Fatalf("the entry posted out of order was not found in %d runs", n)
	}
	if f.Shrunk.Steps > maxShrunkSteps {
		t.Errorf("shrunk schedule has %d steps, want ≤ %d:\n%v", f.Shrunk.Steps, maxShrunkSteps, f.Shrunk)
	}
	if !strings.Contains(f.Shrunk.Err.Error(), "before") {
		t.Errorf("want an entry posted out of order, got %v", f.Shrunk.Err)
	}
}

// inBubble runs f in a testing/synctest bubble (Go 1.25+, see
// synctest_test.go); nil before Go 1.25.
var inBubble func(t *testing.T, f func())

// TestMeasure measures the kit on this example (see README.md):
//
//	go test ./examples/fifo-ledger -run Measure -v -measure -timeout 1200s
func TestMeasure(t *testing.T) {
	if !*measure {
		t.Skip("run with -measure")
	}
	plain := func(f func()) { f() }
	bubble := func(f func()) { inBubble(t, f) }
	t.Log(exampletest.Searches(t, "going on past a failure", Scenario(PastFailure), plain))
	if inBubble != nil {
		t.Log(exampletest.Searches(t, "concurrent, a database that never fails (in a bubble)", RaceScenario(Concurrent), bubble))
		t.Log(exampletest.Searches(t, "concurrent, a database that fails (in a bubble)", Scenario(Concurrent), bubble))
	}
	start := time.Now()
	f := Scenario(Sequential).Find(1, 10000)
	t.Logf("sequential: %s in 10000 runs (%v)", exampletest.Found(f), time.Since(start).Round(time.Millisecond))
	if inBubble != nil {
		start := time.Now()
		bubble(func() { f = Scenario(Sequential).Find(1, 10000) })
		t.Logf("sequential (in a bubble): %s in 10000 runs (%v)", exampletest.Found(f), time.Since(start).Round(time.Millisecond))
	}
}
