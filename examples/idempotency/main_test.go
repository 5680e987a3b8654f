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
	measure = flag.Bool("measure", false, "print how fast the kit finds each bug")
)

// maxShrunkSteps bounds the drawn steps of a shrunk failing schedule: the
// double charge needs a send, a delivery, the charge and one mishap (a crash
// before the delete, a failed delete, a duplicate delivery); a redrive
// needs a few more to push the message to the dead-letter queue.
const maxShrunkSteps = 12

// TestOutput runs the program and compares its output with the golden file
// (go test ./examples/idempotency -update rewrites it).
func TestOutput(t *testing.T) {
	t.Parallel()
	var got bytes.Buffer
	run(&got, runs) // as main does
	golden.Check(t, filepath.Join("testdata", "output.golden"), got.Bytes())
}

// The consumer without an inbox charges twice, and the kit says so with a
// short schedule.
func TestNoInboxIsCaught(t *testing.T) {
	t.Parallel()
	f := Scenario(NoInbox).Find(1, 1000)
	if f.Runs == 0 {
		t.Fatal("the double charge was not found in 1000 runs")
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
	f := Scenario(InboxByMessageID).Find(1, 2000)
	if f.Runs == 0 {
		t.Fatal("the double charge after a redrive was not found in 2000 runs")
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
	s.Seeds(t, 1, 500)
}

// The inbox keyed by the order id passes thousands of seeded schedules…
func TestInboxByOrderPassesSeeds(t *testing.T) {
	t.Parallel()
	Scenario(InboxByOrder).Seeds(t, 1, 3000)
}

// …and rapid-drawn ones, which rapid would shrink if one failed.
func TestInboxByOrderPassesRapid(t *testing.T) {
	t.Parallel()
	rapid.Check(t, Scenario(InboxByOrder).Check)
}

// TestMeasure prints how fast the kit finds each bug:
//
//	go test ./examples/idempotency -run Measure -v -measure
func TestMeasure(t *testing.T) {
	if !*measure {
		t.Skip("run with -measure")
	}
	for _, v := range Versions {
		start := time.Now()
		f := Scenario(v.Consume).Find(1, 5000)
		if f.Runs == 0 {
			t.Logf("%s: no failure in 5000 runs (%v)", v.Name, time.Since(start).Round(time.Millisecond))
			continue
		}
		t.Logf("%s: first failure after %d runs in %v; shrunk to %d steps (%d timeline entries) in %d runs, %v in all",
			v.Name, f.Runs, f.Elapsed.Round(time.Microsecond), f.Shrunk.Steps, len(f.Shrunk.Timeline), f.ShrinkRuns, time.Since(start).Round(time.Millisecond))
	}
}
