package sqsq

import (
	"context"
	"time"
)

// handleState is what a receipt handle points at.
type handleState uint8

const (
	handleInvalid handleState = iota // not a handle of this queue
	handleGone                       // the message was deleted, expired or purged
	handleStale                      // the message was received again since
	handleLatest                     // the latest receipt of the message
)

// lookup resolves a receipt handle. Caller holds q.mu.
func (q *Queue) lookup(rh string) (*message, handleState) {
	h, ok := q.b.receipts.Decode(rh)
	if !ok || h.Queue != q.id || h.Serial == 0 || h.Seq == 0 || h.Seq > q.seq {
		return nil, handleInvalid
	}
	if int(h.Slot) >= len(q.slots) {
		return nil, handleGone
	}
	m := q.slots[h.Slot]
	if m == nil || m.seq != h.Seq {
		return nil, handleGone
	}
	if h.Serial > m.serial {
		return nil, handleInvalid
	}
	if h.Serial < m.serial {
		return m, handleStale
	}
	return m, handleLatest
}

// errExpiredHandle is the FIFO answer to a handle whose visibility window
// ended (semantics §4.5).
func errExpiredHandle(rh string) *Error {
	return invalidValue("ReceiptHandle", rh, "The receipt handle has expired.")
}

func errInvalidHandle(rh string) *Error {
	return newError(CodeReceiptHandleIsInvalid, "The input receipt handle \"%s\" is not a valid receipt handle.", rh)
}

// Delete deletes the message a receipt handle names (DeleteMessage). As on
// AWS standard queues: a handle whose visibility ended deletes the message if
// nobody received it since; a stale handle (the message was received again)
// succeeds without deleting (see [WithStaleDeleteRemoves]); a handle of a
// message already gone succeeds. A handle sqsq never issued for this queue
// fails with ReceiptHandleIsInvalid.
func (q *Queue) Delete(ctx context.Context, receiptHandle string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now, err := q.lock()
	if err != nil {
		return err
	}
	defer q.mu.Unlock()
	if e := q.deleteHooked(receiptHandle, now); e != nil {
		return e
	}
	return nil
}

// deleteFound is DeleteMessage, or one entry of its batch form, of rh,
// which lookup found to name m (st). Caller holds q.mu.
func (q *Queue) deleteFound(rh string, m *message, st handleState, now int64) *Error {
	if rh == "" {
		return MissingParameter("ReceiptHandle")
	}
	switch st {
	case handleInvalid:
		return errInvalidHandle(rh)
	case handleGone:
		q.counters.DeleteRequests++
		return nil
	case handleStale:
		if q.fifo {
			q.counters.ExpiredHandleRejections++
			return errExpiredHandle(rh)
		}
		q.counters.DeleteRequests++
		q.counters.StaleHandleDeletes++
		if !q.b.cfg.staleDeleteRemoves {
			return nil
		}
	default:
		if q.fifo && m.state != stateInflight {
			q.counters.ExpiredHandleRejections++
			return errExpiredHandle(rh)
		}
		q.counters.DeleteRequests++
	}
	wasInflight := m.state == stateInflight
	q.remove(m)
	q.counters.Deleted++
	if wasInflight && q.nAvail > 0 && len(q.waiters) > 0 {
		q.wakeN(1) // a receiver held back by the in-flight limit or a locked group may go on
	}
	return nil
}

// ChangeVisibility sets the visibility timeout of a received message
// (ChangeMessageVisibility), counted from now: 0 makes it visible at once.
// The total since the receive may not pass 12 hours; extensions never reset
// that budget. Errors: InvalidParameterValue for a timeout outside 0–12 h,
// beyond the budget, or for a message that is gone; ReceiptHandleIsInvalid
// for a handle sqsq never issued for this queue. On a message whose
// visibility already ended it succeeds and changes nothing (see
// [WithStrictNotInflight]).
func (q *Queue) ChangeVisibility(ctx context.Context, receiptHandle string, timeout time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now, err := q.lock()
	if err != nil {
		return err
	}
	defer q.mu.Unlock()
	if e := q.changeVisibilityHooked(receiptHandle, timeout, now, false); e != nil {
		return e
	}
	return nil
}

// errGoneEntry is a ChangeMessageVisibilityBatch entry's answer for a message
// that is gone. The single call says InvalidParameterValue; AWS fails the
// entry with ReceiptHandleIsInvalid instead (recorded traffic, semantics
// §3.14), and clients rely on it: the Go CDK's SQS driver drops exactly those
// failures when it nacks messages it already acked.
func errGoneEntry() *Error {
	return newError(CodeReceiptHandleIsInvalid, "Message does not exist or is not available for visibility timeout change")
}

// changeVisibilityFound is ChangeMessageVisibility, or one entry of its
// batch form when entry is set, of rh, which lookup found to name m (st).
// Caller holds q.mu.
func (q *Queue) changeVisibilityFound(rh string, m *message, st handleState, timeout time.Duration, now int64, entry bool) *Error {
	if timeout < 0 || timeout > maxVisibility || timeout%time.Second != 0 {
		return invalidValue("VisibilityTimeout", int64(timeout/time.Second), "Must be >= 0 and <= 43200.")
	}
	if rh == "" {
		return MissingParameter("ReceiptHandle")
	}
	switch {
	case st == handleInvalid:
		return errInvalidHandle(rh)
	case st == handleGone && entry:
		return errGoneEntry()
	case st == handleGone:
		return invalidValue("ReceiptHandle", rh, "Message does not exist or is not available for visibility timeout change.")
	case q.fifo && (st == handleStale || m.state != stateInflight):
		q.counters.ExpiredHandleRejections++
		return errExpiredHandle(rh)
	case m.state != stateInflight:
		if q.b.cfg.strictNotInflight {
			return &Error{Code: CodeMessageNotInflight}
		}
		return nil
	}
	if time.Duration(now-m.receivedAt)+timeout > maxVisibility {
		return invalidValue("VisibilityTimeout", int64(timeout/time.Second),
			"Total VisibilityTimeout for the message is beyond the limit [43200 seconds]")
	}
	q.counters.VisibilityChanges++
	q.leaveState(m)
	if timeout == 0 {
		q.makeAvailable(m, now)
		q.wakeN(1)
		q.compact() // the pending entry it left is stale
		return nil
	}
	q.makePending(m, stateInflight, now+int64(timeout))
	q.wake(m.visibleAt)
	q.compact()
	return nil
}

// DeleteBatchEntry is one entry of [Queue.DeleteBatch].
type DeleteBatchEntry struct {
	Id            string
	ReceiptHandle string
}

// BatchResult lists the Ids of a batch call's successful entries and the
// failed ones with their errors.
type BatchResult struct {
	Successful []string
	Failed     []BatchResultError
}

// DeleteBatch deletes up to 10 messages (DeleteMessageBatch). Request-level
// errors fail the whole call; each entry otherwise behaves like [Queue.Delete]
// and its failure is reported in Failed while the others are applied.
func (q *Queue) DeleteBatch(ctx context.Context, entries []DeleteBatchEntry) (BatchResult, error) {
	return applyBatch(ctx, q, entries, "DeleteMessageBatchRequestEntry",
		func(e DeleteBatchEntry) string { return e.Id },
		func(e DeleteBatchEntry, now int64) *Error { return q.deleteHooked(e.ReceiptHandle, now) })
}

// ChangeVisibilityBatchEntry is one entry of [Queue.ChangeVisibilityBatch].
type ChangeVisibilityBatchEntry struct {
	Id                string
	ReceiptHandle     string
	VisibilityTimeout time.Duration
}

// ChangeVisibilityBatch changes the visibility of up to 10 messages
// (ChangeMessageVisibilityBatch), each entry like [Queue.ChangeVisibility],
// except that an entry whose message is gone fails with
// ReceiptHandleIsInvalid, as on AWS, where the single call says
// InvalidParameterValue.
func (q *Queue) ChangeVisibilityBatch(ctx context.Context, entries []ChangeVisibilityBatchEntry) (BatchResult, error) {
	return applyBatch(ctx, q, entries, "ChangeMessageVisibilityBatchRequestEntry",
		func(e ChangeVisibilityBatchEntry) string { return e.Id },
		func(e ChangeVisibilityBatchEntry, now int64) *Error {
			return q.changeVisibilityHooked(e.ReceiptHandle, e.VisibilityTimeout, now, true)
		})
}

// applyBatch runs a batch call: the request-level checks, then apply on each
// entry under one lock, collecting per-entry failures.
func applyBatch[E any](ctx context.Context, q *Queue, entries []E, entryName string,
	id func(E) string, apply func(E, int64) *Error) (BatchResult, error) {
	if err := q.check(); err != nil {
		return BatchResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return BatchResult{}, err
	}
	if err := checkBatchIDs(len(entries), entryName, func(i int) string { return id(entries[i]) }); err != nil {
		return BatchResult{}, err
	}
	now, err := q.lock()
	if err != nil {
		return BatchResult{}, err
	}
	defer q.mu.Unlock()
	var out BatchResult
	for _, e := range entries {
		out.add(id(e), apply(e, now))
	}
	return out, nil
}

func (r *BatchResult) add(id string, err *Error) {
	if err != nil {
		r.Failed = append(r.Failed, BatchResultError{Id: id, Err: err})
		return
	}
	r.Successful = append(r.Successful, id)
}
