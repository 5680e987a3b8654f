package sqsq

import "sort"

// seqIndex lists a queue's stored messages in send order, by seq, for
// Peek's cursor. None of the queue's other structures can serve: the slot
// table reuses slots, avail and pending are ordered by instants, and
// byEnqueue, though in seq order for most messages, keeps a dead-letter
// arriving with its original enqueue time in a heap, unordered.
//
// Messages are appended as they are stored, so the slice is sorted by seq
// by construction; a cursor (a seq) finds its place by binary search, which
// still works once the message it names is gone: the page continues with
// the first message sent after it. Removal is lazy, as in the queue's other
// indexes: gone messages are dropped off the head as they reach it, and the
// slice is rebuilt once they outnumber the live ones (amortized O(1) per
// removal). It costs one pointer per stored message, plus the slack of
// append's growth.
type seqIndex struct {
	s    []*message // s[head:] in seq order, gone messages included until dropped
	head int        // s[:head] is nil
}

// push appends m, which has the highest seq of the queue.
func (x *seqIndex) push(m *message) { x.s = append(x.s, m) }

// all returns the entries in seq order, gone messages included.
func (x *seqIndex) all() []*message { return x.s[x.head:] }

// reset forgets every entry and releases the storage.
func (x *seqIndex) reset() { *x = seqIndex{} }

// tidy drops gone messages off the head, and rebuilds the slice when gone
// messages make up most of it or the dropped head is longer than what is
// left. stored is the number of messages stored. Caller holds q.mu.
func (x *seqIndex) tidy(stored int) {
	for x.head < len(x.s) && x.s[x.head].state == stateGone {
		x.s[x.head] = nil
		x.head++
	}
	n := len(x.s) - x.head
	switch {
	case n == 0:
		if cap(x.s) > shrinkMinPeak {
			x.s = nil // emptied after a load: give the storage back
		} else {
			x.s = x.s[:0]
		}
		x.head = 0
	case n > 2*stored+1024 || x.head > 1024 && x.head > n:
		x.rebuild(stored)
	}
}

// rebuild keeps the messages that are not gone, in order, at the start of
// the slice, or of a smaller one when they would fill a quarter of it.
func (x *seqIndex) rebuild(stored int) {
	old := x.s
	inPlace := cap(old) <= shrinkMinPeak || 4*stored >= cap(old)
	dst := old[:0] // writes never pass the reads: old[:head] is already dropped
	if !inPlace {
		dst = make([]*message, 0, max(2*stored, shrinkMinPeak))
	}
	for _, m := range old[x.head:] {
		if m.state != stateGone {
			dst = append(dst, m)
		}
	}
	if inPlace {
		clear(old[len(dst):]) // let the gone messages be collected
	}
	x.s, x.head = dst, 0
}

// seekAfter returns the index in s of the first message sent after seq.
func seekAfter(s []*message, seq uint64) int {
	return sort.Search(len(s), func(i int) bool { return s[i].seq > seq })
}
