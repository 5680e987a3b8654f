package sqsq

import (
	"time"
)

// attemptWindow is how long a FIFO ReceiveRequestAttemptId can be retried.
const attemptWindow = 5 * time.Minute

// attempt remembers what a FIFO receive with a ReceiveRequestAttemptId
// returned, so a retry within the window gets the same messages and handles
// (semantics §6.8).
type attempt struct {
	vis     time.Duration
	msgs    []*message
	serials []uint32
	gens    []uint32
	out     []Message
}

// replayAttempt answers a retried receive: when every message the attempt
// returned is still in flight under that receive and untouched since, it
// resets their visibility and returns the same messages. Caller holds q.mu.
func (q *Queue) replayAttempt(id string, now int64) ([]Message, bool) {
	a, ok := q.f.attempts.get(id) // advance(now) dropped expired ones
	if !ok {
		return nil, false
	}
	for i, m := range a.msgs {
		if m.state != stateInflight || m.serial != a.serials[i] || m.gen != a.gens[i] {
			q.f.attempts.delete(id)
			return nil, false
		}
	}
	for i, m := range a.msgs {
		q.leaveState(m)
		q.makePending(m, stateInflight, now+int64(a.vis))
		a.gens[i] = m.gen
	}
	q.compact()
	return append([]Message(nil), a.out...), true
}

// recordAttempt remembers a FIFO receive's result under its attempt id.
// Caller holds q.mu.
func (q *Queue) recordAttempt(id string, out []Message, vis time.Duration, now int64) {
	if id == "" || !q.fifo || vis == 0 {
		return
	}
	a := &attempt{vis: vis, out: append([]Message(nil), out...)}
	for _, msg := range out {
		a.msgs = append(a.msgs, msg.m)
		a.serials = append(a.serials, msg.m.serial)
		a.gens = append(a.gens, msg.m.gen)
	}
	q.f.attempts.put(id, a, now+int64(attemptWindow))
}
