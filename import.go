package sqsq

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/sqsq/sqsq/internal/pq"
	"github.com/sqsq/sqsq/internal/receipt"
	"github.com/sqsq/sqsq/internal/state"
)

// importWorld builds the endpoint that w describes (see export.go) on the
// clock and options of opts, and returns the broker of its first scope.
// The first scope's account and region are the saved ones, whatever opts
// say: queue ARNs, URLs and handles name them.
//
// Everything is checked and built before anything is published, so bad
// data gives an error naming the scope, queue, message or task at fault
// and no broker at all. Once built, the endpoint is brought up to the
// clock's now as if it had run through the downtime: move tasks step, each
// step as of its own instant, then every queue is advanced (delays and
// visibility timeouts that ended make messages visible, retention drops
// what it covers).
func importWorld(w *state.World, opts []Option) (*Broker, error) {
	if w == nil || len(w.Scopes) == 0 {
		return nil, fmt.Errorf("sqsq: import: no scope")
	}
	keys := make(map[scopeKey]int, len(w.Scopes))
	for i, s := range w.Scopes {
		if !scopeName(s.Account) || !scopeName(s.Region) {
			return nil, fmt.Errorf("sqsq: import: scope %d: account %q and region %q must be letters, digits, '-' and '_'", i, s.Account, s.Region)
		}
		k := scopeKey{s.Account, s.Region}
		if j, dup := keys[k]; dup {
			return nil, fmt.Errorf("sqsq: import: scopes %d and %d are both %s/%s", j, i, s.Account, s.Region)
		}
		keys[k] = i
	}
	s0 := w.Scopes[0]
	root := NewBroker(append(slices.Clip(opts), WithAccountID(s0.Account), WithRegion(s0.Region))...)
	b, err := root.importInto(w)
	if err != nil {
		root.Close()
		return nil, err
	}
	return b, nil
}

// importInto fills root's new, unpublished endpoint from w.
func (root *Broker) importInto(w *state.World) (*Broker, error) {
	scopes := make([]*Broker, len(w.Scopes))
	queues := make([][]*Queue, len(w.Scopes))
	byID := map[uint64]*Queue{}
	maxID := w.NextQueueID
	for i := range w.Scopes {
		s := &w.Scopes[i]
		b := root
		if i > 0 {
			b = root.Scope(s.Account, s.Region)
		}
		b.receipts = receipt.FromHalves(s.ReceiptKey)
		scopes[i] = b
		names := make(map[string]bool, len(s.Queues))
		for j := range s.Queues {
			sq := &s.Queues[j]
			if names[sq.Name] {
				return nil, fmt.Errorf("sqsq: import: scope %s/%s: two queues named %q", s.Account, s.Region, sq.Name)
			}
			names[sq.Name] = true
			if other := byID[sq.ID]; other != nil {
				return nil, fmt.Errorf("sqsq: import: queues %s and %s both have id %d", other.arn, b.queueARN(sq.Name), sq.ID)
			}
			q, err := b.importQueue(sq)
			if err != nil {
				return nil, err
			}
			byID[q.id] = q
			queues[i] = append(queues[i], q)
			maxID = max(maxID, q.id)
		}
	}
	tasks, err := root.importTasks(w.Tasks, byID)
	if err != nil {
		return nil, err
	}

	// Publish: nothing below can fail.
	wd := root.w
	for i, b := range scopes {
		b.mu.Lock()
		for _, q := range queues[i] {
			b.queues[q.name] = q
			b.queuesPeak.grew(len(b.queues))
			wd.register(q)
			q.mu.Lock()
			q.syncRedriveTarget() // the sources index, by ARN: the DLQ need not exist
			q.mu.Unlock()
		}
		if b.cfg.recreateDelay > 0 { // with the rule off, nothing is remembered
			for _, e := range w.Scopes[i].Deleted {
				b.deleted.put(e.Key, struct{}{}, e.Expires)
			}
			b.deleted.limit(maxDeletedNames)
		}
		b.mu.Unlock()
	}
	for _, t := range tasks {
		maxID = max(maxID, t.source.id) // a deleted source's id is never issued again either
	}
	wd.nextID.Store(maxID)
	root.publishTasks(tasks, w.NextTaskSeq)
	if wd.jr != nil { // the journal's header is w's: it writes only what moves
		wd.jr.nextQueueID, wd.jr.nextTaskSeq = maxID, w.NextTaskSeq
	}

	// Catch up with the clock: tasks first, each step as of its instant,
	// so a step sees its queues as they were then; then every queue.
	var arns []string
	for _, qs := range queues {
		for _, q := range qs {
			arns = append(arns, q.arn)
		}
	}
	root.syncTasks(arns...)
	for _, qs := range queues {
		for _, q := range qs {
			if _, err := q.lock(); err == nil {
				q.mu.Unlock()
			}
		}
	}
	return root, nil
}

// importQueue builds a queue of b from sq, unpublished.
func (b *Broker) importQueue(sq *state.Queue) (*Queue, error) {
	where := fmt.Sprintf("sqsq: import: queue %s (id %d)", b.queueARN(sq.Name), sq.ID)
	if sq.ID == 0 {
		return nil, fmt.Errorf("%s: id 0 is no queue's", where)
	}
	if err := validateQueueName(sq.Name, sq.FIFO); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	// The parser and checks of CreateQueue and SetAttributes, but not the
	// redrive target's: a policy may name a queue deleted since, or one
	// whose allow policy changed, as it could before the restart.
	attrs, err := ParseQueueAttributes(sq.Attributes)
	if err != nil {
		return nil, fmt.Errorf("%s: attributes: %w", where, err)
	}
	if attrs.FifoQueue.Or(false) != sq.FIFO {
		return nil, fmt.Errorf("%s: attribute FifoQueue says %v, the queue %v", where, attrs.FifoQueue.Or(false), sq.FIFO)
	}
	if err := attrs.checkType(sq.FIFO, defaultSettings()); err != nil {
		return nil, fmt.Errorf("%s: attributes: %w", where, err)
	}
	if err := validateTags(sq.Tags); err != nil {
		return nil, fmt.Errorf("%s: tags: %w", where, err)
	}
	if len(sq.Tags) > maxTags {
		return nil, fmt.Errorf("%s: %d tags, at most %d", where, len(sq.Tags), maxTags)
	}

	q := newQueue(b, sq.ID, sq.Name, sq.FIFO, time.Unix(0, sq.Created))
	q.settings.apply(attrs)
	q.modified = time.Unix(0, sq.Modified)
	if sq.WasPurged || sq.Purged != 0 {
		q.purged = time.Unix(0, sq.Purged)
	}
	for k, v := range sq.Tags {
		q.tags[k] = v
	}
	q.seq = sq.Seq
	if len(sq.DeadLetterSources) > 0 {
		src := slices.Clone(sq.DeadLetterSources)
		q.dlSources.Store(&src)
	}
	if err := importCounters(&q.counters, sq.Counters); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if err := q.importMessages(sq.Messages); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if !q.fifo {
		if len(sq.DedupByID)+len(sq.DedupByPair)+len(sq.Attempts) > 0 || sq.FIFOSeq != 0 {
			return nil, fmt.Errorf("%s: a standard queue with FIFO deduplication ids, attempt ids or sequence numbers", where)
		}
		return q, nil
	}
	q.f.seqNum = sq.FIFOSeq
	for _, d := range sq.DedupByID {
		q.f.dedup.byID.put(d.Key, dedupEntry{messageID: d.MessageID, seqNum: d.SeqNum}, d.Expires)
	}
	for _, d := range sq.DedupByPair {
		if !strings.Contains(d.Key, "\x00") {
			return nil, fmt.Errorf("%s: deduplication key %q is not group and id", where, d.Key)
		}
		q.f.dedup.byPair.put(d.Key, dedupEntry{messageID: d.MessageID, seqNum: d.SeqNum}, d.Expires)
	}
	for _, a := range sq.Attempts {
		if a.Vis <= 0 || a.Vis > int64(maxVisibility) {
			return nil, fmt.Errorf("%s: receive attempt %q: visibility timeout %v outside (0, 12h]", where, a.ID, time.Duration(a.Vis))
		}
		rec := &attempt{
			vis:      time.Duration(a.Vis),
			sysNames: slices.Clone(a.SysNames), attrNames: slices.Clone(a.AttrNames),
			msgs: make([]attemptMsg, len(a.Msgs)),
		}
		for i, r := range a.Msgs { // a message gone since only fails the replay, as before the restart
			rec.msgs[i] = attemptMsg{seq: r.Seq, slot: r.Slot, serial: r.Serial, gen: r.Gen}
		}
		q.f.attempts.put(a.ID, rec, a.Expires)
	}
	q.f.attempts.limit(maxAttempts)
	return q, nil
}

// importCounters sets the counters by field name (see exportCounters).
func importCounters(c *Counters, cs []state.Counter) error {
	v := reflect.ValueOf(c).Elem()
	for _, x := range cs {
		f := v.FieldByName(x.Name)
		if !f.IsValid() || f.Kind() != reflect.Int64 {
			return fmt.Errorf("no counter %q", x.Name)
		}
		f.SetInt(x.Value)
	}
	return nil
}

// importMessages stores msgs, which are in send order, each in its slot and
// state, in every index of the queue as the live code keeps them. Caller
// owns q.
func (q *Queue) importMessages(msgs []state.Message) error {
	// The slot table reaches the highest slot held; the others below it
	// are free (slots.go).
	n := 0
	for i := range msgs {
		n = max(n, int(msgs[i].Slot)+1)
	}
	if n > maxSlots {
		return fmt.Errorf("slot %d outside the slot table of at most %d", n-1, maxSlots)
	}
	if n > 0 {
		q.slots = make([]*message, n)
	}
	var avail, pending []*message
	var prev uint64
	for i := range msgs {
		sm := &msgs[i]
		bad := func(format string, args ...any) error {
			return fmt.Errorf("message %s (seq %d): %s", sm.ID, sm.Seq, fmt.Sprintf(format, args...))
		}
		switch {
		case sm.Seq == 0 || sm.Seq > q.seq:
			return bad("sequence number outside 1–%d, the queue's last", q.seq)
		case sm.Seq <= prev:
			return bad("not after message seq %d: messages must be in send order", prev)
		case int(sm.Slot) >= n:
			return bad("slot %d outside the slot table of %d", sm.Slot, n)
		case q.slots[sm.Slot] != nil:
			return bad("slot %d is message seq %d's too", sm.Slot, q.slots[sm.Slot].seq)
		case q.fifo && sm.GroupID == "":
			return bad("no message group on a FIFO queue")
		}
		prev = sm.Seq
		m := &message{
			id: sm.ID, body: sm.Body, sentAt: sm.SentAt,
			seq: sm.Seq, slot: sm.Slot, gen: sm.Gen, serial: sm.Serial, receiveCount: sm.ReceiveCount,
			enqueuedAt: sm.EnqueuedAt, visibleAt: sm.VisibleAt, availableSince: sm.AvailableSince,
			firstReceiveAt: sm.FirstReceiveAt, // state.NotReceived is notReceived
			receivedAt:     sm.ReceivedAt,
		}
		switch sm.State {
		case state.Available:
			m.state = stateAvailable
			avail = append(avail, m)
			q.nAvail++
		case state.Inflight:
			m.state = stateInflight
			pending = append(pending, m)
			q.nInflight++
		case state.Delayed:
			m.state = stateDelayed
			pending = append(pending, m)
			q.nDelayed++
		default:
			return bad("unknown state %d", sm.State)
		}
		if len(sm.Attributes) > 0 || len(sm.SystemAttributes) > 0 || sm.GroupID != "" || sm.DedupID != "" ||
			sm.SequenceNumber != 0 || sm.DeadLetterSource != "" {
			attrs := importAttributes(sm.Attributes)
			m.ext = &messageExt{
				attrs: attrs, sysAttrs: importAttributes(sm.SystemAttributes),
				groupID: sm.GroupID, dedupID: sm.DedupID, size: messageSize(sm.Body, attrs),
				seqNum: sm.SequenceNumber, dlqSource: sm.DeadLetterSource,
			}
		}
		q.slots[m.slot] = m
		q.byEnqueue.Push(entryOf(m.enqueuedAt, m))
		q.bySeq.push(m)
		if q.fifo {
			q.joinGroup(m)
			if m.state == stateInflight {
				q.enterInflight(m)
			}
		}
	}
	for s := range q.slots {
		if q.slots[s] == nil {
			q.free.push(uint32(s))
		}
	}
	// Pushed in key order, the entries fill the indexes' rings, not heaps.
	pushSorted(&q.avail, avail, func(m *message) int64 { return m.availableSince })
	pushSorted(&q.pending, pending, func(m *message) int64 { return m.visibleAt })
	for _, g := range q.f.groups {
		q.groupChanged(g) // receivable if its head is available
	}
	return nil
}

// maxSlots bounds the slot table an import makes: a slot number is below
// the most messages a queue ever held at once, and a damaged one must not
// make the import allocate gigabytes.
const maxSlots = 1 << 26

// pushSorted pushes ms into x ordered by (key, seq), sorting only when
// they are not in that order already (the usual case is one run).
func pushSorted(x *pq.Queue[*message], ms []*message, key func(*message) int64) {
	less := func(a, b *message) int {
		if c := cmp.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	}
	if !slices.IsSortedFunc(ms, less) {
		slices.SortFunc(ms, less)
	}
	for _, m := range ms {
		x.Push(entryOf(key(m), m))
	}
}

// entryOf is m's index entry under key, live while m keeps its generation.
func entryOf(key int64, m *message) pq.Entry[*message] {
	return pq.Entry[*message]{Key: key, Seq: m.seq, Gen: m.gen, Val: m}
}

func importAttributes(attrs map[string]state.Attribute) map[string]MessageAttribute {
	if len(attrs) == 0 {
		return nil
	}
	out := make(map[string]MessageAttribute, len(attrs))
	for k, a := range attrs {
		out[k] = MessageAttribute{DataType: a.DataType, StringValue: a.StringValue, BinaryValue: cloneBytes(a.BinaryValue)}
	}
	return out
}
