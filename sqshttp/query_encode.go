package sqshttp

import (
	"encoding/base64"
	"math"
	"math/big"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/document"
	"github.com/aws/smithy-go/traits"
)

// queryNamespace is the XML namespace of SQS's Query protocol responses.
const queryNamespace = "http://queue.amazonaws.com/doc/2012-11-05/"

// xmlWriter is a smithy.ShapeSerializer that writes the members of an SDK
// output struct as the Query protocol's XML: element names from the
// model's xmlName traits (Message, QueueUrl, Attribute, Tag, …), flattened
// lists and maps as the model marks them. Like [jsonWriter] it writes map
// entries in key order. The top-level struct writes no element of its
// own: the handler wraps the members in <OpResult>.
type xmlWriter struct {
	buf   []byte
	stack []xmlFrame
}

type xmlFrame struct {
	kind    byte   // 's'truct, 'l'ist, 'm'ap
	close   string // element closed with the frame, "" for none
	item    string // list: the items' element name
	entry   string // map: the entries' element name
	key     string // map: key and value element names
	value   string
	open    bool // map: an entry element is open
	base    int  // map: offset of the first entry
	entries []mapEntry
}

var _ smithy.ShapeSerializer = (*xmlWriter)(nil)

func (w *xmlWriter) reset() {
	w.buf = w.buf[:0]
	w.stack = w.stack[:0]
}

func (w *xmlWriter) Bytes() []byte { return w.buf }

// xmlName is the element name of member s.
func xmlName(s *smithy.Schema) string {
	if xn, ok := smithy.SchemaTrait[*traits.XMLName](s); ok {
		return xn.Name
	}
	return s.MemberName()
}

// elem returns the element name for the next value; "" at the top level.
func (w *xmlWriter) elem(s *smithy.Schema) string {
	if len(w.stack) == 0 {
		return ""
	}
	f := &w.stack[len(w.stack)-1]
	switch f.kind {
	case 'l':
		return f.item
	case 'm':
		return f.value
	}
	return xmlName(s)
}

func (w *xmlWriter) text(s *smithy.Schema, appendText func([]byte) []byte) {
	name := w.elem(s)
	w.buf = append(w.buf, '<')
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, '>')
	w.buf = appendText(w.buf)
	w.buf = append(w.buf, '<', '/')
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, '>')
}

func (w *xmlWriter) WriteInt8(s *smithy.Schema, v int8)   { w.WriteInt64(s, int64(v)) }
func (w *xmlWriter) WriteInt16(s *smithy.Schema, v int16) { w.WriteInt64(s, int64(v)) }
func (w *xmlWriter) WriteInt32(s *smithy.Schema, v int32) { w.WriteInt64(s, int64(v)) }

func (w *xmlWriter) WriteInt64(s *smithy.Schema, v int64) {
	w.text(s, func(b []byte) []byte { return strconv.AppendInt(b, v, 10) })
}

func (w *xmlWriter) WriteFloat32(s *smithy.Schema, v float32) { w.WriteFloat64(s, float64(v)) }

func (w *xmlWriter) WriteFloat64(s *smithy.Schema, v float64) {
	w.text(s, func(b []byte) []byte {
		switch {
		case math.IsNaN(v):
			return append(b, "NaN"...)
		case math.IsInf(v, 1):
			return append(b, "Infinity"...)
		case math.IsInf(v, -1):
			return append(b, "-Infinity"...)
		}
		return strconv.AppendFloat(b, v, 'g', -1, 64)
	})
}

func (w *xmlWriter) WriteBool(s *smithy.Schema, v bool) {
	w.text(s, func(b []byte) []byte { return strconv.AppendBool(b, v) })
}

func (w *xmlWriter) WriteString(s *smithy.Schema, v string) {
	w.text(s, func(b []byte) []byte { return appendXMLText(b, v) })
}

func (w *xmlWriter) WriteBigInt(s *smithy.Schema, v *big.Int) {
	w.text(s, func(b []byte) []byte { return v.Append(b, 10) })
}

func (w *xmlWriter) WriteBigFloat(s *smithy.Schema, v *big.Float) {
	w.text(s, func(b []byte) []byte { return v.Append(b, 'g', -1) })
}

func (w *xmlWriter) WriteBlob(s *smithy.Schema, v []byte) {
	w.text(s, func(b []byte) []byte { return base64.StdEncoding.AppendEncode(b, v) })
}

func (w *xmlWriter) WriteTime(s *smithy.Schema, v time.Time) {
	w.text(s, func(b []byte) []byte { return v.UTC().AppendFormat(b, "2006-01-02T15:04:05.999Z") })
}

func (w *xmlWriter) WriteUnion(s, _ *smithy.Schema) { w.WriteStruct(s) }
func (w *xmlWriter) CloseUnion()                    { w.CloseStruct() }

// WriteDocument writes nothing: SQS has no document members.
func (w *xmlWriter) WriteDocument(*smithy.Schema, document.Value) {}

func (w *xmlWriter) WriteNil(s *smithy.Schema) {
	if name := w.elem(s); name != "" {
		w.buf = append(w.buf, '<')
		w.buf = append(w.buf, name...)
		w.buf = append(w.buf, '/', '>')
	}
}

// open writes the start tag of name, if any, and pushes f closing it.
func (w *xmlWriter) open(name string, f xmlFrame) {
	if name != "" {
		w.buf = append(w.buf, '<')
		w.buf = append(w.buf, name...)
		w.buf = append(w.buf, '>')
		f.close = name
	}
	w.stack = append(w.stack, f)
}

func (w *xmlWriter) pop() {
	f := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	if f.close != "" {
		w.buf = append(w.buf, '<', '/')
		w.buf = append(w.buf, f.close...)
		w.buf = append(w.buf, '>')
	}
}

func (w *xmlWriter) WriteStruct(s *smithy.Schema) { w.open(w.elem(s), xmlFrame{kind: 's'}) }
func (w *xmlWriter) CloseStruct()                 { w.pop() }

func (w *xmlWriter) WriteList(s *smithy.Schema) {
	name := w.elem(s)
	if _, flat := smithy.SchemaTrait[*traits.XMLFlattened](s); flat {
		w.stack = append(w.stack, xmlFrame{kind: 'l', item: name})
		return
	}
	item := "member"
	if lm := s.ListMember(); lm != nil {
		if xn, ok := smithy.SchemaTrait[*traits.XMLName](lm); ok {
			item = xn.Name
		}
	}
	w.open(name, xmlFrame{kind: 'l', item: item})
}

func (w *xmlWriter) CloseList() { w.pop() }

func (w *xmlWriter) WriteMap(s *smithy.Schema) {
	name := w.elem(s)
	f := xmlFrame{kind: 'm', entry: "entry", key: "key", value: "value"}
	if mk := s.MapKey(); mk != nil {
		if xn, ok := smithy.SchemaTrait[*traits.XMLName](mk); ok {
			f.key = xn.Name
		}
	}
	if mv := s.MapValue(); mv != nil {
		if xn, ok := smithy.SchemaTrait[*traits.XMLName](mv); ok {
			f.value = xn.Name
		}
	}
	if _, flat := smithy.SchemaTrait[*traits.XMLFlattened](s); flat {
		f.entry = name
		name = ""
	}
	w.open(name, f)
	w.stack[len(w.stack)-1].base = len(w.buf)
}

// closeEntry ends the open entry of map frame f.
func (w *xmlWriter) closeEntry(f *xmlFrame) {
	if !f.open {
		return
	}
	w.buf = append(w.buf, '<', '/')
	w.buf = append(w.buf, f.entry...)
	w.buf = append(w.buf, '>')
	f.entries[len(f.entries)-1].end = len(w.buf)
	f.open = false
}

func (w *xmlWriter) WriteKey(_ *smithy.Schema, key string) {
	f := &w.stack[len(w.stack)-1]
	w.closeEntry(f)
	f.entries = append(f.entries, mapEntry{key: key, start: len(w.buf)})
	f.open = true
	w.buf = append(w.buf, '<')
	w.buf = append(w.buf, f.entry...)
	w.buf = append(w.buf, '>', '<')
	w.buf = append(w.buf, f.key...)
	w.buf = append(w.buf, '>')
	w.buf = appendXMLText(w.buf, key)
	w.buf = append(w.buf, '<', '/')
	w.buf = append(w.buf, f.key...)
	w.buf = append(w.buf, '>')
}

func (w *xmlWriter) CloseMap() {
	f := &w.stack[len(w.stack)-1]
	w.closeEntry(f)
	w.buf = sortEntries(w.buf, f.base, f.entries, "")
	w.pop()
}

// appendXMLText appends s as XML character data. Characters XML 1.0 cannot
// carry (controls other than tab, newline and carriage return; U+FFFE,
// U+FFFF; bytes that are not UTF-8) become U+FFFD; a carriage return is
// written as a reference so that parsers do not fold it into a newline.
func appendXMLText(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			var esc string
			switch {
			case c == '<':
				esc = "&lt;"
			case c == '>':
				esc = "&gt;"
			case c == '&':
				esc = "&amp;"
			case c == '\r':
				esc = "&#xD;"
			case c < 0x20 && c != '\t' && c != '\n':
				esc = "\uFFFD"
			default:
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, esc...)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == 0xFFFE || r == 0xFFFF {
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}
