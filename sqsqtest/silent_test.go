package sqsqtest_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq/internal/testsize"
	"github.com/sqsq/sqsq/sqsqtest"
)

// leaseScenario works on each message in slices, extending its lease
// between them, with slow steps and idle gaps drawn; a FIFO variant
// declines one group for ever, so the run never settles and its settle
// phase keeps receiving nothing.
func leaseScenario(fifo bool) sqsqtest.Scenario {
	s := sqsqtest.Scenario{
		Messages:   []string{"job-1", "job-2", "job-3"},
		Consumers:  2,
		Visibility: 30 * time.Second,
		Faults:     sqsqtest.AllFaults(5),
		Crash:      5,
		Slowness:   20 * time.Second,
		MaxGap:     time.Minute,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				if fifo && m.Body == "job-2" {
					return errors.New("declined")
				}
				for i := 0; i < 3; i++ {
					env.Work(10 * time.Second)
					if err := q.ChangeVisibility(ctx, m.ReceiptHandle, 30*time.Second); err != nil {
						return err
					}
				}
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.NothingLeft()},
	}
	if fifo {
		s.FIFO, s.SettleSteps = true, 60
		s.GroupOf = func(body string) string { return body[len(body)-1:] }
	}
	return s
}

// oneGroup is two consumers of one FIFO group that work on each message:
// while one has the group, the other's receives find nothing, and settle
// must see that it is stuck.
func oneGroup() sqsqtest.Scenario {
	return sqsqtest.Scenario{
		Messages: []string{"a", "b", "c"}, FIFO: true, Consumers: 2, Faults: sqsqtest.AllFaults(5), Crash: 5,
		GroupOf: func(string) string { return "g" },
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				env.Work(10 * time.Second)
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.NothingLeft()},
	}
}

// A loop's runs are silent (no timeline) and told again only when they
// fail; so a silent run must be the told run in everything but its
// timeline: the same draws, steps, lines, ledger and verdict. And every
// line a told run writes is counted (settle's reading of an empty receive
// rests on the count). The told run settles as runs did before silent
// ones, reading an empty receive from its line's text.
func TestSilentRunsTellTheSameRun(t *testing.T) {
	t.Parallel()
	scenarios := map[string]sqsqtest.Scenario{
		"charge":        chargeScenario(false),
		"charge inbox":  chargeScenario(true),
		"payment":       paymentScenario(),
		"fifo batch":    fifoBatch(false),
		"fifo batch go": fifoBatch(true),
		"lambda":        lambdaScenario(false),
		"lambda fifo":   lambdaScenario(true),
		"errors queue":  errorsQueueScenario(),
		"lease":         leaseScenario(false),
		"lease stuck":   leaseScenario(true),
		"one group":     oneGroup(),
	}
	seeds := testsize.Scale(40, 500)
	for name, s := range scenarios {
		failed := 0
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			silent, told, sd, td := sqsqtest.PlayedBothWays(s, seed)
			where := fmt.Sprintf("%s, seed %d", name, seed)
			if n := sqsqtest.Lines(told); n != len(told.Timeline) {
				t.Fatalf("%s: the told run counted %d lines and wrote %d", where, n, len(told.Timeline))
			}
			if len(silent.Timeline) != 0 {
				t.Fatalf("%s: the silent run wrote %d lines", where, len(silent.Timeline))
			}
			if !slices.Equal(sd, td) {
				t.Fatalf("%s: the silent run drew %d values, the told one %d; they part at %d", where, len(sd), len(td), parting(sd, td))
			}
			if sqsqtest.Lines(silent) != sqsqtest.Lines(told) || silent.Steps != told.Steps {
				t.Fatalf("%s: silent %d lines and %d steps, told %d and %d", where,
					sqsqtest.Lines(silent), silent.Steps, sqsqtest.Lines(told), told.Steps)
			}
			if fmt.Sprint(silent.Err) != fmt.Sprint(told.Err) {
				t.Fatalf("%s: silent %v, told %v", where, silent.Err, told.Err)
			}
			if !reflect.DeepEqual(silent.Ledger, told.Ledger) {
				t.Fatalf("%s: silent ledger %+v, told %+v", where, silent.Ledger, told.Ledger)
			}
			if told.Err != nil {
				failed++
			}
		}
		t.Logf("%s: %d of %d seeds failed", name, failed, seeds)
	}
}

func parting(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// fataler keeps what a loop reports.
type fataler struct{ msgs []string }

func (f *fataler) Fatalf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

// A failure found silently is reported with its schedule, played again;
// a consumer that does not fail again is named not deterministic.
func TestSeedsTellTheFailingRun(t *testing.T) {
	t.Parallel()
	var f fataler
	chargeScenario(false).Seeds(&f, 1, 500)
	if len(f.msgs) != 1 || !strings.Contains(f.msgs[0], "schedule (") || !strings.Contains(f.msgs[0], "→ t=") {
		t.Fatalf("Seeds reported %q", f.msgs)
	}

	plays := 0
	once := sqsqtest.Scenario{
		Messages: []string{"a"},
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error { return q.Delete(ctx, m.ReceiptHandle) }
		},
		Invariants: []sqsqtest.Invariant{{Name: "first run only", Check: func(*sqsqtest.Result) error {
			if plays++; plays == 1 {
				return errors.New("failed")
			}
			return nil
		}}},
	}
	f = fataler{}
	once.Seeds(&f, 1, 1)
	if len(f.msgs) != 1 || !strings.Contains(f.msgs[0], "not deterministic") {
		t.Fatalf("Seeds reported %q", f.msgs)
	}
}
