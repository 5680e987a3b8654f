package sqsqtest

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Check plays one schedule drawn by rapid and fails t with the timeline when
// an invariant breaks, so rapid shrinks the schedule and reports the
// minimal one:
//
//	rapid.Check(t, scenario.Check)
func (s Scenario) Check(t *rapid.T) {
	if o := s.Run(Rapid(t)); o.Err != nil {
		t.Fatalf("%v", o)
	}
}

// Seeds plays the schedules of seeds first, first+1, … (n of them, a fifth
// with -short) and fails t at the first broken invariant with the seed, so
// the run can be replayed with s.Run(sqsqtest.Seed(seed)), and the
// timeline. It returns how many runs passed.
func (s Scenario) Seeds(t Fataler, first uint64, n int) int {
	helper(t)
	if testing.Short() {
		n = max(1, n/5)
	}
	for i := 0; i < n; i++ {
		seed := first + uint64(i)
		if o := s.Run(Seed(seed)); o.Err != nil {
			t.Fatalf("seed %d (replay with scenario.Run(sqsqtest.Seed(%d))): %v", seed, seed, o)
			return i
		}
	}
	return n
}

// Finding is what [Scenario.Find] found.
type Finding struct {
	// Runs is how many runs it took to find the first failure, including
	// it; 0 if none failed.
	Runs int
	// Elapsed is the wall time until the first failure.
	Elapsed time.Duration
	// Seed is the seed of the first failing run.
	Seed uint64
	// First is the first failing run as found; Shrunk the shortest failing
	// run the shrinker reached from it.
	First, Shrunk *Outcome
	// ShrinkRuns is how many runs shrinking took.
	ShrinkRuns int
}

func (f Finding) String() string {
	if f.Runs == 0 {
		return "no failure found"
	}
	return fmt.Sprintf("failed after %d runs (%v, seed %d); shrunk in %d runs from %d to %d steps:\n%v",
		f.Runs, f.Elapsed.Round(time.Microsecond), f.Seed, f.ShrinkRuns, f.First.Steps, f.Shrunk.Steps, f.Shrunk)
}

// Find plays the schedules of seeds first, first+1, … until one breaks an
// invariant (at most maxRuns), then shrinks its draws — dropping chunks,
// moving values towards 0 — to the shortest schedule that still fails, as
// rapid would, but with no *testing.T, so programs and benchmarks can
// measure how fast a bug is found. Shrinking is greedy and can stop at a
// local minimum, so Find also shrinks the next few failing seeds and keeps
// the shortest result.
func (s Scenario) Find(first uint64, maxRuns int) Finding {
	const tries = 3
	start := time.Now()
	var f Finding
	found := 0
	for i := 0; i < maxRuns && found < tries; i++ {
		seed := first + uint64(i)
		rec := &recorder{src: Seed(seed)}
		o := s.Run(rec)
		if o.Err == nil {
			continue
		}
		found++
		if found == 1 {
			f = Finding{Runs: i + 1, Elapsed: time.Since(start), Seed: seed, First: o}
		}
		shrunk, runs := s.shrink(rec.seq, o)
		f.ShrinkRuns += runs
		if f.Shrunk == nil || shrunk.Steps < f.Shrunk.Steps ||
			shrunk.Steps == f.Shrunk.Steps && len(shrunk.Timeline) < len(f.Shrunk.Timeline) {
			f.Shrunk = shrunk
		}
	}
	return f
}

// shrink minimises a failing choice sequence.
func (s Scenario) shrink(seq []int, o *Outcome) (*Outcome, int) {
	runs := 0
	try := func(cand []int) ([]int, *Outcome, bool) {
		runs++
		pos := 0
		out := s.Run(replay{seq: cand, pos: &pos})
		if out.Err == nil {
			return nil, nil, false
		}
		return cand[:min(pos, len(cand))], out, true
	}
	const budget = 600
	for improved := true; improved && runs < budget; {
		improved = false
		for k := 8; k >= 1; k /= 2 {
			for i := 0; i+k <= len(seq) && runs < budget; {
				cand := append(append([]int(nil), seq[:i]...), seq[i+k:]...)
				if c, out, ok := try(cand); ok && out.Steps <= o.Steps {
					seq, o, improved = c, out, true
				} else {
					i++
				}
			}
		}
		for i := 0; i < len(seq) && runs < budget; i++ {
			for _, v := range []int{0, seq[i] / 2, seq[i] - 1} {
				if v < 0 || v >= seq[i] {
					continue
				}
				cand := append([]int(nil), seq...)
				cand[i] = v
				if c, out, ok := try(cand); ok && out.Steps <= o.Steps {
					seq, o, improved = c, out, true
					break
				}
			}
		}
	}
	return o, runs
}
