package sqsq

import (
	"time"

	"github.com/sqsq/sqsq/internal/pq"
)

// group is one FIFO message group: its undeleted messages in send order. The
// group is receivable while its head is available; it then offers its
// leading run of available messages (semantics §6.4).
type group struct {
	id       string
	msgs     []*message // msgs[head:] in sequence order; gone ones are skipped
	head     int
	inflight int    // messages in flight: while > 0 the group is locked
	gen      uint32 // live availGroups entry generation
}

// fifoState is the part of a Queue only FIFO queues use. Guarded by Queue.mu.
type fifoState struct {
	groups      map[string]*group
	groupsPeak  mapPeak          // see shrinkMap
	availGroups pq.Queue[*group] // groups whose head is available, by head's available-since
	locked      int              // groups with a message in flight
	seqNum      uint64           // last SequenceNumber issued
	dedup       dedupCache
	attempts    expiringMap[*attempt] // by ReceiveRequestAttemptId

	// While takeFIFO walks groups' messages, no group's slice may be
	// reshaped: the groups it touches, and those a dead-letter move changes,
	// wait here to be re-evaluated when the selection ends.
	selecting bool
	dirty     []*group
}

// sequenceBase makes SequenceNumbers 20 digits long, like AWS's.
const sequenceBase = 10000000000000000000

// nextSeq issues the queue's next SequenceNumber.
func (f *fifoState) nextSeq() uint64 {
	f.seqNum++
	return sequenceBase + f.seqNum
}

func (f *fifoState) init() {
	f.groups = map[string]*group{}
}

// clear forgets every group, lock, deduplication id and attempt id, keeping
// the sequence counter (numbers only ever grow).
func (f *fifoState) clear() {
	for _, g := range f.groups {
		g.gen++
	}
	f.groups, f.groupsPeak = map[string]*group{}, 0 // clear would keep the storage
	f.availGroups.Reset()
	f.locked = 0
	f.dedup.reset()
	f.attempts.reset()
}

// joinGroup appends a new message to its group. Caller holds q.mu.
func (q *Queue) joinGroup(m *message) {
	g := q.f.groups[m.ext.groupID]
	if g == nil {
		g = &group{id: m.ext.groupID}
		q.f.groups[g.id] = g
		q.f.groupsPeak.grew(len(q.f.groups))
	}
	m.ext.group = g
	g.msgs = append(g.msgs, m)
}

// groupChanged re-evaluates whether g is receivable after any change to its
// messages, dropping gone messages off its head. Caller holds q.mu.
func (q *Queue) groupChanged(g *group) {
	for g.head < len(g.msgs) && g.msgs[g.head].state == stateGone {
		g.msgs[g.head] = nil
		g.head++
	}
	if g.head == len(g.msgs) {
		delete(q.f.groups, g.id)
		q.f.groups = shrinkMap(q.f.groups, &q.f.groupsPeak)
		g.gen++
		return
	}
	if g.head > 32 && g.head*2 > len(g.msgs) { // reclaim the consumed prefix
		live := g.msgs[g.head:]
		if c := cap(g.msgs); c > shrinkMinPeak && len(live) <= c/4 {
			// A group that held a burst gives the storage back too.
			g.msgs = append(make([]*message, 0, 2*len(live)), live...)
		} else {
			n := copy(g.msgs, live)
			clear(g.msgs[n:])
			g.msgs = g.msgs[:n]
		}
		g.head = 0
	}
	g.gen++
	if h := g.msgs[g.head]; h.state == stateAvailable {
		q.f.availGroups.Push(pq.Entry[*group]{Key: h.availableSince, Seq: h.seq, Gen: g.gen, Val: g})
	}
}

// takeFIFO fills a receive from the receivable groups in order, each group's
// leading run of available messages at a time. Caller holds q.mu.
func (q *Queue) takeFIFO(in *ReceiveInput, max int, vis time.Duration, now int64, dlq *Queue) []Message {
	var out []Message
	q.f.selecting = true
	for len(out) < max {
		e, ok := q.f.availGroups.Peek()
		if !ok {
			break
		}
		q.f.availGroups.Pop()
		g := e.Val
		if e.Gen != g.gen {
			continue
		}
		g.gen++ // off the receivable groups until re-evaluated: nothing is returned twice
		q.f.dirty = append(q.f.dirty, g)
		for i := g.head; i < len(g.msgs) && len(out) < max; i++ {
			m := g.msgs[i]
			if m.state == stateGone {
				continue
			}
			if m.state != stateAvailable {
				break
			}
			if q.deadLetter(m, dlq, now) {
				continue // the group goes on with its next message (§6.4)
			}
			if out == nil {
				out = make([]Message, 0, min(max, q.nAvail)) // as takeStandard: a receive asks for 10, most get fewer
			}
			out = append(out, q.receiveOne(m, in, vis, now))
		}
	}
	q.f.selecting = false
	for _, g := range q.f.dirty {
		q.groupChanged(g)
	}
	clear(q.f.dirty)
	q.f.dirty = q.f.dirty[:0]
	return out
}

// enterInflight and leaveInflight keep the group lock counts. Caller holds q.mu.
func (q *Queue) enterInflight(m *message) {
	if g := m.group(); g != nil {
		if g.inflight == 0 {
			q.f.locked++
		}
		g.inflight++
	}
}

func (q *Queue) leaveInflight(m *message) {
	if g := m.group(); g != nil {
		g.inflight--
		if g.inflight == 0 {
			q.f.locked--
		}
	}
}

func (m *message) group() *group {
	if m.ext == nil {
		return nil
	}
	return m.ext.group
}

// redelay applies a changed DelaySeconds to the delayed messages of a FIFO
// queue, where the queue delay is retroactive (§5.1). O(n); attribute changes
// are rare. Caller holds q.mu.
func (q *Queue) redelay(now int64) {
	for _, m := range q.slots {
		if m == nil || m.state != stateDelayed {
			continue
		}
		q.leaveState(m)
		q.makePending(m, stateDelayed, m.enqueuedAt+int64(q.settings.delay))
	}
	q.compact()
}
