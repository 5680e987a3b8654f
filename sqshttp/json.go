package sqshttp

import (
	"encoding/base64"
	"math"
	"reflect"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/sqsq/sqsq/internal/present"
)

// This file decodes AWS JSON 1.0 request bodies into the SDK's input
// structs. Members are matched by their exact, case-sensitive names (see
// [shape]); unknown members are skipped, null reads as absent, and any
// other mismatch — malformed JSON, a string where a number belongs, a
// fractional count — is a SerializationException, as AWS answers it.

// maxJSONDepth bounds the nesting of skipped values; the SQS model itself
// nests four levels at most.
const maxJSONDepth = 64

// decodeError is a request body that does not decode into the input shape.
type decodeError struct{ msg string }

func (e *decodeError) Error() string { return e.msg }

type jsonDecoder struct {
	data    []byte
	i       int
	zeros   present.Zeros // int32 members sent as an explicit 0
	scratch []byte        // unescaped keys
}

// decodeJSON decodes body into v, a pointer to an SDK input struct, and
// returns the int32 members the body sent as 0.
func decodeJSON(body []byte, v any) (present.Zeros, error) {
	rv := reflect.ValueOf(v).Elem()
	d := &jsonDecoder{data: body}
	d.ws()
	if d.i == len(d.data) {
		return nil, nil // an empty body is an empty input, as {} is
	}
	if err := d.object(rv, shapeOf(rv.Type())); err != nil {
		return nil, err
	}
	d.ws()
	if d.i != len(d.data) {
		return nil, d.errorf("unexpected data after the top-level object")
	}
	return d.zeros, nil
}

func (d *jsonDecoder) errorf(msg string) error {
	return &decodeError{msg: "Malformed JSON: " + msg + " at offset " + strconv.Itoa(d.i) + "."}
}

func (d *jsonDecoder) typeError(m *member, want string) error {
	return &decodeError{msg: "Invalid value for member " + m.json + ": expected " + want + "."}
}

func (d *jsonDecoder) ws() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) peek() byte {
	if d.i < len(d.data) {
		return d.data[d.i]
	}
	return 0
}

func (d *jsonDecoder) consume(c byte) bool {
	d.ws()
	if d.peek() == c {
		d.i++
		return true
	}
	return false
}

// literal consumes the keyword lit (true, false, null) if it is next.
func (d *jsonDecoder) literal(lit string) bool {
	if len(d.data)-d.i >= len(lit) && string(d.data[d.i:d.i+len(lit)]) == lit {
		d.i += len(lit)
		return true
	}
	return false
}

// object decodes a JSON object into the struct v of shape s.
func (d *jsonDecoder) object(v reflect.Value, s *shape) error {
	if !d.consume('{') {
		return d.errorf("expected an object")
	}
	if d.consume('}') {
		return nil
	}
	for {
		d.ws()
		key, err := d.stringBytes()
		if err != nil {
			return err
		}
		if !d.consume(':') {
			return d.errorf("expected ':'")
		}
		d.ws()
		if m := s.byJSON[string(key)]; m == nil {
			if err := d.skip(0); err != nil {
				return err
			}
		} else if !d.literal("null") {
			if err := d.value(v.Field(m.field), m.typ, m, true); err != nil {
				return err
			}
		}
		if d.consume(',') {
			continue
		}
		if d.consume('}') {
			return nil
		}
		return d.errorf("expected ',' or '}'")
	}
}

// value decodes the next value into v of type t; top tells that v is a
// member itself, not an item or a map value.
func (d *jsonDecoder) value(v reflect.Value, t reflect.Type, m *member, top bool) error {
	if d.i >= len(d.data) {
		return d.errorf("unexpected end of input")
	}
	switch t.Kind() {
	case reflect.Pointer:
		if d.literal("null") {
			return nil
		}
		p := reflect.New(t.Elem())
		if err := d.value(p.Elem(), t.Elem(), m, false); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.String:
		if d.literal("null") && !top {
			return nil
		}
		if d.peek() != '"' {
			return d.typeError(m, "a string")
		}
		s, err := d.string()
		if err != nil {
			return err
		}
		v.SetString(s)
		return nil
	case reflect.Int32, reflect.Int64:
		n, err := d.integer(m, t.Bits())
		if err != nil {
			return err
		}
		v.SetInt(n)
		if n == 0 && top && t.Kind() == reflect.Int32 {
			if d.zeros == nil {
				d.zeros = present.Zeros{}
			}
			d.zeros[(*int32)(unsafe.Pointer(v.UnsafeAddr()))] = struct{}{}
		}
		return nil
	case reflect.Bool:
		switch {
		case d.literal("true"):
			v.SetBool(true)
		case d.literal("false"):
			v.SetBool(false)
		default:
			return d.typeError(m, "a boolean")
		}
		return nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return d.blob(v, m)
		}
		return d.list(v, t, m)
	case reflect.Map:
		return d.mapValue(v, t, m)
	case reflect.Struct:
		if d.peek() != '{' {
			return d.typeError(m, "an object")
		}
		return d.object(v, m.elem)
	}
	return d.typeError(m, "a supported value")
}

func (d *jsonDecoder) blob(v reflect.Value, m *member) error {
	if d.peek() != '"' {
		return d.typeError(m, "a base64 string")
	}
	s, err := d.stringBytes()
	if err != nil {
		return err
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	if err != nil {
		return d.typeError(m, "a base64 string")
	}
	v.SetBytes(b[:n])
	return nil
}

func (d *jsonDecoder) list(v reflect.Value, t reflect.Type, m *member) error {
	if !d.consume('[') {
		return d.typeError(m, "a list")
	}
	out := reflect.MakeSlice(t, 0, 4)
	if !d.consume(']') {
		for {
			d.ws()
			if out.Len() == out.Cap() && len(d.zeros) > 0 {
				// Growing moves the items decoded so far: move the
				// explicit zeros recorded in them too.
				grown := reflect.AppendSlice(reflect.MakeSlice(t, 0, 2*out.Cap()), out)
				d.rebase(out.UnsafePointer(), grown.UnsafePointer(), uintptr(out.Len())*t.Elem().Size())
				out = grown
			}
			out = reflect.Append(out, reflect.Zero(t.Elem()))
			if !d.literal("null") {
				if err := d.value(out.Index(out.Len()-1), t.Elem(), m, false); err != nil {
					return err
				}
			}
			if d.consume(',') {
				continue
			}
			if d.consume(']') {
				break
			}
			return d.errorf("expected ',' or ']'")
		}
	}
	v.Set(out)
	return nil
}

// rebase moves the explicit zeros recorded in the size bytes at from to
// the same offsets at to.
func (d *jsonDecoder) rebase(from, to unsafe.Pointer, size uintptr) {
	var moved []*int32
	for p := range d.zeros {
		if off := uintptr(unsafe.Pointer(p)) - uintptr(from); off < size {
			moved = append(moved, p)
		}
	}
	for _, p := range moved {
		delete(d.zeros, p)
		d.zeros[(*int32)(unsafe.Add(to, uintptr(unsafe.Pointer(p))-uintptr(from)))] = struct{}{}
	}
}

func (d *jsonDecoder) mapValue(v reflect.Value, t reflect.Type, m *member) error {
	if !d.consume('{') {
		return d.typeError(m, "a map")
	}
	out := reflect.MakeMap(t)
	if !d.consume('}') {
		elem := reflect.New(t.Elem()).Elem()
		for {
			d.ws()
			if d.peek() != '"' {
				return d.errorf("expected a map key")
			}
			key, err := d.string()
			if err != nil {
				return err
			}
			if !d.consume(':') {
				return d.errorf("expected ':'")
			}
			d.ws()
			elem.SetZero()
			if !d.literal("null") {
				if err := d.value(elem, t.Elem(), m, false); err != nil {
					return err
				}
			}
			out.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), elem)
			if d.consume(',') {
				continue
			}
			if d.consume('}') {
				break
			}
			return d.errorf("expected ',' or '}'")
		}
	}
	v.Set(out)
	return nil
}

// integer reads a JSON number that is a whole number fitting bits.
func (d *jsonDecoder) integer(m *member, bits int) (int64, error) {
	start := d.i
	plain := true
	for d.i < len(d.data) {
		c := d.data[d.i]
		if c >= '0' && c <= '9' || c == '-' {
			d.i++
			continue
		}
		if c == '.' || c == 'e' || c == 'E' || c == '+' {
			plain = false
			d.i++
			continue
		}
		break
	}
	lit := unsafe.String(unsafe.SliceData(d.data[start:d.i]), d.i-start)
	if lit == "" {
		return 0, d.typeError(m, "an integer")
	}
	if plain {
		n, err := strconv.ParseInt(lit, 10, bits)
		if err != nil || (len(lit) > 1 && lit[0] == '0') || (len(lit) > 2 && lit[0] == '-' && lit[1] == '0') {
			return 0, d.typeError(m, "an integer of "+strconv.Itoa(bits)+" bits")
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if limit := math.Ldexp(1, bits-1); err != nil || f != math.Trunc(f) || f < -limit || f >= limit {
		return 0, d.typeError(m, "an integer of "+strconv.Itoa(bits)+" bits")
	}
	return int64(f), nil
}

// string reads a JSON string into a new Go string.
func (d *jsonDecoder) string() (string, error) {
	start := d.i + 1
	end, esc, err := d.scanString()
	if err != nil {
		return "", err
	}
	if !esc {
		return string(d.data[start:end]), nil
	}
	b, err := d.unescape(start, end, nil)
	return string(b), err
}

// stringBytes reads a JSON string; the bytes are valid until the next call.
func (d *jsonDecoder) stringBytes() ([]byte, error) {
	if d.peek() != '"' {
		return nil, d.errorf("expected a string")
	}
	start := d.i + 1
	end, esc, err := d.scanString()
	if err != nil {
		return nil, err
	}
	if !esc {
		return d.data[start:end], nil
	}
	d.scratch, err = d.unescape(start, end, d.scratch[:0])
	return d.scratch, err
}

// scanString moves past the string at d.i, returning the end of its
// contents and whether they hold escapes.
func (d *jsonDecoder) scanString() (end int, esc bool, err error) {
	i := d.i + 1
	for i < len(d.data) {
		c := d.data[i]
		switch {
		case c == '"':
			d.i = i + 1
			return i, esc, nil
		case c == '\\':
			esc = true
			i += 2
			continue
		case c < 0x20:
			d.i = i
			return 0, false, d.errorf("control character in a string")
		}
		i++
	}
	d.i = len(d.data)
	return 0, false, d.errorf("unterminated string")
}

// unescape appends the decoded contents data[start:end] to b. A lone
// surrogate escape becomes U+FFFD, as no UTF-8 string can hold it.
func (d *jsonDecoder) unescape(start, end int, b []byte) ([]byte, error) {
	s := d.data[start:end]
	if b == nil {
		b = make([]byte, 0, len(s))
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return nil, d.errorf("bad escape")
		}
		switch s[i+1] {
		case '"', '\\', '/':
			b = append(b, s[i+1])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(s[i+2:])
			if !ok {
				return nil, d.errorf("bad \\u escape")
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if len(s) >= i+6 && s[i] == '\\' && s[i+1] == 'u' {
					r2, ok = hex4(s[i+2:])
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
			continue
		default:
			return nil, d.errorf("bad escape")
		}
		i += 2
	}
	return b, nil
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// skip moves past one value of any type, checking that it is well formed.
func (d *jsonDecoder) skip(depth int) error {
	if depth > maxJSONDepth {
		return d.errorf("nesting too deep")
	}
	d.ws()
	switch c := d.peek(); {
	case c == '"':
		_, _, err := d.scanString()
		return err
	case c == '{':
		d.i++
		if d.consume('}') {
			return nil
		}
		for {
			d.ws()
			if _, err := d.stringBytes(); err != nil {
				return err
			}
			if !d.consume(':') {
				return d.errorf("expected ':'")
			}
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			if d.consume(',') {
				continue
			}
			if d.consume('}') {
				return nil
			}
			return d.errorf("expected ',' or '}'")
		}
	case c == '[':
		d.i++
		if d.consume(']') {
			return nil
		}
		for {
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			if d.consume(',') {
				continue
			}
			if d.consume(']') {
				return nil
			}
			return d.errorf("expected ',' or ']'")
		}
	case c == '-' || c >= '0' && c <= '9':
		start := d.i
		for d.i < len(d.data) && (d.data[d.i] >= '0' && d.data[d.i] <= '9' || d.data[d.i] == '-' ||
			d.data[d.i] == '+' || d.data[d.i] == '.' || d.data[d.i] == 'e' || d.data[d.i] == 'E') {
			d.i++
		}
		if _, err := strconv.ParseFloat(string(d.data[start:d.i]), 64); err != nil {
			return d.errorf("bad number")
		}
		return nil
	case d.literal("true"), d.literal("false"), d.literal("null"):
		return nil
	}
	return d.errorf("expected a value")
}
