package sqsq

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
)

// waiter is a parked long poll. until is the clock instant its timer is armed
// for; a change that can satisfy it earlier wakes it.
type waiter struct {
	wake  chan struct{} // buffered 1
	until int64
	timer *clock.Timer // armed for until; may be Reset under Queue.mu
}

// longPoll parks the caller until a message is available, the wait ends at
// deadline, ctx ends or the broker closes. Caller holds q.mu; longPoll
// releases it.
func (q *Queue) longPoll(ctx context.Context, in *ReceiveInput, max int, deadline int64, dlq *Queue) ([]Message, error) {
	w := &waiter{wake: make(chan struct{}, 1)}
	for {
		// Arm for the earliest instant something can change on its own: the
		// end of the wait or the next delay/visibility deadline.
		now := q.b.clock.Now().UnixNano()
		q.advance(now)
		if dlq != nil {
			dlq.advance(now)
		}
		if msgs := q.take(in, max, now, dlq); len(msgs) > 0 || now >= deadline {
			q.finishReceive(msgs)
			q.unlockReceive(dlq)
			return msgs, nil
		}
		until := deadline
		if next, ok := q.nextDeadline(); ok && next < until {
			until = next
		}
		// A move task's next step may bring a message here; nothing runs it
		// but calls, so this receiver wakes for it (see syncTasks).
		if due := q.b.taskDue.Load(); due > now && due < until {
			until = due
		}
		w.until = until
		// until > now: advance made everything due by now visible. (A
		// mock's Timer with a negative duration would move its time back.)
		timer := q.b.clock.Timer(time.Duration(until - now))
		// A clock that moved while the timer was being made armed it late;
		// look again instead of parking.
		if q.b.clock.Now().UnixNano() != now {
			timer.Stop()
			continue
		}
		w.timer = timer
		q.park(w)
		q.unlockReceive(dlq)

		var err error
		woken := false
		select {
		case <-w.wake:
			woken = true
		case <-timer.C:
		case <-ctx.Done():
			err = ctx.Err()
		case <-q.b.done:
			err = ErrClosed
		}
		timer.Stop()
		q.mu.Lock()
		q.unpark(w)
		q.mu.Unlock()
		if err != nil {
			return nil, err
		}
		if _, dlq, err = q.lockReceive(); err != nil {
			return nil, err
		}
		if woken {
			q.counters.LongPollWakeups++
		}
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

func (q *Queue) park(w *waiter) {
	q.waiters[w] = struct{}{}
	q.setParked(q.parked + 1)
}

// unpark forgets w if it is still parked (a waker may have done it already).
func (q *Queue) unpark(w *waiter) {
	if _, ok := q.waiters[w]; ok {
		delete(q.waiters, w)
		q.setParked(q.parked - 1)
	}
}

func (q *Queue) setParked(n int) {
	q.b.parkedChanged(n - q.parked)
	q.parked = n
	close(q.parkedSig)
	q.parkedSig = make(chan struct{})
}

// parkedChanged keeps the broker-wide count of parked receives. idleMu is a
// leaf lock, taken under queue locks.
func (b *Broker) parkedChanged(delta int) {
	b.idleMu.Lock()
	b.parked += delta
	if b.idleSig != nil {
		close(b.idleSig)
		b.idleSig = nil
	}
	b.idleMu.Unlock()
}

// WaitIdle blocks until no receive is parked on any queue of the broker, or
// ctx ends. After [Broker.Close] it proves that every long poll has
// returned: test kits call it to check that nothing is left behind.
func (b *Broker) WaitIdle(ctx context.Context) error {
	for {
		b.idleMu.Lock()
		if b.parked == 0 {
			b.idleMu.Unlock()
			return nil
		}
		if b.idleSig == nil {
			b.idleSig = make(chan struct{})
		}
		sig := b.idleSig
		b.idleMu.Unlock()
		select {
		case <-sig:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// wake wakes the waiters armed for later than at: something they wait for
// can happen at at (at = now: a message is available now). Caller holds q.mu.
func (q *Queue) wake(at int64) {
	for w := range q.waiters {
		if w.until > at {
			q.wakeOne(w)
		}
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
	select {
	case w.wake <- struct{}{}:
	default:
	}
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
		parked, sig := q.parked, q.parkedSig
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
