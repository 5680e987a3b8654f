package jsontext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestAppendString: what it writes decodes to s, for every kind of byte,
// and bytes that are not UTF-8 read as U+FFFD.
func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", `"quoted" \ back`, "\n\r\t\x00\x1f", "<a & b>", "é ✓ \u2028 😀"} {
		var got string
		if err := json.Unmarshal(AppendString(nil, s), &got); err != nil || got != s {
			t.Errorf("%q: decodes to %q, %v", s, got, err)
		}
	}
	if got := string(AppendString(nil, "a\xffb")); got != `"a\ufffdb"` {
		t.Errorf("invalid UTF-8: %s", got)
	}
}

// TestPieces: the pieces together are the content, and no piece splits a
// rune, whatever the size.
func TestPieces(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("é\"x✓", 1000)
	for _, size := range []int{1, 2, 3, 7, 64, 1 << 20} {
		var all bytes.Buffer
		Pieces(nil, s, size, func(p []byte) {
			if bytes.Contains(p, []byte(`\ufffd`)) {
				t.Fatalf("size %d: a piece split a rune: %s", size, p)
			}
			all.Write(p)
		})
		if want := AppendContent(nil, s); !bytes.Equal(all.Bytes(), want) {
			t.Errorf("size %d: pieces differ from the content", size)
		}
	}
}
