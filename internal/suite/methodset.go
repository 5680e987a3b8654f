package suite

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// CheckMethodSet fails t unless ours, a stand-in for *sqs.Client, has every
// operation of the SDK in go.mod with the same signature and none it lacks,
// so an SDK upgrade that adds an operation is caught. name is how the
// errors call ours.
func CheckMethodSet(t *testing.T, ours reflect.Type, name string) {
	t.Helper()
	sdk := reflect.TypeFor[*sqs.Client]()
	n := 0
	for i := 0; i < sdk.NumMethod(); i++ {
		m := sdk.Method(i)
		if !isOperation(m) {
			continue
		}
		n++
		o, ok := ours.MethodByName(m.Name)
		if !ok {
			t.Errorf("%s lacks %s%s", name, m.Name, strings.TrimPrefix(m.Type.String(), "func(*sqs.Client"))
			continue
		}
		if m.Type.NumIn() != o.Type.NumIn() || m.Type.NumOut() != o.Type.NumOut() || o.Type.IsVariadic() != m.Type.IsVariadic() {
			t.Errorf("%s: signature %v, the SDK's is %v", m.Name, o.Type, m.Type)
			continue
		}
		// Everything but the receiver.
		for j := 1; j < m.Type.NumIn(); j++ {
			if m.Type.In(j) != o.Type.In(j) {
				t.Errorf("%s: parameter %d is %v, the SDK's is %v", m.Name, j, o.Type.In(j), m.Type.In(j))
			}
		}
		for j := 0; j < m.Type.NumOut(); j++ {
			if m.Type.Out(j) != o.Type.Out(j) {
				t.Errorf("%s: result %d is %v, the SDK's is %v", m.Name, j, o.Type.Out(j), m.Type.Out(j))
			}
		}
	}
	if n < 23 {
		t.Errorf("found %d operations on *sqs.Client, want at least the 23 of v1.53.0", n)
	}
	for i := 0; i < ours.NumMethod(); i++ {
		m := ours.Method(i)
		if _, ok := sdk.MethodByName(m.Name); isOperation(m) && !ok {
			t.Errorf("%s has %s, which *sqs.Client does not", name, m.Name)
		}
	}
}

// isOperation reports whether m has the shape of an SDK operation:
// (ctx, *XInput, ...func(*sqs.Options)) (*XOutput, error).
func isOperation(m reflect.Method) bool {
	t := m.Type // includes the receiver
	if t.NumIn() != 4 || t.NumOut() != 2 || !t.IsVariadic() {
		return false
	}
	in, out := t.In(2), t.Out(0)
	return t.In(1) == reflect.TypeFor[context.Context]() &&
		in.Kind() == reflect.Pointer && in.Elem().Name() == m.Name+"Input" &&
		out.Kind() == reflect.Pointer && out.Elem().Name() == m.Name+"Output" &&
		t.In(3) == reflect.TypeFor[[]func(*sqs.Options)]() &&
		t.Out(1) == reflect.TypeFor[error]()
}
