package sqsq_test

// Helpers shared by the tests of durable mode's core side (#21): the
// export of an endpoint to internal/state's plain data and the import that
// builds it again (export_*_test.go, import_*_test.go).

import (
	"fmt"
	"reflect"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/state"
)

// fatalT is the part of testing.TB and *rapid.T the helpers need.
type fatalT interface {
	Helper()
	Fatalf(format string, args ...any)
}

// exportOf exports b's endpoint and fails the test on error.
func exportOf(t fatalT, b *sqsq.Broker) *state.World {
	t.Helper()
	w, err := state.Export(b)
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	return w
}

// restart imports w on a new mock clock set to at, as a restarted server
// does, with opts after the clock, and fails the test on error.
func restart(t fatalT, w *state.World, at time.Time, opts ...sqsq.Option) (*sqsq.Broker, *clock.Mock) {
	t.Helper()
	clk := clock.NewMock()
	clk.Set(at)
	b, err := state.Import(w, append([]sqsq.Option{sqsq.WithClock(clk)}, opts...))
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	return b.(*sqsq.Broker), clk
}

// worldDiff describes the first difference between two exported states,
// by its path ("Scopes[0].Queues[2].Messages[5].Gen: 3 != 4"), or "" when
// they are equal.
func worldDiff(want, got *state.World) string {
	return firstDiff("World", reflect.ValueOf(want), reflect.ValueOf(got))
}

func firstDiff(path string, a, b reflect.Value) string {
	if a.Kind() != b.Kind() {
		return fmt.Sprintf("%s: kinds %v != %v", path, a.Kind(), b.Kind())
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: nil %v != %v", path, a.IsNil(), b.IsNil())
			}
			return ""
		}
		return firstDiff(path, a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if d := firstDiff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: nil %v != %v (len %d, %d)", path, a.IsNil(), b.IsNil(), a.Len(), b.Len())
		}
		for i := 0; i < min(a.Len(), b.Len()); i++ {
			if d := firstDiff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d != %d", path, a.Len(), b.Len())
		}
		return ""
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return fmt.Sprintf("%s: %#v != %#v", path, a.Interface(), b.Interface())
	}
	return ""
}
