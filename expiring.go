package sqsq

import (
	"cmp"
	"slices"

	"github.com/sqsq/sqsq/internal/pq"
)

// expiringMap is a map whose entries end at an instant of the clock, for
// the FIFO deduplication ids, the receive attempt ids and the names of
// recently deleted queues. Expiries arrive in time order, so the expiry
// queue stays a ring: O(1) amortized per entry. The map gives its storage
// back as it empties (see shrinkMap), and the expiry queue drops the
// entries of replaced and deleted keys once they outnumber the live ones.
type expiringMap[V any] struct {
	m     map[string]expiringEntry[V]
	peak  mapPeak
	order pq.Queue[string] // keys by expiry, Seq the put; stale when the key was put again or deleted
	puts  uint64           // puts so far: names each put's order entry
	// changed lists the keys put, deleted or dropped since the journal
	// last took them, when track is set (a FIFO queue's windows with a
	// journal, journal.go): each is a record of its own, so a send writes
	// one entry, not the whole window.
	track   bool
	changed []string
}

// expiringEntry is a value and the put that set it: the order entry of
// that put (which holds the expiry) has Seq == put.
type expiringEntry[V any] struct {
	put     uint64
	v       V
	expires int64
}

// note records that key changed, for the journal.
func (x *expiringMap[V]) note(key string) {
	if x.track {
		x.changed = append(x.changed, key)
	}
}

// lookup returns key's entry and its expiry.
func (x *expiringMap[V]) lookup(key string) (V, int64, bool) {
	e, ok := x.m[key]
	return e.v, e.expires, ok
}

func (x *expiringMap[V]) len() int { return len(x.m) }

func (x *expiringMap[V]) get(key string) (V, bool) {
	e, ok := x.m[key]
	return e.v, ok
}

// put sets key to v until expires, replacing any earlier entry.
func (x *expiringMap[V]) put(key string, v V, expires int64) {
	if x.m == nil {
		x.m = map[string]expiringEntry[V]{}
	}
	x.puts++
	x.m[key] = expiringEntry[V]{x.puts, v, expires}
	x.note(key)
	x.peak.grew(len(x.m))
	x.order.Push(pq.Entry[string]{Key: expires, Seq: x.puts, Val: key})
	x.compactOrder()
}

func (x *expiringMap[V]) delete(key string) {
	delete(x.m, key)
	x.note(key)
	x.m = shrinkMap(x.m, &x.peak)
	x.compactOrder()
}

// live reports whether e is the order entry of its key's current put.
func (x *expiringMap[V]) live(e pq.Entry[string]) bool {
	cur, ok := x.m[e.Val]
	return ok && cur.put == e.Seq
}

// compactOrder drops the stale entries of the expiry queue once they
// outnumber the live ones: amortized O(1) per put or delete, and the queue
// stays proportional to the map even on a clock that never moves.
func (x *expiringMap[V]) compactOrder() {
	if x.order.Len() > 2*len(x.m)+1024 {
		x.order.Compact(x.live)
	}
}

// expire drops the entries that ended at or before now.
func (x *expiringMap[V]) expire(now int64) {
	dropped := false
	for {
		e, ok := x.order.Peek()
		if !ok || e.Key > now {
			break
		}
		x.order.Pop()
		if x.live(e) {
			delete(x.m, e.Val)
			x.note(e.Val)
			dropped = true
		}
	}
	if dropped {
		x.m = shrinkMap(x.m, &x.peak)
	}
}

// limit drops the entries that end first until at most n are left, so the
// map stays bounded when the clock stands still (a mock never advanced)
// and nothing ever expires.
func (x *expiringMap[V]) limit(n int) {
	if len(x.m) <= n {
		return
	}
	for len(x.m) > n {
		e, ok := x.order.Pop()
		if !ok {
			break
		}
		if x.live(e) {
			delete(x.m, e.Val)
			x.note(e.Val)
		}
	}
	x.m = shrinkMap(x.m, &x.peak)
}

// reset forgets every entry and releases the storage.
func (x *expiringMap[V]) reset() {
	for k := range x.m {
		x.note(k)
	}
	x.m, x.peak = nil, 0
	x.order.Reset()
}

// expiringItem is one live entry of an expiringMap, as entries lists it.
type expiringItem[V any] struct {
	key     string
	v       V
	expires int64
}

// entries returns the live entries in expiry order, ties in put order:
// putting them again in this order into an empty map rebuilds one that
// expires and limits exactly as x does (a saved broker's state, see
// export.go).
func (x *expiringMap[V]) entries() []expiringItem[V] {
	live := make([]pq.Entry[string], 0, len(x.m))
	x.order.All(func(e pq.Entry[string]) bool {
		if x.live(e) {
			live = append(live, e)
		}
		return true
	})
	slices.SortFunc(live, func(a, b pq.Entry[string]) int {
		if c := cmp.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
	out := make([]expiringItem[V], len(live))
	for i, e := range live {
		out[i] = expiringItem[V]{key: e.Val, v: x.m[e.Val].v, expires: e.Key}
	}
	return out
}
