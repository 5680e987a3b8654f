// Package pq is a min-priority queue tuned for sqsq's mostly monotone keys.
//
// Entries are ordered by (Key, Seq) ascending. Most pushes in sqsq arrive in
// nondecreasing order: messages sent "now" with increasing sequence numbers,
// or made visible again "now + timeout" with a fixed timeout. Those go to a
// circular buffer (the ring), where Push, Peek and Pop are O(1) and touch
// only the ring's two ends, whatever the depth. The rest, pushed below the
// ring's tail, go to a binary min-heap. Peek and Pop take the smaller of the
// ring head and the heap top.
//
// There is no Remove or Fix. Callers delete lazily: they keep a generation
// in their own item, put it in [Entry.Gen], discard entries whose Gen no
// longer matches when they surface at [Queue.Peek], and call
// [Queue.Compact] once stale entries outnumber live ones.
package pq

// Entry is one queued element. Queues order entries by (Key, Seq); Gen and
// Val are carried along untouched. Entries with equal (Key, Seq) come out in
// unspecified order.
type Entry[T any] struct {
	Key int64
	Seq uint64
	Gen uint32
	Val T
}

// less reports whether a sorts before b.
func less[T any](a, b *Entry[T]) bool {
	return a.Key < b.Key || (a.Key == b.Key && a.Seq < b.Seq)
}

const (
	// minRing is the ring's first capacity; capacities are powers of two.
	minRing = 8
	// shrinkAbove is the capacity above which Pop halves a ring or heap that
	// has fallen to a quarter full, so a drained burst gives memory back.
	// Growth doubles at full, shrinking halves at a quarter: at least
	// cap/4 operations separate two resizes, so both stay amortized O(1).
	shrinkAbove = 1024
)

// Queue is a min-priority queue of [Entry] values. The zero value is an
// empty queue ready to use. A Queue is not safe for concurrent use.
//
// Push, Peek and Pop do not allocate except to grow or shrink storage
// (amortized O(1)). Ring operations are O(1); heap operations are
// O(log h), where h is the number of out-of-order entries held.
type Queue[T any] struct {
	ring []Entry[T] // circular buffer; len(ring) is its capacity, a power of two or 0
	head int        // index of the ring's first entry
	n    int        // number of entries in the ring
	heap []Entry[T] // binary min-heap: heap[i] <= heap[2i+1], heap[2i+2]
}

// Len returns the number of entries held, stale ones included.
func (q *Queue[T]) Len() int { return q.n + len(q.heap) }

// Push adds e. If e sorts at or after the ring's last entry (or the ring is
// empty) it is appended to the ring in O(1); otherwise it goes to the heap.
func (q *Queue[T]) Push(e Entry[T]) {
	if q.n > 0 && less(&e, &q.ring[(q.head+q.n-1)&(len(q.ring)-1)]) {
		q.heapPush(e)
		return
	}
	if q.n == len(q.ring) {
		q.resizeRing(max(2*len(q.ring), minRing))
	}
	q.ring[(q.head+q.n)&(len(q.ring)-1)] = e
	q.n++
}

// Peek returns the smallest entry without removing it, or false if the
// queue is empty.
func (q *Queue[T]) Peek() (Entry[T], bool) {
	switch q.source() {
	case fromRing:
		return q.ring[q.head], true
	case fromHeap:
		return q.heap[0], true
	}
	return Entry[T]{}, false
}

// Pop removes and returns the smallest entry, or returns false if the queue
// is empty. The vacated slot is zeroed so Val can be collected.
func (q *Queue[T]) Pop() (Entry[T], bool) {
	switch q.source() {
	case fromRing:
		e := q.ring[q.head]
		q.ring[q.head] = Entry[T]{}
		q.head = (q.head + 1) & (len(q.ring) - 1)
		q.n--
		if len(q.ring) > shrinkAbove && q.n <= len(q.ring)/4 {
			q.resizeRing(len(q.ring) / 2)
		}
		return e, true
	case fromHeap:
		return q.heapPop(), true
	}
	return Entry[T]{}, false
}

type source int

const (
	fromNone source = iota
	fromRing
	fromHeap
)

// source says which structure holds the smallest entry. Ties go to the
// ring, whose head is cheaper to remove.
func (q *Queue[T]) source() source {
	switch {
	case q.n == 0 && len(q.heap) == 0:
		return fromNone
	case q.n == 0:
		return fromHeap
	case len(q.heap) == 0 || !less(&q.heap[0], &q.ring[q.head]):
		return fromRing
	default:
		return fromHeap
	}
}

// Compact drops every entry for which keep returns false, in O(n). The
// ring keeps its order and the heap is rebuilt in place. Storage larger
// than 2*shrinkAbove that ends up at most a quarter full is reallocated
// smaller, never below shrinkAbove: callers compact often (every ~1k stale
// entries), and freeing small storage each time only to regrow it cost more
// than it saved. keep must not use q.
func (q *Queue[T]) Compact(keep func(Entry[T]) bool) {
	if q.n > 0 {
		mask := len(q.ring) - 1
		w := 0
		for r := 0; r < q.n; r++ {
			e := &q.ring[(q.head+r)&mask]
			if keep(*e) {
				if w != r {
					q.ring[(q.head+w)&mask] = *e
				}
				w++
			}
		}
		for i := w; i < q.n; i++ {
			q.ring[(q.head+i)&mask] = Entry[T]{}
		}
		q.n = w
	}
	if c := len(q.ring); c > 2*shrinkAbove && q.n <= c/4 {
		size := shrinkAbove
		for size < 2*q.n {
			size *= 2
		}
		q.resizeRing(size)
	}

	if len(q.heap) > 0 {
		w := 0
		for r := range q.heap {
			if keep(q.heap[r]) {
				q.heap[w] = q.heap[r]
				w++
			}
		}
		clear(q.heap[w:])
		q.heap = q.heap[:w]
		for i := w/2 - 1; i >= 0; i-- {
			q.down(i)
		}
	}
	if cap(q.heap) > 2*shrinkAbove && len(q.heap) <= cap(q.heap)/4 {
		h := make([]Entry[T], len(q.heap), max(2*len(q.heap), shrinkAbove))
		copy(h, q.heap)
		q.heap = h
	}
}

// Reset empties the queue and releases its storage.
func (q *Queue[T]) Reset() {
	*q = Queue[T]{}
}

// All calls yield for every entry, in unspecified order, until yield
// returns false. It is meant for tests and debugging; yield must not
// modify q.
func (q *Queue[T]) All(yield func(Entry[T]) bool) {
	for i := 0; i < q.n; i++ {
		if !yield(q.ring[(q.head+i)&(len(q.ring)-1)]) {
			return
		}
	}
	for i := range q.heap {
		if !yield(q.heap[i]) {
			return
		}
	}
}

// resizeRing moves the ring's entries, in order, into a new buffer of the
// given capacity (a power of two, at least q.n, or 0 when q.n is 0).
func (q *Queue[T]) resizeRing(size int) {
	var ring []Entry[T]
	if size > 0 {
		ring = make([]Entry[T], size)
	}
	if q.n > 0 {
		// The live entries are ring[head:] then ring[:rest] when they wrap.
		k := copy(ring, q.ring[q.head:min(q.head+q.n, len(q.ring))])
		copy(ring[k:], q.ring[:q.n-k])
	}
	q.ring = ring
	q.head = 0
}

// heapPush adds e to the heap.
func (q *Queue[T]) heapPush(e Entry[T]) {
	q.heap = append(q.heap, e)
	q.up(len(q.heap) - 1)
}

// heapPop removes and returns the heap's top; the heap must not be empty.
func (q *Queue[T]) heapPop() Entry[T] {
	h := q.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = Entry[T]{}
	q.heap = h[:last]
	if last > 1 {
		q.down(0)
	}
	if cap(q.heap) > shrinkAbove && len(q.heap) <= cap(q.heap)/4 {
		q.shrinkHeap()
	}
	return top
}

// shrinkHeap reallocates the heap at twice its length (at least minRing).
func (q *Queue[T]) shrinkHeap() {
	if len(q.heap) == 0 {
		q.heap = nil
		return
	}
	h := make([]Entry[T], len(q.heap), max(2*len(q.heap), minRing))
	copy(h, q.heap)
	q.heap = h
}

// up moves heap[i] towards the root until its parent is not larger. It
// carries the entry in a hole instead of swapping at each level.
func (q *Queue[T]) up(i int) {
	h := q.heap
	e := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !less(&e, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// down moves heap[i] towards the leaves until no child is smaller.
func (q *Queue[T]) down(i int) {
	h := q.heap
	n := len(h)
	e := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && less(&h[r], &h[c]) {
			c = r
		}
		if !less(&h[c], &e) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
}
