package durable

import (
	"encoding/binary"
	"errors"

	"github.com/sqsq/sqsq/internal/state"
)

// The records, one function pair per kind. The package doc lists their
// fields; keep it in step.

// world is meta/world: the World without its scopes and tasks, plus the
// key of the root scope (World.Scopes[0]; the others follow in key order)
// and the nil-ness and counts of scopes and tasks (the counts size the
// slices on Load, and catch a lost record).
func (e *enc) world(h *worldHead) {
	e.varint(h.w.Now)
	e.uvarint(h.w.NextQueueID)
	e.uvarint(h.w.NextTaskSeq)
	e.str(h.rootAccount)
	e.str(h.rootRegion)
	e.length(h.scopes, h.scopesNil)
	e.length(h.tasks, h.tasksNil)
}

// worldHead is the record meta/world. w has no scopes or tasks.
type worldHead struct {
	w                       state.World
	rootAccount, rootRegion string
	scopes, tasks           int
	scopesNil, tasksNil     bool
}

// headOf is the record meta/world of w.
func headOf(w *state.World) worldHead {
	h := worldHead{scopes: len(w.Scopes), tasks: len(w.Tasks), scopesNil: w.Scopes == nil, tasksNil: w.Tasks == nil}
	h.w.Now, h.w.NextQueueID, h.w.NextTaskSeq = w.Now, w.NextQueueID, w.NextTaskSeq
	if len(w.Scopes) > 0 {
		h.rootAccount, h.rootRegion = w.Scopes[0].Account, w.Scopes[0].Region
	}
	return h
}

func (d *dec) world() worldHead {
	var h worldHead
	h.w.Now = d.varint()
	h.w.NextQueueID = d.uvarint()
	h.w.NextTaskSeq = d.uvarint()
	h.rootAccount = d.str()
	h.rootRegion = d.str()
	h.scopes, h.scopesNil = d.counted()
	h.tasks, h.tasksNil = d.counted()
	return h
}

// counted0 reads a plain count (not plus one) of records stored
// elsewhere.
func (d *dec) counted0() (int, bool) {
	v := d.uvarint()
	if v > 1<<40 {
		d.fail(errors.New("implausible count"))
		return 0, false
	}
	return int(v), true
}

// counted reads a count written by [enc.length] for records stored
// elsewhere (so not bounded by this record's size).
func (d *dec) counted() (int, bool) {
	v := d.uvarint()
	if v == 0 {
		return 0, true
	}
	if v-1 > 1<<40 {
		d.fail(errors.New("implausible count"))
		return 0, false
	}
	return int(v - 1), false
}

// scope is scopes/<account NUL region>: the scope without its queues, and
// how many it has.
func (e *enc) scope(s *state.Scope, queues int, queuesNil bool) {
	e.str(s.Account)
	e.str(s.Region)
	e.fixed64(s.ReceiptKey[0])
	e.fixed64(s.ReceiptKey[1])
	e.length(len(s.Deleted), s.Deleted == nil)
	for _, x := range s.Deleted {
		e.str(x.Key)
		e.varint(x.Expires)
	}
	e.length(queues, queuesNil)
}

func (d *dec) scope() (s state.Scope, queues int, queuesNil bool) {
	s.Account = d.str()
	s.Region = d.str()
	s.ReceiptKey[0] = d.fixed64()
	s.ReceiptKey[1] = d.fixed64()
	if n, isNil := d.length(); !isNil {
		s.Deleted = make([]state.Expiring, n)
		for i := range s.Deleted {
			s.Deleted[i] = state.Expiring{Key: d.str(), Expires: d.varint()}
		}
	}
	queues, queuesNil = d.counted()
	return s, queues, queuesNil
}

// queue is queues/<id>: the queue without its messages, which live in the
// bucket messages/<id>, and how many they are. It names its scope; a
// scope's queues are in ID order.
func (e *enc) queue(account, region string, q *state.Queue, messages int, messagesNil bool, windows int, windowOrder uint64) {
	e.str(account)
	e.str(region)
	e.str(q.Name)
	e.bool(q.FIFO)
	e.strMap(q.Attributes)
	e.strMap(q.Tags)
	e.varint(q.Created)
	e.varint(q.Modified)
	e.varint(q.Purged)
	e.bool(q.WasPurged)
	e.uvarint(q.Seq)
	e.uvarint(q.FIFOSeq)
	e.length(messages, messagesNil)
	e.uvarint(uint64(windows))
	e.uvarint(windowOrder)
	e.strs(q.DeadLetterSources)
	e.counters(q.Counters)
}

type queueHead struct {
	q               state.Queue
	account, region string
	messages        int
	messagesNil     bool
	windows         int    // the entries of its windows
	windowOrder     uint64 // the order of the next window entry (see window)
}

func (d *dec) queue(id uint64) queueHead {
	var h queueHead
	q := &h.q
	q.ID = id
	h.account = d.str()
	h.region = d.str()
	q.Name = d.str()
	q.FIFO = d.bool()
	q.Attributes = d.strMap()
	q.Tags = d.strMap()
	q.Created = d.varint()
	q.Modified = d.varint()
	q.Purged = d.varint()
	q.WasPurged = d.bool()
	q.Seq = d.uvarint()
	q.FIFOSeq = d.uvarint()
	h.messages, h.messagesNil = d.counted()
	h.windows, _ = d.counted0()
	h.windowOrder = d.uvarint()
	q.DeadLetterSources = d.strs()
	q.Counters = d.counters()
	return h
}

// window is windows/<queue id>/<window byte, key>: an entry of a FIFO
// queue's deduplication or attempt window (the key holds Dedup.Key or
// Attempt.ID). order numbers the entries of a queue's windows in the order
// they were put, which is their order in the World.
func (e *enc) dedup(order uint64, x *state.Dedup) {
	e.uvarint(order)
	e.str(x.MessageID)
	e.uvarint(x.SeqNum)
	e.varint(x.Expires)
}

func (d *dec) dedup(key string) (uint64, state.Dedup) {
	order := d.uvarint()
	return order, state.Dedup{Key: key, MessageID: d.str(), SeqNum: d.uvarint(), Expires: d.varint()}
}

func (e *enc) attempt(order uint64, a *state.Attempt) {
	e.uvarint(order)
	e.varint(a.Expires)
	e.varint(a.Vis)
	e.strs(a.SysNames)
	e.strs(a.AttrNames)
	e.length(len(a.Msgs), a.Msgs == nil)
	for _, m := range a.Msgs {
		e.uvarint(m.Seq)
		e.uvarint(uint64(m.Slot))
		e.uvarint(uint64(m.Serial))
		e.uvarint(uint64(m.Gen))
	}
}

func (d *dec) attempt(id string) (uint64, state.Attempt) {
	order := d.uvarint()
	a := state.Attempt{ID: id, Expires: d.varint(), Vis: d.varint(), SysNames: d.strs(), AttrNames: d.strs()}
	if n, isNil := d.length(); !isNil {
		a.Msgs = make([]state.AttemptMsg, n)
		for j := range a.Msgs {
			a.Msgs[j] = state.AttemptMsg{Seq: d.uvarint(), Slot: d.uint32(), Serial: d.uint32(), Gen: d.uint32()}
		}
	}
	return order, a
}

// windowKey is the key of a window entry.
func windowKey(w state.Window, key string) []byte {
	return append([]byte{byte(w)}, key...)
}

// message is messages/<queue id>/<seq>. Seq is the key.
func (e *enc) message(m *state.Message) {
	e.str(m.ID)
	e.str(m.Body)
	e.messageRest(m)
}

// messageRest writes what follows a message's body.
func (e *enc) messageRest(m *state.Message) {
	e.varint(m.SentAt)
	e.attributes(m.Attributes)
	e.attributes(m.SystemAttributes)
	e.str(m.GroupID)
	e.str(m.DedupID)
	e.uvarint(m.SequenceNumber)
	e.str(m.DeadLetterSource)
	e.uvarint(uint64(m.Slot))
	e.byte(m.State)
	e.uvarint(uint64(m.Serial))
	e.uvarint(uint64(m.Gen))
	e.varint(int64(m.ReceiveCount))
	// Instants in nanoseconds take 9 bytes as varints, and 8 fixed, which
	// also decode faster.
	e.fixed64(uint64(m.EnqueuedAt))
	e.fixed64(uint64(m.VisibleAt))
	e.fixed64(uint64(m.AvailableSince))
	e.fixed64(uint64(m.FirstReceiveAt))
	e.fixed64(uint64(m.ReceivedAt))
}

func (d *dec) message(m *state.Message) {
	m.ID = d.str()
	m.Body = d.str()
	d.messageRest(m)
}

// messageRest reads what e.messageRest wrote.
func (d *dec) messageRest(m *state.Message) {
	m.SentAt = d.varint()
	m.Attributes = d.attributes()
	m.SystemAttributes = d.attributes()
	m.GroupID = d.str()
	m.DedupID = d.str()
	m.SequenceNumber = d.uvarint()
	m.DeadLetterSource = d.str()
	m.Slot = d.uint32()
	m.State = d.byte()
	m.Serial = d.uint32()
	m.Gen = d.uint32()
	rc := d.varint()
	if rc != int64(int32(rc)) {
		d.fail(errors.New("ReceiveCount overflows 32 bits"))
	}
	m.ReceiveCount = int32(rc)
	m.EnqueuedAt = int64(d.fixed64())
	m.VisibleAt = int64(d.fixed64())
	m.AvailableSince = int64(d.fixed64())
	m.FirstReceiveAt = int64(d.fixed64())
	m.ReceivedAt = int64(d.fixed64())
}

func (e *enc) attributes(m map[string]state.Attribute) {
	e.length(len(m), m == nil)
	var buf [keysOnStack]string
	for _, k := range sortedKeys(buf[:0], m) {
		a := m[k]
		e.str(k)
		e.str(a.DataType)
		e.str(a.StringValue)
		e.bytes(a.BinaryValue)
	}
}

func (d *dec) attributes() map[string]state.Attribute {
	n, isNil := d.length()
	if isNil {
		return nil
	}
	m := make(map[string]state.Attribute, n)
	for range n {
		k := d.str()
		m[k] = state.Attribute{DataType: d.str(), StringValue: d.str(), BinaryValue: d.bytes()}
	}
	return m
}

// task is tasks/<seq>.
func (e *enc) task(t *state.Task) {
	e.str(t.ID)
	e.str(t.Handle)
	e.uvarint(t.Seq)
	e.str(t.Source)
	e.uvarint(t.SourceID)
	e.str(t.Dest)
	e.varint(int64(t.Rate))
	e.bool(t.RateSet)
	e.varint(t.Started)
	e.str(t.Status)
	e.str(t.Failure)
	e.varint(t.ToMove)
	e.varint(t.Moved)
	e.varint(t.Cancel)
}

func (d *dec) task() state.Task {
	return state.Task{
		ID:       d.str(),
		Handle:   d.str(),
		Seq:      d.uvarint(),
		Source:   d.str(),
		SourceID: d.uvarint(),
		Dest:     d.str(),
		Rate:     int(d.varint()),
		RateSet:  d.bool(),
		Started:  d.varint(),
		Status:   d.str(),
		Failure:  d.str(),
		ToMove:   d.varint(),
		Moved:    d.varint(),
		Cancel:   d.varint(),
	}
}

// The format record, meta/format, is frozen across formats: 8 bytes,
// big-endian, then the checksum. Every sqsq reads it before anything else.
func formatValue(v uint64) []byte {
	return sealRecord([]byte(keyFormat), binary.BigEndian.AppendUint64(nil, v))
}

func parseFormat(v []byte) (uint64, error) {
	body, err := openRecord([]byte(keyFormat), v)
	if err != nil {
		return 0, err
	}
	if len(body) != 8 {
		return 0, errors.New("format record is not 8 bytes")
	}
	return binary.BigEndian.Uint64(body), nil
}
