package durable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"slices"
	"strconv"
	"strings"

	"github.com/sqsq/sqsq/internal/state"
)

// The record encoding: uvarints for counts and unsigned numbers, zigzag
// varints for times and other signed numbers, strings as a uvarint length
// and the bytes. A slice, map or []byte is preceded by its length plus one,
// 0 meaning nil, so a nil and an empty one read back as they were saved.
// Map entries are written in key order, so equal Worlds make equal files.
// Every value in the file ends with a CRC-32C (Castagnoli) of its key and
// the bytes before it, little-endian: bbolt checksums only its meta pages,
// and a flipped bit in a message must not load as a different message.

var crcTable = crc32.MakeTable(crc32.Castagnoli)

const crcSize = 4

// sealRecord appends the checksum of key and body to body.
func sealRecord(key, body []byte) []byte {
	sum := crc32.Update(crc32.Update(0, crcTable, key), crcTable, body)
	return binary.LittleEndian.AppendUint32(body, sum)
}

// openRecord checks the checksum at the end of v and returns the bytes
// before it.
func openRecord(key, v []byte) ([]byte, error) {
	if len(v) < crcSize {
		return nil, errors.New("record shorter than its checksum")
	}
	body := v[:len(v)-crcSize]
	sum := crc32.Update(crc32.Update(0, crcTable, key), crcTable, body)
	if sum != binary.LittleEndian.Uint32(v[len(v)-crcSize:]) {
		return nil, errors.New("checksum mismatch")
	}
	return body, nil
}

// enc appends the encoding of values to a byte slice.
type enc []byte

func (e *enc) uvarint(v uint64) { *e = binary.AppendUvarint(*e, v) }
func (e *enc) varint(v int64)   { *e = binary.AppendVarint(*e, v) }
func (e *enc) byte(v byte)      { *e = append(*e, v) }
func (e *enc) fixed64(v uint64) { *e = binary.BigEndian.AppendUint64(*e, v) }

func (e *enc) bool(v bool) {
	if v {
		e.byte(1)
	} else {
		e.byte(0)
	}
}

func (e *enc) str(s string) {
	e.uvarint(uint64(len(s)))
	*e = append(*e, s...)
}

// length writes n, or nil-ness.
func (e *enc) length(n int, isNil bool) {
	if isNil {
		e.uvarint(0)
		return
	}
	e.uvarint(uint64(n) + 1)
}

func (e *enc) bytes(b []byte) {
	e.length(len(b), b == nil)
	*e = append(*e, b...)
}

func (e *enc) strs(ss []string) {
	e.length(len(ss), ss == nil)
	for _, s := range ss {
		e.str(s)
	}
}

func (e *enc) strMap(m map[string]string) {
	e.length(len(m), m == nil)
	var buf [keysOnStack]string
	for _, k := range sortedKeys(buf[:0], m) {
		e.str(k)
		e.str(m[k])
	}
}

// counters writes cs as a map of names to numbers, as the first format
// did, in the order they come: Export's is the order of the names.
func (e *enc) counters(cs []state.Counter) {
	e.length(len(cs), cs == nil)
	for _, c := range cs {
		e.str(c.Name)
		e.varint(c.Value)
	}
}

// sortedKeys appends m's keys, in order, to buf[:0]. The journal encodes
// a queue's attributes and counters at nearly every call: with room in
// buf, on the caller's stack, that allocates nothing.
func sortedKeys[V any](buf []string, m map[string]V) []string {
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// keysOnStack is the room for map keys that sortedKeys' callers keep on
// their stack: a queue has some 20 attributes and 30 counters.
const keysOnStack = 40

// dec reads values from a record. The record is one string, so strings
// read from it share its memory: decoding a message costs one copy of its
// bytes, not one per field. The first error sticks; later reads return
// zero values.
type dec struct {
	s   string
	i   int
	err error
	// bodies, in a log's frames, are the messages' bodies the records
	// read so far hold (see logMessageAgain).
	bodies map[msgKey]string
}

var errTruncated = errors.New("truncated record")

func (d *dec) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.i = len(d.s)
}

func (d *dec) uvarint() uint64 {
	var x uint64
	for shift := uint(0); d.i < len(d.s); shift += 7 {
		c := d.s[d.i]
		d.i++
		if shift == 63 && c > 1 {
			d.fail(errors.New("varint overflows 64 bits"))
			return 0
		}
		if c < 0x80 {
			return x | uint64(c)<<shift
		}
		x |= uint64(c&0x7f) << shift
	}
	d.fail(errTruncated)
	return 0
}

func (d *dec) varint() int64 {
	u := d.uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

func (d *dec) uint32() uint32 {
	v := d.uvarint()
	if v > 1<<32-1 {
		d.fail(errors.New("value overflows 32 bits"))
		return 0
	}
	return uint32(v)
}

func (d *dec) byte() byte {
	if d.i >= len(d.s) {
		d.fail(errTruncated)
		return 0
	}
	d.i++
	return d.s[d.i-1]
}

func (d *dec) bool() bool {
	switch d.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail(errors.New("bad boolean"))
	return false
}

func (d *dec) fixed64() uint64 {
	if len(d.s)-d.i < 8 {
		d.fail(errTruncated)
		return 0
	}
	s := d.s[d.i : d.i+8]
	d.i += 8
	return uint64(s[7]) | uint64(s[6])<<8 | uint64(s[5])<<16 | uint64(s[4])<<24 |
		uint64(s[3])<<32 | uint64(s[2])<<40 | uint64(s[1])<<48 | uint64(s[0])<<56
}

// n reads a byte count and checks that many bytes remain.
func (d *dec) n(v uint64) int {
	if v > uint64(len(d.s)-d.i) {
		d.fail(errTruncated)
		return 0
	}
	return int(v)
}

func (d *dec) str() string {
	n := d.n(d.uvarint())
	s := d.s[d.i : d.i+n]
	d.i += n
	return s
}

// length reads a count written by [enc.length]. Every element takes at
// least one byte, so a count larger than what remains is damage, caught
// before it sizes an allocation.
func (d *dec) length() (n int, isNil bool) {
	v := d.uvarint()
	if v == 0 {
		return 0, true
	}
	return d.n(v - 1), false
}

func (d *dec) bytes() []byte {
	n, isNil := d.length()
	if isNil {
		return nil
	}
	b := []byte(d.s[d.i : d.i+n])
	d.i += n
	return b
}

func (d *dec) strs() []string {
	n, isNil := d.length()
	if isNil {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = d.str()
	}
	return ss
}

func (d *dec) strMap() map[string]string {
	n, isNil := d.length()
	if isNil {
		return nil
	}
	m := make(map[string]string, n)
	for range n {
		k := d.str()
		m[k] = d.str()
	}
	return m
}

// counters reads what e.counters wrote: a map of names to numbers.
func (d *dec) counters() []state.Counter {
	n, isNil := d.length()
	if isNil {
		return nil
	}
	cs := make([]state.Counter, n)
	for i := range cs {
		cs[i].Name = d.str()
		cs[i].Value = d.varint()
	}
	return cs
}

// done reports the first error, or bytes left over.
func (d *dec) done() error {
	if d.err == nil && d.i != len(d.s) {
		d.err = errors.New(strconv.Itoa(len(d.s)-d.i) + " bytes after the record")
	}
	return d.err
}

func key8(v uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), v) }

// scopeKey is the key of a scope's record: account NUL region, which
// sorts by account and then region, as World.Scopes does after its root.
func scopeKey(account, region string) []byte {
	return append(append(append(make([]byte, 0, len(account)+1+len(region)), account...), 0), region...)
}

// splitScopeKey is scopeKey's inverse.
func splitScopeKey(k []byte) (account, region string, ok bool) {
	a, r, ok := bytes.Cut(k, []byte{0})
	return string(a), string(r), ok
}

// keyString shows a key in an error: names as they are, ids, sequence
// numbers and indexes as numbers.
func keyString(k []byte) string {
	if isName(k) {
		return string(k)
	}
	switch len(k) {
	case 8:
		return strconv.FormatUint(binary.BigEndian.Uint64(k), 10)
	}
	return strconv.Quote(string(k))
}

func isName(k []byte) bool {
	for _, c := range k {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return len(k) > 0
}

// recordName names a record in an error: bucket path and key, such as
// messages/7/42 (queue id 7, Seq 42).
func recordName(path []string, key []byte) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteString(keyString([]byte(p)))
		b.WriteByte('/')
	}
	if a, r, ok := splitScopeKey(key); ok && len(path) == 1 && path[0] == bucketScopes {
		b.WriteString(strconv.Quote(a + "/" + r))
		return b.String()
	}
	b.WriteString(keyString(key))
	return b.String()
}
