package sqsq

import (
	"slices"
	"time"
)

// attemptWindow is how long a FIFO ReceiveRequestAttemptId can be retried.
const attemptWindow = 5 * time.Minute

// maxAttempts bounds the attempt ids a queue remembers. AWS keeps each for
// attemptWindow; on a clock that never moves (a mock nobody advances) that
// is forever, so beyond this many the ids that end first are forgotten. A
// retry of a forgotten id is a fresh receive: the messages of its first
// answer stay in flight (their groups locked) until their visibility ends,
// as for a caller that lost the id (semantics §6.8). Only a retry after
// 10,000 later receives with attempt ids on the same queue meets it.
const maxAttempts = 10_000

// attempt remembers what a FIFO receive with a ReceiveRequestAttemptId
// returned, so a retry within the window gets the same messages and handles
// (semantics §6.8). It names the messages rather than holding them or the
// answer: a message deleted meanwhile is not kept alive by the record, and a
// retry rebuilds the answer (the same handles and attributes, since a
// message the check accepts was not received or changed since).
type attempt struct {
	vis time.Duration
	// The first receive's selection, the part of its input view reads.
	sysNames, attrNames []string
	msgs                []attemptMsg
}

// attemptMsg names a returned message: its slot and sequence number, and
// the receive serial and generation it had when the attempt last answered.
type attemptMsg struct {
	seq    uint64
	slot   uint32
	serial uint32
	gen    uint32
}

// replayAttempt answers a retried receive: when every message the attempt
// returned is still in flight under that receive and untouched since, it
// resets their visibility and returns the same messages. Caller holds q.mu.
func (q *Queue) replayAttempt(id string, now int64) ([]Message, bool) {
	a, ok := q.f.attempts.get(id) // advance(now) dropped expired ones
	if !ok {
		return nil, false
	}
	for _, r := range a.msgs {
		m := q.slotMessage(r.slot, r.seq)
		if m == nil || m.state != stateInflight || m.serial != r.serial || m.gen != r.gen {
			q.f.attempts.delete(id)
			return nil, false
		}
	}
	in := ReceiveInput{MessageSystemAttributeNames: a.sysNames, MessageAttributeNames: a.attrNames}
	out := make([]Message, len(a.msgs))
	for i := range a.msgs {
		r := &a.msgs[i]
		m := q.slots[r.slot]
		q.leaveState(m)
		q.makePending(m, stateInflight, now+int64(a.vis))
		r.gen = m.gen
		out[i] = q.view(m, &in)
	}
	q.f.attempts.note(id) // changed in place
	q.compact()
	return out, true
}

// slotMessage returns the stored message in slot if it is the one with
// sequence number seq, else nil. Caller holds q.mu.
func (q *Queue) slotMessage(slot uint32, seq uint64) *message {
	if int(slot) >= len(q.slots) {
		return nil // the slots were released when the queue emptied
	}
	if m := q.slots[slot]; m != nil && m.seq == seq {
		return m
	}
	return nil
}

// recordAttempt remembers a FIFO receive's result under its attempt id.
// Caller holds q.mu.
func (q *Queue) recordAttempt(id string, in *ReceiveInput, out []Message, vis time.Duration, now int64) {
	if id == "" || !q.fifo || vis == 0 {
		return
	}
	a := &attempt{
		vis:       vis,
		sysNames:  slices.Clone(in.MessageSystemAttributeNames),
		attrNames: slices.Clone(in.MessageAttributeNames),
		msgs:      make([]attemptMsg, len(out)),
	}
	for i, msg := range out {
		m := msg.m
		a.msgs[i] = attemptMsg{seq: m.seq, slot: m.slot, serial: m.serial, gen: m.gen}
	}
	q.f.attempts.put(id, a, now+int64(attemptWindow))
	q.f.attempts.limit(maxAttempts)
}
