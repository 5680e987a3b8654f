package sqsq

import (
	"cmp"
	"reflect"
	"slices"
	"sync"

	"github.com/sqsq/sqsq/internal/state"
)

// The change journal (#21, "acknowledged means durable"): a broker made
// with the hidden option state.Journal(f) calls f with every change of its
// endpoint's state, as internal/state values, before the call that made
// the change answers. Applying the changes, in order, to the World the
// endpoint last exported gives the World it would export now
// (state.Apply; TestJournalModel proves it against the restart model's
// operations).
//
// Where the changes are caught: not at each operation, which would leave
// the next new operation to forget one, but where the state is guarded.
// Queue, Broker and moveTask guard their state with a mutex whose Unlock
// flushes what changed under it, so every mutation, whatever the
// operation, reaches the journal under its own locks, and a queue's
// records come in the order of its mutations:
//
//   - messages: the few functions every change of a message goes through
//     (makeAvailable, makePending, leaveState, dropAll) note it in
//     Queue.jdirty; the flush writes each noted message's new state, or
//     its deletion.
//   - the queue's own state (attributes, tags, counters, seq counters):
//     the flush compares it with what it last wrote, and writes it whole
//     when it differs. Finer records (a counter) would need a hook at every
//     one of the dozens of places that change them; the header is a few
//     hundred bytes, and the comparison is made only when a journal is
//     installed.
//   - a FIFO queue's windows (deduplication ids, receive attempts): each
//     entry is a record of its own, noted by the expiringMap that holds it
//     (expiringMap.changed), so a send writes one entry, not the window.
//   - free slots are not journaled: an import rebuilds them (slots.go).
//   - scopes (receipt key, names deleted recently) likewise at Broker.mu's
//     Unlock; scopes made and released, queues created and deleted, tasks
//     started and forgotten where that happens.
//
// Time-driven transitions (a delay or a visibility timeout ending, a
// retention expiry, a dedup entry expiring) are applied lazily when an
// operation or an export locks the queue (Queue.advance), and journaled
// then like any other change: the journal's World is the one Export gives,
// not one an import would have to bring up to date. World.Now is the
// instant of a snapshot, not a change: a HeaderPut carries the clock of the
// change, and a store stamps its own commit.
//
// Without a journal each hook is a nil check (BenchmarkJournal).

func init() {
	state.Journal = func(f func(state.Change)) any {
		return Option(optionFunc(func(c *config) { c.journal = f }))
	}
}

// journal serializes the records of an endpoint into one stream.
type journal struct {
	mu sync.Mutex // a leaf lock, taken under any other
	f  func(state.Change)
	// the header last written, guarded by mu
	nextQueueID, nextTaskSeq uint64
}

func (j *journal) emit(c state.Change) {
	j.mu.Lock()
	j.f(c)
	j.mu.Unlock()
}

// header writes the world's id counters if they moved. Caller may hold any
// lock but j.mu.
func (j *journal) header(w *world, now int64, nextTaskSeq uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	qid := w.nextID.Load()
	if qid == j.nextQueueID && nextTaskSeq <= j.nextTaskSeq {
		return
	}
	j.nextQueueID, j.nextTaskSeq = qid, max(j.nextTaskSeq, nextTaskSeq)
	j.f(state.Change{Kind: state.HeaderPut, Now: now, NextQueueID: j.nextQueueID, NextTaskSeq: j.nextTaskSeq})
}

// queueMutex is Queue.mu: its Unlock journals what changed under it.
type queueMutex struct {
	sync.Mutex
	q *Queue
}

func (l *queueMutex) Unlock() {
	if q := l.q; q != nil && q.jr != nil {
		if p := q.jpartner; p != nil {
			q.flushPair(p)
		} else {
			q.flushJournal()
		}
	}
	l.Mutex.Unlock()
}

// A move between two queues (a dead letter, a move task's step) changes
// both under both locks: journaled apart, a commit could hold one side
// and a crash lose the other, and a message be in neither queue, or in
// both (moved again after the restart). So the mover pairs the queues
// (jpartner), and the first Unlock journals both, as one Group, while
// the other is still locked.

// pairJournal pairs q and p, both locked by the caller, for their next
// Unlock. Caller holds q.mu and p.mu.
func pairJournal(q, p *Queue) {
	if q.jr != nil && q != p {
		q.jpartner, p.jpartner = p, q
	}
}

// flushPair writes what changed in q and in its partner p as one Group.
// Caller holds q.mu and p.mu.
func (q *Queue) flushPair(p *Queue) {
	q.jpartner, p.jpartner = nil, nil
	var group []state.Change
	q.jsink, p.jsink = &group, &group
	q.flushJournal()
	p.flushJournal()
	q.jsink, p.jsink = nil, nil
	if len(group) > 0 {
		q.jr.emit(state.Change{Kind: state.Group, Changes: group})
	}
}

// jemit adds c to the group being made. Caller holds q.mu.
func (q *Queue) jemit(c state.Change) {
	*q.jsink = append(*q.jsink, c)
}

// journalHeader is exportHeader for the journal: the attributes and
// counters maps are rebuilt only when the settings or counters changed
// (both are comparable), and shared otherwise with the records already
// written, which is why a journal must not modify a record. moved reports
// a change seen on the way (new maps, another Seq), which spares the
// comparison of the whole header: nearly every call moves a counter.
// Caller holds q.mu.
func (q *Queue) journalHeader() (h state.Queue, moved bool) {
	if q.jattrs == nil || q.settings != q.jsettings {
		q.jattrs, q.jsettings, moved = q.exportAttributes(), q.settings, true
	}
	if q.jcounters == nil || q.counters != q.jcountersOf {
		q.jcounters, q.jcountersOf, moved = exportCounters(&q.counters), q.counters, true
	}
	h = q.header(q.jattrs, q.jcounters, false)
	return h, moved || h.Seq != q.jlast.Seq
}

// touch notes that m changed. Caller holds q.mu.
func (q *Queue) touch(m *message) {
	if q.jr != nil {
		q.jdirty = append(q.jdirty, m)
	}
}

// flushJournal writes the changes made under q.mu, as one Group if there
// are several: a call's records (a batch of ten messages and the queue's
// counters) then cost the journal one report, and a commit takes all of
// them or none. Caller holds q.mu.
func (q *Queue) flushJournal() {
	if q.jsink != nil { // within flushPair, which makes the group
		q.journalChanges()
		return
	}
	q.jsink = &q.jbuf
	q.journalChanges()
	q.jsink = nil
	switch len(q.jbuf) {
	case 0:
		return
	case 1:
		q.jr.emit(q.jbuf[0])
	default:
		q.jr.emit(state.Change{Kind: state.Group, Changes: q.jbuf})
	}
	clear(q.jbuf) // its messages are the journal's now
	q.jbuf = q.jbuf[:0]
	if cap(q.jbuf) > 1024 { // a purge's: not kept for the calls of ten
		q.jbuf = nil
	}
}

// journalChanges adds the changes made under q.mu to q.jsink. Caller
// holds q.mu.
func (q *Queue) journalChanges() {
	j := q.jr
	if q.deleted {
		if q.jsent && !q.jdeleted {
			q.jemit(state.Change{Kind: state.QueueDelete, QueueID: q.id})
		}
		q.jdeleted = true
		clear(q.jdirty)
		q.jdirty = q.jdirty[:0]
		if q.fifo {
			q.f.dedup.byID.changed, q.f.dedup.byPair.changed, q.f.attempts.changed = nil, nil, nil
		}
		return
	}
	if h, moved := q.journalHeader(); !q.jsent || moved || !reflect.DeepEqual(h, q.jlast) {
		if !q.jsent { // a new queue: its id moved the world's counter
			j.header(q.b.w, q.b.clock.Now().UnixNano(), 0)
		}
		q.jsent, q.jlast = true, h
		c := h
		q.jemit(state.Change{Kind: state.QueuePut, Account: q.b.cfg.accountID, Region: q.b.cfg.region, QueueID: q.id, Queue: &c})
	}
	if q.fifo {
		q.flushWindows()
	}
	if len(q.jdirty) == 0 {
		return
	}
	slices.SortFunc(q.jdirty, func(a, b *message) int { return cmp.Compare(a.seq, b.seq) })
	var last *message
	for _, m := range q.jdirty {
		if m == last {
			continue
		}
		last = m
		if m.state == stateGone {
			q.jemit(state.Change{Kind: state.MessageDelete, QueueID: q.id, Seq: m.seq})
			continue
		}
		sm := new(state.Message)
		if err := m.exportTo(sm); err != nil {
			continue // held: only within a receive, which flushes again when it ends
		}
		q.jemit(state.Change{Kind: state.MessagePut, QueueID: q.id, Message: sm})
	}
	clear(q.jdirty)
	q.jdirty = q.jdirty[:0]
}

// flushWindows writes the entries of a FIFO queue's windows that changed,
// each key once, as it is now. Caller holds q.mu.
func (q *Queue) flushWindows() {
	flushWindow(q, &q.f.dedup.byID, state.WindowDedupByID, exportDedupEntry)
	flushWindow(q, &q.f.dedup.byPair, state.WindowDedupByPair, exportDedupEntry)
	flushWindow(q, &q.f.attempts, state.WindowAttempts, func(c *state.Change, k string, a *attempt, expires int64) {
		sa := exportAttempt(k, a, expires)
		c.Attempt = &sa
	})
}

// flushWindow writes the changed entries of x, window win of q: set puts
// an entry's value into its WindowPut.
func flushWindow[V any](q *Queue, x *expiringMap[V], win state.Window, set func(c *state.Change, key string, v V, expires int64)) {
	for _, k := range uniqueKeys(x.changed) {
		c := state.Change{Kind: state.WindowDelete, QueueID: q.id, Window: win, Key: k}
		if v, expires, ok := x.lookup(k); ok {
			c.Kind, c.Key = state.WindowPut, ""
			set(&c, k, v, expires)
		}
		q.jemit(c)
	}
	clear(x.changed)
	x.changed = x.changed[:0]
}

func exportDedupEntry(c *state.Change, k string, e dedupEntry, expires int64) {
	c.Dedup = &state.Dedup{Key: k, MessageID: e.messageID, SeqNum: e.seqNum, Expires: expires}
}

// uniqueKeys returns keys without repeats, each where it last appears: a
// window's order is the order of its puts, so a key put twice is written
// after the keys put between.
func uniqueKeys(keys []string) []string {
	if len(keys) < 2 {
		return keys
	}
	last := make(map[string]int, len(keys))
	for i, k := range keys {
		last[k] = i
	}
	out := keys[:0:0]
	for i, k := range keys {
		if last[k] == i {
			out = append(out, k)
		}
	}
	return out
}

// scopeMutex is Broker.mu: its Unlock journals the scope's own state.
type scopeMutex struct {
	sync.Mutex
	b *Broker
}

func (l *scopeMutex) Unlock() {
	if b := l.b; b != nil && b.w != nil && b.w.jr != nil && !b.released && b.jsent {
		b.flushJournal()
	}
	l.Mutex.Unlock()
}

// exportScope returns b's own state, without its queues. Caller holds
// b.mu or owns b.
func (b *Broker) exportScope() state.Scope {
	s := state.Scope{Account: b.cfg.accountID, Region: b.cfg.region, ReceiptKey: b.receipts.Halves()}
	for _, e := range b.deleted.entries() {
		s.Deleted = append(s.Deleted, state.Expiring{Key: e.key, Expires: e.expires})
	}
	return s
}

// flushJournal writes the scope if it changed. Caller holds b.mu, or owns
// b before it is published.
func (b *Broker) flushJournal() {
	s := b.exportScope()
	if b.jsent && reflect.DeepEqual(s, b.jlast) {
		return
	}
	b.jsent, b.jlast = true, s
	b.w.jr.emit(state.Change{Kind: state.ScopePut, Account: s.Account, Region: s.Region, Scope: &s}) // read-only, as every record
}

// taskMutex is moveTask.mu: its Unlock journals the task's state.
type taskMutex struct {
	sync.Mutex
	t *moveTask
}

func (l *taskMutex) Unlock() {
	if t := l.t; t != nil && t.b.w.jr != nil && t.seq != 0 && !t.jdropped.Load() {
		s := t.exportState()
		if !t.jsent || s != t.jlast {
			t.jsent, t.jlast = true, s
			t.b.w.jr.emit(state.Change{Kind: state.TaskPut, Task: &s})
		}
	}
	l.Mutex.Unlock()
}

// journalTaskDropped writes that the table forgot t. Caller holds world.mu.
func (w *world) journalTaskDropped(t *moveTask) {
	t.jdropped.Store(true)
	if w.jr != nil {
		w.jr.emit(state.Change{Kind: state.TaskDelete, TaskSeq: t.seq})
	}
}
