package sqsqtest

import (
	"fmt"
	"unsafe"
)

// lineText holds the bytes of a run's timeline lines and call texts. A run
// writes some hundred short lines, each once joined from a few parts; built
// with + each was an allocation, a sixth of a run's. Here they share a few
// chunks: a chunk's bytes are only ever appended, never written again, so
// each string made from them stays what it was, and a chunk lives as long
// as a line points into it. Only the goroutine that holds the run's turn
// writes (the scheduler, or a granted call), as for the timeline itself.
type lineText struct {
	buf     []byte
	written int // bytes in all chunks, for the next run's first (see textHint)
}

// chunkSize is the room of a chunk after the first, which is sized as the
// runs before wrote.
const chunkSize = 1024

// join is the parts joined, as one string.
func (t *lineText) join(parts ...string) string {
	n, last := 0, ""
	for _, p := range parts {
		if p != "" {
			n, last = n+len(p), p
		}
	}
	if n == len(last) { // zero or one non-empty part: nothing to copy
		return last
	}
	t.room(n)
	start := len(t.buf)
	t.written += n
	for _, p := range parts {
		t.buf = append(t.buf, p...)
	}
	return unsafe.String(&t.buf[start], n)
}

// sprintf is fmt.Sprintf, written into the chunk.
func (t *lineText) sprintf(format string, args ...any) string {
	t.room(len(format) + 16*len(args))
	start := len(t.buf)
	// Appendf may outgrow the chunk: it then copies it, and the lines of
	// the old chunk keep pointing into that one, unchanged.
	t.buf = fmt.Appendf(t.buf, format, args...)
	t.written += len(t.buf) - start
	if len(t.buf) == start {
		return ""
	}
	return unsafe.String(&t.buf[start], len(t.buf)-start)
}

// room starts a new chunk unless n more bytes fit in this one.
func (t *lineText) room(n int) {
	if cap(t.buf)-len(t.buf) < n {
		t.buf = make([]byte, 0, max(n, chunkSize))
	}
}
