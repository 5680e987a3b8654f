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

// maxShrunkSteps bounds the drawn steps of the shrunk failing schedule: two
// consumers that both pick up long jobs are enough, and the settle phase
// does the rest, so the bound is small.
const maxShrunkSteps = 4

// TestOutput runs the program and compares its output with the golden file:
// with as many schedules as main under SQSQ_LONG=1 (SQSQ_LONG=1 go test
// ./examples/heartbeat -run TestOutput -update rewrites the file), with a fifth
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

// Without a heartbeat the message comes back while the job runs and a
// second consumer starts it too.
func TestNoHeartbeatIsCaught(t *testing.T) {
	t.Parallel()
	n := exampletest.Runs(runs)
	f := find("no heartbeat", Scenario(NoHeartbeatVersion), n)
	if f.Runs == 0 {
		t.Fatalf("the concurrent duplicate was not found in %d runs", n)
	}
	if f.Shrunk.Steps > maxShrunkSteps {
		t.Errorf("shrunk schedule has %d steps, want ≤ %d:\n%v", f.Shrunk.Steps, maxShrunkSteps, f.Shrunk)
	}
	if !strings.Contains(f.Shrunk.Timeline.String(), "still does") {
		t.Errorf("no concurrent handling in the timeline:\n%v", f.Shrunk)
	}
}

// With the heartbeat no schedule makes two consumers work on one job.
func TestHeartbeatPassesSeeds(t *testing.T) {
	t.Parallel()
	Scenario(HeartbeatVersion).Seeds(t, 1, testsize.Scale(100, 500))
}

func TestHeartbeatPassesRapid(t *testing.T) {
	t.Parallel()
	rapid.Check(t, Scenario(HeartbeatVersion).Check)
}

// A job shorter than the visibility timeout needs no heartbeat.
func TestShortJobNeedsNoHeartbeat(t *testing.T) {
	t.Parallel()
	Scenario(workVersion(NoHeartbeatWork, 20*time.Second)).Seeds(t, 1, testsize.Scale(100, 500))
}

// The 12-hour cap stops a 13-hour job at 11h40m of virtual time (11h40m +
// 30m passes 12h) in far less than a second of real time.
func TestTwelveHourCap(t *testing.T) {
	t.Parallel()
	entry, took := Cap()
	if want := "t=11h40m0s c1 extend(A, 1800s): InvalidParameterValue"; entry != want {
		t.Errorf("got %q, want %q", entry, want)
	}
	if took > time.Second {
		t.Errorf("13 virtual hours took %v of real time", took)
	}
	t.Logf("13 virtual hours in %v", took)
}

// inBubble runs f in a testing/synctest bubble (Go 1.25+, see
// synctest_test.go); nil before Go 1.25.
var inBubble func(t *testing.T, f func())

// bubbleBugs and bubbleTwins are the versions that need a bubble
// (synctest_test.go), for TestMeasure.
var bubbleBugs, bubbleTwins []version

type version struct {
	name string
	s    sqsqtest.Scenario
}

// TestMeasure measures the kit on this example (see README.md):
//
//	go test ./examples/heartbeat -run Measure -v -measure -timeout 1200s
func TestMeasure(t *testing.T) {
	if !*measure {
		t.Skip("run with -measure")
	}
	plain := func(f func()) { f() }
	bubble := func(f func()) { inBubble(t, f) }
	t.Log(exampletest.Searches(t, "no heartbeat", Scenario(NoHeartbeatVersion), plain))
	for _, b := range bubbleBugs {
		t.Log(exampletest.Searches(t, b.name, b.s, bubble))
	}
	start := time.Now()
	f := Scenario(HeartbeatVersion).Find(1, 10000)
	t.Logf("heartbeat (work 10 s, extend to 30 s): %s in 10000 runs (%v)", exampletest.Found(f), time.Since(start).Round(time.Millisecond))
	for _, c := range bubbleTwins {
		start := time.Now()
		bubble(func() { f = c.s.Find(1, 10000) })
		t.Logf("%s: %s in 10000 runs (%v)", c.name, exampletest.Found(f), time.Since(start).Round(time.Millisecond))
	}
}
