package sqsq

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// freeSlots hands out the lowest free slot, whatever order slots were
// freed in: the property that lets a restart rebuild it from the set.
func TestFreeSlotsLowestFirst(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		var h freeSlots
		var model []uint32
		for _, op := range rapid.SliceOf(rapid.IntRange(-1, 50)).Draw(t, "ops") {
			if op < 0 {
				got, ok := h.pop()
				if ok != (len(model) > 0) {
					t.Fatalf("pop ok = %v with %d free", ok, len(model))
				}
				if ok {
					if got != model[0] {
						t.Fatalf("pop = %d; want the lowest, %d", got, model[0])
					}
					model = model[1:]
				}
				continue
			}
			if slices.Contains(model, uint32(op)) {
				continue // a slot is free once
			}
			h.push(uint32(op))
			model = append(model, uint32(op))
			slices.Sort(model)
		}
		if h.len() != len(model) {
			t.Fatalf("len = %d; want %d", h.len(), len(model))
		}
	})
}
