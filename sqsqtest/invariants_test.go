package sqsqtest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/testsize"
	"github.com/sqsq/sqsq/sqsqtest"
)

func chargeOf(body string) string { return "charge:" + body }

// result is a finished run of three orders, A and B in group g1, C in g2,
// whose ledger committed the effects named in log, in that order.
func result(log ...string) *sqsqtest.Result {
	l := &sqsqtest.Ledger{Effects: map[string]int{}}
	for _, k := range log {
		l.Effects[k]++
		l.Log = append(l.Log, sqsqtest.EffectRecord{Key: k})
	}
	return &sqsqtest.Result{Ledger: l, Labels: []string{"A", "B", "C"}, Bodies: []string{"o1", "o2", "o3"},
		Groups: []string{"g1", "g1", "g2"}, FIFO: true, Settled: true}
}

// with applies changes to a result.
func with(r *sqsqtest.Result, change func(r *sqsqtest.Result)) *sqsqtest.Result {
	change(r)
	return r
}

func TestInvariants(t *testing.T) {
	t.Parallel()
	all := []string{"charge:o1", "charge:o2", "charge:o3"}
	tests := []struct {
		name string
		inv  sqsqtest.Invariant
		res  *sqsqtest.Result
		want string // a part of the error; "" when the invariant holds
	}{
		{"AtLeastOnceHolds", sqsqtest.EffectAtLeastOnce(chargeOf), result(append(all, "charge:o1")...), ""},
		{"AtLeastOnceMissing", sqsqtest.EffectAtLeastOnce(chargeOf), result("charge:o1", "charge:o3"), "B (charge:o2) never committed"},
		{"AtMostOnceHolds", sqsqtest.EffectAtMostOnce(chargeOf), result("charge:o2"), ""},
		{"AtMostOnceTwice", sqsqtest.EffectAtMostOnce(chargeOf), result(append(all, "charge:o3")...), "C (charge:o3) committed 2 times"},
		{"OnceHolds", sqsqtest.EffectOnce(chargeOf), result(all...), ""},
		{"OnceMissing", sqsqtest.EffectOnce(chargeOf), result("charge:o1", "charge:o2"), "C (charge:o3) committed 0 times"},
		{"OnceTwice", sqsqtest.EffectOnce(chargeOf), result(append(all, "charge:o1")...), "A (charge:o1) committed 2 times"},

		{"GroupOrderHolds", sqsqtest.GroupOrder(chargeOf), result("charge:o1", "charge:o3", "charge:o2"), ""},
		// Groups are independent: C (g2) before A and B (g1) is fine.
		{"GroupOrderAcrossGroups", sqsqtest.GroupOrder(chargeOf), result("charge:o3", "charge:o1", "charge:o2"), ""},
		// Repeats are not compared: A again after B is EffectAtMostOnce's business.
		{"GroupOrderRepeatIgnored", sqsqtest.GroupOrder(chargeOf), result("charge:o1", "charge:o2", "charge:o1"), ""},
		{"GroupOrderSwapped", sqsqtest.GroupOrder(chargeOf), result("charge:o2", "charge:o1", "charge:o3"),
			"group g1: B (charge:o2) committed before A (charge:o1), which was sent first"},
		{"GroupOrderSkipped", sqsqtest.GroupOrder(chargeOf), result("charge:o2", "charge:o3"),
			"group g1: B (charge:o2) committed, but A (charge:o1), sent before it, never was"},
		{"GroupOrderNothingCommitted", sqsqtest.GroupOrder(chargeOf), result(), ""},
		// A dead-lettered message left its group's order.
		{"GroupOrderDeadLettered", sqsqtest.GroupOrder(chargeOf),
			with(result("charge:o2", "charge:o1"), func(r *sqsqtest.Result) { r.DeadLettered = []string{"A"} }), ""},
		{"GroupOrderStandardQueue", sqsqtest.GroupOrder(chargeOf),
			with(result(all...), func(r *sqsqtest.Result) { r.FIFO = false }), "meaningless on a standard queue"},

		{"NothingLeftHolds", sqsqtest.NothingLeft(), result(), ""},
		{"NothingLeftInFlight", sqsqtest.NothingLeft(), with(result(), func(r *sqsqtest.Result) {
			r.Queue = sqsq.Stats{InFlight: 1}
			r.Left = []string{"B"}
		}), "left: 0 visible, 1 in flight, 0 delayed in the queue; 0 in the DLQ (B)"},
		{"NothingLeftDLQ", sqsqtest.NothingLeft(), with(result(), func(r *sqsqtest.Result) { r.DLQ = sqsq.Stats{Visible: 2} }),
			"in the queue; 2 in the DLQ"},
		{"NothingLeftUnsettled", sqsqtest.NothingLeft(), with(result(), func(r *sqsqtest.Result) { r.Settled = false }),
			"did not settle: 0 visible"},
		{"NoneLostIsNothingLeft", sqsqtest.NoneLost(), with(result(), func(r *sqsqtest.Result) { r.Queue = sqsq.Stats{Delayed: 1} }),
			"1 delayed in the queue"},

		{"NoConcurrentHolds", sqsqtest.NoConcurrentProcessing(), result(), ""},
		{"NoConcurrentBroken", sqsqtest.NoConcurrentProcessing(), with(result(), func(r *sqsqtest.Result) {
			r.Ledger.Concurrent = 3
			r.Concurrent = []string{"B", "B", "A"}
		}), "B handed to a consumer while another still handled it (3 such deliveries in all)"},
		// Duplicate delivery on a standard queue makes it meaningless: it
		// says so even when nothing happened at once.
		{"NoConcurrentUnderDuplicates", sqsqtest.NoConcurrentProcessing(), with(result(), func(r *sqsqtest.Result) {
			r.FIFO = false
			r.Faults = sqsqtest.Rates{sqsqtest.Duplicate: 5}
		}), "meaningless with duplicate delivery (Faults[Duplicate] = 5 on a standard queue)"},
		// A FIFO queue never duplicates, whatever the rates.
		{"NoConcurrentFIFOIgnoresDuplicateRate", sqsqtest.NoConcurrentProcessing(), with(result(), func(r *sqsqtest.Result) {
			r.Faults = sqsqtest.AllFaults(5)
		}), ""},
		{"NoConcurrentDeliveryIsNoConcurrentProcessing", sqsqtest.NoConcurrentDelivery(), with(result(), func(r *sqsqtest.Result) {
			r.FIFO = false
			r.Faults = sqsqtest.Rates{sqsqtest.Duplicate: 1}
		}), "meaningless with duplicate delivery"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.inv.Check(tt.res)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("%s: %v, want it to hold", tt.inv.Name, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("%s: %v, want an error with %q", tt.inv.Name, err, tt.want)
			}
		})
	}
}

// A consumer that deletes before it charges, and crashes in between, loses
// the order: NothingLeft holds (the queue is empty), EffectAtLeastOnce
// catches it. This is why NoneLost was renamed.
func TestDeleteFirstPassesNothingLeftFailsAtLeastOnce(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{
		Messages: []string{"o1", "o2"}, Crash: 20,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				if err := q.Delete(ctx, m.ReceiptHandle); err != nil {
					return err
				}
				return env.Commit("charge", func(tx *sqsqtest.Tx) error { tx.Effect(chargeOf(m.Body)); return nil })
			}
		},
	}
	left := s
	left.Invariants = []sqsqtest.Invariant{sqsqtest.NothingLeft()}
	left.Seeds(t, 1, testsize.Scale(100, 300))

	lost := s
	lost.Invariants = []sqsqtest.Invariant{sqsqtest.NothingLeft(), sqsqtest.EffectAtLeastOnce(chargeOf)}
	f := lost.Find(1, 300)
	if f.Runs == 0 || !strings.Contains(f.Shrunk.Err.Error(), "never committed") {
		t.Fatalf("the lost order was not found: %v", f)
	}
}

// fifoBatch charges the messages of a FIFO batch one after the other, or
// all at once in goroutines it starts (the buggy variant), and deletes
// each once charged.
func fifoBatch(concurrent bool) sqsqtest.Scenario {
	return sqsqtest.Scenario{
		Messages: []string{"a1", "a2", "a3"}, FIFO: true, Batch: 3, Consumers: 1,
		Faults: sqsqtest.AllFaults(5), Crash: 5,
		BatchConsumer: func(env *sqsqtest.Env) sqsqtest.BatchHandler {
			q := env.Queue()
			return func(ctx context.Context, msgs []sqsqtest.Msg) error {
				one := func(m sqsqtest.Msg) error {
					err := env.Commit("charge "+m.Body, func(tx *sqsqtest.Tx) error {
						if _, seen := tx.Get(m.Body); !seen {
							tx.Put(m.Body, "charged")
							tx.Effect(chargeOf(m.Body))
						}
						return nil
					})
					if err != nil {
						return err
					}
					return q.Delete(ctx, m.ReceiptHandle)
				}
				if !concurrent {
					for _, m := range msgs {
						if err := one(m); err != nil {
							return err // the rest of the group waits
						}
					}
					return nil
				}
				// The kit waits for goroutines of env.Go before the next
				// receive; waiting on them in plain mode would need a bubble.
				for _, m := range msgs {
					env.Go(func() { _ = one(m) })
				}
				return nil
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.GroupOrder(chargeOf), sqsqtest.EffectOnce(chargeOf)},
	}
}

// GroupOrder passes a FIFO consumer that processes its batch in order and
// catches one that processes it concurrently.
func TestGroupOrderOnFIFOBatches(t *testing.T) {
	t.Parallel()
	fifoBatch(false).Seeds(t, 1, testsize.Scale(100, 500))
	f := fifoBatch(true).Find(1, 500)
	if f.Runs == 0 || !strings.Contains(f.Shrunk.Err.Error(), "which was sent first") {
		t.Fatalf("the reordered group was not found: %v", f)
	}
}

// Under the Duplicate fault on a standard queue NoConcurrentProcessing
// fails on the lucky schedule already, saying why, rather than now and
// then on a correct consumer.
func TestNoConcurrentProcessingUnderDuplicates(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{Messages: []string{"j"}, Faults: sqsqtest.AllFaults(5),
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error { return q.Delete(ctx, m.ReceiptHandle) }
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.NoConcurrentProcessing()}}
	o := s.Run(sqsqtest.Lucky())
	if o.Err == nil || !strings.Contains(o.Err.Error(), "meaningless with duplicate delivery") {
		t.Fatalf("got %v", o.Err)
	}
	s.FIFO = true
	if o := s.Run(sqsqtest.Lucky()); o.Err != nil {
		t.Fatalf("FIFO: %v", o.Err)
	}
	delete(s.Faults, sqsqtest.Duplicate)
	s.FIFO = false
	s.Seeds(t, 1, 200)
}

// The Result carries what the invariants need: groups, dead-lettered and
// leftover messages, and the messages handled at once.
func TestResultCarriesGroupsAndLeftovers(t *testing.T) {
	t.Parallel()
	var got *sqsqtest.Result
	capture := sqsqtest.Invariant{Name: "capture", Check: func(r *sqsqtest.Result) error { got = r; return nil }}
	// A consumer that never deletes and fails every time: every message
	// goes to the DLQ, comes back by redrive and goes again until the
	// settle bound.
	s := sqsqtest.Scenario{
		Messages: []string{"x-1", "y-1", "x-2"}, FIFO: true, MaxReceiveCount: 1, SettleSteps: 60,
		GroupOf: func(b string) string { return b[:1] },
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			return func(context.Context, sqsqtest.Msg) error { return context.Canceled }
		},
		Invariants: []sqsqtest.Invariant{capture, sqsqtest.NothingLeft()},
	}
	o := s.Run(sqsqtest.Lucky())
	if got == nil {
		t.Fatalf("invariants not checked: %v", o)
	}
	if strings.Join(got.Groups, ",") != "x,y,x" || !got.FIFO {
		t.Errorf("groups %v, FIFO %v", got.Groups, got.FIFO)
	}
	if len(got.DeadLettered) == 0 || len(got.Left) == 0 {
		t.Errorf("dead-lettered %v, left %v:\n%v", got.DeadLettered, got.Left, o)
	}
	if o.Err == nil || !strings.Contains(o.Err.Error(), "did not settle") || !strings.Contains(o.Err.Error(), "(A") {
		t.Errorf("NothingLeft: %v", o.Err)
	}
}
