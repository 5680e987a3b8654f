package sqsqtest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// at is an entry of a synthetic timeline.
func at(s int, text string) Entry { return Entry{At: time.Duration(s) * time.Second, Text: text} }

// The settle phase of a report prints the lines of the messages the
// failure names and folds runs of three or more other lines into one.
func TestReportSummarisesTheSettlePhase(t *testing.T) {
	t.Parallel()
	tl := Timeline{
		at(0, "send(A)"), at(0, "receive(A) by c1"), at(0, "c1 charge(A): charge:a"), at(0, "c1 crashed before delete(A)"),
		at(0, settleText),
		at(0, "send(B)"), at(0, "receive(B) by c1"), at(0, "c1 charge(B): charge:b"), at(0, "c1 delete(B)"), at(0, "c1 done with B"),
		at(30, "visibility expired(A)"), at(30, "receive(A) by c2"),
		at(30, "receive by c1: empty"), at(30, "receive by c1: empty"),
		at(30, "c2 charge(A): charge:a"),
		at(30, "receive by c1: empty"), at(30, "receive by c1: empty"), at(30, "receive by c1: empty"),
		at(30, "c2 delete(A)"), at(30, "c2 done with A"),
		at(60, "visibility expired(C)"), at(60, "C moved to DLQ after 2 receives"), at(60, "redrive(C) from DLQ: new MessageIds"),
	}
	labels := map[string]bool{"A": true, "B": true, "C": true}
	want := `  t=0s send(A)
→ t=0s receive(A) by c1
→ t=0s c1 charge(A): charge:a
→ t=0s c1 crashed before delete(A)
→ t=0s settle: faults and crashes off
→ t=0s … 5 events of B (send, receive, charge, delete, done)
→ t=30s visibility expired(A)
→ t=30s receive(A) by c2
→ t=30s receive by c1: empty
→ t=30s receive by c1: empty
→ t=30s c2 charge(A): charge:a
→ t=30s … 3 events (empty receive)
→ t=30s c2 delete(A)
→ t=30s c2 done with A
→ t=1m0s … 3 events of C (expiry, moved to DLQ, redrive)`
	if got := tl.report(labels, map[string]bool{"A": true}, 0); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A failure that names no message prints every line.
	if got := tl.report(labels, nil, 0); got != tl.String() {
		t.Errorf("with no label named, got\n%s\nwant every line:\n%s", got, tl)
	}
}

// Each phase prints at most maxPrinted lines; the rest is counted.
func TestReportCutsLongPhases(t *testing.T) {
	t.Parallel()
	var tl Timeline
	for i := 0; i < maxPrinted+50; i++ {
		tl = append(tl, at(i, fmt.Sprintf("receive by c%d: empty", i))) // no repeats to fold
	}
	tl = append(tl, at(999, settleText))
	for i := 0; i < maxPrinted+7; i++ {
		tl = append(tl, at(1000+i, fmt.Sprintf("c%d delete(A)", i)))
	}
	got := strings.Split(tl.report(map[string]bool{"A": true}, map[string]bool{"A": true}, 0), "\n")
	if len(got) != 2*maxPrinted+3 {
		t.Fatalf("%d lines, want %d", len(got), 2*maxPrinted+3)
	}
	for i, want := range map[int]string{
		maxPrinted:       "→ … 50 more events of the drawn schedule",
		maxPrinted + 1:   "→ t=16m39s settle: faults and crashes off",
		2*maxPrinted + 2: "→ … 7 more events",
	} {
		if got[i] != want {
			t.Errorf("line %d: %q, want %q", i, got[i], want)
		}
	}
	// Timeline.String cuts nothing.
	if n := strings.Count(tl.String(), "\n") + 1; n != len(tl) {
		t.Errorf("Timeline.String printed %d lines of %d", n, len(tl))
	}
}

// The words of a timeline line that are labels decide what is involved:
// "A" in "charge:order-A-1" counts, "c1" and "DLQ" do not.
func TestKindOfAndWords(t *testing.T) {
	t.Parallel()
	for text, kind := range map[string]string{
		"receive(A,B) by c1 [duplicate delivery of B]": "receive",
		"receive by c2: RequestThrottled [throttled]":  "empty receive",
		"c1 extend(A, 30s): ServiceUnavailable":        "extend",
		"c1 is slow: 1m0s before delete(A)":            "slow",
		"c1 worked 45s on A":                           "worked",
		"c2 handles A while c1 still does":             "handles",
		"A visible again":                              "visible again",
		"idle for 4h0m0s":                              "idle",
		"c1 send(\"refund-1\") to outbox":              "send",
	} {
		if got := kindOf(text); got != kind {
			t.Errorf("kindOf(%q) = %q, want %q", text, got, kind)
		}
	}
	if got := fmt.Sprint(words("c1 charge(A): charge:order-1 [DLQ]")); got != "[c1 charge A charge order 1 DLQ]" {
		t.Errorf("words: %s", got)
	}
}

// chargeThenDelete charges without an inbox: a crash between the charge
// and the delete charges twice.
func chargeThenDelete(bodies ...string) Scenario {
	return Scenario{
		Messages: bodies, Crash: 30, Faults: AllFaults(5),
		Consumer:   chargeAndDelete,
		Invariants: []Invariant{EffectOnce(func(b string) string { return "charge:" + b })},
	}
}

// chargeAndDelete charges a message's body, then deletes it.
func chargeAndDelete(env *Env) Handler {
	q := env.Queue()
	return func(ctx context.Context, m Msg) error {
		if err := env.Commit("charge", func(tx *Tx) error { tx.Effect("charge:" + m.Body); return nil }); err != nil {
			return err
		}
		return q.Delete(ctx, m.ReceiptHandle)
	}
}

// A lucky run's report, exactly: the legend names each label's body and
// MessageId, the settle phase prints the failing message's lines and folds
// the others.
func TestOutcomeStringGolden(t *testing.T) {
	t.Parallel()
	s := Scenario{
		Messages: []string{"a", "b", "c"}, Consumers: 1,
		Consumer: func(env *Env) Handler {
			q := env.Queue()
			return func(ctx context.Context, m Msg) error {
				if err := q.Delete(ctx, m.ReceiptHandle); err != nil || m.Body == "a" {
					return err // a: deleted, never charged
				}
				return env.Commit("charge", func(tx *Tx) error { tx.Effect("charge:" + m.Body); return nil })
			}
		},
		Invariants: []Invariant{EffectAtLeastOnce(func(b string) string { return "charge:" + b })},
	}
	want := `invariant failed: each message's effect at least once: A (charge:a) never committed
messages: A = "a" (…1); B = "b" (…2); C = "c" (…3)
schedule (0 steps):
  t=0s settle: faults and crashes off
→ t=0s send(A)
→ t=0s send(B)
→ t=0s send(C)
→ t=0s receive(A) by c1
→ t=0s c1 delete(A)
→ t=0s c1 done with A
→ t=0s … 8 events of B, C (receive, delete, charge, done)`
	if got := s.Run(Lucky()).String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A redrive gives a message a new MessageId: the legend lists both.
func TestLegendFollowsARedrive(t *testing.T) {
	t.Parallel()
	s := Scenario{
		Messages: []string{"x"}, Consumers: 1, MaxReceiveCount: 1,
		Consumer: func(env *Env) Handler {
			q := env.Queue()
			return func(ctx context.Context, m Msg) error {
				if strings.HasSuffix(m.MessageId, "-000000000001") {
					return errors.New("not yet") // the first MessageId fails: to the DLQ
				}
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
		Invariants: []Invariant{{Name: "always", Check: func(*Result) error { return errors.New("show A") }}},
	}
	o := s.Run(Lucky())
	if want := `messages: A = "x" (…1, then …3)`; !strings.Contains(o.String(), want+"\n") {
		t.Errorf("no %q in\n%v", want, o)
	}
	if !strings.Contains(o.String(), "redrive(A) from DLQ: new MessageIds") {
		t.Errorf("no redrive in\n%v", o)
	}
}

// Injected faults are marked on the line of the call they hit, and a
// duplicate delivery names the message delivered again.
func TestFaultsMarkedWhereTheyHappen(t *testing.T) {
	t.Parallel()
	s := chargeThenDelete("a", "b", "c")
	s.Faults, s.Batch = AllFaults(20), 2
	s.Consumer = func(env *Env) Handler {
		q := env.Queue()
		return func(ctx context.Context, m Msg) error {
			if err := q.ChangeVisibility(ctx, m.ReceiptHandle, time.Minute); err != nil {
				return err
			}
			return q.Delete(ctx, m.ReceiptHandle)
		}
	}
	s.Invariants = nil
	// Which line each fault may be marked on.
	lines := map[string]*regexp.Regexp{
		"short-poll sample":        regexp.MustCompile(`^receive`),
		"reorder":                  regexp.MustCompile(`^receive\(`),
		"receive response lost":    regexp.MustCompile(`^receive\(.*response lost`),
		"throttled":                regexp.MustCompile(`: RequestThrottled`),
		"over limit":               regexp.MustCompile(`^receive by c\d: OverLimit`),
		"delete response lost":     regexp.MustCompile(`^c\d delete\(\w\): ServiceUnavailable`),
		"delete failed":            regexp.MustCompile(`^c\d delete\(\w\): ServiceUnavailable`),
		"visibility response lost": regexp.MustCompile(`^c\d extend\(\w, 1m0s\): ServiceUnavailable`),
		"visibility change failed": regexp.MustCompile(`^c\d extend\(\w, 1m0s\): ServiceUnavailable`),
	}
	dup := regexp.MustCompile(`^receive\(([A-C](?:,[A-C])*)\) by c\d.*duplicate delivery of ([A-C])`)
	seen := map[string]bool{}
	note := regexp.MustCompile(` \[([^\]]*)\]$`)
	for seed := uint64(1); seed <= 150; seed++ {
		for _, e := range s.Run(Seed(seed)).Timeline {
			m := note.FindStringSubmatch(e.Text)
			if m == nil {
				continue
			}
			for _, f := range strings.Split(m[1], ", ") {
				name, _, _ := strings.Cut(f, " of ")
				seen[name] = true
				if name == "duplicate delivery" {
					d := dup.FindStringSubmatch(e.Text)
					if d == nil || !strings.Contains(","+d[1]+",", ","+d[2]+",") {
						t.Errorf("seed %d: duplicate marked on %q", seed, e.Text)
					}
					continue
				}
				if re, ok := lines[name]; !ok || !re.MatchString(e.Text) {
					t.Errorf("seed %d: %s marked on %q", seed, name, e.Text)
				}
			}
		}
	}
	for f := range lines {
		if !seen[f] {
			t.Errorf("%s never marked in 150 runs", f)
		}
	}
	if !seen["duplicate delivery"] {
		t.Error("no duplicate delivery marked in 150 runs")
	}
}

// fakeTB records what rapid reports.
type fakeTB struct {
	mu     sync.Mutex
	lines  []string
	failed bool
}

type failNow struct{}

func (f *fakeTB) add(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lines = append(f.lines, s)
}
func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Name() string                      { return "TestRapidOutput" }
func (f *fakeTB) Logf(format string, args ...any)   { f.add(fmt.Sprintf(format, args...)) }
func (f *fakeTB) Log(args ...any)                   { f.add(fmt.Sprint(args...)) }
func (f *fakeTB) Skipf(string, ...any)              { panic("skip") }
func (f *fakeTB) Skip(...any)                       { panic("skip") }
func (f *fakeTB) SkipNow()                          { panic("skip") }
func (f *fakeTB) Errorf(format string, args ...any) { f.add(fmt.Sprintf(format, args...)); f.Fail() }
func (f *fakeTB) Error(args ...any)                 { f.add(fmt.Sprint(args...)); f.Fail() }
func (f *fakeTB) Fatalf(format string, args ...any) { f.Errorf(format, args...); f.FailNow() }
func (f *fakeTB) Fatal(args ...any)                 { f.Error(args...); f.FailNow() }
func (f *fakeTB) FailNow()                          { f.Fail(); panic(failNow{}) }
func (f *fakeTB) Fail()                             { f.mu.Lock(); f.failed = true; f.mu.Unlock() }
func (f *fakeTB) Failed() bool                      { f.mu.Lock(); defer f.mu.Unlock(); return f.failed }

// check runs rapid.Check on tb, which ends with FailNow on a failure.
func rapidCheck(tb rapid.TB, prop func(*rapid.T)) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(failNow); !ok {
				panic(p)
			}
		}
	}()
	rapid.Check(tb, prop)
}

// What rapid v1.3.0 prints for a failing property: its summary, "[rapid]
// failed after N tests: <the Fatalf message>", then a replay of the shrunk
// case that logs every draw ("[rapid] draw action: 2") and the Fatalf
// message again. Scenario.Check logs the schedule and fails with the
// headline only, and keeps its draws inside one custom generator, so the
// schedule prints once and the draws in one line; through Test's rapidTB
// the headline prints once too.
//
// Not parallel: rapid writes its fail file under the working directory,
// which the test moves to a temporary one.
func TestRapidOutput(t *testing.T) {
	t.Chdir(t.TempDir())
	s := chargeThenDelete("a", "b")

	plain := &fakeTB{}
	rapidCheck(plain, s.Check)
	wrapped := &fakeTB{}
	rapidCheck(&rapidTB{TB: wrapped}, func(t *rapid.T) { s.check(t, s.play) })

	for _, tc := range []struct {
		name      string
		tb        *fakeTB
		headlines int
	}{{"rapid.Check(t, s.Check)", plain, 2}, {"Scenario.Test", wrapped, 1}} {
		out := strings.Join(tc.tb.lines, "\n")
		if !tc.tb.failed {
			t.Fatalf("%s: the double charge was not found:\n%s", tc.name, out)
		}
		if n := strings.Count(out, "schedule ("); n != 1 {
			t.Errorf("%s: %d schedules printed, want 1:\n%s", tc.name, n, out)
		}
		m := regexp.MustCompile(`\[rapid\] failed after \d+ tests: (invariant failed: .* committed 2 times)\n`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%s: no summary of rapid's:\n%s", tc.name, out)
		}
		if n := strings.Count(out, m[1]); n != tc.headlines {
			t.Errorf("%s: headline printed %d times, want %d:\n%s", tc.name, n, tc.headlines, out)
		}
		if drawsShown() {
			continue
		}
		if strings.Contains(out, "[rapid] draw go on") || strings.Contains(out, "[rapid] draw action") {
			t.Errorf("%s: rapid's draw log printed:\n%s", tc.name, out)
		}
		if !regexp.MustCompile(`(?m)^\[rapid\] draw schedule: \d+ draws \(-sqsqtest\.draws lists them\)$`).MatchString(out) {
			t.Errorf("%s: no one-line draw summary:\n%s", tc.name, out)
		}
	}
}

// A passing round reports no "[rapid] OK" line of its own: Test sums them.
func TestRapidTBSumsPassedRuns(t *testing.T) {
	t.Parallel()
	s := chargeThenDelete("a")
	s.Invariants = nil // whatever happens, it passes
	fake := &fakeTB{}
	tb := &rapidTB{TB: fake}
	for i := 0; i < 2; i++ {
		rapidCheck(tb, func(t *rapid.T) { s.check(t, s.play) })
	}
	checks, _ := strconv.Atoi(flagValue("rapid.checks"))
	if testing.Short() {
		checks /= 5
	}
	if fake.failed || tb.passed != 2*checks || len(fake.lines) != 0 {
		t.Errorf("failed %v, passed %d (want %d), lines %q", fake.failed, tb.passed, 2*checks, fake.lines)
	}
}

// declinedEveryTime fails on its own draw's lucky value, so under the
// lucky schedule (and every schedule rapid shrinks to) no message is ever
// deleted and the run cannot settle.
func declinedEveryTime(bodies ...string) Scenario {
	return Scenario{
		Messages: bodies,
		Consumer: func(env *Env) Handler {
			q := env.Queue()
			return func(ctx context.Context, m Msg) error {
				if env.Draw("declined", 2) == 0 {
					return errors.New("declined")
				}
				if err := env.Commit("charge", func(tx *Tx) error { tx.Effect("charge:" + m.Body); return nil }); err != nil {
					return err
				}
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
		Invariants: []Invariant{EffectOnce(func(b string) string { return "charge:" + b }), NothingLeft()},
	}
}

// A run that never settles says so on its first line, naming the messages
// that kept it going, and its report folds the loop it went round.
func TestUnsettledRunSaysSoFirst(t *testing.T) {
	t.Parallel()
	o := declinedEveryTime("order-1", "order-2", "order-3").Run(Lucky())
	out := o.String()
	first, _, _ := strings.Cut(out, "\n")
	if !regexp.MustCompile(`^the run did not settle in 400 steps: A was received \d+ times and never deleted; B was received \d+ times`).MatchString(first) {
		t.Errorf("first line %q does not say the run did not settle, naming A and B:\n%s", first, out)
	}
	if !strings.Contains(out, "\ninvariant failed: every message's effect committed exactly once: A") {
		t.Errorf("no invariant on the second line:\n%s", out)
	}
	if !regexp.MustCompile(`\n→ t=30s … the same 9 lines \d+ more times, to t=\d+m0s\n`).MatchString(out) {
		t.Errorf("the loop is not folded:\n%s", out)
	}
	if lines := strings.Count(out, "\n") + 1; lines >= 60 || len(out) >= 4096 {
		t.Errorf("%d lines, %d bytes:\n%s", lines, len(out), out)
	}
	// A settled run's report does not mention settling.
	s := declinedEveryTime("order-1")
	s.Invariants = []Invariant{{Name: "always", Check: func(*Result) error { return errors.New("show A") }}}
	s.Consumer = func(env *Env) Handler {
		q := env.Queue()
		return func(ctx context.Context, m Msg) error { return q.Delete(ctx, m.ReceiptHandle) }
	}
	if out := s.Run(Lucky()).String(); strings.Contains(out, "settle in") || !strings.HasPrefix(out, "invariant failed: always: show A\n") {
		t.Errorf("a settled run's report:\n%s", out)
	}
}

// Through rapid, the unsettled run's failure, shrunk, is bounded and says
// first that it did not settle. Not parallel: rapid writes its fail file
// under the working directory.
func TestUnsettledRunThroughRapid(t *testing.T) {
	t.Chdir(t.TempDir())
	s := declinedEveryTime("order-1", "order-2", "order-3")
	fake := &fakeTB{}
	rapidCheck(&rapidTB{TB: fake}, func(t *rapid.T) { s.check(t, s.play) })
	out := strings.Join(fake.lines, "\n")
	if !fake.failed {
		t.Fatalf("no failure:\n%s", out)
	}
	if !regexp.MustCompile(`^\[rapid\] failed after \d+ tests: the run did not settle in 400 steps: A was received \d+ times and never deleted;`).MatchString(out) {
		t.Errorf("the failure does not start with the run not settling:\n%s", out)
	}
	if lines := strings.Count(out, "\n") + 1; lines >= 60 || len(out) >= 4096 {
		t.Errorf("%d lines, %d bytes:\n%s", lines, len(out), out)
	}
}

// A block of lines repeated in a row prints once, then one line for the
// other copies, in both phases; the times may differ, the texts may not.
func TestReportFoldsRepeats(t *testing.T) {
	t.Parallel()
	tl := Timeline{at(0, "send(A)")}
	for i := 0; i < 5; i++ {
		tl = append(tl, at(i, "receive by c1: empty"))
	}
	tl = append(tl, at(5, settleText))
	for i := 0; i < 4; i++ {
		tl = append(tl, at(30*(i+1), "visibility expired(A)"), at(30*(i+1), "receive(A) by c1"), at(30*(i+1), "c1 failed on A: declined"))
	}
	tl = append(tl, at(200, "c1 delete(A)"))
	want := `  t=0s send(A)
→ t=0s receive by c1: empty
→ t=1s … the same line 4 more times, to t=4s
→ t=5s settle: faults and crashes off
→ t=30s visibility expired(A)
→ t=30s receive(A) by c1
→ t=30s c1 failed on A: declined
→ t=1m0s … the same 3 lines 3 more times, to t=2m0s
→ t=3m20s c1 delete(A)`
	if got := tl.report(map[string]bool{"A": true}, map[string]bool{"A": true}, 0); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A long legend keeps the messages the failure names and counts the rest.
func TestLegendIsCapped(t *testing.T) {
	t.Parallel()
	var legend []string
	for i := 0; i < 20; i++ {
		legend = append(legend, fmt.Sprintf("%s = %q (…%d)", label(i), "m"+strconv.Itoa(i), i+1))
	}
	got := capLegend(legend, map[string]bool{"K": true, "T": true})
	want := append(append(append([]string(nil), legend[:6]...), legend[10], legend[19]), "… and 12 more")
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := capLegend(legend[:maxLegend], nil); len(got) != maxLegend {
		t.Errorf("a legend of %d entries cut: %q", maxLegend, got)
	}
}

// Rapid's runs are silent (see run.silent); the one it reports is told
// again from its draws, so the report has its schedule even when the step
// shrinker finds nothing shorter (an invariant that fails on the lucky
// run), and only that one is told.
//
// Not parallel: rapid writes its fail file under the working directory.
func TestRapidReportsTheToldRun(t *testing.T) {
	t.Chdir(t.TempDir())
	s := chargeThenDelete("a")
	s.Invariants = []Invariant{{Name: "never", Check: func(*Result) error { return errors.New("no run passes") }}}
	silent, told := 0, 0
	tb := &fakeTB{}
	rapidCheck(&rapidTB{TB: tb}, func(t *rapid.T) {
		s.check(t, func(src Source, quiet bool) *Outcome {
			if quiet {
				silent++
			} else {
				told++
			}
			return s.play(src, quiet)
		})
	})
	out := strings.Join(tb.lines, "\n")
	if !tb.failed || !strings.Contains(out, "→ t=0s send(A)\n→ t=0s receive(A) by c1") {
		t.Fatalf("the report has no schedule:\n%s", out)
	}
	if silent == 0 || told == 0 || told > silent {
		t.Errorf("%d runs silent, %d told: want most silent, the reported told", silent, told)
	}
}

// A run rapid reports that passes when played again is reported as not
// deterministic, with its error, and not shrunk.
//
// Not parallel: rapid writes its fail file under the working directory.
func TestRapidReportsANonDeterministicRun(t *testing.T) {
	t.Chdir(t.TempDir())
	s := chargeThenDelete("a")
	s.Invariants = nil
	tb := &fakeTB{}
	rapidCheck(&rapidTB{TB: tb}, func(t *rapid.T) {
		s.check(t, func(src Source, quiet bool) *Outcome {
			o := s.play(src, quiet)
			if quiet {
				o.Err = errors.New("fails only when nobody looks")
			}
			return o
		})
	})
	out := strings.Join(tb.lines, "\n")
	if !tb.failed || !strings.Contains(out, "fails only when nobody looks ("+notDeterministic+")") || strings.Contains(out, "shrank") {
		t.Fatalf("the report:\n%s", out)
	}
}
