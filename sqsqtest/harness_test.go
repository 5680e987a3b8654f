package sqsqtest_test

import (
	"context"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sqsq/sqsq/sqsqtest"
)

// chargeScenario charges each order and deletes its message, with or
// without an inbox keyed by the order.
func chargeScenario(inbox bool) sqsqtest.Scenario {
	return sqsqtest.Scenario{
		Messages:        []string{"order-1", "order-2"},
		MaxReceiveCount: 2,
		Redrive:         true,
		Faults:          sqsqtest.AllFaults(5),
		Crash:           10,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				err := env.Commit("charge", func(tx *sqsqtest.Tx) error {
					if _, seen := tx.Get(m.Body); inbox && seen {
						tx.Suppress(m.Body)
						return nil
					}
					tx.Put(m.Body, "charged")
					tx.Effect("charge:" + m.Body)
					return nil
				})
				if err != nil {
					return err
				}
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
		Invariants: []sqsqtest.Invariant{
			sqsqtest.EffectOnce(func(b string) string { return "charge:" + b }),
			sqsqtest.NothingLeft(),
		},
	}
}

func TestScenario(t *testing.T) {
	t.Parallel()

	t.Run("LuckyScheduleSettlesAndPasses", func(t *testing.T) {
		t.Parallel()
		o := chargeScenario(false).Run(sqsqtest.Lucky())
		if o.Err != nil || o.Steps != 0 {
			t.Fatalf("lucky run: %v", o)
		}
		if o.Ledger.Deliveries["A"] != 1 || o.Ledger.Effects["charge:order-1"] != 1 {
			t.Errorf("ledger: %+v", o.Ledger)
		}
	})
	t.Run("FindsAndShrinksTheDoubleCharge", func(t *testing.T) {
		t.Parallel()
		f := chargeScenario(false).Find(1, 500)
		if f.Runs == 0 {
			t.Fatal("not found")
		}
		if f.Shrunk.Steps > 8 || f.Shrunk.Steps > f.First.Steps {
			t.Errorf("shrunk to %d steps from %d", f.Shrunk.Steps, f.First.Steps)
		}
		if !strings.Contains(f.Shrunk.String(), "committed 2 times") {
			t.Errorf("finding: %v", f)
		}
	})
	t.Run("LedgerCountsSeparately", func(t *testing.T) {
		t.Parallel()
		// Across many runs of the correct consumer, deliveries outnumber
		// effects, and the excess shows up as suppressions or crashes.
		deliveries, effects, suppressed, dlq := 0, 0, 0, 0
		s := chargeScenario(true)
		for seed := uint64(1); seed <= 200; seed++ {
			o := s.Run(sqsqtest.Seed(seed))
			if o.Err != nil {
				t.Fatalf("seed %d: %v", seed, o)
			}
			for _, n := range o.Ledger.Deliveries {
				deliveries += n
			}
			for _, n := range o.Ledger.Effects {
				effects += n
			}
			for _, n := range o.Ledger.Suppressed {
				suppressed += n
			}
			dlq += o.Ledger.MovedToDLQ
		}
		if effects != 2*200 || deliveries <= effects || suppressed == 0 || dlq == 0 {
			t.Errorf("deliveries %d, effects %d, suppressed %d, DLQ moves %d", deliveries, effects, suppressed, dlq)
		}
	})
	t.Run("CorrectConsumerPassesRapid", func(t *testing.T) {
		t.Parallel()
		rapid.Check(t, chargeScenario(true).Check)
	})
	t.Run("CrashesAtEveryPoint", func(t *testing.T) {
		t.Parallel()
		seen := map[string]bool{}
		s := chargeScenario(true)
		s.Crash = 30
		for seed := uint64(1); seed <= 300; seed++ {
			for _, e := range s.Run(sqsqtest.Seed(seed)).Timeline {
				if strings.Contains(e.Text, "crashed before") {
					seen[strings.SplitN(strings.SplitN(e.Text, "crashed before ", 2)[1], "(", 2)[0]] = true
				}
			}
		}
		for _, point := range []string{"commit charge", "delete"} {
			if !seen[point] {
				t.Errorf("no crash before %s in 300 runs (saw %v)", point, seen)
			}
		}
	})
	t.Run("FIFOScenario", func(t *testing.T) {
		t.Parallel()
		s := chargeScenario(true)
		s.FIFO = true
		s.Seeds(t, 1, 300)
	})
	t.Run("DistinctBodies", func(t *testing.T) {
		t.Parallel()
		s := chargeScenario(true)
		s.Messages = []string{"x", "x"}
		if o := s.Run(sqsqtest.Lucky()); o.Err == nil {
			t.Fatal("repeated bodies accepted")
		}
	})
}
