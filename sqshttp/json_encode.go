package sqshttp

import (
	"encoding/base64"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/document"

	"github.com/sqsq/sqsq/internal/jsontext"
)

// jsonWriter is a smithy.ShapeSerializer that writes AWS JSON 1.0. An SDK
// output struct serializes itself into it (out.Serialize(w)), so every
// member has the name of the SDK's model ("queueUrls" of
// ListDeadLetterSourceQueues included) and absent members — nil pointers,
// nil lists and maps — are left out, as AWS leaves them out. Map entries
// are written in key order, so responses are byte-for-byte reproducible.
type jsonWriter struct {
	buf   []byte
	stack []frame
}

// frame is an open struct, list or map of a writer.
type frame struct {
	kind    byte // 's'truct, 'l'ist, 'm'ap
	n       int  // members, items or entries written
	base    int  // map: offset of the first entry
	entries []mapEntry
}

// mapEntry is one written map entry: buf[start:end], without separators.
type mapEntry struct {
	key        string
	start, end int
}

var _ smithy.ShapeSerializer = (*jsonWriter)(nil)

func (w *jsonWriter) reset() {
	w.buf = w.buf[:0]
	w.stack = w.stack[:0]
}

// Bytes returns the document written so far.
func (w *jsonWriter) Bytes() []byte { return w.buf }

// member starts a value: the separator, and the name inside a struct.
func (w *jsonWriter) member(s *smithy.Schema) {
	if len(w.stack) == 0 {
		return
	}
	f := &w.stack[len(w.stack)-1]
	switch f.kind {
	case 's':
		if f.n > 0 {
			w.buf = append(w.buf, ',')
		}
		f.n++
		w.buf = append(w.buf, '"')
		w.buf = append(w.buf, s.MemberName()...)
		w.buf = append(w.buf, '"', ':')
	case 'l':
		if f.n > 0 {
			w.buf = append(w.buf, ',')
		}
		f.n++
	}
	// In a map, WriteKey has written the separator and the key.
}

func (w *jsonWriter) WriteInt8(s *smithy.Schema, v int8)   { w.WriteInt64(s, int64(v)) }
func (w *jsonWriter) WriteInt16(s *smithy.Schema, v int16) { w.WriteInt64(s, int64(v)) }
func (w *jsonWriter) WriteInt32(s *smithy.Schema, v int32) { w.WriteInt64(s, int64(v)) }

func (w *jsonWriter) WriteInt64(s *smithy.Schema, v int64) {
	w.member(s)
	w.buf = strconv.AppendInt(w.buf, v, 10)
}

func (w *jsonWriter) WriteFloat32(s *smithy.Schema, v float32) { w.WriteFloat64(s, float64(v)) }

func (w *jsonWriter) WriteFloat64(s *smithy.Schema, v float64) {
	w.member(s)
	switch {
	case math.IsNaN(v):
		w.buf = append(w.buf, `"NaN"`...)
	case math.IsInf(v, 1):
		w.buf = append(w.buf, `"Infinity"`...)
	case math.IsInf(v, -1):
		w.buf = append(w.buf, `"-Infinity"`...)
	default:
		w.buf = strconv.AppendFloat(w.buf, v, 'g', -1, 64)
	}
}

func (w *jsonWriter) WriteBool(s *smithy.Schema, v bool) {
	w.member(s)
	w.buf = strconv.AppendBool(w.buf, v)
}

func (w *jsonWriter) WriteString(s *smithy.Schema, v string) {
	w.member(s)
	w.buf = jsontext.AppendString(w.buf, v)
}

func (w *jsonWriter) WriteBigInt(s *smithy.Schema, v *big.Int) {
	w.member(s)
	w.buf = v.Append(w.buf, 10)
}

func (w *jsonWriter) WriteBigFloat(s *smithy.Schema, v *big.Float) {
	w.member(s)
	w.buf = v.Append(w.buf, 'g', -1)
}

func (w *jsonWriter) WriteBlob(s *smithy.Schema, v []byte) {
	w.member(s)
	w.buf = append(w.buf, '"')
	w.buf = base64.StdEncoding.AppendEncode(w.buf, v)
	w.buf = append(w.buf, '"')
}

// WriteTime writes epoch seconds, the AWS JSON default (SQS has no
// timestamp members: its times are numbers and strings).
func (w *jsonWriter) WriteTime(s *smithy.Schema, v time.Time) {
	w.member(s)
	w.buf = strconv.AppendFloat(w.buf, float64(v.UnixMilli())/1000, 'f', -1, 64)
}

func (w *jsonWriter) WriteUnion(s, _ *smithy.Schema) { w.WriteStruct(s) }
func (w *jsonWriter) CloseUnion()                    { w.CloseStruct() }

// WriteDocument writes null: SQS has no document members.
func (w *jsonWriter) WriteDocument(s *smithy.Schema, _ document.Value) { w.WriteNil(s) }

func (w *jsonWriter) WriteNil(s *smithy.Schema) {
	w.member(s)
	w.buf = append(w.buf, "null"...)
}

func (w *jsonWriter) WriteStruct(s *smithy.Schema) {
	w.member(s)
	w.buf = append(w.buf, '{')
	w.stack = append(w.stack, frame{kind: 's'})
}

func (w *jsonWriter) CloseStruct() {
	w.stack = w.stack[:len(w.stack)-1]
	w.buf = append(w.buf, '}')
}

func (w *jsonWriter) WriteList(s *smithy.Schema) {
	w.member(s)
	w.buf = append(w.buf, '[')
	w.stack = append(w.stack, frame{kind: 'l'})
}

func (w *jsonWriter) CloseList() {
	w.stack = w.stack[:len(w.stack)-1]
	w.buf = append(w.buf, ']')
}

func (w *jsonWriter) WriteMap(s *smithy.Schema) {
	w.member(s)
	w.buf = append(w.buf, '{')
	w.stack = append(w.stack, frame{kind: 'm', base: len(w.buf)})
}

func (w *jsonWriter) WriteKey(_ *smithy.Schema, key string) {
	f := &w.stack[len(w.stack)-1]
	if f.n > 0 {
		f.entries[f.n-1].end = len(w.buf)
		w.buf = append(w.buf, ',')
	}
	f.n++
	f.entries = append(f.entries, mapEntry{key: key, start: len(w.buf)})
	w.buf = jsontext.AppendString(w.buf, key)
	w.buf = append(w.buf, ':')
}

func (w *jsonWriter) CloseMap() {
	f := &w.stack[len(w.stack)-1]
	if f.n > 0 {
		f.entries[f.n-1].end = len(w.buf)
	}
	w.buf = sortEntries(w.buf, f.base, f.entries, ",")
	w.stack = w.stack[:len(w.stack)-1]
	w.buf = append(w.buf, '}')
}

// sortEntries rewrites the map entries that run from base to the end of buf
// in key order, joined by sep. Go maps iterate in random order; responses
// should not.
func sortEntries(buf []byte, base int, entries []mapEntry, sep string) []byte {
	sorted := true
	for i := 1; i < len(entries); i++ {
		if entries[i-1].key > entries[i].key {
			sorted = false
			break
		}
	}
	if sorted {
		return buf
	}
	old := append([]byte(nil), buf[base:]...)
	// O(n log n) whatever the map: message attributes are few, but a
	// queue's tags or attributes need not be.
	slices.SortFunc(entries, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })
	buf = buf[:base]
	for i, e := range entries {
		if i > 0 {
			buf = append(buf, sep...)
		}
		buf = append(buf, old[e.start-base:e.end-base]...)
	}
	return buf
}
