// Package receipt encodes and decodes sqsq receipt handles.
//
// A handle names the queue instance, the message and the receive that issued
// it, so that a malformed handle, a handle of another queue and a stale
// handle can be told apart. Handles look like AWS's (base64 with an "AQEB"
// prefix) and are signed with the issuing broker's secret [Key], so that a
// random string, an edited handle, a handle guessed from the layout and a
// handle of another broker are all rejected, as AWS rejects handles it never
// issued.
//
// A handle is valid only in the exact form Encode returned: the payload is a
// whole number of base64 groups (no unused bits in the last character) and
// Decode compares its input with the re-encoding, so no second spelling of a
// handle exists.
//
// The tag is SipHash-2-4 of the fields under the key, a PRF made for short
// inputs: on a 25-byte message it costs a quarter of one SHA-256 block and
// allocates nothing (crypto/hmac allocates five times per tag), which
// matters because every receive signs a handle and every delete checks one.
package receipt

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"math/bits"
)

// Handle is the decoded content of a receipt handle.
type Handle struct {
	Queue  uint64 // broker-unique id of the queue instance
	Seq    uint64 // queue-unique sequence number of the message
	Slot   uint32 // where the queue keeps the message
	Serial uint32 // which receive of the message issued the handle (1 = first)
}

const (
	prefix = "AQEB"
	// version 1 carried a 32-bit unkeyed checksum; its handles are invalid now.
	version = 2
	bodyLen = 1 + 8 + 8 + 4 + 4
	// tagLen makes rawLen a multiple of 3, so the base64 form has no unused
	// bits (which would give a handle several spellings). A guess of a
	// 64-bit tag succeeds once in 2^64 tries.
	tagLen = 8
	rawLen = bodyLen + tagLen
)

var enc = base64.RawURLEncoding

// MaxLen is the length of every handle Encode returns.
const MaxLen = len(prefix) + rawLen/3*4

// Key is the secret a broker signs its handles with: a 128-bit SipHash key.
// The zero Key is a valid, public key, for brokers whose ids are pinned.
type Key struct{ k0, k1 uint64 }

// NewKey returns a random key from crypto/rand.
func NewKey() Key {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails since Go 1.24
	return Key{binary.LittleEndian.Uint64(b[:]), binary.LittleEndian.Uint64(b[8:])}
}

// Halves returns the key's two 64-bit halves, so that a broker's state can
// be saved with its key and the handles it issued stay valid after a
// restart (see [FromHalves]).
func (k Key) Halves() [2]uint64 { return [2]uint64{k.k0, k.k1} }

// FromHalves is the key whose [Key.Halves] are h.
func FromHalves(h [2]uint64) Key { return Key{h[0], h[1]} }

// Encode returns the handle's string form. It allocates only the result.
func (k Key) Encode(h Handle) string {
	var raw [rawLen]byte
	raw[0] = version
	binary.BigEndian.PutUint64(raw[1:], h.Queue)
	binary.BigEndian.PutUint64(raw[9:], h.Seq)
	binary.BigEndian.PutUint32(raw[17:], h.Slot)
	binary.BigEndian.PutUint32(raw[21:], h.Serial)
	binary.BigEndian.PutUint64(raw[bodyLen:], k.tag(raw[:bodyLen]))
	var out [MaxLen]byte
	encodeRaw(&out, &raw)
	return string(out[:])
}

// Decode parses s. ok is false for anything Encode with this key did not
// produce: a malformed string, a non-canonical spelling, an edited or forged
// handle, or a handle signed with another key.
func (k Key) Decode(s string) (h Handle, ok bool) {
	if len(s) != MaxLen || s[:len(prefix)] != prefix {
		return Handle{}, false
	}
	// Only the exact encoding is a handle: the payload's length is a
	// multiple of 4, so every character's bits are used and, without
	// padding, each decoded string has one spelling. (Re-encoding to
	// compare cost a fifth of a decode.)
	var raw [rawLen]byte
	if !decodeRaw(&raw, s[len(prefix):]) || raw[0] != version {
		return Handle{}, false
	}
	if binary.BigEndian.Uint64(raw[bodyLen:]) != k.tag(raw[:bodyLen]) {
		return Handle{}, false
	}
	return Handle{
		Queue:  binary.BigEndian.Uint64(raw[1:]),
		Seq:    binary.BigEndian.Uint64(raw[9:]),
		Slot:   binary.BigEndian.Uint32(raw[17:]),
		Serial: binary.BigEndian.Uint32(raw[21:]),
	}, true
}

// tag is the MAC of a handle's fields.
func (k Key) tag(body []byte) uint64 { return sipHash24(k.k0, k.k1, body) }

// sipHash24 is SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast
// short-input PRF", 2012) of m under the key k0‖k1, read little-endian as
// in the reference implementation.
func sipHash24(k0, k1 uint64, m []byte) uint64 {
	v0 := k0 ^ 0x736f6d6570736575
	v1 := k1 ^ 0x646f72616e646f6d
	v2 := k0 ^ 0x6c7967656e657261
	v3 := k1 ^ 0x7465646279746573
	round := func() {
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13) ^ v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16) ^ v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21) ^ v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17) ^ v2
		v2 = bits.RotateLeft64(v2, 32)
	}
	n := len(m)
	for ; len(m) >= 8; m = m[8:] {
		w := binary.LittleEndian.Uint64(m)
		v3 ^= w
		round()
		round()
		v0 ^= w
	}
	w := uint64(n) << 56
	for i, c := range m {
		w |= uint64(c) << (8 * i)
	}
	v3 ^= w
	round()
	round()
	v0 ^= w
	v2 ^= 0xff
	round()
	round()
	round()
	round()
	return v0 ^ v1 ^ v2 ^ v3
}

// urlAlphabet is enc's, for decodeRaw.
const urlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// sextets maps a byte of urlAlphabet to its value and every other byte to
// 0xff.
var sextets = func() (m [256]byte) {
	for i := range m {
		m[i] = 0xff
	}
	for i := range len(urlAlphabet) {
		m[urlAlphabet[i]] = byte(i)
	}
	return m
}()

// decodeRaw decodes the base64 of a handle after its prefix as
// enc.Decode would, in two thirds of its instructions (every delete and
// visibility change pays it): rawLen is a multiple of 3, so every 4
// characters are 3 bytes and none are left over. enc.Decode also skips
// '\r' and '\n', but a payload of the right length with one skipped
// decodes to fewer than rawLen bytes, which Decode refused.
func decodeRaw(raw *[rawLen]byte, s string) bool {
	if len(s) != rawLen/3*4 {
		return false
	}
	var src [rawLen / 3 * 4]byte
	copy(src[:], s)
	for i := 0; i < rawLen/3; i++ {
		a, b, c, d := sextets[src[4*i]], sextets[src[4*i+1]], sextets[src[4*i+2]], sextets[src[4*i+3]]
		if (a|b|c|d)&0xc0 != 0 {
			return false
		}
		v := uint32(a)<<18 | uint32(b)<<12 | uint32(c)<<6 | uint32(d)
		raw[3*i], raw[3*i+1], raw[3*i+2] = byte(v>>16), byte(v>>8), byte(v)
	}
	return true
}

func encodeRaw(out *[MaxLen]byte, raw *[rawLen]byte) {
	copy(out[:], prefix)
	enc.Encode(out[len(prefix):], raw[:])
}
