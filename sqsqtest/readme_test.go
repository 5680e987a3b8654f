//go:build go1.25

package sqsqtest_test

import (
	"context"
	"testing"

	"github.com/sqsq/sqsq/sqsqtest"
)

// TestChargeOnce is the property test of the package doc and of the README
// section "Testing your consumer", kept here so it compiles and passes.
func TestChargeOnce(t *testing.T) {
	s := sqsqtest.Scenario{
		Messages:        []string{"order-1", "order-2", "order-3"},
		MaxReceiveCount: 2, Redrive: true, // a DLQ, and redrives
		Faults: sqsqtest.AllFaults(5), Crash: 10,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				if err := env.Commit("charge", func(tx *sqsqtest.Tx) error {
					if _, seen := tx.Get("inbox:" + m.Body); seen {
						tx.Suppress(m.Body) // a redelivery: already charged
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
	s.Test(t) // 1000 schedules drawn by rapid, in testing/synctest bubbles
}
