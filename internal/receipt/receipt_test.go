package receipt

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		h := Handle{
			Queue:  rapid.Uint64().Draw(t, "queue"),
			Seq:    rapid.Uint64().Draw(t, "seq"),
			Slot:   rapid.Uint32().Draw(t, "slot"),
			Serial: rapid.Uint32().Draw(t, "serial"),
		}
		s := Encode(h)
		if len(s) != MaxLen || !strings.HasPrefix(s, "AQEB") {
			t.Fatalf("Encode(%+v) = %q", h, s)
		}
		got, ok := Decode(s)
		if !ok || got != h {
			t.Fatalf("Decode(Encode(%+v)) = %+v, %v", h, got, ok)
		}
	})
}

func TestDecodeRejects(t *testing.T) {
	t.Parallel()
	valid := Encode(Handle{Queue: 1, Seq: 2, Slot: 3, Serial: 4})
	flipped := []byte(valid)
	flipped[10] ^= 1
	for _, tc := range []struct {
		in, reason string
	}{
		{"", "empty"},
		{"INVALID", "garbage"},
		{valid[:len(valid)-1], "truncated"},
		{valid + "A", "too long"},
		{"XQEB" + valid[4:], "wrong prefix"},
		{string(flipped), "checksum mismatch"},
		{"8a7c5b5e-1f2d-4c3b-9a8e-7d6c5b4a3f2e", "a message id is no handle"},
	} {
		if _, ok := Decode(tc.in); ok {
			t.Errorf("Decode(%q) accepted: %s", tc.in, tc.reason)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Encode(Handle{Queue: 7, Seq: 9, Slot: 1, Serial: 2}))
	f.Add("AQEB")
	f.Fuzz(func(t *testing.T, s string) {
		if h, ok := Decode(s); ok && Encode(h) != s {
			t.Fatalf("Decode accepted non-canonical %q", s)
		}
	})
}

func BenchmarkEncodeDecode(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s := Encode(Handle{Queue: 1, Seq: uint64(i), Slot: uint32(i), Serial: 1})
		if _, ok := Decode(s); !ok {
			b.Fatal("decode failed")
		}
	}
}
