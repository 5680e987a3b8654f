package sqsq

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/sqsq/sqsq/internal/state"
)

// A durable store (cmd/sqsq -data) saves an endpoint and builds it again
// after a restart through package internal/state: Export turns the whole
// endpoint into plain data, Import (import.go) builds a broker from it. The
// hooks are set here rather than exported, so the core's public API stays
// SQS's.
func init() {
	state.Export = func(b any) (*state.World, error) {
		br, ok := b.(*Broker)
		if !ok || br == nil {
			return nil, fmt.Errorf("sqsq: export: %T is not a *sqsq.Broker", b)
		}
		return br.export()
	}
	state.Import = func(w *state.World, opts any) (any, error) {
		var o []Option
		switch v := opts.(type) {
		case nil:
		case []Option:
			o = v
		default:
			return nil, fmt.Errorf("sqsq: import: options are %T, want []sqsq.Option", opts)
		}
		b, err := importWorld(w, o)
		if err != nil {
			return nil, err // not b: a nil *Broker in an interface is not nil
		}
		return b, nil
	}
}

// export returns the state of b's whole endpoint, every scope, queue,
// message and move task, as of one clock instant (World.Now).
//
// The snapshot is atomic: it holds every move task's lock, then every
// scope's, then every queue's in id order (the order in which receives and
// move-task steps lock two queues), reads the clock under them and brings
// each queue up to that instant. So a message dead-lettered or moved by a
// task is in exactly one queue, and a task's progress matches the queues.
// The endpoint stands still meanwhile, for a time proportional to the
// messages copied (tens of milliseconds per million: the memory is
// allocated before, see presize); calls wait, none fail. The steps of
// move tasks due by the instant are carried out first; on a real clock
// one that falls due while the locks are taken is carried out after the
// restart, as of its own instant (see syncTasks).
//
// A closed broker exports too: a server saves its state after Close. It
// must not be called from an Observer or a Faults policy, which run under
// a queue lock: it would wait for that lock forever.
func (b *Broker) export() (*state.World, error) {
	w := b.w
	live := w.allQueues()
	arns := make([]string, len(live))
	for i, q := range live {
		arns[i] = q.arn
	}
	b.syncTasks(arns...) // every task: all are some queue's own
	bufs := presize(live)
	l := w.lockAll()
	defer l.unlock()
	now := b.clock.Now().UnixNano()
	tasks, members := l.tasks, l.members
	out := &state.World{
		Now:         now,
		NextQueueID: w.nextID.Load(),
		Scopes:      make([]state.Scope, len(members)),
		Tasks:       make([]state.Task, len(tasks)),
		NextTaskSeq: l.nextTaskSeq,
	}
	index := make(map[*Broker]int, len(members))
	for i, m := range members {
		index[m] = i
		m.deleted.expire(now)
		s := &out.Scopes[i]
		s.Account, s.Region = m.cfg.accountID, m.cfg.region
		s.ReceiptKey = m.receipts.Halves()
		for _, e := range m.deleted.entries() {
			s.Deleted = append(s.Deleted, state.Expiring{Key: e.key, Expires: e.expires})
		}
	}
	for _, q := range l.queues {
		if q.deleted { // not while in its scope's table; kept for safety
			continue
		}
		q.advance(now)
		sq, err := q.exportState(bufs[q])
		if err != nil {
			return nil, err
		}
		s := &out.Scopes[index[q.b]]
		s.Queues = append(s.Queues, sq)
	}
	for i, t := range tasks {
		out.Tasks[i] = t.exportState()
	}
	return out, nil
}

// exportLocks are the locks an export holds: every task's, every scope's
// and every queue's of the endpoint.
type exportLocks struct {
	tasks       []*moveTask // in start order
	nextTaskSeq uint64
	members     []*Broker // the root first, then by account and region
	queues      []*Queue  // by id
}

// lockAll takes every lock of the endpoint in an order no operation can
// deadlock with: moveTask.mu before Broker.mu before Queue.mu, queues in
// id order. A task started or a scope made while it took them would be
// left out, so it checks, under world.mu (a leaf lock, safe under any),
// that none was, and starts again if one was.
func (w *world) lockAll() *exportLocks {
	for {
		l := &exportLocks{}
		w.mu.Lock()
		l.tasks = w.tasks.all()
		l.nextTaskSeq = w.tasks.nextSeq
		for _, m := range w.members {
			l.members = append(l.members, m)
		}
		w.mu.Unlock()
		slices.SortFunc(l.members, func(x, y *Broker) int {
			switch {
			case x == w.root:
				return -1
			case y == w.root:
				return 1
			}
			if c := strings.Compare(x.cfg.accountID, y.cfg.accountID); c != 0 {
				return c
			}
			return strings.Compare(x.cfg.region, y.cfg.region)
		})
		for _, t := range l.tasks {
			t.mu.Lock()
		}
		for _, m := range l.members {
			m.mu.Lock()
			for _, q := range m.queues {
				l.queues = append(l.queues, q)
			}
		}
		slices.SortFunc(l.queues, func(x, y *Queue) int { return cmp.Compare(x.id, y.id) })
		for _, q := range l.queues {
			q.mu.Lock()
		}
		w.mu.Lock()
		same := w.tasks.nextSeq == l.nextTaskSeq && len(w.members) == len(l.members)
		for _, m := range l.members {
			same = same && w.members[scopeKey{m.cfg.accountID, m.cfg.region}] == m
		}
		w.mu.Unlock()
		if same {
			return l
		}
		l.unlock()
	}
}

// unlock releases the locks lockAll took, in reverse order.
func (l *exportLocks) unlock() {
	for i := len(l.queues) - 1; i >= 0; i-- {
		l.queues[i].mu.Unlock()
	}
	for i := len(l.members) - 1; i >= 0; i-- {
		l.members[i].mu.Unlock()
	}
	for i := len(l.tasks) - 1; i >= 0; i-- {
		l.tasks[i].mu.Unlock()
	}
}

// all returns every task the table keeps, the history of each source and
// the running ones, in start order. Caller holds world.mu.
func (tt *taskTable) all() []*moveTask {
	var out []*moveTask
	for _, h := range tt.bySource {
		out = append(out, h...)
	}
	for _, t := range tt.runningTasks() { // a running task is always its source's newest; to be sure
		if !slices.Contains(tt.bySource[t.source.arn], t) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *moveTask) int { return cmp.Compare(a.seq, b.seq) })
	return out
}

// exportState copies the task. Caller holds t.mu.
func (t *moveTask) exportState() state.Task {
	return state.Task{
		ID: t.id, Handle: t.handle, Seq: t.seq,
		Source: t.source.arn, SourceID: t.source.id,
		Dest: t.destArn, Rate: t.rate, RateSet: t.rateSet,
		Started: t.started, Status: t.status, Failure: t.failure,
		ToMove: t.toMove, Moved: t.moved, Cancel: t.cancelTime,
	}
}

// presize allocates the message slices of an export before it takes the
// locks: the allocation, its page faults and the GC work it is charged
// for take most of an export's time (about a second for a million
// messages, against tens of milliseconds for the copy), and the endpoint
// should not stand still for them. Each slice has room for the queue's messages
// now and some more; a queue that grew past that meanwhile gets a new one.
func presize(queues []*Queue) map[*Queue][]state.Message {
	bufs := make(map[*Queue][]state.Message, len(queues))
	for _, q := range queues {
		q.mu.Lock()
		n := q.nAvail + q.nInflight + q.nDelayed
		q.mu.Unlock()
		if n == 0 {
			continue
		}
		buf := make([]state.Message, 0, n+n/8+64)
		full := buf[:cap(buf)]
		for i := 0; i < len(full); i += 16 { // one write per 4 KiB page at least
			full[i].State = 0
		}
		bufs[q] = buf
	}
	return bufs
}

// exportState copies the queue, brought up to date by the caller, with
// its messages in buf when it is large enough. Caller holds q.mu.
func (q *Queue) exportState(buf []state.Message) (state.Queue, error) {
	sq := q.exportHeader()
	stored := q.nAvail + q.nInflight + q.nDelayed
	if cap(buf) < stored {
		buf = make([]state.Message, 0, stored)
	}
	if stored > 0 { // else nil, however presize guessed
		sq.Messages = buf[:stored]
	}
	k := 0
	for _, m := range q.bySeq.all() {
		if m.state == stateGone {
			continue
		}
		if k == stored {
			return state.Queue{}, fmt.Errorf("sqsq: export: queue %s: more messages indexed than the %d counted", q.arn, stored)
		}
		if err := m.exportTo(&sq.Messages[k]); err != nil { // in place: a message is 184 bytes
			return state.Queue{}, fmt.Errorf("sqsq: export: queue %s: message %s (seq %d): %w", q.arn, m.id, m.seq, err)
		}
		k++
	}
	if k != stored {
		return state.Queue{}, fmt.Errorf("sqsq: export: queue %s: %d messages indexed, %d counted", q.arn, k, stored)
	}
	return sq, nil
}

// exportHeader copies the queue without its messages: what a journal's
// QueuePut holds. Caller holds q.mu.
func (q *Queue) exportHeader() state.Queue {
	return q.header(q.exportAttributes(), exportCounters(&q.counters), true)
}

// exportAttributes returns the queue's settable attributes in wire form.
// Caller holds q.mu.
func (q *Queue) exportAttributes() map[string]string {
	attrs := q.settings.strings(q.fifo)
	// GetQueueAttributes omits the KMS reuse period while no key is set,
	// but the queue keeps it, and reports it again once a key is.
	attrs[AttrKmsDataKeyReusePeriodSeconds] = secs(q.settings.kmsReuse)
	return attrs
}

// header is exportHeader with the attributes and counters given, so that
// the journal can pass the maps it keeps, and with a FIFO queue's windows
// or without them (the journal writes their entries one by one). Caller
// holds q.mu.
func (q *Queue) header(attrs map[string]string, counters []state.Counter, windows bool) state.Queue {
	sq := state.Queue{
		ID:                q.id,
		Name:              q.name,
		FIFO:              q.fifo,
		Attributes:        attrs,
		Created:           q.created.UnixNano(),
		Modified:          q.modified.UnixNano(),
		Seq:               q.seq,
		DeadLetterSources: slices.Clone(q.deadLetterSources()),
		Counters:          counters,
	}
	if len(q.tags) > 0 {
		sq.Tags = make(map[string]string, len(q.tags))
		for k, v := range q.tags {
			sq.Tags[k] = v
		}
	}
	if !q.purged.IsZero() {
		sq.Purged, sq.WasPurged = q.purged.UnixNano(), true
	}
	if q.fifo {
		sq.FIFOSeq = q.f.seqNum
	}
	if q.fifo && windows {
		sq.DedupByID = exportDedup(&q.f.dedup.byID)
		sq.DedupByPair = exportDedup(&q.f.dedup.byPair)
		for _, e := range q.f.attempts.entries() {
			sq.Attempts = append(sq.Attempts, exportAttempt(e.key, e.v, e.expires))
		}
	}
	return sq
}

func exportAttempt(id string, a *attempt, expires int64) state.Attempt {
	sa := state.Attempt{
		ID: id, Expires: expires, Vis: int64(a.vis),
		SysNames: slices.Clone(a.sysNames), AttrNames: slices.Clone(a.attrNames),
		Msgs: make([]state.AttemptMsg, len(a.msgs)),
	}
	for i, r := range a.msgs {
		sa.Msgs[i] = state.AttemptMsg{Seq: r.seq, Slot: r.slot, Serial: r.serial, Gen: r.gen}
	}
	return sa
}

func exportDedup(x *expiringMap[dedupEntry]) []state.Dedup {
	var out []state.Dedup
	for _, e := range x.entries() {
		out = append(out, state.Dedup{Key: e.key, MessageID: e.v.messageID, SeqNum: e.v.seqNum, Expires: e.expires})
	}
	return out
}

// exportTo copies a stored message into sm, which is zero. Caller holds
// q.mu.
func (m *message) exportTo(sm *state.Message) error {
	switch m.state {
	case stateAvailable:
		sm.State = state.Available
	case stateInflight:
		sm.State = state.Inflight
	case stateDelayed:
		sm.State = state.Delayed
	default: // held lasts only while a receive holds the lock
		return fmt.Errorf("in state %d, which does not outlive a receive", m.state)
	}
	sm.ID, sm.Body, sm.SentAt = m.id, m.body, m.sentAt
	sm.Seq, sm.Slot = m.seq, m.slot
	sm.Serial, sm.Gen, sm.ReceiveCount = m.serial, m.gen, m.receiveCount
	sm.EnqueuedAt, sm.VisibleAt, sm.AvailableSince = m.enqueuedAt, m.visibleAt, m.availableSince
	sm.FirstReceiveAt = m.firstReceiveAt // notReceived is state.NotReceived
	sm.ReceivedAt = m.receivedAt
	if e := m.ext; e != nil {
		sm.Attributes = exportAttributes(e.attrs)
		sm.SystemAttributes = exportAttributes(e.sysAttrs)
		sm.GroupID, sm.DedupID = e.groupID, e.dedupID
		sm.SequenceNumber, sm.DeadLetterSource = e.seqNum, e.dlqSource
	}
	return nil
}

func exportAttributes(attrs map[string]MessageAttribute) map[string]state.Attribute {
	if len(attrs) == 0 {
		return nil
	}
	out := make(map[string]state.Attribute, len(attrs))
	for k, a := range attrs {
		out[k] = state.Attribute{DataType: a.DataType, StringValue: a.StringValue, BinaryValue: cloneBytes(a.BinaryValue)}
	}
	return out
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// exportCounters returns the counters by field name, in the order of the
// names, so that a counter added later reads as 0 from older saved data
// rather than shifting the others.
func exportCounters(c *Counters) []state.Counter {
	v := reflect.ValueOf(c).Elem()
	out := make([]state.Counter, len(counterFields))
	for i, f := range counterFields {
		out[i] = state.Counter{Name: f.name, Value: v.Field(f.index).Int()}
	}
	return out
}

// counterFields are the fields of Counters, in the order of their names:
// the journal exports the counters at nearly every call, and reflect's
// Type.Field allocates.
var counterFields = func() []counterField {
	t := reflect.TypeFor[Counters]()
	fields := make([]counterField, t.NumField())
	for i := range fields {
		fields[i] = counterField{t.Field(i).Name, i}
	}
	slices.SortFunc(fields, func(a, b counterField) int { return strings.Compare(a.name, b.name) })
	return fields
}()

type counterField struct {
	name  string
	index int
}
