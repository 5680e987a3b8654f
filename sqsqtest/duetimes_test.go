package sqsqtest

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// dueTimes' earliest is always the earliest of its map, whatever sets,
// moves and deletes came before.
func TestDueTimesEarliest(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		d := newDueTimes()
		model := map[string]time.Time{}
		key := rapid.SampledFrom([]string{"a", "b", "c", "d"})
		for range rapid.IntRange(0, 50).Draw(t, "ops") {
			switch k := key.Draw(t, "key"); rapid.IntRange(0, 5).Draw(t, "op") {
			case 0, 1, 2:
				at := Epoch.Add(time.Duration(rapid.IntRange(1, 8).Draw(t, "at")) * time.Second)
				d.set(k, at)
				model[k] = at
			case 3, 4:
				d.del(k)
				delete(model, k)
			case 5:
				d.clear()
				clear(model)
			}
			var want time.Time
			for _, at := range model {
				if want.IsZero() || at.Before(want) {
					want = at
				}
			}
			if rapid.Bool().Draw(t, "ask") || len(model) == 0 {
				got, ok := d.earliest()
				if !got.Equal(want) || ok != (len(model) > 0) {
					t.Fatalf("earliest = %v, %v; want %v of %v", got, ok, want, model)
				}
			}
			if len(d.m) != len(model) {
				t.Fatalf("%d entries, want %d", len(d.m), len(model))
			}
		}
	})
}
