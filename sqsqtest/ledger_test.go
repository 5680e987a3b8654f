package sqsqtest

import (
	"testing"
	"time"
)

// A transaction reads its own writes, the last one of a key first, then
// the committed store; applied, its writes land in order (the last of a
// key wins), and until then the store has none of them.
func TestTxReadsItsOwnWrites(t *testing.T) {
	t.Parallel()
	l := newLedger()
	l.kv["a"], l.kv["b"] = "committed a", "committed b"
	tx := &Tx{l: l}
	tx.Put("a", "1")
	tx.Put("c", "3")
	tx.Put("a", "2")
	for key, want := range map[string]string{"a": "2", "b": "committed b", "c": "3"} {
		if got, ok := tx.Get(key); !ok || got != want {
			t.Errorf("tx.Get(%q) = %q, %v; want %q", key, got, ok, want)
		}
	}
	if _, ok := tx.Get("d"); ok {
		t.Error(`tx.Get("d") found a key nobody wrote`)
	}
	if v, _ := l.Get("a"); v != "committed a" {
		t.Errorf("before apply the store has a = %q", v)
	}
	if _, ok := l.Get("c"); ok {
		t.Error("before apply the store has c")
	}
	tx.apply(time.Time{}, "c1")
	for key, want := range map[string]string{"a": "2", "b": "committed b", "c": "3"} {
		if got, ok := l.Get(key); !ok || got != want {
			t.Errorf("after apply l.Get(%q) = %q, %v; want %q", key, got, ok, want)
		}
	}
}
