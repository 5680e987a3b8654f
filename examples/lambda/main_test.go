package main

import (
	"flag"
	"slices"
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

// maxShrunkSteps bounds the drawn steps of a shrunk failing schedule: a
// decline needs none (the function draws it while the run settles); a
// double charge despite a partial batch response needs a send, an
// invocation and one mishap (a duplicate delivery, a crash, a failed
// delete).
const maxShrunkSteps = 8

// TestMain shares each version's search between TestOutput and
// TestBuggyVersionsAreCaught.
func TestMain(m *testing.M) {
	find = exampletest.Shared(find)
	racexit.Exit(m.Run())
}

// TestOutput runs the program and compares its output with the golden file:
// with as many schedules as main under SQSQ_LONG=1 (SQSQ_LONG=1 go test
// ./examples/lambda -run TestOutput -update rewrites the file), with a fifth
// of them in the quick suite (see exampletest.Output).
func TestOutput(t *testing.T) {
	t.Parallel()
	exampletest.Output(t, run, runs)
}

// The service code keeps its own interfaces: nothing in function.go
// imports the kit, so nothing of the kit reaches production.
func TestServiceCodeDoesNotImportTheKit(t *testing.T) {
	t.Parallel()
	exampletest.StandsAlone(t, "function.go")
}

// Each buggy version charges an order twice, and the kit says so with a
// short schedule that shows why.
func TestBuggyVersionsAreCaught(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		version string // as the program names it
		new     func(Payments, Gateway) Function
		why     string // a line of the shrunk timeline
	}{
		{"WholeBatchError", "error for the whole batch", WholeBatchError, "returned an error: payment declined: batch failed"},
		{"FailuresByIndex", "failures reported by index", FailuresByIndex, "not a MessageId of the batch: batch failed"},
		{"PartialBatch", "partial batch response", PartialBatch, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			n := exampletest.Runs(runs)
			f := find(c.version, Scenario(c.new), n)
			if f.Runs == 0 {
				t.Fatalf("the double charge was not found in %d runs", n)
			}
			if f.Shrunk.Steps > maxShrunkSteps {
				t.Errorf("shrunk schedule has %d steps, want ≤ %d:\n%v", f.Shrunk.Steps, maxShrunkSteps, f.Shrunk)
			}
			if !strings.Contains(f.Shrunk.Err.Error(), "committed 2 times") {
				t.Errorf("want a double charge, got %v", f.Shrunk.Err)
			}
			found := false
			for _, e := range f.Shrunk.Timeline {
				found = found || strings.Contains(e.Text, c.why)
			}
			if !found {
				t.Errorf("no %q in the shrunk schedule:\n%v", c.why, f.Shrunk)
			}
		})
	}
}

// The correct function passes hundreds of seeded schedules (thousands
// with SQSQ_LONG=1)…
func TestPartialBatchWithInboxPassesSeeds(t *testing.T) {
	t.Parallel()
	Scenario(PartialBatchWithInbox).Seeds(t, 1, testsize.Scale(600, 3000))
}

// …and rapid-drawn ones, which rapid would shrink if one failed.
func TestPartialBatchWithInboxPassesRapid(t *testing.T) {
	t.Parallel()
	rapid.Check(t, Scenario(PartialBatchWithInbox).Check)
}

// TestMeasure prints how fast the kit finds each bug, over 20
// independent searches (seeds 1…, 100001…, 200001…) of up to
// sqsqtest.DefaultRuns runs each:
//
//	go test ./examples/lambda -run Measure -v -measure
func TestMeasure(t *testing.T) {
	if !*measure {
		t.Skip("run with -measure")
	}
	const searches = 20
	for _, v := range Versions {
		found, runs, steps := 0, []int{}, []int{}
		var elapsed []time.Duration
		for i := 0; i < searches; i++ {
			f := Scenario(v.New).Find(uint64(1+100000*i), sqsqtest.DefaultRuns)
			if f.Runs == 0 {
				continue
			}
			found++
			runs = append(runs, f.Runs)
			elapsed = append(elapsed, f.Elapsed)
			steps = append(steps, f.Shrunk.Steps)
		}
		if found == 0 {
			t.Logf("%s: no failure in %d searches of %d runs", v.Name, searches, sqsqtest.DefaultRuns)
			continue
		}
		slices.Sort(runs)
		slices.Sort(elapsed)
		slices.Sort(steps)
		t.Logf("%s: found in %d of %d searches; runs to the first failure: median %d, max %d; "+
			"time: median %v, max %v; shrunk steps: median %d, max %d",
			v.Name, found, searches, runs[len(runs)/2], runs[len(runs)-1],
			elapsed[len(elapsed)/2].Round(time.Microsecond), elapsed[len(elapsed)-1].Round(time.Microsecond),
			steps[len(steps)/2], steps[len(steps)-1])
	}
}
