package sqsq

// freeSlots are the slots of a queue's slot table that no message holds, a
// min-heap: a new message takes the lowest. The choice is a function of
// the set alone, not of the order slots were freed in, so the set need not
// be saved: a restart rebuilds it from the messages' slots (import.go),
// and new messages then get the slots, and the receipt handles, they would
// have got without the restart. Slots above the highest one held are all
// free, so a table rebuilt only up to it hands out the same numbers.
type freeSlots []uint32

func (h freeSlots) len() int { return len(h) }

func (h *freeSlots) push(s uint32) {
	*h = append(*h, s)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p] <= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

// pop removes and returns the lowest free slot.
func (h *freeSlots) pop() (uint32, bool) {
	a := *h
	if len(a) == 0 {
		return 0, false
	}
	s := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && a[l] < a[m] {
			m = l
		}
		if r := l + 1; r < n && a[r] < a[m] {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return s, true
}
