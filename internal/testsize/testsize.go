// Package testsize is the one switch between the quick test suite and the
// long one. `go test -race ./...`, the README's command, is quick: every
// behaviour runs, with fewer model-test rounds, kit schedules and
// stress iterations. SQSQ_LONG=1 restores the full searches (CI runs them
// in a step of its own):
//
//	SQSQ_LONG=1 go test -race -count=1 ./...
//
// Tests choose a size with [Scale] rather than skipping, so the quick
// command still exercises what the long one does; [QuickFlag] sizes what a
// flag sizes (sqsqtest's -sqsqtest.runs); [LongOnly] is for the few tests
// another CI step already covers in full.
package testsize

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"sync"
)

// Env is the environment variable that selects the long suite.
const Env = "SQSQ_LONG"

var long = sync.OnceValue(func() bool {
	b, err := parse(os.Getenv(Env))
	if err != nil {
		// A typo must not quietly run the quick suite where the long one
		// was asked for.
		panic(err)
	}
	return b
})

// parse reads SQSQ_LONG's value: empty is quick.
func parse(v string) (bool, error) {
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("testsize: %s=%q: want 1 (the long suite) or 0", Env, v)
	}
	return b, nil
}

// Long reports whether SQSQ_LONG asks for the long suite (1, true; unset,
// empty, 0 or false is quick). Any other value panics.
func Long() bool { return long() }

// Scale is long under SQSQ_LONG=1 and quick otherwise: a count of runs,
// rounds or iterations.
func Scale(quick, long int) int {
	if Long() {
		return long
	}
	return quick
}

// Skipper is the part of *testing.T that LongOnly needs.
type Skipper interface {
	Helper()
	Skip(args ...any)
}

// LongOnly skips t in the quick suite, saying why: for a test whose whole
// content another CI step runs in full anyway.
func LongOnly(t Skipper, why string) {
	t.Helper()
	if !Long() {
		t.Skip(why + " (SQSQ_LONG=1 runs it)")
	}
}

// QuickFlag sets the command-line flag name to value in the quick suite,
// unless the command line sets it or the environment variable env, which
// gives the flag its default, is set: so a test binary plays fewer of
// what the flag counts, and an explicit request still wins. Call it from
// TestMain after flag.Parse. It panics before flag.Parse or for a flag
// that does not exist or take value.
func QuickFlag(name, value, env string) {
	if !flag.Parsed() {
		panic("testsize.QuickFlag before flag.Parse")
	}
	if Long() {
		return
	}
	if _, ok := os.LookupEnv(env); ok {
		return
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	if set {
		return
	}
	if err := flag.Set(name, value); err != nil {
		panic(fmt.Sprintf("testsize.QuickFlag: %v", err))
	}
}

// KitRuns is how many schedules sqsqtest's Scenario.Test and TestPlain
// play in the quick suite: a fifth of sqsqtest.DefaultRuns, as -short
// would play.
const KitRuns = 200

// QuickKit asks for KitRuns schedules per Scenario.Test and TestPlain in
// the quick suite: QuickFlag on -sqsqtest.runs, whose default comes from
// SQSQTEST_RUNS. Call it from TestMain after flag.Parse.
func QuickKit() { QuickFlag("sqsqtest.runs", strconv.Itoa(KitRuns), "SQSQTEST_RUNS") }
