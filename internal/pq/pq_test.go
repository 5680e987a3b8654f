package pq

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// item stands in for what sqsq queues: a pointer, so the tests can check
// that vacated slots no longer reference it.
type item struct{ id int }

// checkInvariants verifies the ring is sorted, the heap is a min-heap, and
// every slot outside the live entries is zero.
func checkInvariants[T any](t interface{ Fatalf(string, ...any) }, q *Queue[T]) {
	if c := len(q.ring); c&(c-1) != 0 {
		t.Fatalf("ring capacity %d is not a power of two", c)
	}
	if q.n < 0 || q.n > len(q.ring) || (len(q.ring) > 0 && (q.head < 0 || q.head >= len(q.ring))) {
		t.Fatalf("ring bookkeeping out of range: head=%d n=%d cap=%d", q.head, q.n, len(q.ring))
	}
	var zero Entry[T]
	for i := 0; i < len(q.ring); i++ {
		slot := &q.ring[(q.head+i)&(len(q.ring)-1)]
		if i >= q.n {
			if !isZero(slot, &zero) {
				t.Fatalf("ring slot %d past the %d live entries is not zeroed", i, q.n)
			}
			continue
		}
		if i > 0 && less(slot, &q.ring[(q.head+i-1)&(len(q.ring)-1)]) {
			t.Fatalf("ring out of order at position %d", i)
		}
	}
	for i := 1; i < len(q.heap); i++ {
		if less(&q.heap[i], &q.heap[(i-1)/2]) {
			t.Fatalf("heap property broken at %d", i)
		}
	}
	for i, e := range q.heap[len(q.heap):cap(q.heap)] {
		if !isZero(&e, &zero) {
			t.Fatalf("heap slot %d past the %d live entries is not zeroed", len(q.heap)+i, len(q.heap))
		}
	}
}

func isZero[T any](a, zero *Entry[T]) bool {
	return a.Key == 0 && a.Seq == 0 && a.Gen == 0 && fmt.Sprint(a.Val) == fmt.Sprint(zero.Val)
}

func compareEntries(a, b Entry[*item]) int {
	return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.Val.id, b.Val.id))
}

// TestQueueModel runs random mixes of operations against a Queue and a
// sorted slice, and checks they agree. Entries with equal (Key, Seq) may
// leave the queue in any order, so a popped entry need only be one of the
// model's smallest.
func TestQueueModel(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		var q Queue[*item]
		var model []Entry[*item] // sorted by (Key, Seq), ties by id
		nextID, maxKey, nextSeq := 0, int64(0), uint64(0)

		push := func(key int64, seq uint64) {
			e := Entry[*item]{Key: key, Seq: seq, Gen: uint32(nextID % 3), Val: &item{id: nextID}}
			nextID++
			maxKey = max(maxKey, key)
			q.Push(e)
			i, _ := slices.BinarySearchFunc(model, e, compareEntries)
			model = slices.Insert(model, i, e)
		}
		// smallest reports whether e is in the model with its minimal
		// (Key, Seq), and removes it if remove is set.
		smallest := func(t *rapid.T, op string, e Entry[*item], remove bool) {
			if len(model) == 0 {
				t.Fatalf("%s returned %+v from a queue the model says is empty", op, e)
			}
			for i := 0; i < len(model) && model[i].Key == model[0].Key && model[i].Seq == model[0].Seq; i++ {
				if model[i] == e {
					if remove {
						model = slices.Delete(model, i, i+1)
					}
					return
				}
			}
			t.Fatalf("%s returned %+v (id %d), want one with (Key, Seq) = (%d, %d)",
				op, e, e.Val.id, model[0].Key, model[0].Seq)
		}

		pushInOrder := func(t *rapid.T) {
			nextSeq++
			push(maxKey+rapid.Int64Range(0, 3).Draw(t, "delta"), nextSeq)
		}
		pushOutOfOrder := func(t *rapid.T) {
			key := rapid.Int64Range(maxKey-20, maxKey).Draw(t, "key")
			seq := rapid.Uint64Range(0, nextSeq+1).Draw(t, "seq") // may tie an earlier entry
			push(key, seq)
		}

		t.Repeat(map[string]func(*rapid.T){
			"push in order":     pushInOrder,
			"push out of order": pushOutOfOrder,
			"push burst": func(t *rapid.T) {
				// Deep queues in few steps, so Compact meets real heaps.
				n := rapid.IntRange(1, 64).Draw(t, "burst")
				for range n {
					if rapid.Bool().Draw(t, "in order") {
						pushInOrder(t)
					} else {
						pushOutOfOrder(t)
					}
				}
			},
			"pop burst": func(t *rapid.T) {
				for range rapid.IntRange(1, 32).Draw(t, "burst") {
					e, ok := q.Pop()
					if !ok {
						if len(model) != 0 {
							t.Fatalf("Pop found nothing, model holds %d", len(model))
						}
						return
					}
					smallest(t, "Pop", e, true)
				}
			},
			"pop": func(t *rapid.T) {
				e, ok := q.Pop()
				if !ok {
					if len(model) != 0 {
						t.Fatalf("Pop found nothing, model holds %d", len(model))
					}
					return
				}
				smallest(t, "Pop", e, true)
			},
			"peek": func(t *rapid.T) {
				e, ok := q.Peek()
				if !ok {
					if len(model) != 0 {
						t.Fatalf("Peek found nothing, model holds %d", len(model))
					}
					return
				}
				smallest(t, "Peek", e, false)
			},
			"compact": func(t *rapid.T) {
				// Drop one generation, as a caller discarding stale entries would.
				stale := uint32(rapid.IntRange(0, 3).Draw(t, "stale gen")) // 3 drops nothing
				keep := func(e Entry[*item]) bool { return e.Gen != stale }
				q.Compact(keep)
				model = slices.DeleteFunc(model, func(e Entry[*item]) bool { return !keep(e) })
			},
			"reset": func(t *rapid.T) {
				if rapid.IntRange(0, 9).Draw(t, "rarely") != 0 {
					t.Skip("reset is rare so queues get deep")
				}
				q.Reset()
				model = nil
			},
			"": func(t *rapid.T) {
				checkInvariants(t, &q)
				if q.Len() != len(model) {
					t.Fatalf("Len = %d, model holds %d", q.Len(), len(model))
				}
				var all []Entry[*item]
				q.All(func(e Entry[*item]) bool { all = append(all, e); return true })
				slices.SortFunc(all, compareEntries)
				if !slices.Equal(all, model) {
					t.Fatalf("All visited %d entries that differ from the model's %d", len(all), len(model))
				}
			},
		})
	})
}

func TestQueue(t *testing.T) {
	t.Parallel()

	t.Run("zero value is empty", func(t *testing.T) {
		t.Parallel()
		var q Queue[string]
		if _, ok := q.Peek(); ok {
			t.Error("Peek on zero Queue reported an entry")
		}
		if _, ok := q.Pop(); ok {
			t.Error("Pop on zero Queue reported an entry")
		}
		if q.Len() != 0 {
			t.Errorf("Len = %d, want 0", q.Len())
		}
		q.Compact(func(Entry[string]) bool { return true })
		q.All(func(Entry[string]) bool { t.Error("All visited an entry"); return true })
	})

	t.Run("in-order pushes stay in the ring", func(t *testing.T) {
		t.Parallel()
		var q Queue[int]
		for i := range 100 {
			q.Push(Entry[int]{Key: int64(i / 10), Seq: uint64(i)})
		}
		if q.n != 100 || len(q.heap) != 0 {
			t.Errorf("ring holds %d and heap %d, want 100 and 0", q.n, len(q.heap))
		}
	})

	t.Run("lazy deletion skips stale generations", func(t *testing.T) {
		t.Parallel()
		// The caller's item records its current generation; re-queuing it
		// (say, after ChangeMessageVisibility) bumps it, leaving a stale entry.
		gens := map[string]uint32{"a": 0, "b": 0}
		var q Queue[string]
		q.Push(Entry[string]{Key: 10, Seq: 1, Val: "a"})
		q.Push(Entry[string]{Key: 20, Seq: 2, Val: "b"})
		gens["a"]++
		q.Push(Entry[string]{Key: 30, Seq: 1, Gen: gens["a"], Val: "a"}) // in order: ring

		var got []string
		for {
			e, ok := q.Pop()
			if !ok {
				break
			}
			if e.Gen != gens[e.Val] {
				continue
			}
			got = append(got, fmt.Sprintf("%s@%d", e.Val, e.Key))
		}
		if want := []string{"b@20", "a@30"}; !slices.Equal(got, want) {
			t.Errorf("live pops = %v, want %v", got, want)
		}
	})

	t.Run("ring wraps, grows and shrinks in order", func(t *testing.T) {
		t.Parallel()
		var q Queue[*item]
		next, want := 0, 0
		pushN := func(n int) {
			for range n {
				q.Push(Entry[*item]{Key: int64(next), Val: &item{next}})
				next++
			}
		}
		popN := func(n int) {
			for range n {
				e, ok := q.Pop()
				if !ok || e.Key != int64(want) {
					t.Fatalf("Pop = %v, %v, want key %d", e.Key, ok, want)
				}
				want++
			}
		}
		pushN(5)
		popN(3)
		pushN(20) // grows while wrapped
		popN(10)
		pushN(10 * shrinkAbove)
		peak := len(q.ring)
		popN(q.Len() - 10)
		if len(q.ring) >= peak/4 {
			t.Errorf("ring capacity %d after draining from %d, want it shrunk", len(q.ring), peak)
		}
		checkInvariants(t, &q)
		popN(10)
		checkInvariants(t, &q)
	})

	t.Run("heap shrinks after a drained burst", func(t *testing.T) {
		t.Parallel()
		var q Queue[*item]
		q.Push(Entry[*item]{Key: math.MaxInt64}) // every later push is out of order
		n := 10 * shrinkAbove
		for i := range n {
			q.Push(Entry[*item]{Key: int64(n - i), Val: &item{i}})
		}
		peak := cap(q.heap)
		for i := range n {
			if e, _ := q.Pop(); e.Key != int64(i+1) {
				t.Fatalf("Pop key = %d, want %d", e.Key, i+1)
			}
		}
		if cap(q.heap) >= peak/4 {
			t.Errorf("heap capacity %d after draining from %d, want it shrunk", cap(q.heap), peak)
		}
		checkInvariants(t, &q)
	})

	t.Run("compact shrinks large emptied storage to a floor", func(t *testing.T) {
		t.Parallel()
		var q Queue[int]
		const n = 100000
		for i := range n {
			q.Push(Entry[int]{Key: int64(i)})
			q.Push(Entry[int]{Key: int64(i) - 10}) // out of order
		}
		q.Compact(func(e Entry[int]) bool { return e.Key%10000 == 0 })
		checkInvariants(t, &q)
		if q.Len() != 20 || len(q.ring) > shrinkAbove || cap(q.heap) > shrinkAbove {
			t.Errorf("after Compact: Len %d, ring cap %d, heap cap %d; want 20 and storage of at most %d",
				q.Len(), len(q.ring), cap(q.heap), shrinkAbove)
		}
		ring := len(q.ring)
		q.Compact(func(Entry[int]) bool { return false })
		if q.Len() != 0 || len(q.ring) != ring {
			t.Errorf("Compact of small storage reallocated it: ring cap %d -> %d", ring, len(q.ring))
		}
		checkInvariants(t, &q)
	})

	t.Run("reset releases storage", func(t *testing.T) {
		t.Parallel()
		var q Queue[int]
		q.Push(Entry[int]{Key: 2})
		q.Push(Entry[int]{Key: 1})
		q.Reset()
		if q.Len() != 0 || q.ring != nil || q.heap != nil {
			t.Errorf("after Reset: Len %d, ring %v, heap %v", q.Len(), q.ring, q.heap)
		}
	})

	t.Run("all stops when yield returns false", func(t *testing.T) {
		t.Parallel()
		var q Queue[int]
		for i := range 10 {
			q.Push(Entry[int]{Key: int64(i % 3)})
		}
		calls := 0
		q.All(func(Entry[int]) bool { calls++; return calls < 4 })
		if calls != 4 {
			t.Errorf("yield called %d times, want 4", calls)
		}
	})
}

// TestPushPopAllocs is not parallel: testing.AllocsPerRun counts the whole
// process's allocations and refuses to run in a parallel test.
func TestPushPopAllocs(t *testing.T) {
	v := &item{}
	for _, tc := range []struct {
		name     string
		sentinel bool // a huge key in the ring sends every later push to the heap
		key      func(popped int64, i int) int64
		reason   string
	}{
		{"in order", false, func(_ int64, i int) int64 { return int64(1000 + i) }, "ring slots are reused"},
		{"out of order", true, func(p int64, i int) int64 { return p + int64(i*7919%1000) }, "heap slots are reused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var q Queue[*item]
			if tc.sentinel {
				q.Push(Entry[*item]{Key: math.MaxInt64})
			}
			for i := range 1000 {
				q.Push(Entry[*item]{Key: int64(i), Seq: uint64(i), Val: v})
			}
			if ringOnly := !tc.sentinel; ringOnly != (len(q.heap) == 0) {
				t.Fatalf("setup: ring %d, heap %d entries", q.n, len(q.heap))
			}
			i := 0
			allocs := testing.AllocsPerRun(10000, func() {
				e, _ := q.Pop()
				i++
				q.Push(Entry[*item]{Key: tc.key(e.Key, i), Seq: uint64(i), Val: v})
			})
			if allocs != 0 {
				t.Errorf("steady-state Pop+Push allocates %v times per run, want 0 (%s)", allocs, tc.reason)
			}
		})
	}
}

var depths = []int{1e3, 1e5, 1e6}

// BenchmarkInOrder pushes at the tail and pops the head of a queue held at
// a fixed depth: sqsq's common case of sends at "now".
func BenchmarkInOrder(b *testing.B) {
	v := &item{}
	for _, d := range depths {
		b.Run(fmt.Sprintf("depth=%d", d), func(b *testing.B) {
			var q Queue[*item]
			for i := range d {
				q.Push(Entry[*item]{Key: int64(i), Seq: uint64(i), Val: v})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := d + i
				q.Push(Entry[*item]{Key: int64(k), Seq: uint64(k), Val: v})
				q.Pop()
			}
		})
	}
}

// BenchmarkOutOfOrder holds the heap at a fixed depth: it pops the smallest
// entry and pushes one a random distance after it (the classic "hold"
// model), while a sentinel in the ring makes every push out of order.
func BenchmarkOutOfOrder(b *testing.B) {
	v := &item{}
	for _, d := range depths {
		b.Run(fmt.Sprintf("depth=%d", d), func(b *testing.B) {
			var q Queue[*item]
			rng := xorshift(uint64(d))
			q.Push(Entry[*item]{Key: math.MaxInt64})
			for i := range d {
				q.Push(Entry[*item]{Key: int64(rng.next() % uint64(d)), Seq: uint64(i), Val: v})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e, _ := q.Pop()
				q.Push(Entry[*item]{Key: e.Key + int64(rng.next()%uint64(d)), Seq: uint64(d + i), Val: v})
			}
		})
	}
}

// BenchmarkContainerHeapInOrder is the baseline: the same in-order workload
// on container/heap, which walks O(log n) levels per operation.
func BenchmarkContainerHeapInOrder(b *testing.B) {
	v := &item{}
	for _, d := range depths {
		b.Run(fmt.Sprintf("depth=%d", d), func(b *testing.B) {
			h := make(entryHeap, 0, d+1)
			for i := range d {
				heap.Push(&h, Entry[*item]{Key: int64(i), Seq: uint64(i), Val: v})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := d + i
				heap.Push(&h, Entry[*item]{Key: int64(k), Seq: uint64(k), Val: v})
				heap.Pop(&h)
			}
		})
	}
}

type entryHeap []Entry[*item]

func (h entryHeap) Len() int           { return len(h) }
func (h entryHeap) Less(i, j int) bool { return less(&h[i], &h[j]) }
func (h entryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *entryHeap) Push(x any)        { *h = append(*h, x.(Entry[*item])) }
func (h *entryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = Entry[*item]{}
	*h = old[:len(old)-1]
	return e
}

type xorshift uint64

func (x *xorshift) next() uint64 {
	*x ^= *x << 13
	*x ^= *x >> 7
	*x ^= *x << 17
	return uint64(*x)
}
