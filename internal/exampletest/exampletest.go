// Package exampletest holds what the examples' tests share: the check
// that their service code stands without the kit, the check of their
// output against the golden file, and the measurement of how fast the kit
// finds their bugs (their -measure tests).
package exampletest

import (
	"bytes"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/sqsq/sqsq/internal/golden"
	"github.com/sqsq/sqsq/internal/testsize"
	"github.com/sqsq/sqsq/sqsqtest"
)

// StandsAlone fails t if the Go file imports any package of sqsq: the
// examples' service code keeps its own interfaces, so nothing of the kit
// reaches production.
func StandsAlone(t *testing.T, file string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(path, "github.com/sqsq/sqsq") {
			t.Errorf("%s imports %s", file, path)
		}
	}
}

// Found says whether a search of a correct consumer found nothing, as it
// should, or what it found.
func Found(f sqsqtest.Finding) string {
	if f.Runs == 0 {
		return "no failure"
	}
	return "FAILED: " + f.String()
}

// Searches runs 20 independent searches for a bug, each for up to 5000
// runs, with play running its argument (in a bubble or not), and
// summarises them: with seeded schedules (Find's, from seeds 1, 100001,
// 200001, …) and with rapid's (rapid.Check from -rapid.seed 1, 100001, …,
// as Scenario.Test and TestPlain draw them). The wall time to the first
// failure is measured outside play: inside a bubble time.Now is the
// bubble's, so Finding.Elapsed is virtual there.
func Searches(t *testing.T, name string, s sqsqtest.Scenario, play func(func())) string {
	const k, limit = 20, 5000
	var seeded, drawn search
	for i := range k {
		first := uint64(1 + 100000*i)
		n := 0
		start := time.Now()
		play(func() {
			for j := range limit {
				if s.Run(sqsqtest.Seed(first+uint64(j))).Err != nil {
					n = j + 1
					break
				}
			}
		})
		wall := time.Since(start)
		steps := -1
		if n > 0 {
			var f sqsqtest.Finding
			play(func() { f = s.Find(first, limit) })
			steps = f.Shrunk.Steps
		}
		seeded.add(n, wall, steps)
		drawn.add(rapidSearch(t, s, first, limit, play))
	}
	return fmt.Sprintf("%s\n  seeded: %v\n  rapid:  %v", name, seeded, drawn)
}

// rapidSearch is one search by rapid.Check: the runs and wall time to the
// first failure (0 runs: none) and the drawn steps of the schedule rapid
// shrinks it to.
func rapidSearch(t *testing.T, s sqsqtest.Scenario, seed uint64, limit int, play func(func())) (runs int, wall time.Duration, steps int) {
	for name, v := range map[string]string{"rapid.checks": strconv.Itoa(limit), "rapid.seed": strconv.FormatUint(seed, 10), "rapid.nofailfile": "true"} {
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	calls, steps := 0, -1
	var last []int
	start := time.Now()
	rapid.Check(&quietTB{TB: t}, func(rt *rapid.T) {
		calls++
		var o *sqsqtest.Outcome
		rec := &recording{src: sqsqtest.Rapid(rt)}
		play(func() { o = s.Run(rec) })
		if o.Err != nil {
			if runs == 0 {
				runs, wall = calls, time.Since(start)
			}
			last = rec.draws // the last failing run is rapid's shrunk one
			rt.Fatalf("%v", o.Err)
		}
	})
	if last != nil {
		// What the kit reports: rapid's schedule, shrunk by steps.
		var o *sqsqtest.Outcome
		play(func() { o = s.Shrink(&replaying{draws: last}) })
		steps = o.Steps
	}
	return runs, wall, steps
}

// recording records the draws of a source.
type recording struct {
	src   sqsqtest.Source
	mu    sync.Mutex
	draws []int
}

func (r *recording) Draw(label string, n int) int {
	v := r.src.Draw(label, n)
	r.mu.Lock()
	r.draws = append(r.draws, v)
	r.mu.Unlock()
	return v
}

// replaying draws recorded draws again, then 0.
type replaying struct {
	mu    sync.Mutex
	draws []int
}

func (r *replaying) Draw(label string, n int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.draws) == 0 {
		return 0
	}
	v := r.draws[0]
	r.draws = r.draws[1:]
	return max(min(v, n-1), 0)
}

// quietTB keeps rapid's report of a failure out of the test's.
type quietTB struct {
	rapid.TB
	failed bool
}

func (q *quietTB) Logf(string, ...any)   {}
func (q *quietTB) Log(...any)            {}
func (q *quietTB) Errorf(string, ...any) { q.failed = true }
func (q *quietTB) Error(...any)          { q.failed = true }
func (q *quietTB) Fatalf(string, ...any) { q.failed = true }
func (q *quietTB) Fatal(...any)          { q.failed = true }
func (q *quietTB) Fail()                 { q.failed = true }
func (q *quietTB) FailNow()              { q.failed = true }
func (q *quietTB) Failed() bool          { return q.failed }

// search sums up a bug's searches.
type search struct {
	runs  []int // runs to the first failure, 0 if none
	walls []time.Duration
	steps []int // shrunk schedules' drawn steps
}

func (s *search) add(runs int, wall time.Duration, steps int) {
	s.runs = append(s.runs, runs)
	s.walls = append(s.walls, wall)
	if runs > 0 {
		s.steps = append(s.steps, steps)
	}
}

// String says in how many searches the bug was found within N runs, for
// each candidate N, then the runs and wall time to the first failure and
// the shrunk schedules' steps (median and max).
func (s search) String() string {
	var b strings.Builder
	b.WriteString("found within N runs:")
	for _, n := range []int{100, 200, 500, 1000, 2000, 5000} {
		c := 0
		for _, r := range s.runs {
			if r > 0 && r <= n {
				c++
			}
		}
		fmt.Fprintf(&b, " %d→%d", n, c)
	}
	var fr, fw, fs []float64
	for i, r := range s.runs {
		if r > 0 {
			fr = append(fr, float64(r))
			fw = append(fw, float64(s.walls[i].Microseconds())/1000)
		}
	}
	over := 0 // the project's goal: at most 8 drawn steps in 9 searches of 10
	for _, st := range s.steps {
		fs = append(fs, float64(st))
		if st > 8 {
			over++
		}
	}
	fmt.Fprintf(&b, " (of %d); runs to the first failure: median %.0f, max %.0f; wall time: median %.1f ms, max %.1f ms; "+
		"shrunk steps: median %.0f, max %.0f, over 8 in %d of %d (%v); runs per search: %v",
		len(s.runs), Median(fr), maxOf(fr), Median(fw), maxOf(fw), Median(fs), maxOf(fs), over, len(s.steps), s.steps, s.runs)
	return b.String()
}

// Median is the median of xs, 0 for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func maxOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return slices.Max(xs)
}

// Output runs an example program's search, run(w, n), and compares what
// it prints with testdata/output.golden, which holds the output of the
// program itself, with full schedules per version. The quick suite plays
// a fifth of them (SQSQ_LONG=1 all): a buggy version's search stops at its
// first few failing seeds, which come early, so only the lines "passed
// <full> schedules" of the correct versions differ, and are compared with
// the count changed.
func Output(t *testing.T, run func(w io.Writer, runs int), full int) {
	t.Helper()
	n := Runs(full)
	var got bytes.Buffer
	run(&got, n)
	path := filepath.Join("testdata", "output.golden")
	if n == full {
		golden.Check(t, path, got.Bytes())
		return
	}
	why := fmt.Sprintf("with %d schedules per version, not %d (SQSQ_LONG=1 plays them all; a search that found its bug later than that needs it)", n, full)
	golden.CheckEdited(t, path, got.Bytes(), why, func(want []byte) []byte {
		return bytes.ReplaceAll(want, fmt.Appendf(nil, "passed %d schedules", full), fmt.Appendf(nil, "passed %d schedules", n))
	})
}

// Runs is how many schedules per version the examples' tests search: a
// fifth of full in the quick suite, full with SQSQ_LONG=1.
func Runs(full int) int { return testsize.Scale(full/5, full) }

// FindFunc searches a version's schedules, seeds 1…runs: what an example
// program's find variable holds.
type FindFunc = func(version string, s sqsqtest.Scenario, runs int) sqsqtest.Finding

// Shared makes find remember each search by version and run count, so
// that the golden test (through the program's run) and the version's own
// test share one: Find is deterministic, and a buggy version's search, with
// its three shrinks, costs as much as the rest of an example's tests. The
// callers must name each version as the program does.
func Shared(find FindFunc) FindFunc {
	type key struct {
		version string
		runs    int
	}
	var mu sync.Mutex
	searches := map[key]func() sqsqtest.Finding{}
	return func(version string, s sqsqtest.Scenario, runs int) sqsqtest.Finding {
		k := key{version, runs}
		mu.Lock()
		f, ok := searches[k]
		if !ok {
			f = sync.OnceValue(func() sqsqtest.Finding { return find(version, s, runs) })
			searches[k] = f
		}
		mu.Unlock()
		return f() // outside the lock: another search may run meanwhile
	}
}
