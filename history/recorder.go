package history

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/sqsq/sqsq"
)

// The defaults of [WithMaxMessages] and [WithMaxEntries].
const (
	DefaultMaxMessages = 100_000
	DefaultMaxEntries  = 64
)

// Option configures [New].
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	maxMessages, maxEntries int
}

// WithMaxMessages bounds how many messages a [Recorder] keeps the history
// of (default [DefaultMaxMessages]). When it is full, a new message's
// history replaces that of the message seen least recently. n ≤ 0
// restores the default.
func WithMaxMessages(n int) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.maxMessages = n
		}
	})
}

// WithMaxEntries bounds the entries of one message's history (default
// [DefaultMaxEntries]): past it, the history keeps its first entry (the
// send) and the n-1 most recent ones, and counts those it dropped in
// [MessageHistory.Dropped]. n ≤ 0 restores the default; 1 is taken as 2,
// the first and the latest.
func WithMaxEntries(n int) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.maxEntries = max(n, 2)
		}
	})
}

// Recorder is a [sqsq.Observer] that keeps, per message, a bounded history
// of what happened to it: its send, each receive (injected duplicates and
// lost responses marked), visibility changes, deletes, its move to a
// dead-letter queue and its redrive. Install it with [sqsq.WithObserver];
// read it with [Recorder.Message] and [Recorder.Queue]. See the package
// doc for what it records and what it costs.
//
// A Recorder is enabled when [New] returns it. It is safe for concurrent
// use: Observe takes one mutex for a few map and list operations, as the
// broker requires of an observer, and never calls back into the broker.
type Recorder struct {
	enabled atomic.Bool
	cfg     config

	mu sync.Mutex
	// msgs holds each message's history by id; handles the message of each
	// receipt handle an entry kept handed out, for deletes and visibility
	// changes that name no stored message; queues the messages that had an
	// event on each queue.
	msgs    map[string]*record
	handles map[string]*record
	queues  map[queueKey]*queueIndex
	// recent is the least recently seen history's neighbour: the ends of
	// a circular list of the histories, most recently seen first.
	recent record
}

// record is one message's history. Guarded by Recorder.mu.
type record struct {
	id, body string
	home     member    // its place in the index of its first entry's queue
	more     []*member // in the other queues it had an event on
	// entries are the first entry, then the most recent ones; once there
	// are maxEntries, the latter are a ring whose oldest is entries[1+ring].
	entries    []entry
	ring       int32
	dropped    int32
	prev, next *record // the circular list from Recorder.recent
}

// queueKey names a queue of a namespace.
type queueKey struct{ account, region, name string }

// queueIndex lists the messages that had an event on a queue, in the order
// of their first event there.
type queueIndex struct {
	key        queueKey
	head, tail *member
}

// member is a message's place in a queueIndex.
type member struct {
	q          *queueIndex
	rec        *record
	prev, next *member
}

// New returns an enabled, empty Recorder.
func New(opts ...Option) *Recorder {
	r := &Recorder{cfg: config{maxMessages: DefaultMaxMessages, maxEntries: DefaultMaxEntries}}
	for _, o := range opts {
		o.apply(&r.cfg)
	}
	r.reset()
	r.enabled.Store(true)
	return r
}

// SetEnabled turns recording on or off. Off, Observe returns at once and the
// histories stay as they are until [Recorder.Reset].
func (r *Recorder) SetEnabled(on bool) { r.enabled.Store(on) }

// Enabled reports whether the recorder records.
func (r *Recorder) Enabled() bool { return r.enabled.Load() }

// Reset forgets every history.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reset()
}

// reset empties r. Caller holds r.mu, or has r to itself.
func (r *Recorder) reset() {
	r.msgs = map[string]*record{}
	r.handles = map[string]*record{}
	r.queues = map[queueKey]*queueIndex{}
	r.recent.prev, r.recent.next = &r.recent, &r.recent
}

// Observe implements [sqsq.Observer]: it adds e to the history of its
// message. A delete or visibility change that names no stored message
// (MessageID "") goes to the message whose receive handed out its handle,
// if the recorder still has that receive; else it is dropped. The loss of
// a receive's response (EventReceiveLost) turns the entry of that delivery
// into a KindReceiveLost one.
func (r *Recorder) Observe(e sqsq.Event) {
	if !r.enabled.Load() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var rec *record
	switch {
	case e.MessageID != "":
		if rec = r.msgs[e.MessageID]; rec == nil {
			rec = r.add(e.MessageID, e.Body, queueKey{e.Account, e.Region, e.Queue})
		}
	case e.ReceiptHandle != "":
		rec = r.handles[e.ReceiptHandle]
	}
	if rec == nil {
		return
	}
	r.touch(rec)
	ent := entryOf(&e, r.join(rec, queueKey{e.Account, e.Region, e.Queue}))
	if last := rec.last(); e.Kind == sqsq.EventReceiveLost && last != nil && last.kind == sqsq.EventReceived && last.handle == ent.handle {
		// The broker tells of the delivery, then of its loss: one entry,
		// with the timeout the receive set.
		last.kind, last.flags = ent.kind, last.flags|ent.flags
		return
	}
	r.append(rec, ent)
	switch {
	case ent.handsOut() && ent.handle != "":
		r.handles[ent.handle] = rec
	case e.Kind == sqsq.EventDeadLettered:
		// Event names the dead-letter queue without its namespace: taken
		// as the source's, as AWS requires unless a byQueue policy allows
		// another.
		r.join(rec, queueKey{e.Account, e.Region, e.DeadLetterQueue})
	case e.Kind == sqsq.EventRedriven && e.NewMessageID != "":
		// The new id's history starts with the move. The destination's
		// namespace is taken as the dead-letter queue's, as above.
		to := r.msgs[e.NewMessageID]
		if to == nil {
			to = r.add(e.NewMessageID, e.Body, queueKey{e.Account, e.Region, e.Destination})
		}
		r.touch(to)
		q := r.join(to, queueKey{e.Account, e.Region, e.Destination})
		r.append(to, entry{at: ent.at, q: q, ref: e.MessageID, kind: sqsq.EventRedriven, flags: flagFrom})
	}
}

// add starts the empty history of message id, whose first event is on
// queue k, making room for it first. Caller holds r.mu.
func (r *Recorder) add(id, body string, k queueKey) *record {
	for len(r.msgs) >= r.cfg.maxMessages {
		r.drop(r.recent.prev)
	}
	rec := &record{id: id, body: bodyPrefix(body)}
	rec.prev, rec.next = &r.recent, r.recent.next // linked first, as touch would
	rec.prev.next, rec.next.prev = rec, rec
	rec.home.rec = rec
	r.link(&rec.home, k)
	r.msgs[id] = rec
	return rec
}

// drop forgets the history rec. Caller holds r.mu.
func (r *Recorder) drop(rec *record) {
	rec.prev.next, rec.next.prev = rec.next, rec.prev
	r.unlink(&rec.home)
	for _, m := range rec.more {
		r.unlink(m)
	}
	for i := range rec.entries {
		r.forget(rec, &rec.entries[i])
	}
	delete(r.msgs, rec.id)
}

// touch makes rec the most recently seen history. Caller holds r.mu.
func (r *Recorder) touch(rec *record) {
	if r.recent.next == rec {
		return
	}
	rec.prev.next, rec.next.prev = rec.next, rec.prev
	rec.prev, rec.next = &r.recent, r.recent.next
	rec.prev.next, rec.next.prev = rec, rec
}

// append adds e to rec's entries, dropping the oldest but the first past
// maxEntries. Caller holds r.mu.
func (r *Recorder) append(rec *record, e entry) {
	n, limit := len(rec.entries), r.cfg.maxEntries
	if n < limit {
		if n == cap(rec.entries) {
			// Grown by half rather than doubled: most histories are short,
			// and none outgrows limit.
			grown := make([]entry, n, min(n+n/2+2, limit))
			copy(grown, rec.entries)
			rec.entries = grown
		}
		rec.entries = append(rec.entries, e)
		return
	}
	ring := rec.entries[1:]
	old := &ring[rec.ring]
	r.forget(rec, old)
	*old = e
	rec.ring = int32((int(rec.ring) + 1) % len(ring))
	rec.dropped++
}

// last is rec's latest entry, nil if it has none yet. Caller holds the
// recorder's mu.
func (rec *record) last() *entry {
	n := len(rec.entries)
	if n == 0 {
		return nil
	}
	if rec.dropped == 0 || n == 1 { // not a ring yet
		return &rec.entries[n-1]
	}
	ring := rec.entries[1:]
	return &ring[(int(rec.ring)+len(ring)-1)%len(ring)]
}

// forget forgets the receipt handle e handed out, if it did, as rec's.
// Caller holds r.mu.
func (r *Recorder) forget(rec *record, e *entry) {
	if e.handsOut() && r.handles[e.handle] == rec {
		delete(r.handles, e.handle)
	}
}

// join puts rec in the index of queue k, if it is not there, and returns
// the number of k for rec's entries. Caller holds r.mu.
func (r *Recorder) join(rec *record, k queueKey) uint8 {
	if rec.home.q.key == k {
		return 0
	}
	for i, m := range rec.more {
		if m.q.key == k {
			return uint8(i + 1)
		}
	}
	if len(rec.more) == math.MaxUint8 {
		// A message is in a queue, its dead-letter queue and where a
		// redrive takes it: this many is a broken broker, not a history.
		return math.MaxUint8
	}
	m := &member{rec: rec}
	r.link(m, k)
	rec.more = append(rec.more, m)
	return uint8(len(rec.more))
}

// link adds m at the end of the index of queue k. Caller holds r.mu.
func (r *Recorder) link(m *member, k queueKey) {
	q := r.queues[k]
	if q == nil {
		q = &queueIndex{key: k}
		r.queues[k] = q
	}
	m.q, m.prev = q, q.tail
	if q.tail == nil {
		q.head = m
	} else {
		q.tail.next = m
	}
	q.tail = m
}

// unlink takes m out of its index, and the index out of r once empty.
// Caller holds r.mu.
func (r *Recorder) unlink(m *member) {
	q := m.q
	if m.prev == nil {
		q.head = m.next
	} else {
		m.prev.next = m.next
	}
	if m.next == nil {
		q.tail = m.prev
	} else {
		m.next.prev = m.prev
	}
	m.prev, m.next = nil, nil
	if q.head == nil {
		delete(r.queues, q.key)
	}
}

// Message returns the history of the message with that id, and whether the
// recorder has it.
func (r *Recorder) Message(id string) (MessageHistory, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.msgs[id]
	if rec == nil {
		return MessageHistory{}, false
	}
	return rec.history(), true
}

// MessageOn returns the history of the message with that id if it had an
// event on the named queue of that account and region, as [Recorder.Queue]
// lists it, and whether it did.
func (r *Recorder) MessageOn(account, region, queue, id string) (MessageHistory, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.msgs[id]
	if rec == nil {
		return MessageHistory{}, false
	}
	k := queueKey{account, region, queue}
	if rec.home.q.key == k {
		return rec.history(), true
	}
	for _, m := range rec.more {
		if m.q.key == k {
			return rec.history(), true
		}
	}
	return MessageHistory{}, false
}

// Queue returns the histories of the messages that had an event on the
// named queue of that account and region — sent, received, moved or
// redriven there, or dead-lettered into it — in the order of their first
// event there; nil if none. It costs O(the entries of those messages),
// whatever the other queues hold.
func (r *Recorder) Queue(account, region, name string) []MessageHistory {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.queues[queueKey{account, region, name}]
	if q == nil {
		return nil
	}
	var out []MessageHistory
	for m := q.head; m != nil; m = m.next {
		out = append(out, m.rec.history())
	}
	return out
}

// history is rec as a MessageHistory. Caller holds the recorder's mu.
func (rec *record) history() MessageHistory {
	k := rec.home.q.key
	h := MessageHistory{MessageID: rec.id, Queue: k.name, Account: k.account, Region: k.region, Body: rec.body,
		Entries: make([]Entry, 0, len(rec.entries)), Dropped: int(rec.dropped)}
	h.Entries = append(h.Entries, rec.entries[0].public(rec.queueName(rec.entries[0].q)))
	ring := rec.entries[1:]
	for i := range ring {
		e := &ring[(int(rec.ring)+i)%len(ring)]
		h.Entries = append(h.Entries, e.public(rec.queueName(e.q)))
	}
	return h
}

// queueName is the name of rec's queue numbered q (see join).
func (rec *record) queueName(q uint8) string {
	if q == 0 {
		return rec.home.q.key.name
	}
	return rec.more[q-1].q.key.name
}
