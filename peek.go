package sqsq

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"time"
	"unicode/utf8"
)

// Peek shows what a queue holds without touching it: for tests that assert
// on what a consumer left behind, and for consoles. It is not an SQS
// operation.

// MessageState is the state of a stored message as [Queue.Peek] reports it.
type MessageState string

// The states [Queue.Peek] reports.
const (
	StateAvailable MessageState = "available" // receivable now
	StateDelayed   MessageState = "delayed"   // not before Until (DelaySeconds)
	StateInFlight  MessageState = "inflight"  // received; visible again at Until
	StateHeld      MessageState = "held"      // FIFO: visible but behind an in-flight (or delayed) message of its group
)

// PeekInput selects what [Queue.Peek] returns. Zero values: every state,
// every group, 100 messages, whole bodies.
type PeekInput struct {
	States     []MessageState // only these states (empty: all)
	GroupId    string         // only this message group (FIFO, or a standard queue's MessageGroupId)
	Limit      int            // at most this many (default 100, at most 1000; more is InvalidParameterValue)
	Cursor     string         // NextCursor of the previous page ("" for the first)
	BodyPrefix int            // > 0: return at most this many bytes of each body (BodyTruncated then says so); 0: whole bodies
}

// PeekedMessage is one message as it is stored now. Times are in UTC.
type PeekedMessage struct {
	MessageId         string
	Body              string // whole, or its first BodyPrefix bytes (never cutting a UTF-8 rune)
	BodySize          int    // bytes of the whole body
	BodyTruncated     bool
	MessageAttributes map[string]MessageAttribute // a copy; nil when none
	State             MessageState
	Until             time.Time // end of the delay or of the visibility timeout; zero otherwise
	ReceiveCount      int
	SentAt            time.Time
	FirstReceivedAt   time.Time // zero if never received

	GroupId, DeduplicationId, SequenceNumber string // FIFO (GroupId also on a standard queue that was given one)

	DeadLetterSourceArn string // for a message moved to this dead-letter queue: the queue it came from
}

// PeekOutput is a page of [Queue.Peek].
type PeekOutput struct {
	Messages   []PeekedMessage
	NextCursor string // "" when there is no more
}

const (
	peekDefaultLimit = 100
	peekMaxLimit     = 1000
	// peekScanBudget bounds the messages one page looks at without
	// returning them (filtered out, or deleted and not yet dropped from the
	// index), so that a page with a filter that few messages match costs a
	// bounded time under the queue's lock, not O(queue): the page then ends
	// early, with a NextCursor to go on from.
	peekScanBudget = 10_000
)

// Peek returns a consistent snapshot of up to Limit of q's stored messages,
// oldest first by send order (the order q stored them: on a dead-letter
// queue, the order they arrived), without any side effect: no
// visibility change, no receive count, no receipt handle, no wake of long
// polls, no counters. (Like every call it first brings the queue up to the
// clock's now: messages whose delay or visibility timeout ended are
// available, expired ones are gone.)
//
// The filters apply before the limit. Follow NextCursor until it is "": a
// page stops early, with fewer than Limit messages (even none) and a
// NextCursor, once it has looked at 10,000 messages it does not return
// (left out by the filters, or deleted and not yet dropped from the index),
// so that no call holds the queue for O(n). A cursor stays good however the
// queue changes: the next page starts with the first message stored after
// the last one seen, even if that one was deleted since. A page costs
// O(Limit + log n) for n messages stored (with a GroupId filter on a FIFO
// queue, O(Limit + log m) for the m messages of the group), plus the
// messages it looks at and leaves out, at most 10,000.
//
// Peek fails like every Queue method on a deleted queue (QueueDoesNotExist)
// or closed broker, and with InvalidParameterValue for a bad Limit, state,
// BodyPrefix or cursor.
func (q *Queue) Peek(ctx context.Context, in PeekInput) (PeekOutput, error) {
	if err := q.check(); err != nil {
		return PeekOutput{}, err
	}
	limit := in.Limit
	if limit == 0 {
		limit = peekDefaultLimit
	}
	if limit < 1 || limit > peekMaxLimit {
		return PeekOutput{}, invalidValue("Limit", in.Limit, "Must be between 1 and 1000, if provided.")
	}
	states, err := peekStates(in.States)
	if err != nil {
		return PeekOutput{}, err
	}
	if in.BodyPrefix < 0 {
		return PeekOutput{}, invalidValue("BodyPrefix", in.BodyPrefix, "Must be >= 0.")
	}
	var cur peekCursor
	if in.Cursor != "" {
		var ok bool
		if cur, ok = decodePeekCursor(in.Cursor); !ok {
			return PeekOutput{}, errPeekCursor(in.Cursor)
		}
	}
	if err := ctx.Err(); err != nil {
		return PeekOutput{}, err
	}
	if _, err := q.lock(); err != nil {
		return PeekOutput{}, err
	}
	defer q.mu.Unlock()
	if in.Cursor != "" && (cur.queue != q.id || cur.seq > q.seq) {
		return PeekOutput{}, errPeekCursor(in.Cursor)
	}
	return q.peek(&in, states, limit, cur.seq), nil
}

// peek builds the page of messages sent after seq after. Caller holds q.mu.
func (q *Queue) peek(in *PeekInput, states stateSet, limit int, after uint64) PeekOutput {
	// The messages in send order: the group's own list when a FIFO group
	// is asked for, else the whole queue's.
	var list []*message
	byGroup := false
	switch {
	case in.GroupId != "" && q.fifo:
		g := q.f.groups[in.GroupId]
		if g == nil {
			return PeekOutput{}
		}
		list, byGroup = g.msgs[g.head:], true
	default:
		list = q.bySeq.all()
	}
	var out PeekOutput
	var held heldScans
	var last uint64 // seq of the last message returned
	skipped := 0
	for i := seekAfter(list, after); i < len(list); i++ {
		m := list[i]
		match := m.state != stateGone && (byGroup || in.GroupId == "" || m.groupID() == in.GroupId)
		var st MessageState
		if match {
			st = q.peekState(m, &held)
			match = states.has(st)
		}
		if !match {
			if skipped++; skipped >= peekScanBudget && i+1 < len(list) {
				out.NextCursor = q.peekCursor(m.seq) // all up to m looked at
				break
			}
			continue
		}
		if len(out.Messages) == limit { // there is more: go on after the last returned
			out.NextCursor = q.peekCursor(last)
			break
		}
		if out.Messages == nil {
			out.Messages = make([]PeekedMessage, 0, min(limit, len(list)-i))
		}
		out.Messages = append(out.Messages, q.peeked(m, st, in.BodyPrefix))
		last = m.seq
	}
	return out
}

// peekState is m's state as Peek reports it. Caller holds q.mu.
func (q *Queue) peekState(m *message, held *heldScans) MessageState {
	switch m.state {
	case stateDelayed:
		return StateDelayed
	case stateInflight:
		return StateInFlight
	}
	if g := m.group(); g != nil && held.behind(q, g, m) {
		return StateHeld
	}
	return StateAvailable
}

// heldScans finds the available messages of FIFO groups that a receive
// cannot take: those after the group's first message that is in flight or
// delayed (§6.4: a group's eligible run is its leading run of available
// messages). Each group is scanned from its head at most once per page,
// and only when it can hold such messages:
//
//   - a group with a message in flight: its first message in flight is
//     among its first ten, since a receive takes at most ten messages from
//     the head of a group and later sends only go after them, so the scan
//     ends within the group's first ten stored messages;
//   - a delayed message before an available one: FIFO delays are the
//     queue's, retroactive (every delayed message is visible at its enqueue
//     time plus the current DelaySeconds), so this happens only to a message
//     dead-lettered into the queue, stored without delay. The scan for one
//     such message may be long; it is a corner case.
type heldScans map[*group]*heldScan

type heldScan struct {
	next    int  // g.msgs index the scan goes on from
	blocked bool // a message in flight or delayed was found before next
}

// behind reports whether an earlier message of m's group g is in flight or
// delayed. Calls for one group come in seq order. Caller holds q.mu.
func (h *heldScans) behind(q *Queue, g *group, m *message) bool {
	if g.inflight == 0 && (q.nDelayed == 0 || m.ext.dlqSource == "") {
		return false
	}
	if *h == nil {
		*h = heldScans{}
	}
	s := (*h)[g]
	if s == nil {
		s = &heldScan{next: g.head}
		(*h)[g] = s
	}
	for !s.blocked && s.next < len(g.msgs) {
		x := g.msgs[s.next]
		if x.seq >= m.seq {
			break
		}
		if x.state == stateInflight || x.state == stateDelayed {
			s.blocked = true
			break
		}
		s.next++
	}
	return s.blocked
}

// peeked copies m for Peek. Caller holds q.mu.
func (q *Queue) peeked(m *message, st MessageState, prefix int) PeekedMessage {
	p := PeekedMessage{
		MessageId:    m.id,
		Body:         m.body,
		BodySize:     len(m.body),
		State:        st,
		ReceiveCount: int(m.receiveCount),
		SentAt:       time.UnixMilli(m.sentAt).UTC(),
	}
	if prefix > 0 && len(m.body) > prefix {
		n := prefix
		for n > 0 && !utf8.RuneStart(m.body[n]) {
			n-- // bodies are valid UTF-8: back up to the rune's first byte
		}
		p.Body, p.BodyTruncated = m.body[:n], true
	}
	if st == StateDelayed || st == StateInFlight {
		p.Until = time.Unix(0, m.visibleAt).UTC()
	}
	if m.firstReceiveAt != notReceived {
		p.FirstReceivedAt = time.UnixMilli(m.firstReceiveAt).UTC()
	}
	if x := m.ext; x != nil {
		p.MessageAttributes = cloneAttributes(x.attrs)
		p.GroupId = x.groupID
		p.DeadLetterSourceArn = x.dlqSource
		if q.fifo {
			p.DeduplicationId = x.dedupID
			p.SequenceNumber = strconv.FormatUint(x.seqNum, 10)
		}
	}
	return p
}

func (m *message) groupID() string {
	if m.ext == nil {
		return ""
	}
	return m.ext.groupID
}

// stateSet is a set of MessageStates; the empty set means all of them.
type stateSet uint8

var stateBits = map[MessageState]stateSet{StateAvailable: 1, StateDelayed: 2, StateInFlight: 4, StateHeld: 8}

func (s stateSet) has(st MessageState) bool { return s == 0 || s&stateBits[st] != 0 }

func peekStates(states []MessageState) (stateSet, *Error) {
	var s stateSet
	for _, st := range states {
		bit, ok := stateBits[st]
		if !ok {
			return 0, invalidValue("States", strconv.Quote(string(st)), "Must be one of available, delayed, inflight, held.")
		}
		s |= bit
	}
	return s, nil
}

// A cursor names the queue (its id, unique in the endpoint, so a cursor of
// a deleted queue or another one is refused) and the seq of the last
// message the page looked at.
type peekCursor struct{ queue, seq uint64 }

func (q *Queue) peekCursor(seq uint64) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], q.id)
	binary.BigEndian.PutUint64(b[8:], seq)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func decodePeekCursor(s string) (peekCursor, bool) {
	var b [16]byte
	if base64.RawURLEncoding.DecodedLen(len(s)) != len(b) {
		return peekCursor{}, false
	}
	if n, err := base64.RawURLEncoding.Decode(b[:], []byte(s)); err != nil || n != len(b) {
		return peekCursor{}, false
	}
	return peekCursor{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}, true
}

func errPeekCursor(c string) *Error {
	return invalidValue("Cursor", c, "Not a cursor of this queue.")
}
