package sqsqtest_test

import (
	"context"
	"testing"

	"github.com/sqsq/sqsq/internal/exampletest"
	"github.com/sqsq/sqsq/sqsqtest"
)

// paymentScenario is README's TestChargeOnce with its inbox: three orders,
// two consumers, a DLQ after two receives that the schedule may redrive,
// every fault at 5 %, a 10 % crash chance, the kit's defaults otherwise.
// It passes, so every schedule runs to its end and settles.
func paymentScenario() sqsqtest.Scenario {
	return sqsqtest.Scenario{
		Messages:        []string{"order-1", "order-2", "order-3"},
		MaxReceiveCount: 2, Redrive: true,
		Faults: sqsqtest.AllFaults(5), Crash: 10,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				if err := env.Commit("charge", func(tx *sqsqtest.Tx) error {
					if _, seen := tx.Get("inbox:" + m.Body); seen {
						tx.Suppress(m.Body)
						return nil
					}
					tx.Put("inbox:"+m.Body, "charged")
					tx.Effect("charge:" + m.Body)
					return nil
				}); err != nil {
					return err
				}
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
		Invariants: []sqsqtest.Invariant{
			sqsqtest.EffectOnce(func(order string) string { return "charge:" + order }),
			sqsqtest.NothingLeft(),
		},
	}
}

// BenchmarkPayment plays seeded schedules of paymentScenario without a
// bubble, as Scenario.Seeds does, and reports schedules per second:
//
//	go test ./sqsqtest -run '^$' -bench Payment -benchmem -count 3
//
// The same benchmark, with NoneLost for NothingLeft, runs on kit 1
// (sqsqtest before e522fd8) for README's comparison.
func BenchmarkPayment(b *testing.B) {
	exampletest.Bench(b, paymentScenario())
}
