package sqsq

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/sqsq/sqsq/internal/receipt"
)

// ReceiveInput selects and shapes the messages of one receive. Field names
// follow ReceiveMessage.
type ReceiveInput struct {
	// MaxNumberOfMessages, 1–10; 0 means the default, 1.
	MaxNumberOfMessages int
	// VisibilityTimeout for the returned messages, 0–12 h; unset uses the
	// queue's. 0 leaves them visible at once.
	VisibilityTimeout Optional[time.Duration]
	// WaitTimeSeconds, 0–20 s: how long to wait for a message when none is
	// available. Unset uses the queue's ReceiveMessageWaitTimeSeconds; 0 is a
	// short poll.
	WaitTimeSeconds Optional[time.Duration]
	// MessageSystemAttributeNames selects system attributes (SentTimestamp,
	// ApproximateReceiveCount, …) or "All".
	MessageSystemAttributeNames []string
	// MessageAttributeNames selects message attributes: names, "prefix.*",
	// or "All" (also ".*" and "*").
	MessageAttributeNames []string
	// ReceiveRequestAttemptId is accepted for FIFO queues: a retry with the
	// same id within 5 minutes returns the same messages and handles while
	// none of them changed. A queue remembers its 10,000 latest ids (the
	// bound matters only on a clock that does not move).
	ReceiveRequestAttemptId string
}

// Receive returns up to MaxNumberOfMessages available messages and hides
// them for the visibility timeout, each with a new receipt handle. With a
// wait time it parks until a message is available — sent, or made visible
// because the clock passed a delay or visibility deadline — or until the wait
// ends on the clock, and then returns what it has (possibly nothing). It
// returns ctx.Err() at once when ctx ends, changing nothing. On a standard
// queue at its in-flight limit a short poll fails with OverLimit and a long
// poll returns nothing. Bad parameters fail with InvalidParameterValue.
func (q *Queue) Receive(ctx context.Context, in ReceiveInput) ([]Message, error) {
	if err := q.check(); err != nil {
		return nil, err
	}
	max := in.MaxNumberOfMessages
	if max == 0 {
		max = 1
	}
	if max < 1 || max > 10 {
		return nil, invalidValue("MaxNumberOfMessages", max, "Must be between 1 and 10, if provided.")
	}
	if d, ok := in.WaitTimeSeconds.Get(); ok && (d < 0 || d > 20*time.Second || d%time.Second != 0) {
		return nil, invalidValue("WaitTimeSeconds", int64(d/time.Second), "Must be >= 0 and <= 20, if provided.")
	}
	if d, ok := in.VisibilityTimeout.Get(); ok && (d < 0 || d > maxVisibility || d%time.Second != 0) {
		return nil, invalidValue("VisibilityTimeout", int64(d/time.Second), "Must be >= 0 and <= 43200, if provided.")
	}
	if id := in.ReceiveRequestAttemptId; id != "" {
		if err := validateGroupOrDedupID("ReceiveRequestAttemptId", id); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now, dlq, err := q.lockReceive()
	if err != nil {
		return nil, err
	}
	// Released however the receive ends: the fault policy and the observer
	// are the user's code, and a panic there must not leave q locked.
	locks := receiveLocks{q: q, dlq: dlq, held: true}
	defer locks.release()
	if e := q.rejectReceive(); e != nil {
		return nil, e
	}
	q.counters.ReceiveCalls++
	wait := in.WaitTimeSeconds.Or(q.settings.wait)
	if q.limitReached() && wait == 0 {
		q.counters.EmptyReceives++
		return nil, newError(CodeOverLimit, "Too many messages in flight: the queue has reached its limit of %d.", q.b.cfg.maxInFlight)
	}
	if q.fifo && in.ReceiveRequestAttemptId != "" {
		if msgs, ok := q.replayAttempt(in.ReceiveRequestAttemptId, now); ok {
			q.counters.Received += int64(len(msgs))
			return msgs, nil
		}
	}
	if wait == 0 {
		max = q.sample(max)
	}
	msgs, dup := q.take(&in, max, now, dlq)
	q.tell(&in, msgs, dup, now)
	if len(msgs) > 0 || wait == 0 {
		q.finishReceive(msgs)
		locks.release()
		return q.loseReceive(msgs, nil)
	}
	q.counters.LongPolls++
	return q.loseReceive(q.longPoll(ctx, &in, max, now+int64(wait), &locks))
}

// receiveLocks are the locks a receive holds: q.mu, and dlq.mu when dlq is
// not nil (see lockReceive). A long poll lets them go while it is parked
// and takes them again, so a deferred release must know whether they are
// held.
type receiveLocks struct {
	q, dlq *Queue
	held   bool
}

// hold records that lockReceive locked the queues again.
func (l *receiveLocks) hold(dlq *Queue) { l.dlq, l.held = dlq, true }

// release unlocks the queues if they are held.
func (l *receiveLocks) release() {
	if l.held {
		l.held = false
		l.q.unlockReceive(l.dlq)
	}
}

const maxVisibility = 12 * time.Hour

// limitReached reports whether a standard queue is at its in-flight limit
// (FIFO queues just return fewer messages). Caller holds q.mu.
func (q *Queue) limitReached() bool { return !q.fifo && q.nInflight >= q.b.cfg.maxInFlight }

func (q *Queue) finishReceive(msgs []Message) {
	if len(msgs) == 0 {
		q.counters.EmptyReceives++
	}
}

// take selects up to max available messages and puts them in flight; dup
// is the one the fault policy had delivered again, if any. It runs none of
// the user's code but the policy's Duplicate, before it changes anything:
// the caller calls tell when it is done with the queue. Caller holds q.mu.
func (q *Queue) take(in *ReceiveInput, max int, now int64, dlq *Queue) (out []Message, dup *message) {
	max = min(max, q.b.cfg.maxInFlight-q.nInflight)
	if max <= 0 || q.nAvail == 0 && q.b.cfg.faults == nil {
		return nil, nil
	}
	vis := in.VisibilityTimeout.Or(q.settings.visibility)
	out, dup = q.takeHooked(in, max, vis, now, dlq)
	// Messages received with visibility 0 are visible again, but only after
	// the selection, so that one call never returns a message twice.
	for _, m := range q.again {
		q.makeAvailable(m, now)
	}
	if len(q.again) > 0 {
		clear(q.again)
		q.again = q.again[:0]
		q.compact() // each went back with a new index entry; the old ones are stale
	}
	if len(out) > 0 && in.ReceiveRequestAttemptId != "" {
		q.recordAttempt(in.ReceiveRequestAttemptId, in, out, vis, now)
	}
	return out, dup
}

// takeStandard returns available messages oldest-available first. Caller
// holds q.mu.
func (q *Queue) takeStandard(in *ReceiveInput, max int, vis time.Duration, now int64, dlq *Queue) []Message {
	var out []Message
	for len(out) < max {
		e, ok := q.avail.Peek()
		if !ok {
			break
		}
		q.avail.Pop()
		m := e.Val
		if e.Gen != m.gen || m.state != stateAvailable {
			continue
		}
		if q.deadLetter(m, dlq, now) {
			continue
		}
		if out == nil {
			out = make([]Message, 0, min(max, q.nAvail))
		}
		out = append(out, q.receiveOne(m, in, vis, now))
	}
	return out
}

// receiveOne hands out an available message: a new receive serial and
// handle, the receive count, and hidden for vis. Caller holds q.mu.
func (q *Queue) receiveOne(m *message, in *ReceiveInput, vis time.Duration, now int64) Message {
	q.leaveState(m)
	m.serial++
	m.receiveCount++
	if m.firstReceiveAt == notReceived {
		m.firstReceiveAt = now / int64(time.Millisecond)
	}
	if m.serial > 1 {
		q.counters.Redelivered++
	}
	m.receivedAt = now
	if vis > 0 {
		q.makePending(m, stateInflight, now+int64(q.shortenVisibility(vis)))
	} else {
		m.state = stateHeld // off every index until the selection ends
		q.again = append(q.again, m)
	}
	q.counters.Received++
	return q.view(m, in)
}

// view builds the Message a receive returns. Caller holds q.mu.
func (q *Queue) view(m *message, in *ReceiveInput) Message {
	msg := Message{
		MessageId: m.id,
		Body:      m.body,
		ReceiptHandle: q.b.receipts.Encode(receipt.Handle{
			Queue: q.id, Seq: m.seq, Slot: m.slot, Serial: m.serial,
		}),
		m: m,
	}
	if len(in.MessageSystemAttributeNames) > 0 {
		msg.Attributes = q.systemAttributes(m, in.MessageSystemAttributeNames)
	}
	if len(in.MessageAttributeNames) > 0 && m.ext != nil && len(m.ext.attrs) > 0 {
		msg.MessageAttributes = selectAttributes(m.ext.attrs, in.MessageAttributeNames)
	}
	return msg
}

// System attribute names (MessageSystemAttributeName).
const (
	SysAll                              = "All"
	SysSenderId                         = "SenderId"
	SysSentTimestamp                    = "SentTimestamp"
	SysApproximateReceiveCount          = "ApproximateReceiveCount"
	SysApproximateFirstReceiveTimestamp = "ApproximateFirstReceiveTimestamp"
	SysSequenceNumber                   = "SequenceNumber"
	SysMessageDeduplicationId           = "MessageDeduplicationId"
	SysMessageGroupId                   = "MessageGroupId"
	SysAWSTraceHeader                   = "AWSTraceHeader"
	SysDeadLetterQueueSourceArn         = "DeadLetterQueueSourceArn"
)

func (q *Queue) systemAttributes(m *message, names []string) map[string]string {
	all := false
	want := func(name string) bool {
		if all {
			return true
		}
		for _, n := range names {
			if n == name {
				return true
			}
		}
		return false
	}
	for _, n := range names {
		if n == SysAll {
			all = true
		}
	}
	out := map[string]string{}
	if want(SysSenderId) {
		out[SysSenderId] = q.b.cfg.senderID
	}
	if want(SysSentTimestamp) {
		out[SysSentTimestamp] = msString(m.sentAt)
	}
	if want(SysApproximateReceiveCount) {
		out[SysApproximateReceiveCount] = strconv.Itoa(int(m.receiveCount))
	}
	if want(SysApproximateFirstReceiveTimestamp) && m.firstReceiveAt != notReceived {
		out[SysApproximateFirstReceiveTimestamp] = msString(m.firstReceiveAt)
	}
	if m.ext != nil {
		if a, ok := m.ext.sysAttrs[SysAWSTraceHeader]; ok && want(SysAWSTraceHeader) {
			out[SysAWSTraceHeader] = a.StringValue
		}
		if m.ext.groupID != "" && want(SysMessageGroupId) {
			out[SysMessageGroupId] = m.ext.groupID
		}
		if q.fifo && want(SysMessageDeduplicationId) {
			out[SysMessageDeduplicationId] = m.ext.dedupID
		}
		if q.fifo && want(SysSequenceNumber) {
			out[SysSequenceNumber] = strconv.FormatUint(m.ext.seqNum, 10)
		}
		if m.ext.dlqSource != "" && want(SysDeadLetterQueueSourceArn) {
			out[SysDeadLetterQueueSourceArn] = m.ext.dlqSource
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// selectAttributes applies the MessageAttributeNames filter of §5.5.
func selectAttributes(attrs map[string]MessageAttribute, names []string) map[string]MessageAttribute {
	var out map[string]MessageAttribute
	for name, a := range attrs {
		if !attributeSelected(name, names) {
			continue
		}
		if out == nil {
			out = make(map[string]MessageAttribute, len(attrs))
		}
		if a.BinaryValue != nil { // the caller may modify what it gets
			a.BinaryValue = append([]byte(nil), a.BinaryValue...)
		}
		out[name] = a
	}
	return out
}

func attributeSelected(name string, filters []string) bool {
	for _, f := range filters {
		switch {
		case f == "All" || f == ".*" || f == "*":
			return true
		case strings.HasSuffix(f, ".*"):
			if strings.HasPrefix(name, f[:len(f)-2]) {
				return true
			}
		case f == name:
			return true
		}
	}
	return false
}
