package sqsqtest

import (
	"fmt"
	"strings"
)

// The built-in invariants. Each says what it checks in its name, and its
// documentation says under which faults it means something: SQS delivers
// at least once, so some properties a consumer can guarantee under every
// fault (each effect at least once, at most once with an inbox), others
// only where SQS itself promises something (order within a FIFO group, no
// second delivery while a message is in flight).
//
// The effect invariants name a message's effect by keyOf(body), the key
// the consumer passes to [Tx.Effect] ("charge:order-1"), and count its
// commits in [Ledger.Effects]. They judge the settled run: the settle phase
// has redriven the dead-letter queue and let the consumers finish, so a
// message that is never processed is one the consumer lost, not one still
// on its way.

// EffectAtLeastOnce holds when every message's effect was committed at
// least once: no message was dropped. A consumer that deletes a message
// before its effect commits, and crashes in between, fails it; so does one
// that swallows an error and deletes anyway.
//
// Meaningful under every fault and crash: SQS keeps a message until it is
// deleted, so a correct consumer reaches each effect however often
// receives, deletes or visibility changes fail. It also fails when a
// message expired unprocessed (a gap drawn with [Scenario.MaxGap] longer
// than the queue's retention period), which SQS does: a consumer that
// cannot afford it must not let messages wait that long.
func EffectAtLeastOnce(keyOf func(body string) string) Invariant {
	return Invariant{Name: "each message's effect at least once", Check: func(r *Result) error {
		for i, body := range r.Bodies {
			if n := r.Ledger.Effects[keyOf(body)]; n == 0 {
				return fmt.Errorf("%s (%s) never committed", r.Labels[i], keyOf(body))
			}
		}
		return nil
	}}
}

// EffectAtMostOnce holds when no message's effect was committed more than
// once: the consumer is idempotent (an inbox, a conditional write) where
// SQS is not. It holds trivially for a consumer that processes nothing;
// pair it with [EffectAtLeastOnce], or use [EffectOnce].
//
// Meaningful under every fault and crash, and that is its point: a
// visibility timeout that ends during processing, a crash between the
// effect and the delete, a lost delete response or a duplicate delivery
// all hand a message to a consumer again.
func EffectAtMostOnce(keyOf func(body string) string) Invariant {
	return Invariant{Name: "each message's effect at most once", Check: func(r *Result) error {
		for i, body := range r.Bodies {
			if n := r.Ledger.Effects[keyOf(body)]; n > 1 {
				return fmt.Errorf("%s (%s) committed %d times", r.Labels[i], keyOf(body), n)
			}
		}
		return nil
	}}
}

// EffectOnce holds when every message's effect was committed exactly once:
// [EffectAtLeastOnce] and [EffectAtMostOnce] together, "every order
// charged exactly once". Meaningful under every fault and crash.
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

// GroupOrder holds when, within each message group ([Scenario.GroupOf]),
// the messages' effects were first committed in the order the messages
// were sent: B's effect never before A's when A was sent first in B's
// group, and never at all while A's is missing. Later commits (repeats)
// are not compared; [EffectAtMostOnce] judges those. A consumer breaks it
// by processing a batch's messages concurrently, or by going on with a
// group after one of its messages failed.
//
// Meaningful on a FIFO queue only ([Scenario.FIFO]), under every fault and
// crash: a standard queue keeps no order at all, so there GroupOrder fails
// every run, saying so. A message that went to the dead-letter queue left
// its group's order (SQS lets the rest of the group through), so it is not
// compared with the others ([Result.DeadLettered]).
func GroupOrder(keyOf func(body string) string) Invariant {
	return Invariant{Name: "each group's effects in send order", Check: func(r *Result) error {
		if !r.FIFO {
			return fmt.Errorf("meaningless on a standard queue, which keeps no order: set Scenario.FIFO")
		}
		first := map[string]int{} // effect key → index of its first commit in the log
		for i, e := range r.Ledger.Log {
			if _, ok := first[e.Key]; !ok {
				first[e.Key] = i
			}
		}
		dead := map[string]bool{}
		for _, l := range r.DeadLettered {
			dead[l] = true
		}
		// Walk each group in send order, remembering its latest message
		// compared so far.
		type prev struct {
			i   int // index in Bodies
			pos int // first commit, -1 if none
		}
		last := map[string]prev{}
		for i, body := range r.Bodies {
			if dead[r.Labels[i]] {
				continue
			}
			g := r.groupOf(i)
			pos, ok := first[keyOf(body)]
			if !ok {
				pos = -1
			}
			if p, seen := last[g]; seen && pos >= 0 {
				pb := r.Bodies[p.i]
				switch {
				case p.pos < 0:
					return fmt.Errorf("group %s: %s (%s) committed, but %s (%s), sent before it, never was",
						g, r.Labels[i], keyOf(body), r.Labels[p.i], keyOf(pb))
				case pos < p.pos:
					return fmt.Errorf("group %s: %s (%s) committed before %s (%s), which was sent first",
						g, r.Labels[i], keyOf(body), r.Labels[p.i], keyOf(pb))
				}
			}
			if p, seen := last[g]; !seen || p.pos >= 0 {
				last[g] = prev{i: i, pos: pos}
			}
		}
		return nil
	}}
}

// groupOf is the message group of the i-th message.
func (r *Result) groupOf(i int) string {
	if i < len(r.Groups) {
		return r.Groups[i]
	}
	return "g"
}

// NothingLeft holds when the run settled with nothing visible, in flight or
// delayed in the source queue or its dead-letter queue, and no consumer
// still busy. It says nothing of whether a message was processed: a
// consumer that deletes each message before (or instead of) doing its work
// passes it. Pair it with [EffectAtLeastOnce] or [EffectOnce].
//
// Meaningful under every fault and crash, since the settle phase runs
// without them: it fails when a message keeps failing (it cycles between
// the queue and the dead-letter queue until the settle bound), when a
// consumer never deletes, or when a consumer is stuck.
func NothingLeft() Invariant {
	return Invariant{Name: "nothing left in the queue or its DLQ", Check: func(r *Result) error {
		q, d := r.Queue, r.DLQ
		if r.Settled && q.Visible+q.InFlight+q.Delayed+d.Visible+d.InFlight+d.Delayed == 0 {
			return nil
		}
		what := "left"
		if !r.Settled {
			what = "did not settle"
		}
		msg := fmt.Sprintf("%s: %d visible, %d in flight, %d delayed in the queue; %d in the DLQ",
			what, q.Visible, q.InFlight, q.Delayed, d.Visible+d.InFlight+d.Delayed)
		if len(r.Left) > 0 {
			msg += " (" + strings.Join(r.Left, ", ") + ")"
		}
		return fmt.Errorf("%s", msg)
	}}
}

// NoneLost is [NothingLeft] under its old name.
//
// Deprecated: the name reads as "every message was processed", which it
// never checked: a consumer that deletes before doing its work passes it.
// Use [NothingLeft] for what it checks, and [EffectAtLeastOnce] or
// [EffectOnce] for "no message lost".
func NoneLost() Invariant { return NothingLeft() }

// NoConcurrentProcessing holds when no message was handed to a consumer
// while another live consumer was still handling it: the consumer keeps
// its messages hidden (a visibility timeout longer than the work, or a
// heartbeat that extends it) for as long as it works on them. It sees the
// receives of the kit ([Scenario.Consumer], [Scenario.BatchConsumer],
// [Scenario.Lambda]); a [Scenario.Loop] consumer's own receives are not
// attributed to messages in hand, so it holds trivially there.
//
// Meaningful only without duplicate delivery. A standard queue may hand a
// message that is in flight to a second consumer, as SQS may (at-least-once
// delivery), and no consumer can prevent it; the [Duplicate] fault does
// exactly that. So on a standard queue with Faults[Duplicate] > 0 the
// invariant fails every run, saying so, rather than fail a correct
// consumer now and then: drop the Duplicate fault for the scenario that
// checks it, or drop the invariant. On a FIFO queue the broker never
// duplicates, and it is meaningful under every fault.
func NoConcurrentProcessing() Invariant {
	return Invariant{Name: "no message handled by two consumers at once", Check: func(r *Result) error {
		if n := r.Faults[Duplicate]; n > 0 && !r.FIFO {
			return fmt.Errorf("meaningless with duplicate delivery (Faults[Duplicate] = %d on a standard queue): "+
				"SQS may hand an in-flight message to a second consumer; set it to 0 for this invariant", n)
		}
		if n := r.Ledger.Concurrent; n > 0 {
			// The first message only: the report prints in full the lines
			// of the messages the error names.
			first := "a message"
			if len(r.Concurrent) > 0 {
				first = r.Concurrent[0]
			}
			return fmt.Errorf("%s handed to a consumer while another still handled it (%d such deliveries in all)", first, n)
		}
		return nil
	}}
}

// NoConcurrentDelivery is [NoConcurrentProcessing] under its old name.
//
// Deprecated: use [NoConcurrentProcessing], whose documentation says when
// it is meaningful.
func NoConcurrentDelivery() Invariant { return NoConcurrentProcessing() }
