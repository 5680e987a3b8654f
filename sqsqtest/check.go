package sqsqtest

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// DefaultRuns is how many schedules [Scenario.Test] and
// [Scenario.TestPlain] play when neither the -sqsqtest.runs flag nor the
// SQSQTEST_RUNS environment variable says otherwise (a fifth of it with
// -short, as rapid does).
const DefaultRuns = 1000

// The flags of the package, registered on flag.CommandLine when the test
// binary starts (unless something registered those names already).
const (
	runsFlag  = "sqsqtest.runs"
	drawsFlag = "sqsqtest.draws"
	runsEnv   = "SQSQTEST_RUNS"
)

// runsEnvErr is a malformed SQSQTEST_RUNS, reported by the tests that
// read it rather than by a panic at start-up.
var runsEnvErr error

func init() {
	if flag.Lookup(runsFlag) == nil {
		var def int
		def, runsEnvErr = envRuns(os.LookupEnv)
		flag.Int(runsFlag, def, "sqsqtest: schedules Scenario.Test and Scenario.TestPlain play (default from "+runsEnv+")")
	}
	if flag.Lookup(drawsFlag) == nil {
		flag.Bool(drawsFlag, false, "sqsqtest: let rapid list every draw of a failing schedule")
	}
}

// Runs is how many schedules [Scenario.Test] and [Scenario.TestPlain]
// play: the -sqsqtest.runs flag, or else the SQSQTEST_RUNS environment
// variable, or else [DefaultRuns].
func Runs() int {
	n, _ := runs()
	return n
}

// envRuns is the number of runs SQSQTEST_RUNS asks for, or DefaultRuns.
func envRuns(lookup func(string) (string, bool)) (int, error) {
	v, ok := lookup(runsEnv)
	if !ok {
		return DefaultRuns, nil
	}
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return n, nil
	}
	return DefaultRuns, fmt.Errorf("sqsqtest: %s=%q is not a positive number", runsEnv, v)
}

func runs() (int, error) {
	f := flag.Lookup(runsFlag)
	if f == nil {
		return DefaultRuns, runsEnvErr
	}
	n, err := strconv.Atoi(f.Value.String())
	if err != nil || n <= 0 {
		return DefaultRuns, fmt.Errorf("sqsqtest: -%s=%s is not a positive number", runsFlag, f.Value.String())
	}
	set := false // on the command line, which overrides the environment
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == runsFlag })
	if set {
		return n, nil
	}
	return n, runsEnvErr
}

// flagValue is the value of a flag of flag.CommandLine, "" if there is
// none: rapid's flags are read, never set.
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// drawsShown reports whether -sqsqtest.draws asks for rapid's draw log.
func drawsShown() bool { return flagValue(drawsFlag) == "true" }

// Check plays one schedule drawn by rapid and fails t when an invariant
// breaks, so rapid shrinks the schedule and reports the minimal one:
//
//	rapid.Check(t, scenario.Check)
//
// plays as many schedules as rapid's -rapid.checks (100 by default);
// [Scenario.TestPlain] and [Scenario.Test] play [Runs] of them. A failure
// logs the legend and the schedule, then fails with the broken invariant,
// so rapid's report shows the schedule once. The schedule is rapid's
// shrunk one, shrunk again by steps (see [Scenario.Shrink]); the log says
// when that made it shorter. Rapid's log of every draw
// ("[rapid] draw action: 2") is folded into one line unless the test runs
// with -sqsqtest.draws. Runs keep no timeline; the one rapid reports is
// played again from its draws to print it.
func (s Scenario) Check(t *rapid.T) {
	t.Helper()
	s.check(t, s.play)
}

// player plays a schedule, silently or told (see run.silent).
type player func(src Source, silent bool) *Outcome

// check is Check with run playing each schedule. It and every function
// between the user's test and it call Helper, so the failure names the
// user's line.
func (s Scenario) check(t *rapid.T, run player) {
	t.Helper()
	var o *Outcome
	var tp *tape
	var rec *recorder
	if drawsShown() {
		rec = &recorder{src: Rapid(t)}
		tp = &tape{src: rec}
		o = run(tp, true)
	} else {
		// Draws inside a custom generator are not logged; the generator's
		// value is, once, as its GoString.
		o = rapid.Custom(func(t *rapid.T) schedule {
			src := &counting{src: Rapid(t)}
			rec = &recorder{src: src}
			tp = &tape{src: rec}
			return schedule{o: run(tp, true), draws: src.n}
		}).Draw(t, "schedule").o
	}
	if o.Err != nil {
		told := func(src Source) *Outcome { return run(src, false) }
		// Only the run rapid reports is worth telling, and shrinking by
		// steps: the failing runs of rapid's own shrinking are many, and
		// their logs unseen. Where the kit cannot tell which run that is,
		// it tells them all.
		shown, known := reported(t)
		retold := false
		if shown || !known {
			pos := 0
			again := &tape{src: replay{seq: rec.seq, pos: &pos}}
			if o, retold = retell(told, again, o); retold {
				tp = again
			}
		}
		if shown && retold {
			if short, runs := shrinkSteps(told, tp.sc, o); short != o {
				t.Logf("sqsqtest: shrank rapid's schedule of %d steps to %d by dropping steps (%d runs; rapid replays the longer one, and the kit shrinks it again)",
					o.Steps, short.Steps, runs)
				o = short
			}
		}
		t.Logf("%s", o.details())
		t.Fatalf("%s", o.headline())
	}
	o.recycle()
}

// retell plays again, told, from again (a source that draws what the
// silent run drew), the silent run whose outcome o failed, and returns
// the told outcome; or, if the run passed this time, o with its error
// saying the consumer is not deterministic, and ok false.
func retell(told func(Source) *Outcome, again Source, o *Outcome) (_ *Outcome, ok bool) {
	if out := told(again); out.Err != nil {
		return out, true
	}
	o.Err = fmt.Errorf("%w (%s)", o.Err, notDeterministic)
	return o, false
}

// notDeterministic says why a failure is reported without its schedule.
const notDeterministic = "played again from the same draws to print its schedule, the run passed: the consumer is not deterministic"

// reported reports whether rapid shows t's log: the run it reports, not
// one of its search or shrinking (nor the one it replays to write its fail
// file, which the kit leaves unshrunk by steps: the report is what
// matters, and a replay of the file shrinks again). rapid.T does not say
// so; its unexported field does, and if a later rapid renames it, known
// is false and the kit tells every failing run and reports rapid's
// schedule unshrunk (TestReportedRunIsRapidsLast fails then).
func reported(t *rapid.T) (shown, known bool) {
	v := reflect.ValueOf(t)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false, false
	}
	f := v.Elem().FieldByName("tbLog")
	if !f.IsValid() || f.Kind() != reflect.Bool {
		return false, false
	}
	return f.Bool(), true
}

// schedule is one run drawn by rapid, as rapid's log prints it.
type schedule struct {
	o     *Outcome
	draws int
}

func (s schedule) GoString() string {
	return fmt.Sprintf("%d draws (-%s lists them)", s.draws, drawsFlag)
}

// counting counts the draws of a source.
type counting struct {
	src Source
	n   int
}

func (c *counting) Draw(label string, n int) int {
	c.n++
	return c.src.Draw(label, n)
}

func (c *counting) halted() any { return haltedBy(c.src) }

// TestPlain plays [Runs] schedules drawn by rapid, as [Scenario.Test]
// does, but without a testing/synctest bubble: for Go 1.24, and for
// consumers that meet the kit only from goroutines the kit starts (the
// handler's own, and those of [Env.Go]). It plays them as rapid.Check
// calls of -rapid.checks schedules each (so -rapid.seed, -rapid.failfile
// and -short work as with rapid), stops at the first failure and fails t
// with the shortest failing schedule rapid shrinks to, printed once.
func (s Scenario) TestPlain(t *testing.T) {
	t.Helper()
	s = s.reuse()
	defer s.spare.stop()
	s.checkRuns(t, s.play)
}

// checkRuns plays Runs() schedules in rounds of rapid.Check, each with
// run.
func (s Scenario) checkRuns(t *testing.T, run player) {
	t.Helper()
	n, err := runs()
	if err != nil {
		t.Fatal(err)
	}
	checks, _ := strconv.Atoi(flagValue("rapid.checks"))
	rounds := roundsFor(n, checks, flagValue("rapid.seed"))
	tb := &rapidTB{TB: t}
	start := time.Now()
	for i := 0; i < rounds && !t.Failed(); i++ {
		if i > 0 {
			if d, ok := t.Deadline(); ok && time.Until(d) < time.Since(start)/time.Duration(i)*5 {
				t.Logf("sqsqtest: stopped after %d of %d rounds: the test's deadline is near", i, rounds)
				break
			}
		}
		rapid.Check(tb, func(t *rapid.T) {
			t.Helper()
			s.check(t, run)
		})
	}
	short := ""
	if testing.Short() {
		short = ", a fifth of them with -short"
	}
	t.Logf("sqsqtest: passed %d runs (-%s or %s sets how many%s)", tb.passed, runsFlag, runsEnv, short)
}

// roundsFor is how many rapid.Check calls of checks schedules each play
// runs schedules: one when rapid's seed is set, since every call would
// play the same schedules.
func roundsFor(runs, checks int, seed string) int {
	if checks <= 0 || seed != "" && seed != "0" {
		return 1
	}
	return (runs + checks - 1) / checks
}

// rapidTB is the *testing.T that rapid reports to. It sums rapid's "OK,
// passed" lines into one, and drops a message that repeats one already
// printed: rapid reports a failure's message in its summary and again when
// it replays the failing schedule.
type rapidTB struct {
	rapid.TB
	passed int
	said   []string
}

func (t *rapidTB) Logf(format string, args ...any) {
	t.Helper()
	if strings.HasPrefix(format, "[rapid] OK, passed") && len(args) > 0 {
		if n, ok := args[0].(int); ok {
			t.passed += n
			return
		}
	}
	msg := fmt.Sprintf(format, args...)
	if t.repeats(msg) {
		return
	}
	t.said = append(t.said, msg)
	t.TB.Logf("%s", msg)
}

func (t *rapidTB) Errorf(format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	t.said = append(t.said, msg)
	t.TB.Errorf("%s", msg)
}

// repeats reports whether msg, one of the kit's (not rapid's own lines),
// was printed already.
func (t *rapidTB) repeats(msg string) bool {
	if strings.HasPrefix(msg, "[rapid]") {
		return false
	}
	for _, s := range t.said {
		if strings.Contains(s, msg) {
			return true
		}
	}
	return false
}

// Seeds plays the schedules of seeds first, first+1, … (n of them, a fifth
// with -short) and fails t at the first broken invariant with the seed, so
// the run can be replayed with s.Run(sqsqtest.Seed(seed)), and the
// timeline, shrunk by steps as [Scenario.Shrink] does (which replays it).
// It returns how many runs passed. Its runs keep no timeline: a failing
// one is played again from its seed to print it, so the consumer's code
// runs once more (a consumer that then passes is reported as not
// deterministic).
func (s Scenario) Seeds(t Fataler, first uint64, n int) int {
	if h, ok := t.(helperT); ok {
		h.Helper() // here, in the function that reports: Helper marks its caller
	}
	if testing.Short() {
		n = max(1, n/5)
	}
	s = s.reuse()
	defer s.spare.stop()
	for i := 0; i < n; i++ {
		seed := first + uint64(i)
		o := s.silentRun(s.spare.seed(seed), func() Source { return Seed(seed) })
		if o.Err != nil {
			if short := s.Shrink(Seed(seed)); short.Err != nil && short.Steps < o.Steps {
				t.Fatalf("seed %d, shrunk by steps from %d to %d (replay with scenario.Shrink(sqsqtest.Seed(%d)); scenario.Run(sqsqtest.Seed(%d)) plays it unshrunk): %v",
					seed, o.Steps, short.Steps, seed, seed, short)
				return i
			}
			t.Fatalf("seed %d (replay with scenario.Run(sqsqtest.Seed(%d))): %v", seed, seed, o)
			return i
		}
		o.recycle()
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
	// First is the first failing run as found (played again from its
	// seed for its timeline, as Seeds does); Shrunk the shortest failing
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
// rapid would, and then by steps, as [Scenario.Shrink] does, but with no
// *testing.T, so programs and benchmarks can measure how fast a bug is
// found. Shrinking is greedy and can stop at a
// local minimum, so Find also shrinks the next few failing seeds and keeps
// the shortest result.
func (s Scenario) Find(first uint64, maxRuns int) Finding {
	const tries = 3
	s = s.reuse()
	defer s.spare.stop()
	start := time.Now()
	var f Finding
	found := 0
	for i := 0; i < maxRuns && found < tries; i++ {
		seed := first + uint64(i)
		rec := &recorder{src: s.spare.seed(seed)}
		o := s.silentRun(rec, func() Source { return Seed(seed) })
		if o.Err == nil {
			o.recycle()
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
