package sqsq

// Go maps keep the storage of the largest size they ever reached: deleting
// entries, even all of them, or clear, returns none of it. A map that served
// a load peak (a million FIFO groups, a million deduplication ids) would
// hold that memory for the life of the queue. So the maps that grow with
// load note their peak size and are rebuilt at their current size once they
// have fallen to a quarter of it.
//
// The rebuild copies the live entries, O(len), under the queue's lock; at
// least three quarters of the peak were deleted since the map last had its
// size, so the copy is amortized O(1) per deletion (a third of an insert).
// A map whose size holds steady, however busy, is never copied.

// shrinkMinPeak is the peak below which a map is never rebuilt: its storage
// is too small to matter and a queue hovering around a few entries would
// reallocate over and over.
const shrinkMinPeak = 1024

// mapPeak is the largest size a map reached since it was last built.
type mapPeak int

// grew notes a map's size after an insert.
func (p *mapPeak) grew(n int) {
	if n > int(*p) {
		*p = mapPeak(n)
	}
}

// shrinkMap returns m itself, or, when m has fallen to a quarter of its
// peak, a copy of m sized for what it holds (an empty, non-nil map when it
// holds nothing). Call it after deletions; the caller replaces m with the
// result.
func shrinkMap[K comparable, V any](m map[K]V, p *mapPeak) map[K]V {
	n := len(m)
	if *p < shrinkMinPeak || n > int(*p)/4 {
		return m
	}
	*p = mapPeak(n)
	// Not maps.Clone: it copies the storage along with the entries.
	c := make(map[K]V, n)
	for k, v := range m {
		c[k] = v
	}
	return c
}
