package sqsq

import "context"

// DeleteMessageById deletes a stored message by its MessageId, whatever its
// state (an admin operation for consoles and tests, not an SQS one; an
// in-flight message's receipt handles then answer as for a deleted message).
// It reports whether the message was there.
//
// It keeps the books as a Delete that removes a message does: Deleted and
// DeleteRequests count it; a FIFO group whose message in flight it was is
// unlocked, and a long poll parked while the group was locked (or while a
// standard queue was at its in-flight limit) is woken. Nothing is counted
// when no message has the id. The fault policy and the observer are not
// involved. If several stored messages share the id (only a [WithIDFunc]
// that repeats itself makes that happen) the first sent goes. It costs
// O(n) for n messages stored: no index by MessageId is kept, which would
// cost every message memory for the sake of an admin call. An empty id
// fails with MissingParameter.
func (q *Queue) DeleteMessageById(ctx context.Context, messageId string) (bool, error) {
	if err := q.check(); err != nil {
		return false, err
	}
	if messageId == "" {
		return false, MissingParameter("MessageId")
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if _, err := q.lock(); err != nil {
		return false, err
	}
	defer q.mu.Unlock()
	for _, m := range q.bySeq.all() {
		if m.state != stateGone && m.id == messageId {
			q.removeByID(m)
			return true, nil
		}
	}
	return false, nil
}

// removeByID removes m as a delete would. Caller holds q.mu.
func (q *Queue) removeByID(m *message) {
	// A message in flight held a place under the in-flight limit and, on a
	// FIFO queue, locked its group; a delayed one may head its group (a
	// dead-letter stored behind it waits for it, see heldScans).
	unblocks := m.state == stateInflight || q.fifo && m.state == stateDelayed
	q.remove(m)
	q.counters.DeleteRequests++
	q.counters.Deleted++
	if unblocks && q.nAvail > 0 && len(q.waiters) > 0 {
		q.wakeN(1) // a receiver held back may go on
	}
}
