package main

import (
	"bytes"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq/internal/golden"
	"pgregory.net/rapid"
)

var (
	measure = flag.Bool("measure", false, "print how fast the kit finds the bug")
)

// maxShrunkSteps bounds the drawn steps of the shrunk failing schedule: two
// consumers that both pick up long jobs are enough, and the settle phase
// does the rest, so the bound is small.
const maxShrunkSteps = 4

// TestOutput runs the program and compares its output with the golden file
// (go test ./examples/heartbeat -update rewrites it).
func TestOutput(t *testing.T) {
	t.Parallel()
	var got bytes.Buffer
	run(&got, runs) // as main does
	golden.Check(t, filepath.Join("testdata", "output.golden"), got.Bytes())
}

// Without a heartbeat the message comes back while the job runs and a
// second consumer starts it too.
func TestNoHeartbeatIsCaught(t *testing.T) {
	t.Parallel()
	f := Scenario(NoHeartbeat, Job).Find(1, 1000)
	if f.Runs == 0 {
		t.Fatal("the concurrent duplicate was not found in 1000 runs")
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
	Scenario(Heartbeat, Job).Seeds(t, 1, 2000)
}

func TestHeartbeatPassesRapid(t *testing.T) {
	t.Parallel()
	rapid.Check(t, Scenario(Heartbeat, Job).Check)
}

// A job shorter than the visibility timeout needs no heartbeat.
func TestShortJobNeedsNoHeartbeat(t *testing.T) {
	t.Parallel()
	Scenario(NoHeartbeat, 20*time.Second).Seeds(t, 1, 1000)
}

// The 12-hour cap stops a 13-hour job at 11h40m of virtual time (11h40m +
// 30m passes 12h) in far less than a second of real time.
func TestTwelveHourCap(t *testing.T) {
	t.Parallel()
	entry, took := Cap()
	if want := "t=11h40m0s c1 extend(A, 30m0s): InvalidParameterValue"; entry != want {
		t.Errorf("got %q, want %q", entry, want)
	}
	if took > time.Second {
		t.Errorf("13 virtual hours took %v of real time", took)
	}
	t.Logf("13 virtual hours in %v", took)
}

// TestMeasure prints how fast the kit finds the bug:
//
//	go test ./examples/heartbeat -run Measure -v -measure
func TestMeasure(t *testing.T) {
	if !*measure {
		t.Skip("run with -measure")
	}
	start := time.Now()
	f := Scenario(NoHeartbeat, Job).Find(1, 5000)
	t.Logf("no heartbeat: first failure after %d runs in %v; shrunk to %d steps (%d timeline entries) in %d runs, %v in all",
		f.Runs, f.Elapsed.Round(time.Microsecond), f.Shrunk.Steps, len(f.Shrunk.Timeline), f.ShrinkRuns, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	g := Scenario(Heartbeat, Job).Find(1, 5000)
	t.Logf("heartbeat: %d failures in 5000 runs (%v)", g.Runs, time.Since(start).Round(time.Millisecond))
}
