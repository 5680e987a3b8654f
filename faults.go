package sqsq

import (
	"time"
)

// Op names an operation that a [Faults] policy decides about or that an
// [Observer] is told of.
type Op uint8

// The operations faults apply to.
const (
	OpReceive          Op = iota + 1 // ReceiveMessage
	OpDelete                         // DeleteMessage and each DeleteMessageBatch entry
	OpChangeVisibility               // ChangeMessageVisibility and each batch entry
)

func (o Op) String() string {
	switch o {
	case OpReceive:
		return "Receive"
	case OpDelete:
		return "Delete"
	case OpChangeVisibility:
		return "ChangeVisibility"
	}
	return "Op(?)"
}

// Call describes the call a [Faults] decision is about.
type Call struct {
	Op    Op
	Queue string // the queue's name
	FIFO  bool
	// Account and Region are the queue's namespace (see [Broker.Scope]):
	// one policy serves every namespace of an endpoint.
	Account, Region string
}

// call describes a call of op on q.
func (q *Queue) call(op Op) Call {
	return Call{Op: op, Queue: q.name, FIFO: q.fifo, Account: q.b.cfg.accountID, Region: q.b.cfg.region}
}

// event starts an Event of kind about q at now.
func (q *Queue) event(kind EventKind, now int64) Event {
	return Event{Kind: kind, At: time.Unix(0, now), Queue: q.name, Account: q.b.cfg.accountID, Region: q.b.cfg.region}
}

// Faults is a fault policy: it makes a [Broker] show the unlucky side of SQS
// on purpose. Install one with [WithFaults]; package sqsqtest has policies
// drawn from a seeded PRNG or from a *rapid.T. Without a policy every
// decision below takes the deterministic, lucky branch, at the cost of a nil
// check.
//
// The broker consults the policy at its decision points, mostly with queue
// locks held, so the methods must be safe for concurrent use and must not
// call back into the broker. A method that panics does not break the
// broker: the panic reaches the caller of the operation, with the queue
// unlocked and its state whole — Reject, Sample and Duplicate are consulted
// before the operation changes anything, Shuffle and LoseResponse after it
// is complete (the received messages stay in flight, as with a lost
// response). The broker enforces SQS's own rules whatever
// the policy answers: on FIFO queues Sample, Duplicate and Shuffle are never
// consulted (FIFO never delivers out of order, nor twice within a group's
// lock), answers out of range are clamped, and injected errors are [*Error]
// values with AWS's codes, so the awssqs adapter and the HTTP handler turn
// them into the errors the SDK would see.
type Faults interface {
	// Reject is consulted when a Receive, Delete or ChangeVisibility (or a
	// batch entry of the latter two) starts. A non-empty code fails the call
	// before it changes anything: CodeRequestThrottled and CodeOverLimit
	// model throttling, CodeServiceUnavailable a failed delete or visibility
	// change (a 5xx the caller may retry). "" lets the call proceed.
	Reject(c Call) Code
	// Sample is consulted by a short-poll receive on a standard queue with n
	// selectable messages (n ≥ 1, at most MaxNumberOfMessages): it returns
	// how many of them the receive hands out, 0 to n (§5.3: a short poll
	// samples a subset of servers and may return nothing).
	Sample(c Call, n int) int
	// Duplicate is consulted by a receive on a standard queue that has
	// inflight messages in flight: it returns the index (0 to inflight-1, in
	// an order fixed by the queue's history) of one to deliver again with a
	// new receipt handle and a new visibility timeout, as at-least-once
	// delivery allows, or -1 for none. A message that its redrive policy
	// would move to the dead-letter queue is not duplicated.
	Duplicate(c Call, inflight int) int
	// Shuffle is consulted when a receive on a standard queue returns n > 1
	// messages; it may reorder them by calling swap, like rand.Shuffle.
	Shuffle(c Call, n int, swap func(i, j int))
	// LoseResponse is consulted after a call succeeded (for a receive: one
	// that returns messages). true loses the response: the call stays
	// applied — received messages are in flight, a deleted message is gone —
	// but the caller gets a ServiceUnavailable error instead of the result.
	LoseResponse(c Call) bool
}

// VisibilityFaults is an optional extension of [Faults]: a policy that
// implements it can end a visibility timeout early. SQS's standard queues
// deliver at least once — "you might receive a message more than once",
// the Developer Guide says, even inside a visibility timeout — so a
// consumer must survive a message coming back while it still works on it.
type VisibilityFaults interface {
	// VisibilityTimeout is consulted for each message a receive on a
	// standard queue puts in flight for timeout (> 0): it returns the
	// timeout the message really gets, from 1 ns to timeout (answers out
	// of range are clamped). The receiver is told timeout as usual.
	VisibilityTimeout(c Call, timeout time.Duration) time.Duration
}

// EventKind says what an [Event] reports.
type EventKind uint8

// The kinds of events an [Observer] receives.
const (
	EventReceived          EventKind = iota + 1 // a receive handed out a message
	EventVisibilityChanged                      // a ChangeVisibility call or entry ended
	EventDeleted                                // a Delete call or entry ended
	EventDeadLettered                           // a receive moved a message to the dead-letter queue
	EventSent                                   // a send stored a message
	EventRedriven                               // a move task moved a message out of a dead-letter queue
	EventReceiveLost                            // a receive's response was lost: the message is in flight, unseen
)

func (k EventKind) String() string {
	switch k {
	case EventReceived:
		return "received"
	case EventVisibilityChanged:
		return "visibility changed"
	case EventDeleted:
		return "deleted"
	case EventDeadLettered:
		return "moved to DLQ"
	case EventSent:
		return "sent"
	case EventRedriven:
		return "redriven"
	case EventReceiveLost:
		return "receive response lost"
	}
	return "event(?)"
}

// Event is what an [Observer] is told about one message.
type Event struct {
	Kind  EventKind
	At    time.Time // the clock instant of the operation
	Queue string    // the queue's name
	// Account and Region are the queue's namespace.
	Account, Region string
	MessageID       string // "" when a Delete or ChangeVisibility handle named no stored message
	Body            string
	SentAt          time.Time // the message's SentTimestamp (millisecond precision)
	// ReceiptHandle is the handle handed out (EventReceived) or used.
	ReceiptHandle string
	// ReceiveCount is ApproximateReceiveCount after a receive.
	ReceiveCount int
	// Timeout is the visibility timeout a receive set, or the new timeout of
	// a visibility change.
	Timeout time.Duration
	// Duplicate marks a delivery injected by [Faults.Duplicate].
	Duplicate bool
	// Removed reports that a delete removed the message; false for a stale
	// handle, a message already gone, or a failed call.
	Removed bool
	// Err is what a Delete or ChangeVisibility returned (nil on success),
	// including injected errors.
	Err error
	// Injected reports that Err was injected by the fault policy.
	Injected bool
	// Applied reports that a Delete or ChangeVisibility took effect (it
	// returned nil, or its response was lost).
	Applied bool
	// DeadLetterQueue is the name of the dead-letter queue of an
	// EventDeadLettered; the message keeps its MessageId there.
	DeadLetterQueue string
	// Destination and NewMessageID describe an EventRedriven: the queue the
	// message went to and the MessageId it has there (Queue and MessageID
	// are the dead-letter queue and the old id).
	Destination  string
	NewMessageID string
	// Delay is the delay of an EventSent: the message becomes visible At+Delay.
	Delay time.Duration
	// EndsEarly, when positive, is the visibility timeout an EventReceived
	// really set: [VisibilityFaults] ended it early, and the message is
	// visible again after EndsEarly instead of Timeout.
	EndsEarly time.Duration
}

// Observer is told of every receive, delete, visibility change and
// dead-letter move of a [Broker], in order per queue. Install one with
// [WithObserver]. Observe is called with queue locks held: it must be quick,
// safe for concurrent use and must not call back into the broker.
//
// Observe is told once the operation is complete, so a panic in it does not
// break the broker: the panic reaches the caller of the operation, which
// stays applied (a received message stays in flight, as with a lost
// response), with every lock released. A move task has no goroutine: its
// steps run at the start of the broker's calls, and a panic told of a step
// reaches the call that ran it.
type Observer interface {
	Observe(e Event)
}

// errInjected builds the error of an injected fault.
func errInjected(code Code) *Error {
	switch code {
	case CodeRequestThrottled:
		return newError(code, "Rate exceeded (injected fault).")
	case CodeOverLimit:
		return newError(code, "Too many requests (injected fault).")
	case CodeServiceUnavailable:
		return &Error{Code: code, Message: "The service is unavailable (injected fault).", Receiver: true}
	}
	return newError(code, "Injected fault.")
}

func errLostResponse() *Error {
	return &Error{Code: CodeServiceUnavailable, Message: "The response was lost (injected fault); the call was applied.", Receiver: true}
}

// rejectReceive asks the policy whether a receive fails at once. Caller
// holds q.mu.
func (q *Queue) rejectReceive() *Error {
	f := q.b.cfg.faults
	if f == nil {
		return nil
	}
	if code := f.Reject(q.call(OpReceive)); code != "" {
		return errInjected(code)
	}
	return nil
}

// sample returns how many messages a short poll may take. Caller holds q.mu.
func (q *Queue) sample(limit int) int {
	f := q.b.cfg.faults
	if f == nil || q.fifo || q.nAvail == 0 {
		return limit
	}
	n := min(limit, q.nAvail)
	if k := f.Sample(q.call(OpReceive), n); k < n {
		return max(0, k)
	}
	return limit // not sampled: room stays for a duplicate
}

// loseReceive passes a receive's result through the policy's LoseResponse.
// The observer is told of each message whose delivery was lost, under
// q.mu again, so a history shows why its receiver never saw it.
func (q *Queue) loseReceive(msgs []Message, err error) ([]Message, error) {
	f := q.b.cfg.faults
	if f == nil || err != nil || len(msgs) == 0 || !f.LoseResponse(q.call(OpReceive)) {
		return msgs, err
	}
	if o := q.b.cfg.observer; o != nil {
		q.mu.Lock()
		defer q.mu.Unlock()
		now := q.b.clock.Now().UnixNano()
		for _, msg := range msgs {
			if m := msg.m; m != nil {
				ev := q.event(EventReceiveLost, now)
				ev.MessageID, ev.Body, ev.SentAt, ev.ReceiptHandle = m.id, m.body, time.UnixMilli(m.sentAt), msg.ReceiptHandle
				ev.ReceiveCount, ev.Injected = int(m.receiveCount), true
				o.Observe(ev)
			}
		}
	}
	return nil, errLostResponse()
}

// takeHooked selects messages as take does, letting the fault policy
// duplicate one on a standard queue (dup, or nil). It consults the policy
// before it changes anything and tells no one: the rest of the user's code
// waits until the queue is whole again (see tell). Caller holds q.mu (and
// dlq.mu).
func (q *Queue) takeHooked(in *ReceiveInput, max int, vis time.Duration, now int64, dlq *Queue) (out []Message, dup *message) {
	if q.fifo {
		return q.takeFIFO(in, max, vis, now, dlq), nil
	}
	f := q.b.cfg.faults
	if f == nil || q.nInflight == 0 {
		return q.takeStandard(in, max, vis, now, dlq), nil
	}
	if m := q.inflightAt(f.Duplicate(q.call(OpReceive), q.nInflight)); m != nil && !q.wouldDeadLetter(m) {
		out = append(out, q.receiveOne(m, in, vis, now))
		dup = m
	}
	return append(out, q.takeStandard(in, max-len(out), vis, now, dlq)...), dup
}

// tell runs the user's code of a receive's selection: the fault policy's
// Shuffle, then the observer, told of the dead-letter moves and then of the
// deliveries (dup is the one Duplicate injected). Receives call it last,
// with the queue whole again — messages in flight, those received with
// visibility 0 visible again, receivers woken — so a panic there leaves
// nothing half done; the receive's deferred unlock then frees the queue.
// Caller holds q.mu (and dlq.mu).
func (q *Queue) tell(in *ReceiveInput, out []Message, dup *message, now int64) {
	f, o := q.b.cfg.faults, q.b.cfg.observer
	if f == nil && o == nil {
		return
	}
	told := q.told
	q.told = nil // taken before any user code runs: a panic must not leave them to the next receive
	if f != nil && !q.fifo && len(out) > 1 {
		f.Shuffle(q.call(OpReceive), len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	if o == nil {
		return
	}
	for _, e := range told {
		o.Observe(e)
	}
	vis := in.VisibilityTimeout.Or(q.settings.visibility)
	for _, msg := range out {
		m := msg.m
		ev := q.event(EventReceived, now)
		ev.MessageID, ev.Body, ev.SentAt, ev.ReceiptHandle = m.id, m.body, time.UnixMilli(m.sentAt), msg.ReceiptHandle
		ev.ReceiveCount, ev.Timeout, ev.Duplicate = int(m.receiveCount), vis, m == dup
		if vis > 0 && m.state == stateInflight && m.visibleAt-now < int64(vis) {
			ev.EndsEarly = time.Duration(m.visibleAt - now)
		}
		o.Observe(ev)
	}
}

// shortenVisibility returns the visibility timeout a receive of a message
// on q really sets, vis unless the policy ends it early. Caller holds q.mu.
func (q *Queue) shortenVisibility(vis time.Duration) time.Duration {
	vf, ok := q.b.cfg.faults.(VisibilityFaults)
	if !ok || q.fifo || vis <= 0 {
		return vis
	}
	return min(max(vf.VisibilityTimeout(q.call(OpReceive), vis), 1), vis)
}

// inflightAt returns the i-th in-flight message in slot order, or nil.
// O(stored messages); only fault injection calls it. Caller holds q.mu.
func (q *Queue) inflightAt(i int) *message {
	if i < 0 || i >= q.nInflight {
		return nil
	}
	for _, m := range q.slots {
		if m != nil && m.state == stateInflight {
			if i == 0 {
				return m
			}
			i--
		}
	}
	return nil
}

// wouldDeadLetter reports whether a receive of m would move it to the
// dead-letter queue instead. Caller holds q.mu.
func (q *Queue) wouldDeadLetter(m *message) bool {
	p := q.settings.redrive
	return p != nil && int(m.receiveCount) >= p.MaxReceiveCount
}

// deleteHooked is delete with the fault policy and the observer. Caller
// holds q.mu.
func (q *Queue) deleteHooked(rh string, now int64) *Error {
	return q.hooked(OpDelete, rh, now, func(m *message, st handleState) *Error { return q.deleteFound(rh, m, st, now) },
		func(ev Event, m *message) Event {
			ev.Kind = EventDeleted
			ev.Removed = m != nil && m.state == stateGone
			return ev
		})
}

// changeVisibilityHooked is changeVisibility with the fault policy and the
// observer. Caller holds q.mu.
func (q *Queue) changeVisibilityHooked(rh string, timeout time.Duration, now int64, entry bool) *Error {
	return q.hooked(OpChangeVisibility, rh, now, func(m *message, st handleState) *Error {
		return q.changeVisibilityFound(rh, m, st, timeout, now, entry)
	},
		func(ev Event, _ *message) Event {
			ev.Kind = EventVisibilityChanged
			ev.Timeout = timeout
			return ev
		})
}

// hooked runs a call on one receipt handle (apply, given what the handle
// names: decoding it was a tenth of a heartbeat's run, done once here
// rather than again in apply) through the fault policy — rejected before
// it changes anything, or its response lost after — and tells the
// observer of the outcome, which fill completes. Without a policy or an
// observer it is just apply. fill takes and returns the event by value: a
// pointer to it would move it to the heap. Caller holds q.mu.
func (q *Queue) hooked(op Op, rh string, now int64, apply func(*message, handleState) *Error, fill func(Event, *message) Event) *Error {
	m, st := q.lookup(rh) // m is nil unless the handle names a stored message
	f, o := q.b.cfg.faults, q.b.cfg.observer
	if f == nil && o == nil {
		return apply(m, st)
	}
	c := q.call(op)
	var e *Error
	injected, applied := false, false
	if code := reject(f, c); code != "" {
		e, injected = errInjected(code), true
	} else {
		e = apply(m, st)
		applied = e == nil
		if applied && f != nil && f.LoseResponse(c) {
			e, injected = errLostResponse(), true
		}
	}
	if o != nil {
		ev := q.event(0, now)
		ev.ReceiptHandle, ev.Injected, ev.Applied = rh, injected, applied
		if e != nil {
			ev.Err = e
		}
		if m != nil {
			ev.MessageID, ev.Body, ev.SentAt, ev.ReceiveCount = m.id, m.body, time.UnixMilli(m.sentAt), int(m.receiveCount)
		}
		o.Observe(fill(ev, m))
	}
	return e
}

func reject(f Faults, c Call) Code {
	if f == nil {
		return ""
	}
	return f.Reject(c)
}
