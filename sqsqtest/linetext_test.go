package sqsqtest

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// Every string lineText hands out is the parts joined (or what Sprintf
// would print), and stays so however much is written after it: across
// new chunks, and when Appendf outgrows a chunk and copies it.
func TestLineTextStringsNeverChange(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		var lt lineText
		if rapid.Bool().Draw(t, "start with a chunk") {
			lt.buf = make([]byte, 0, rapid.IntRange(0, 64).Draw(t, "first chunk"))
		}
		part := rapid.StringOfN(rapid.RuneFrom([]rune("ab(), é")), 0, 3*chunkSize/2, -1)
		var got, want []string
		for i := range rapid.IntRange(1, 60).Draw(t, "lines") {
			if rapid.Bool().Draw(t, "sprintf") {
				s := part.Draw(t, "arg")
				got = append(got, lt.sprintf("%d: %s|", i, s))
				want = append(want, fmt.Sprintf("%d: %s|", i, s))
				continue
			}
			parts := rapid.SliceOfN(part, 0, 6).Draw(t, "parts")
			got = append(got, lt.join(parts...))
			want = append(want, strings.Join(parts, ""))
		}
		total := 0
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("line %d is %q, want %q", i, got[i], want[i])
			}
			total += len(want[i])
		}
		if lt.written > total {
			t.Fatalf("written %d bytes, the lines have %d", lt.written, total)
		}
	})
}

func BenchmarkLineTextJoin(b *testing.B) {
	var lt lineText
	b.ReportAllocs()
	for b.Loop() {
		_ = lt.join("c1", " ", "extend(", "A", ", ", "30", "s)")
	}
}
