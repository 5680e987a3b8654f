package sqsqtest

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// A script recorded from a run replays that run exactly: the shrinker
// works on the run that failed, not on a neighbour of it.
func TestScriptReplaysItsRun(t *testing.T) {
	t.Parallel()
	s := chargeThenDelete("a", "b", "c")
	for seed := uint64(1); seed <= 60; seed++ {
		tp := &tape{src: Seed(seed)}
		want := s.Run(tp)
		got := s.Run(newScripted(&tp.sc))
		if got.Timeline.String() != want.Timeline.String() || got.Steps != want.Steps {
			t.Fatalf("seed %d: the script replays\n%v\nnot\n%v", seed, got, want)
		}
	}
}

// Shrink keeps the failure, never lengthens it, and gives the same
// schedule every time.
func TestShrinkKeepsTheFailure(t *testing.T) {
	t.Parallel()
	s := chargeThenDelete("a", "b", "c")
	found := 0
	for seed := uint64(1); seed <= 200 && found < 5; seed++ {
		o := s.Run(Seed(seed))
		if o.Err == nil {
			continue
		}
		found++
		short := s.Shrink(Seed(seed))
		if short.Err == nil || failureKind(short.Err) != failureKind(o.Err) {
			t.Fatalf("seed %d: shrunk to %v, from %v", seed, short.Err, o.Err)
		}
		if short.Steps > o.Steps {
			t.Errorf("seed %d: %d steps shrank to %d", seed, o.Steps, short.Steps)
		}
		if found > 1 {
			continue
		}
		if again := s.Shrink(Seed(seed)); again.Timeline.String() != short.Timeline.String() {
			t.Errorf("seed %d: two shrinks differ:\n%v\n%v", seed, short, again)
		}
	}
	if found == 0 {
		t.Fatal("no failing seed")
	}
	if o := s.Shrink(Lucky()); o.Err != nil || o.Steps != 0 {
		t.Errorf("a passing run: %v", o)
	}
}

// The draws are indices into the actions possible at each step, so
// dropping a message's send shifts what later draws mean; the step
// shrinker drops a message the double charge does not need, with all its
// steps, and renames the rest (C's steps become A's).
func TestShrinkDropsMessagesTheFailureDoesNotNeed(t *testing.T) {
	t.Parallel()
	s := chargeThenDelete("a", "b", "c")
	// A schedule that handles A and B, then charges C twice: a crash
	// between C's charge and its delete.
	var sc script
	step := func(kind, slot int, text string, draws ...labeled) {
		sc.steps = append(sc.steps, scriptStep{key: stepKey{kind: kind, slot: slot, text: text}, draws: draws})
	}
	for _, l := range []string{"A", "B"} {
		step(actSend, -1, "")
		step(actReceive, 0, "")
		step(actCall, 0, "commit charge")
		step(actCall, 0, "delete("+l+")")
	}
	step(actSend, -1, "")
	step(actReceive, 1, "")
	step(actCall, 1, "commit charge")
	step(actCall, 1, "delete(C)", labeled{"crash c2", 99})
	src := newScripted(&sc)
	o := s.Run(src)
	if o.Err == nil || !strings.Contains(o.Err.Error(), "C (charge:c) committed 2 times") || o.Steps != 12 {
		t.Fatalf("the hand-made schedule: %v", o)
	}
	short, _ := shrinkSteps(s.Run, src.sc, o)
	if short.Steps > 4 || !strings.Contains(short.Err.Error(), "A (charge:a) committed 2 times") {
		t.Errorf("shrunk to:\n%v", short)
	}
}

// reported tells the one run rapid reports from the runs of its search
// and shrinking (and the one it replays for its fail file), by rapid.T's
// unexported fields: this fails if a rapid upgrade renames them.
//
// Not parallel: rapid writes its fail file under the working directory.
func TestReportedRunIsRapidsLast(t *testing.T) {
	t.Chdir(t.TempDir())
	var calls []bool
	rapidCheck(&fakeTB{}, func(t *rapid.T) {
		shown, known := reported(t)
		if !known {
			panic("rapid.T has no tbLog field of type bool any more")
		}
		calls = append(calls, shown)
		if rapid.IntRange(0, 1000).Draw(t, "n") > 500 {
			t.Fatalf("too big")
		}
	})
	first := -1
	for i, r := range calls {
		if r && first < 0 {
			first = i
		}
	}
	if first < 1 || first != len(calls)-1 {
		t.Fatalf("reported runs %v: want the last of many (the report's)", calls)
	}
}

// Through Check, the schedule printed is the step shrinker's: it says so
// when it is shorter than rapid's.
//
// Not parallel: it sets rapid's flags.
func TestCheckPrintsTheStepShrink(t *testing.T) {
	t.Chdir(t.TempDir())
	s := chargeThenDelete("a", "b", "c")
	shorter := 0
	for seed := 1; seed <= 30 && shorter == 0; seed++ {
		setFlag(t, "rapid.seed", seed)
		tb := &fakeTB{}
		rapidCheck(&rapidTB{TB: tb}, func(t *rapid.T) { s.check(t, s.play) })
		out := strings.Join(tb.lines, "\n")
		if !tb.failed {
			continue
		}
		if strings.Contains(out, "sqsqtest: shrank rapid's schedule of") {
			shorter++
		}
		if n := strings.Count(out, "schedule ("); n != 1 {
			t.Fatalf("%d schedules printed:\n%s", n, out)
		}
	}
	if shorter == 0 {
		t.Error("in 30 searches the step shrinker never shortened rapid's schedule")
	}
}

// setFlag sets a flag for the rest of the test.
func setFlag(t *testing.T, name string, v int) {
	t.Helper()
	old := flag.Lookup(name).Value.String()
	if err := flag.Set(name, strconv.Itoa(v)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set(name, old) })
}

// fatalf is a Fataler that keeps the message.
type fatalf struct{ msg string }

func (f *fatalf) Fatalf(format string, args ...any) { f.msg = fmt.Sprintf(format, args...) }

// Seeds reports a failing seed shrunk by steps, and says how to replay
// both the shrunk and the whole run.
func TestSeedsReportsTheShrunkRun(t *testing.T) {
	t.Parallel()
	s := chargeThenDelete("a", "b", "c")
	f := &fatalf{}
	passed := s.Seeds(f, 1, 50)
	if f.msg == "" {
		t.Fatal("no failing seed in 50")
	}
	seed := uint64(1 + passed)
	whole, short := s.Run(Seed(seed)), s.Shrink(Seed(seed))
	if short.Steps >= whole.Steps {
		t.Skipf("seed %d does not shrink by steps (%d steps)", seed, whole.Steps)
	}
	want := fmt.Sprintf("seed %d, shrunk by steps from %d to %d (replay with scenario.Shrink(sqsqtest.Seed(%d)); ", seed, whole.Steps, short.Steps, seed)
	if !strings.HasPrefix(f.msg, want) || !strings.HasSuffix(f.msg, short.String()) {
		t.Errorf("Seeds reported:\n%s\nwant it to start %q and show:\n%v", f.msg, want, short)
	}
}

// A rapid draw's panic reaches Run through every source the kit wraps
// rapid's in (see rapidSource): Check's tape, recorder and counter.
func TestHaltPassesThroughWrappers(t *testing.T) {
	t.Parallel()
	h := &rapidSource{stop: "halted"}
	if got := haltedBy(&tape{src: &recorder{src: &counting{src: h}}}); got != "halted" {
		t.Fatalf("halted: %v", got)
	}
}
