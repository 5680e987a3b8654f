package sqsq

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/sqsq/sqsq/internal/pq"
	"github.com/sqsq/sqsq/internal/state"
)

// Queue is one SQS queue of a [Broker]. Get one from [Broker.CreateQueue] or
// [Broker.GetQueue]. All methods are safe for concurrent use. After the queue
// is deleted every method fails with QueueDoesNotExist, even if a queue of
// the same name is created again (get the new one from the Broker).
type Queue struct {
	b    *Broker
	id   uint64
	name string
	url  string
	arn  string
	fifo bool

	gone atomic.Bool // deleted; lets methods fail before validating input

	mu       queueMutex // guards everything below; Unlock journals (journal.go)
	deleted  bool
	settings queueSettings
	tags     map[string]string
	created  time.Time
	modified time.Time
	purged   time.Time // last PurgeQueue; zero if never

	seq   uint64     // last message sequence number issued
	slots []*message // messages by slot; receipt handles name the slot
	free  freeSlots  // the slots no message holds (slots.go)

	// Every stored message is in byEnqueue (retention order) and in exactly
	// one of avail (ordered by available-since) or pending (delayed or in
	// flight, ordered by the time it becomes visible). Entries are removed
	// lazily: an entry is live only while its Gen equals the message's gen.
	byEnqueue pq.Queue[*message]
	avail     pq.Queue[*message]
	pending   pq.Queue[*message]
	// bySeq lists every stored message in send order, for Peek's cursor
	// (see seqindex.go).
	bySeq seqIndex

	nAvail, nInflight, nDelayed int

	waiters   map[*waiter]struct{}
	parked    int
	parkedSig chan struct{} // closed when parked changes, if someone waits (else nil)
	// spare is how many more messages the receivers woken but not yet run
	// will take between them; a message they can take wakes no one else.
	spare int

	waitersPeak mapPeak // see shrinkMap

	// redriveTarget mirrors settings.redrive's DLQ ARN, readable without the
	// lock so a receive knows which queues to lock.
	redriveTarget atomic.Pointer[string]
	// dlSources lists the ARNs of the queues that have dead-lettered into
	// this one, readable without the lock (see noteDeadLetterSource).
	dlSources atomic.Pointer[[]string]

	f     fifoState  // FIFO queues only
	again []*message // scratch: received with visibility 0 during one take
	told  []Event    // scratch: observer events of one take, for tell

	counters Counters

	// The change journal (journal.go): the world's, or nil, and with it
	// what the queue keeps for it.
	jr *journal
	*queueJournal
}

// queueJournal is what a queue of a journaled broker keeps for the
// journal (journal.go): the messages changed since q.mu was taken, the
// header last written. A queue of an in-memory broker has none: it was
// half the size of a queue, which a test kit that makes two queues a run
// allocated thousands of times a second.
type queueJournal struct {
	jdirty   []*message
	jpartner *Queue          // the other queue of a move, locked too (pairJournal)
	jsink    *[]state.Change // the group being made, while a flush runs
	jbuf     []state.Change  // a flush's group, reused: the journal copies it
	jsent    bool
	jdeleted bool
	jlast    state.Queue
	// the maps of jlast, and what they were made from
	jattrs      map[string]string
	jsettings   queueSettings
	jcounters   []state.Counter
	jcountersOf Counters
}

func newQueue(b *Broker, id uint64, name string, fifo bool, now time.Time) *Queue {
	q := &Queue{
		b:        b,
		id:       id,
		name:     name,
		url:      b.queueURL(name),
		arn:      b.queueARN(name),
		fifo:     fifo,
		settings: defaultSettings(),
		tags:     map[string]string{},
		created:  now,
		modified: now,
		waiters:  map[*waiter]struct{}{},
	}
	q.mu.q, q.jr = q, b.w.jr
	if q.jr != nil {
		q.queueJournal = &queueJournal{}
	}
	if fifo {
		q.f.init()
		if q.jr != nil { // each entry of a window is a record of the journal's
			q.f.dedup.byID.track, q.f.dedup.byPair.track, q.f.attempts.track = true, true, true
		}
	}
	return q
}

// Name returns the queue's name.
func (q *Queue) Name() string { return q.name }

// URL returns the queue's URL.
func (q *Queue) URL() string { return q.url }

// ARN returns the queue's ARN.
func (q *Queue) ARN() string { return q.arn }

// FIFO reports whether q is a FIFO queue.
func (q *Queue) FIFO() bool { return q.fifo }

// lock takes q.mu and brings the queue up to the clock's now. It fails, with
// the lock released, when the broker is closed or the queue deleted.
//
// The instant is read under q.mu, so the instants of q's operations never
// run backwards in the order they take effect: one read before the lock
// could predate a change another call made while this one waited, and the
// operation would be judged (a purge window, an age, a deadline) as if that
// change were in its future. Move-task steps due by the instant run first.
func (q *Queue) lock() (int64, error) {
	for {
		if q.b.closed() {
			return 0, ErrClosed
		}
		q.b.syncTasks(q.arn) // takes queue locks, so before q.mu
		q.mu.Lock()
		if q.deleted {
			q.mu.Unlock()
			return 0, errQueueDoesNotExist()
		}
		now := q.b.clock.Now().UnixNano()
		if q.b.tasksDue(now, q.arn) { // a step fell due while waiting for q.mu
			q.mu.Unlock()
			continue
		}
		q.advance(now)
		return now, nil
	}
}

// check fails as every method of a deleted queue (or closed broker) must,
// before any parameter is looked at (§3.1: the queue is resolved first).
func (q *Queue) check() error {
	if q.b.closed() {
		return ErrClosed
	}
	if q.gone.Load() {
		return errQueueDoesNotExist()
	}
	return nil
}

// advance expires messages past retention and makes visible the delayed and
// in-flight messages whose time has come. Caller holds q.mu.
func (q *Queue) advance(now int64) {
	cutoff := now - int64(q.settings.retention)
	for {
		// Drop entries of deleted messages as they reach the head, so the
		// ring stays as short as the queue in the usual oldest-first use.
		e, ok := q.byEnqueue.Peek()
		if !ok {
			break
		}
		m := e.Val
		if m.state == stateGone {
			q.byEnqueue.Pop()
			continue
		}
		if e.Key > cutoff {
			break
		}
		q.byEnqueue.Pop()
		q.remove(m)
		q.counters.Expired++
	}
	for {
		e, ok := q.pending.Peek()
		if !ok || e.Key > now {
			break
		}
		q.pending.Pop()
		m := e.Val
		if e.Gen != m.gen || (m.state != stateDelayed && m.state != stateInflight) {
			continue
		}
		if m.state == stateInflight {
			q.counters.VisibilityExpirations++
		}
		q.leaveState(m)
		q.makeAvailable(m, m.visibleAt)
	}
	if q.fifo {
		q.f.dedup.expire(now)
		q.f.attempts.expire(now)
	}
}

// makeAvailable puts m among the available messages as of since.
func (q *Queue) makeAvailable(m *message, since int64) {
	m.state = stateAvailable
	m.availableSince = since
	m.gen++
	q.touch(m)
	q.avail.Push(pq.Entry[*message]{Key: since, Seq: m.seq, Gen: m.gen, Val: m})
	q.nAvail++
	if g := m.group(); g != nil {
		q.groupChanged(g)
	}
}

// makePending hides m until at (a delay or a visibility timeout).
func (q *Queue) makePending(m *message, st msgState, at int64) {
	m.state = st
	m.visibleAt = at
	m.gen++
	q.touch(m)
	q.pending.Push(pq.Entry[*message]{Key: at, Seq: m.seq, Gen: m.gen, Val: m})
	if st == stateInflight {
		q.nInflight++
		q.enterInflight(m)
	} else {
		q.nDelayed++
	}
}

// leaveState takes m out of the count of its current state; its queue
// entries go stale by themselves.
func (q *Queue) leaveState(m *message) {
	switch m.state {
	case stateAvailable:
		q.nAvail--
	case stateInflight:
		q.nInflight--
		q.leaveInflight(m)
	case stateDelayed:
		q.nDelayed--
	}
	m.gen++
	q.touch(m)
}

// remove deletes m from the queue for good.
func (q *Queue) remove(m *message) {
	q.leaveState(m)
	m.state = stateGone
	q.slots[m.slot] = nil
	q.free.push(m.slot)
	if q.free.len() == len(q.slots) && len(q.slots) > shrinkMinPeak {
		// Emptied after a load: give the slots back (handles of the old
		// slots resolve as gone, see lookup). The next message gets slot
		// 0, as it would from the lowest free slot without the shrink.
		q.slots, q.free = nil, nil
	}
	if g := m.group(); g != nil {
		if q.f.selecting {
			q.f.dirty = append(q.f.dirty, g) // takeFIFO is walking g.msgs
		} else {
			q.groupChanged(g)
		}
	}
	q.compact()
}

// compact drops stale entries once they outnumber live ones, keeping memory
// proportional to the messages stored. Amortized O(1) per removal.
func (q *Queue) compact() {
	stored := q.nAvail + q.nInflight + q.nDelayed
	if q.byEnqueue.Len() > 2*stored+1024 {
		q.byEnqueue.Compact(func(e pq.Entry[*message]) bool { return e.Val.state != stateGone })
	}
	if q.avail.Len() > 2*q.nAvail+1024 {
		q.avail.Compact(liveEntry)
	}
	if q.pending.Len() > 2*(q.nInflight+q.nDelayed)+1024 {
		q.pending.Compact(liveEntry)
	}
	if q.fifo && q.f.availGroups.Len() > 2*len(q.f.groups)+1024 {
		q.f.availGroups.Compact(func(e pq.Entry[*group]) bool { return e.Gen == e.Val.gen })
	}
	q.bySeq.tidy(stored)
}

func liveEntry(e pq.Entry[*message]) bool { return e.Gen == e.Val.gen && e.Val.state != stateGone }

// store adds a new message, delayed until now+delay. Caller holds q.mu.
func (q *Queue) store(m *message, now int64, delay time.Duration) {
	m.firstReceiveAt = notReceived
	q.storeAt(m, now, now, delay)
}

// storeAt adds m with its retention counted from enqueued. Caller holds q.mu.
func (q *Queue) storeAt(m *message, enqueued, now int64, delay time.Duration) {
	q.seq++
	m.seq = q.seq
	m.enqueuedAt = enqueued
	if slot, ok := q.free.pop(); ok {
		m.slot = slot
		q.slots[m.slot] = m
	} else {
		m.slot = uint32(len(q.slots))
		q.slots = append(q.slots, m)
	}
	q.byEnqueue.Push(pq.Entry[*message]{Key: enqueued, Seq: m.seq, Val: m})
	q.bySeq.push(m)
	if q.fifo {
		q.joinGroup(m)
	}
	if delay > 0 {
		q.makePending(m, stateDelayed, now+int64(delay))
	} else {
		q.makeAvailable(m, now)
	}
}

// markDeleted ends the queue: its messages are dropped and parked receivers
// woken.
func (q *Queue) markDeleted() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.deleted = true
	q.gone.Store(true)
	q.syncRedriveTarget() // out of the sources index
	q.dropAll()
	q.wakeAll()
}

// dropAll removes every message. Caller holds q.mu.
func (q *Queue) dropAll() int {
	n := q.nAvail + q.nInflight + q.nDelayed
	for _, m := range q.slots {
		if m != nil {
			m.state = stateGone
			m.gen++
			q.touch(m)
		}
	}
	q.slots, q.free = nil, nil
	q.byEnqueue.Reset()
	q.bySeq.reset()
	q.avail.Reset()
	q.pending.Reset()
	q.nAvail, q.nInflight, q.nDelayed = 0, 0, 0
	if q.fifo {
		q.f.clear() // groups, locks, the dedup cache and attempt ids go too
	}
	return n
}

// Purge deletes every message in the queue: available, in flight and
// delayed. Sends after the call are kept. A second purge within 60 s of clock
// time fails with PurgeQueueInProgress and deletes nothing.
func (q *Queue) Purge(ctx context.Context) error {
	now, err := q.lock()
	if err != nil {
		return err
	}
	defer q.mu.Unlock()
	t := time.Unix(0, now)
	// An interval of 0 disables the rule: no comparison of instants at all.
	if q.b.cfg.purgeInterval > 0 && !q.purged.IsZero() && t.Sub(q.purged) < q.b.cfg.purgeInterval {
		return newError(CodePurgeQueueInProgress, "Only one PurgeQueue operation on %s is allowed every 60 seconds.", q.name)
	}
	q.purged = t
	q.counters.Purged += int64(q.dropAll())
	return nil
}

// Delete of the queue itself goes through the broker so its name table stays right.

// DeleteQueue deletes q; see [Broker.DeleteQueue].
func (q *Queue) DeleteQueue(ctx context.Context) error {
	q.mu.Lock()
	deleted := q.deleted
	q.mu.Unlock()
	if deleted {
		return errQueueDoesNotExist()
	}
	return q.b.DeleteQueue(ctx, q.arn)
}
