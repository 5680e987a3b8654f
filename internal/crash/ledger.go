package main

import (
	"fmt"
	"sync"
)

// The ledger records what the server acknowledged, so that after every
// restart check.go can hold the stored state to it. The contract under
// test: a call answered 200 is durable before the answer is sent. So an
// acknowledged call must have taken effect after any crash; a call that
// failed or was cut off by the kill (outcome unknown) may or may not have.
// No call is retried, so an unknown outcome never turns into two effects.
// Once a check after a restart has passed, no call is in flight any more:
// resolve settles each unknown outcome as the state shows it, and from then
// on it is held to that as to an acknowledged one (what a restart restored
// must survive the next crash too).
//
// A message is known by its body, unique per run: dead-lettering keeps its
// MessageId, but a move task back to the source gives it a new one.

// outcome is what the driver knows of a call's effect.
type outcome uint8

const (
	notTried outcome = iota
	unknown          // failed or cut off: it may have taken effect or not
	acked            // answered 200: it must have taken effect
)

func (o outcome) String() string {
	return [...]string{"not tried", "unknown", "acked"}[o]
}

// msgRec is one message's history.
type msgRec struct {
	queue string // the queue it was sent to
	group string // FIFO message group; "" on a standard queue
	order int    // its place among the sends to its group, which one client makes in turn
	send  outcome
	id    string // MessageId the acknowledged send returned
	seq   string // SequenceNumber the acknowledged send returned (FIFO)
	// del is acked only for a delete that answered 200 while the receipt
	// handle was surely the message's latest (within the visibility window
	// of its receive): a delete with a stale handle succeeds and deletes
	// nothing, so a later 200 only makes the outcome unknown.
	del outcome
}

// queueRec is one queue's history.
type queueRec struct {
	dlq string // its dead-letter queue, "" for none
	// stable: messages keep the MessageId their send returned here (no
	// move task brings new copies in), so the id is checked.
	stable      bool
	fifo        bool
	create, del outcome
}

// attrKey names a queue attribute, or a tag as "tag:" + key.
type attrKey struct{ queue, name string }

// attrRec is an attribute's acknowledged value and the values of the sets
// since whose outcome is unknown. One goroutine sets a given attribute, in
// turn, so a set acknowledged overrides every one before it.
type attrRec struct {
	acked   string
	pending []string
}

type ledger struct {
	mu        sync.Mutex
	msgs      map[string]*msgRec
	groupNext map[string]int
	queues    map[string]*queueRec
	attrs     map[attrKey]*attrRec
	live      map[string]int // per queue sent to: messages sent (acked or unknown) with no acked delete
	calls     totals
	// runtime are violations seen while the clients run: a receive that
	// returned a body never sent, or one whose delete was acknowledged.
	runtime []violation
}

func newLedger() *ledger {
	return &ledger{
		msgs:      map[string]*msgRec{},
		groupNext: map[string]int{},
		queues:    map[string]*queueRec{},
		attrs:     map[attrKey]*attrRec{},
		live:      map[string]int{},
	}
}

// addQueue records a queue created and acknowledged.
func (l *ledger) addQueue(name, dlq string, fifo, stable bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.queues[name] = &queueRec{dlq: dlq, fifo: fifo, stable: stable, create: acked}
}

// creatingQueue records a CreateQueue about to be sent, with the
// attributes it creates the queue with: what they are if it is created.
func (l *ledger) creatingQueue(name string, attrs map[string]string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.queues[name] = &queueRec{stable: true, create: unknown}
	l.calls.queueOps++
	for k, v := range attrs {
		l.attrs[attrKey{name, k}] = &attrRec{acked: v}
	}
}

func (l *ledger) createdQueue(name string, ok bool) {
	if ok {
		l.mu.Lock()
		l.queues[name].create = acked
		l.calls.queueOpsAcked++
		l.mu.Unlock()
	}
}

// deletingQueue records a DeleteQueue about to be sent; deletedQueue its
// answer.
func (l *ledger) deletingQueue(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if q := l.queues[name]; q.del != acked {
		q.del = unknown
	}
	l.calls.queueOps++
}

func (l *ledger) deletedQueue(name string, ok bool) {
	if ok {
		l.mu.Lock()
		l.queues[name].del = acked
		l.calls.queueOpsAcked++
		l.mu.Unlock()
	}
}

// initAttr records an attribute's value before any set: its default.
func (l *ledger) initAttr(queue, name, value string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.attrs[attrKey{queue, name}] = &attrRec{acked: value}
}

// settingAttr records a set about to be sent: pending until answered.
func (l *ledger) settingAttr(queue, name, value string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.attrs[attrKey{queue, name}]
	a.pending = append(a.pending, value)
	l.calls.attrSets++
}

// setAttr records the answer of the set of value: acknowledged, it is the
// value, and the sets before it, unknown or not, are overridden.
func (l *ledger) setAttr(queue, name, value string, ok bool) {
	if !ok {
		return // stays pending
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.attrs[attrKey{queue, name}]
	a.acked, a.pending = value, nil
	l.calls.attrSetsAcked++
}

// sending records a message about to be sent; its outcome is unknown until
// sent says otherwise.
func (l *ledger) sending(body, queue, group string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := &msgRec{queue: queue, group: group, send: unknown}
	if group != "" {
		r.order = l.groupNext[group]
		l.groupNext[group]++
	}
	l.msgs[body] = r
	l.live[queue]++
	l.calls.sends++
}

// sent records an acknowledged send.
func (l *ledger) sent(body, id, seq string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.msgs[body]
	r.send, r.id, r.seq = acked, id, seq
	l.calls.sendsAcked++
}

// deleted records a delete that answered (ok) or not. Only one that
// answered while its receipt handle was surely the latest (current) is
// acknowledged; any other may have deleted the message or not.
func (l *ledger) deleted(body string, ok, current bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.msgs[body]
	if r == nil {
		return
	}
	l.calls.deletes++
	switch {
	case ok && current:
		l.calls.deletesAcked++
		if r.del != acked {
			l.live[r.queue]--
		}
		r.del = acked
	case r.del == notTried:
		r.del = unknown
	}
}

// received checks a message a receive returned: it must be one sent, and
// not one whose delete was acknowledged (a deleted message back).
func (l *ledger) received(queue, body, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.msgs[body]
	switch {
	case r == nil:
		l.runtime = append(l.runtime, violation{kindPhantom, fmt.Sprintf("ReceiveMessage on %s returned %q (id %s), which was never sent", queue, body, id)})
	case r.send == notTried:
		l.runtime = append(l.runtime, violation{kindPhantom, fmt.Sprintf("ReceiveMessage on %s returned %q (id %s), whose send a restart showed not stored", queue, body, id)})
	case r.del == acked:
		l.runtime = append(l.runtime, violation{kindResurrected, fmt.Sprintf("ReceiveMessage on %s returned %q (id %s), whose delete was acknowledged", queue, body, id)})
	}
}

// backlog is the number of messages sent to queue (and perhaps
// dead-lettered since) and not surely deleted.
func (l *ledger) backlog(queue string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.live[queue]
}

// totals counts the calls by outcome (a batch entry, or a message of a
// batch delete, counts as one), and how the checks settled the unknown
// ones.
type totals struct {
	sends, sendsAcked, deletes, deletesAcked                 int
	queueOps, queueOpsAcked, attrSets, attrSetsAcked         int
	sendsStored, sendsNotStored, deletesDone, deletesNotDone int
}

func (l *ledger) totals() totals {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls
}
