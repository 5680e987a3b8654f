package sqsq

import "github.com/sqsq/sqsq/internal/pq"

// expiringMap is a map whose entries end at an instant of the clock, for
// the FIFO deduplication ids and receive attempt ids. Expiries arrive in
// time order, so the expiry queue stays a ring: O(1) amortized per entry.
type expiringMap[V any] struct {
	m     map[string]expiringEntry[V]
	order pq.Queue[string] // keys by expiry; stale when the key was put again
}

type expiringEntry[V any] struct {
	expires int64
	v       V
}

func (x *expiringMap[V]) get(key string) (V, bool) {
	e, ok := x.m[key]
	return e.v, ok
}

// put sets key to v until expires, replacing any earlier entry.
func (x *expiringMap[V]) put(key string, v V, expires int64) {
	if x.m == nil {
		x.m = map[string]expiringEntry[V]{}
	}
	x.m[key] = expiringEntry[V]{expires, v}
	x.order.Push(pq.Entry[string]{Key: expires, Val: key})
}

func (x *expiringMap[V]) delete(key string) { delete(x.m, key) }

// expire drops the entries that ended at or before now.
func (x *expiringMap[V]) expire(now int64) {
	for {
		e, ok := x.order.Peek()
		if !ok || e.Key > now {
			return
		}
		x.order.Pop()
		if cur, ok := x.m[e.Val]; ok && cur.expires == e.Key {
			delete(x.m, e.Val)
		}
	}
}

func (x *expiringMap[V]) reset() {
	clear(x.m)
	x.order.Reset()
}
