package sqsqtest

import "fmt"

// EffectOnce holds when every message's effect, named by keyOf(body), was
// committed exactly once: "every order charged exactly once".
func EffectOnce(keyOf func(body string) string) Invariant {
	return Invariant{Name: "every message's effect committed exactly once", Check: func(r *Result) error {
		for i, body := range r.Bodies {
			if n := r.Ledger.Effects[keyOf(body)]; n != 1 {
				return fmt.Errorf("%s (%s) committed %d times", r.Labels[i], keyOf(body), n)
			}
		}
		return nil
	}}
}

// NoneLost holds when the run settled with every consumed queue empty:
// nothing left behind in the queue or its dead-letter queue, and no
// consumer still busy. It says nothing of whether each message was
// processed — a consumer that deletes before doing its work passes it —
// so pair it with an effect invariant such as [EffectOnce].
func NoneLost() Invariant {
	return Invariant{Name: "no message left in a queue", Check: func(r *Result) error {
		if !r.Settled {
			return fmt.Errorf("did not settle: %d visible, %d in flight, %d in the DLQ",
				r.Queue.Visible, r.Queue.InFlight, r.DLQ.Visible+r.DLQ.InFlight)
		}
		return nil
	}}
}

// NoConcurrentDelivery holds when no message was handed to a consumer while
// another live consumer was still handling it.
func NoConcurrentDelivery() Invariant {
	return Invariant{Name: "no message handled by two consumers at once", Check: func(r *Result) error {
		if r.Ledger.Concurrent > 0 {
			return fmt.Errorf("%d concurrent deliveries", r.Ledger.Concurrent)
		}
		return nil
	}}
}
