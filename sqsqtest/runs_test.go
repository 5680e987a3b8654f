package sqsqtest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsq/sqsq/internal/testsize"
)

func TestEnvRuns(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env     string
		set     bool
		want    int
		wantErr bool
	}{
		{set: false, want: DefaultRuns},
		{env: "5000", set: true, want: 5000},
		{env: "1", set: true, want: 1},
		{env: "0", set: true, want: DefaultRuns, wantErr: true},
		{env: "-3", set: true, want: DefaultRuns, wantErr: true},
		{env: "many", set: true, want: DefaultRuns, wantErr: true},
	} {
		n, err := envRuns(func(k string) (string, bool) {
			if k != runsEnv {
				t.Fatalf("looked up %s", k)
			}
			return tt.env, tt.set
		})
		if n != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("SQSQTEST_RUNS=%q (set %v): %d, %v; want %d, error %v", tt.env, tt.set, n, err, tt.want, tt.wantErr)
		}
	}
}

func TestRoundsFor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		runs, checks int
		seed         string
		want         int
	}{
		{1000, 100, "0", 10},
		{1000, 100, "", 10},
		{1001, 100, "0", 11},
		{50, 100, "0", 1},
		{1000, 1000, "0", 1},
		{1000, 0, "0", 1},    // -rapid.checks=0: one call, which plays none
		{1000, 100, "42", 1}, // -rapid.seed: every call would play the same schedules
		{100000, 100, "", 1000},
	} {
		if got := roundsFor(tt.runs, tt.checks, tt.seed); got != tt.want {
			t.Errorf("roundsFor(%d, %d, %q) = %d, want %d", tt.runs, tt.checks, tt.seed, got, tt.want)
		}
	}
}

// The flags are registered once, on flag.CommandLine, and Runs reads the
// one of -sqsqtest.runs.
func TestRunsFlag(t *testing.T) {
	t.Parallel()
	v := flagValue(runsFlag)
	if v == "" || flagValue(drawsFlag) == "" {
		t.Fatalf("flags not registered: %q %q", v, flagValue(drawsFlag))
	}
	if n, err := strconv.Atoi(v); err != nil || n != Runs() {
		t.Errorf("-%s=%s, Runs() = %d", runsFlag, v, Runs())
	}
}

// wantRuns is how many schedules Test and TestPlain play under the
// current flags.
func wantRuns() int {
	checks, _ := strconv.Atoi(flagValue("rapid.checks"))
	rounds := roundsFor(Runs(), checks, flagValue("rapid.seed"))
	if testing.Short() {
		checks /= 5
	}
	return rounds * checks
}

// counted is a correct scenario whose invariant counts the runs.
func counted(n *atomic.Int64) Scenario {
	return Scenario{
		Messages: []string{"a", "b"}, Faults: Rates{LoseDelete: 10}, Crash: 5,
		Consumer: func(env *Env) Handler {
			q := env.Queue()
			return func(ctx context.Context, m Msg) error { return q.Delete(ctx, m.ReceiptHandle) }
		},
		Invariants: []Invariant{NothingLeft(), {Name: "count", Check: func(*Result) error { n.Add(1); return nil }}},
	}
}

// TestPlain plays Runs() schedules (a fifth with -short), in rapid.Check
// calls of -rapid.checks each.
func TestTestPlainPlaysRuns(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	counted(&n).TestPlain(t)
	if got, want := int(n.Load()), wantRuns(); got != want {
		t.Errorf("played %d runs, want %d (Runs() = %d)", got, want, Runs())
	}
}

func TestMessageID(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 9, 10, 123, 999999999999} {
		if got, want := messageID(n), fmt.Sprintf("00000000-0000-4000-8000-%012d", n); got != want {
			t.Errorf("messageID(%d) = %s, want %s", n, got, want)
		}
	}
}

// The ledger's OldestAge, read only when the clock moved or a redrive
// stored a message, is what reading it after every event gave: at one
// instant events only store messages of age 0 or take messages away.
// Not parallel: it sets ageOnEveryEvent, which parallel tests read.
func TestOldestAgeOnlyGrowsWithTheClock(t *testing.T) {
	scenarios := map[string]Scenario{
		"standard, DLQ and redrive": {Messages: []string{"a", "b", "c"}, MaxReceiveCount: 2, Redrive: true,
			Faults: AllFaults(10), Crash: 10, MaxGap: 2 * 24 * 3600e9, Consumer: chargeAndDelete},
		"fifo, DLQ and redrive": {Messages: []string{"a", "b", "c"}, FIFO: true, MaxReceiveCount: 1, Redrive: true,
			Faults: AllFaults(10), Crash: 10, Consumer: chargeAndDelete},
		"slow": {Messages: []string{"a", "b"}, Slowness: 3600e9, Faults: AllFaults(5), Consumer: chargeAndDelete},
	}
	for name, s := range scenarios {
		grew := 0
		for seed := uint64(1); seed <= uint64(testsize.Scale(100, 300)); seed++ {
			ageOnEveryEvent = false
			now := s.Run(Seed(seed))
			ageOnEveryEvent = true
			before := s.Run(Seed(seed))
			ageOnEveryEvent = false
			if now.Ledger.OldestAge != before.Ledger.OldestAge {
				t.Fatalf("%s, seed %d: OldestAge %v, read after every event %v\n%v", name, seed,
					now.Ledger.OldestAge, before.Ledger.OldestAge, before)
			}
			if now.Ledger.OldestAge > 0 {
				grew++
			}
		}
		if grew == 0 {
			t.Errorf("%s: no run had a message of any age", name)
		}
	}
}

// The kit's memo of a queue's counts changes no run: every scenario shape
// plays the same timeline with the memo as when it reads the queues at
// every turn. Not parallel: it sets statsMemoOff, which parallel tests
// read.
func TestStatsMemoChangesNoRun(t *testing.T) {
	// A loop through the SDK-shaped client that redrives its own DLQ and
	// now and then purges the queue.
	loop := func(ctx context.Context, env *Env) {
		api, url := env.SQS(), env.QueueURL()
		for n := 0; ctx.Err() == nil; n++ {
			out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 2})
			if errors.Is(err, ErrCrashed) {
				return
			}
			if err != nil || len(out.Messages) == 0 {
				continue
			}
			switch n % 4 {
			case 0:
				_, err = api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: out.Messages[0].ReceiptHandle})
			case 1:
				arn := "arn:aws:sqs:us-east-1:000000000000:queue-dlq"
				_, err = api.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: &arn})
			case 2:
				_, err = api.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: &url})
			case 3: // extends or releases, as a heartbeat or a retry would
				_, err = api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: &url,
					ReceiptHandle: out.Messages[0].ReceiptHandle, VisibilityTimeout: int32(30 * (n / 4 % 2))})
			}
			if errors.Is(err, ErrCrashed) {
				return
			}
		}
	}
	scenarios := map[string]Scenario{
		"standard, DLQ and redrive": {Messages: []string{"a", "b", "c"}, MaxReceiveCount: 1, Redrive: true,
			Faults: AllFaults(10), Crash: 10, MaxGap: 3600e9, Consumer: chargeAndDelete},
		"fifo, DLQ and redrive": {Messages: []string{"a", "b", "c"}, FIFO: true, MaxReceiveCount: 1, Redrive: true,
			Faults: AllFaults(10), Crash: 10, Consumer: chargeAndDelete},
		"SDK loop with purges and its own redrives": {Messages: []string{"a", "b", "c"}, Consumers: 2, MaxReceiveCount: 1,
			Faults: AllFaults(10), Crash: 5, Steps: 60, Loop: loop},
		// Extends each message, and releases it at its first delivery.
		"extensions and releases": {Messages: []string{"a", "b", "c"}, Faults: AllFaults(10), Crash: 5,
			Consumer: func(env *Env) Handler {
				q := env.Queue()
				return func(ctx context.Context, m Msg) error {
					if err := q.ChangeVisibility(ctx, m.ReceiptHandle, time.Minute); err != nil {
						return err
					}
					if m.ReceiveCount == 1 {
						return q.ChangeVisibility(ctx, m.ReceiptHandle, 0)
					}
					return q.Delete(ctx, m.ReceiptHandle)
				}
			}},
	}
	seen := map[string]int{}
	for name, s := range scenarios {
		for seed := uint64(1); seed <= uint64(testsize.Scale(60, 200)); seed++ {
			statsMemoOff = false
			memo := s.Run(Seed(seed))
			for _, e := range memo.Timeline {
				for _, what := range []string{"purge queue", "start move task", "redrive(", "moved to DLQ"} {
					if strings.Contains(e.Text, what) {
						seen[what]++
					}
				}
			}
			statsMemoOff = true
			every := s.Run(Seed(seed))
			statsMemoOff = false
			if a, b := memo.String(), every.String(); a != b {
				t.Fatalf("%s, seed %d: with the memo\n%s\nreading at every turn\n%s", name, seed, a, b)
			}
		}
	}
	for _, what := range []string{"purge queue", "start move task", "redrive(", "moved to DLQ"} {
		if seen[what] == 0 {
			t.Errorf("no run's timeline has %q", what)
		}
	}
}

// A run outside a bubble plays with its own locks off (see runMutex), but
// a Seed the caller passed keeps its lock, and the run's recorder and
// policy have theirs back once the run returns; a loop's own PRNG is off
// only outside a bubble.
func TestRunMutexesOnAfterTheRun(t *testing.T) {
	t.Parallel()
	s := Scenario{Messages: []string{"a"}, Faults: AllFaults(20), Consumer: chargeAndDelete}
	src := Seed(1)
	o := s.Run(src)
	if src.mu.off || o.History.mu.off {
		t.Errorf("after Run: the caller's PRNG's lock off %v, the recorder's %v; want both on", src.mu.off, o.History.mu.off)
	}
	if p := (&spares{bubble: false}).seed(1); !p.mu.off {
		t.Error("a loop's own PRNG outside a bubble kept its lock")
	}
	if p := (&spares{bubble: true}).seed(1); p.mu.off {
		t.Error("a loop's own PRNG inside a bubble lost its lock")
	}
}
