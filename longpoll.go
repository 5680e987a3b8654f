package sqsq

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
)

// waiter is a parked long poll. It sleeps on signal, which both its clock
// timer and a waker ring without blocking: a clock that fires a timer twice
// (the benbjohnson mock can, under concurrent Adds) or late only costs one
// more look at the queue, never a blocked goroutine.
type waiter struct {
	signal chan struct{} // buffered 1
	until  int64         // the clock instant the timer is armed for
	max    int           // messages the receive takes at most
	timer  *clock.Timer  // an AfterFunc timer ringing signal; Reset under Queue.mu
	woken  bool          // rung by a change on the queue (not the timer); under Queue.mu
}

func (w *waiter) ring() {
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

// arm sets w's timer to ring in d (> 0) on clk.
func (w *waiter) arm(clk clock.Clock, d time.Duration) {
	if w.timer == nil {
		w.timer = clk.AfterFunc(d, w.ring)
		return
	}
	w.timer.Reset(d)
}

// longPoll parks the caller until a message is available, the wait ends at
// deadline, ctx ends or the broker closes. Caller holds locks; longPoll
// releases them, and records when it holds them again.
func (q *Queue) longPoll(ctx context.Context, in *ReceiveInput, max int, deadline int64, locks *receiveLocks) ([]Message, error) {
	w := &waiter{signal: make(chan struct{}, 1), max: max}
	defer func() {
		if w.timer != nil {
			w.timer.Stop()
		}
	}()
	for {
		if msgs, done := q.takeOrArm(w, in, max, deadline, locks.dlq); done {
			q.finishReceive(msgs)
			locks.release()
			return msgs, nil
		}
		q.park(w)
		locks.release()

		var err error
		select {
		case <-w.signal:
		case <-ctx.Done():
			err = ctx.Err()
		case <-q.b.done:
			err = ErrClosed
		}
		q.mu.Lock()
		woken := w.woken
		w.woken = false
		q.unpark(w)
		if woken {
			q.spare -= min(q.spare, w.max) // at least what was left to it
			if err != nil && q.nAvail > 0 {
				q.wakeN(1) // what this receiver was woken for goes to another
			}
		}
		q.mu.Unlock()
		if err != nil {
			return nil, err
		}
		var dlq *Queue
		if _, dlq, err = q.lockReceive(); err != nil {
			return nil, err
		}
		locks.hold(dlq)
		if woken {
			q.counters.LongPollWakeups++
		}
	}
}

// takeOrArm takes what is available as of the clock's now and reports done
// if the receive ends (messages, or the wait is over); otherwise it arms w's
// timer for the earliest instant something can change on its own — the end
// of the wait, the next delay or visibility deadline, the next move-task
// step — and w may park. Caller holds q.mu (and dlq.mu).
//
// The clock may move while the timer is being armed: another goroutine
// advancing a mock, or simply the real clock. The timer then rings late by
// up to that move, and what the move made due is unseen; so takeOrArm looks
// once more as of the clock's new instant and re-arms from it. A clock that
// stands still while nobody advances it (a mock, a synctest bubble) then
// has a timer armed for exactly until, so no advance slips past a receiver
// between "nothing to take" and "timer armed". A clock that never stands
// still (the real one) is left with the nanoseconds re-arming takes, which
// real time covers at once; looking again until two reads agree would spin
// there.
func (q *Queue) takeOrArm(w *waiter, in *ReceiveInput, max int, deadline int64, dlq *Queue) ([]Message, bool) {
	now := q.b.clock.Now().UnixNano()
	for look := 0; ; look++ {
		q.advance(now)
		if dlq != nil {
			dlq.advance(now)
		}
		msgs, dup := q.take(in, max, now, dlq)
		if len(msgs) > 0 && q.nAvail > 0 && q.parked > 0 {
			q.wakeN(1) // more than this receiver could take: pass it on
		}
		q.tell(in, msgs, dup, now) // the user's code, once the queue is whole
		if len(msgs) > 0 || now >= deadline {
			return msgs, true
		}
		until := deadline
		if next, ok := q.nextDeadline(); ok && next < until {
			until = next
		}
		// A move task's next step may bring a message here; nothing runs it
		// but calls, so this receiver wakes for it (see syncTasks).
		if due := q.b.nextTaskStep(now); due < until {
			until = due
		}
		// A step that fell due after lockReceive caught the tasks up (the
		// clock moved since) has not run: look again at once, through
		// lockReceive, rather than sleep past it.
		if q.b.tasksDue(now, q.arn) || dlq != nil && q.b.tasksDue(now, dlq.arn) {
			w.ring()
		}
		// until > now: advance made everything due by now visible.
		w.until = until
		w.arm(q.b.clock, time.Duration(until-now))
		after := q.b.clock.Now().UnixNano()
		if after <= now || look == 1 {
			return nil, false
		}
		now = after
	}
}

// nextDeadline is the earliest instant a delayed or in-flight message becomes
// visible. Caller holds q.mu.
func (q *Queue) nextDeadline() (int64, bool) {
	for {
		e, ok := q.pending.Peek()
		if !ok {
			return 0, false
		}
		if e.Gen == e.Val.gen && (e.Val.state == stateInflight || e.Val.state == stateDelayed) {
			return e.Key, true
		}
		q.pending.Pop()
	}
}

// park and unpark give back the storage of the waiters map after a load
// of parked receives (not wakeOne: its callers range over the map).
func (q *Queue) park(w *waiter) {
	q.waiters = shrinkMap(q.waiters, &q.waitersPeak)
	q.waiters[w] = struct{}{}
	q.waitersPeak.grew(len(q.waiters))
	q.setParked(q.parked + 1)
}

// unpark forgets w if it is still parked (a waker may have done it already).
func (q *Queue) unpark(w *waiter) {
	if _, ok := q.waiters[w]; ok {
		delete(q.waiters, w)
		q.waiters = shrinkMap(q.waiters, &q.waitersPeak)
		q.setParked(q.parked - 1)
	}
}

func (q *Queue) setParked(n int) {
	q.b.parkedChanged(n - q.parked)
	q.parked = n
	if q.parkedSig != nil {
		close(q.parkedSig)
		q.parkedSig = nil
	}
}

// parkedChanged keeps the endpoint-wide count of parked receives. idleMu is
// a leaf lock, taken under queue locks.
func (b *Broker) parkedChanged(delta int) {
	w := b.w
	w.idleMu.Lock()
	w.parked += delta
	if w.idleSig != nil {
		close(w.idleSig)
		w.idleSig = nil
	}
	w.idleMu.Unlock()
}

// WaitIdle blocks until no receive is parked on any queue of the endpoint
// (every scope, see [Broker.Scope]), or ctx ends. After [Broker.Close] it
// proves that every long poll has returned: test kits call it to check that
// nothing is left behind.
func (b *Broker) WaitIdle(ctx context.Context) error {
	w := b.w
	for {
		w.idleMu.Lock()
		if w.parked == 0 {
			w.idleMu.Unlock()
			return nil
		}
		if w.idleSig == nil {
			w.idleSig = make(chan struct{})
		}
		sig := w.idleSig
		w.idleMu.Unlock()
		select {
		case <-sig:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// wake wakes the waiters armed for later than at: something they wait for
// can happen at at, and they re-arm for it. Caller holds q.mu.
func (q *Queue) wake(at int64) {
	for w := range q.waiters {
		if w.until > at {
			q.wakeOne(w)
		}
	}
}

// wakeN wakes enough parked waiters to take n messages that became
// available now: none if receivers already woken will take them, else as
// many as their MaxNumberOfMessages add up to n. The others stay parked
// instead of all racing for a message. Caller holds q.mu.
func (q *Queue) wakeN(n int) {
	for w := range q.waiters {
		if q.spare >= n {
			break
		}
		q.wakeOne(w)
		q.spare += w.max
	}
	q.spare -= min(q.spare, n)
}

// wakeFor wakes the receivers that m, just stored or made visible, concerns.
// Caller holds q.mu.
func (q *Queue) wakeFor(m *message) {
	if m.state == stateAvailable {
		q.wakeN(1)
	} else {
		q.wake(m.visibleAt)
	}
}

func (q *Queue) wakeAll() {
	for w := range q.waiters {
		q.wakeOne(w)
	}
}

func (q *Queue) wakeOne(w *waiter) {
	delete(q.waiters, w)
	q.setParked(q.parked - 1)
	w.woken = true
	w.ring()
}

// ParkedReceivers returns how many long-poll receives are parked on q: each
// has its clock timer armed, so advancing a mock clock now will reach it.
func (q *Queue) ParkedReceivers() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.parked
}

// WaitForReceivers blocks until at least n long-poll receives are parked on q
// (see [Queue.ParkedReceivers]) or ctx ends. Tests call it before advancing a
// mock clock, so the advance cannot slip past a receiver that has not armed
// its timer yet. It waits on the receivers themselves, never on time.
func (q *Queue) WaitForReceivers(ctx context.Context, n int) error {
	for {
		q.mu.Lock()
		parked := q.parked
		if parked < n && q.parkedSig == nil {
			q.parkedSig = make(chan struct{})
		}
		sig := q.parkedSig
		q.mu.Unlock()
		if parked >= n {
			return nil
		}
		select {
		case <-sig:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
