package sqsq

import "context"

// Reset empties b's endpoint for the next test without a new broker:
// every queue of every namespace is deleted with its messages, running
// move tasks are cancelled and every task is forgotten, the names of
// deleted queues are forgotten (a queue of the same name can be created at
// once), and the namespaces [Broker.Scope] made are released. Brokers and
// the clock stay; so do the options, a fault policy and an observer, which
// are the caller's to reset.
//
// A long poll parked on a queue ends at once with QueueDoesNotExist, as
// after DeleteQueue, and so does every later call on a *Queue of before
// the reset. A call that runs concurrently with Reset lands either before
// it (and is swept away) or after it (on the empty endpoint).
func (b *Broker) Reset(context.Context) error {
	if b.closed() {
		return ErrClosed
	}
	w := b.w
	for _, t := range w.tasks.runningTasks() {
		t.mu.Lock()
		if t.isActive() {
			t.finish(MoveTaskCancelled, "")
		}
		t.mu.Unlock()
	}
	w.mu.Lock()
	for _, h := range w.tasks.bySource {
		for _, t := range h {
			w.journalTaskDropped(t)
		}
	}
	w.tasks.bySource = nil
	w.mu.Unlock()
	b.refreshTaskDue()
	for _, m := range b.Scopes() {
		// Under one lock, queues and deleted names go together: a
		// concurrent CreateQueue sees the names taken or free, never
		// deleted recently.
		m.mu.Lock()
		qs := make([]*Queue, 0, len(m.queues))
		for _, q := range m.queues {
			qs = append(qs, q)
			q.gone.Store(true) // as DeleteQueue does
			m.w.unregister(q)
		}
		m.queues, m.queuesPeak = map[string]*Queue{}, 0
		m.deleted = expiringMap[struct{}]{}
		m.mu.Unlock()
		for _, q := range qs {
			q.markDeleted()
		}
		m.Release()
	}
	return nil
}
