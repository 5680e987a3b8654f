package durable

import (
	"cmp"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sqsq/sqsq/internal/state"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	s, dir := setup(t)
	want := richWorld()
	mustSave(t, s, want)
	checkWorld(t, want, mustLoad(t, s))

	t.Run("after reopening", func(t *testing.T) {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		checkWorld(t, want, mustLoad(t, s))
	})
}

// The rich World is only a good test while it sets every field of every
// type of package state: a field added there and forgotten here (and in
// the codec) fails this test first.
func TestRichWorldSetsEveryField(t *testing.T) {
	t.Parallel()
	set := map[reflect.Type]map[string]bool{} // fields seen non-zero, by struct type
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			if set[v.Type()] == nil {
				set[v.Type()] = map[string]bool{}
			}
			for i := range v.NumField() {
				if !v.Field(i).IsZero() {
					set[v.Type()][v.Type().Field(i).Name] = true
				}
				walk(v.Field(i))
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			for _, k := range v.MapKeys() {
				walk(v.MapIndex(k))
			}
		}
	}
	walk(reflect.ValueOf(richWorld()))
	for _, typ := range []reflect.Type{
		reflect.TypeFor[state.World](), reflect.TypeFor[state.Scope](), reflect.TypeFor[state.Expiring](),
		reflect.TypeFor[state.Queue](), reflect.TypeFor[state.Message](), reflect.TypeFor[state.Attribute](),
		reflect.TypeFor[state.Dedup](), reflect.TypeFor[state.Attempt](), reflect.TypeFor[state.AttemptMsg](),
		reflect.TypeFor[state.Task](),
	} {
		for i := range typ.NumField() {
			if name := typ.Field(i).Name; !set[typ][name] {
				t.Errorf("richWorld never sets %s.%s", typ.Name(), name)
			}
		}
	}
}

// Any World whose queue IDs are unique and whose messages are in Seq
// order loads back equal, nil and empty slices and maps told apart.
func TestRoundTripProperty(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.Make[*state.World]().Draw(t, "world")
		if w == nil {
			w = &state.World{}
		}
		// A World as Export makes it: scopes after the first in account
		// and region order, each once, no NUL in an account; tasks in Seq
		// order.
		for i := range w.Scopes {
			w.Scopes[i].Account = strings.ReplaceAll(w.Scopes[i].Account, "\x00", "")
		}
		if len(w.Scopes) > 1 {
			rest := w.Scopes[1:]
			slices.SortFunc(rest, func(a, b state.Scope) int {
				return cmp.Or(cmp.Compare(a.Account, b.Account), cmp.Compare(a.Region, b.Region))
			})
			rest = slices.CompactFunc(rest, func(a, b state.Scope) bool { return a.Account == b.Account && a.Region == b.Region })
			rest = slices.DeleteFunc(rest, func(x state.Scope) bool {
				return x.Account == w.Scopes[0].Account && x.Region == w.Scopes[0].Region
			})
			w.Scopes = append(w.Scopes[:1], rest...)
		}
		for i := range w.Tasks {
			w.Tasks[i].Seq = uint64(i + 1)
		}
		id := uint64(0)
		for i := range w.Scopes {
			for j := range w.Scopes[i].Queues {
				q := &w.Scopes[i].Queues[j]
				id += rapid.Uint64Range(1, 1<<40).Draw(t, "idStep")
				q.ID = id
				slices.SortFunc(q.Messages, func(a, b state.Message) int { return compareUint(a.Seq, b.Seq) })
				// Windows as Export makes them: each key once, nil when empty.
				q.DedupByID = uniqueWindow(q.DedupByID, func(d state.Dedup) string { return d.Key })
				q.DedupByPair = uniqueWindow(q.DedupByPair, func(d state.Dedup) string { return d.Key })
				q.Attempts = uniqueWindow(q.Attempts, func(a state.Attempt) string { return a.ID })
				q.Messages = slices.CompactFunc(q.Messages, func(a, b state.Message) bool { return a.Seq == b.Seq })
			}
		}
		if err := s.Save(w); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load()
		if err != nil {
			t.Fatal(err)
		}
		checkWorld(t, w, got)
	})
}

// uniqueWindow keeps the first entry of each key, and makes an empty
// window nil.
func uniqueWindow[T any](xs []T, key func(T) string) []T {
	seen := map[string]bool{}
	var out []T
	for _, x := range xs {
		if !seen[key(x)] {
			seen[key(x)] = true
			out = append(out, x)
		}
	}
	return out
}

func compareUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestLoadEmpty(t *testing.T) {
	t.Parallel()
	s, dir := setup(t)
	if w, err := s.Load(); w != nil || err != nil {
		t.Fatalf("Load of a new store = %v, %v; want nil, nil", w, err)
	}
	s.Close()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if w, err := s.Load(); w != nil || err != nil {
		t.Fatalf("Load of a reopened empty store = %v, %v; want nil, nil", w, err)
	}
	// An empty World is not no World.
	mustSave(t, s, &state.World{})
	checkWorld(t, &state.World{}, mustLoad(t, s))
}

// A second Save replaces the first: fewer scopes, queues, messages and
// tasks leave nothing of the first behind.
func TestSaveReplaces(t *testing.T) {
	t.Parallel()
	s, dir := setup(t)
	mustSave(t, s, richWorld())
	smaller := richWorld()
	smaller.Scopes = smaller.Scopes[:1]
	smaller.Scopes[0].Queues = smaller.Scopes[0].Queues[1:2]
	smaller.Scopes[0].Queues[0].Messages = smaller.Scopes[0].Queues[0].Messages[1:]
	smaller.Tasks = nil
	mustSave(t, s, smaller)
	checkWorld(t, smaller, mustLoad(t, s))
	s.Close()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkWorld(t, smaller, mustLoad(t, s))
}

// A World Save cannot store is an error that leaves the stored state as
// it was.
func TestSaveRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		reason string
		change func(w *state.World)
		want   string
	}{
		{
			name:   "queue ID reused",
			reason: "queues are keyed by ID, so the second would replace the first",
			change: func(w *state.World) { w.Scopes[2].Queues[0].ID = 7 },
			want:   `queues "orders" and "z" have the same ID 7`,
		},
		{
			name:   "messages out of order",
			reason: "messages are keyed by Seq; the store cannot keep another order",
			change: func(w *state.World) {
				m := w.Scopes[0].Queues[0].Messages
				m[0], m[1] = m[1], m[0]
			},
			want: `queue "orders": message Seq 1 follows 2`,
		},
		{
			name:   "Seq repeated",
			reason: "two messages with one key: the second would replace the first",
			change: func(w *state.World) { w.Scopes[0].Queues[0].Messages[1].Seq = 1 },
			want:   `queue "orders": message Seq 1 follows 1`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := setup(t)
			before := richWorld()
			mustSave(t, s, before)
			bad := richWorld()
			tc.change(bad)
			err := s.Save(bad)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Save = %v; want an error containing %q (%s)", err, tc.want, tc.reason)
			}
			checkWorld(t, before, mustLoad(t, s))
		})
	}
	t.Run("nil World", func(t *testing.T) {
		t.Parallel()
		s, _ := setup(t)
		if err := s.Save(nil); err == nil {
			t.Fatal("Save(nil) = nil; want an error")
		}
	})
}

func TestClosed(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v; want nil", err)
	}
	if err := s.Save(&state.World{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Save after Close = %v; want ErrClosed", err)
	}
	if _, err := s.Load(); !errors.Is(err, ErrClosed) {
		t.Errorf("Load after Close = %v; want ErrClosed", err)
	}
	if err := s.Compact(); !errors.Is(err, ErrClosed) {
		t.Errorf("Compact after Close = %v; want ErrClosed", err)
	}
}
