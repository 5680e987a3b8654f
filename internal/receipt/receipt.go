// Package receipt encodes and decodes sqsq receipt handles.
//
// A handle names the queue instance, the message and the receive that issued
// it, so that a malformed handle, a handle of another queue and a stale
// handle can be told apart. Handles look like AWS's (base64 with an "AQEB"
// prefix) and carry a checksum so that random strings are rejected.
package receipt

import (
	"encoding/base64"
	"encoding/binary"
	"hash/fnv"
)

// Handle is the decoded content of a receipt handle.
type Handle struct {
	Queue  uint64 // broker-unique id of the queue instance
	Seq    uint64 // queue-unique sequence number of the message
	Slot   uint32 // where the queue keeps the message
	Serial uint32 // which receive of the message issued the handle (1 = first)
}

const (
	prefix  = "AQEB"
	version = 1
	rawLen  = 1 + 8 + 8 + 4 + 4 + 4
)

var enc = base64.RawURLEncoding

// MaxLen is the length of every handle Encode returns.
var MaxLen = len(prefix) + enc.EncodedLen(rawLen)

// Encode returns the handle's string form. It allocates only the result.
func Encode(h Handle) string {
	var raw [rawLen]byte
	raw[0] = version
	binary.BigEndian.PutUint64(raw[1:], h.Queue)
	binary.BigEndian.PutUint64(raw[9:], h.Seq)
	binary.BigEndian.PutUint32(raw[17:], h.Slot)
	binary.BigEndian.PutUint32(raw[21:], h.Serial)
	binary.BigEndian.PutUint32(raw[25:], checksum(raw[:25]))
	var out [4 + (rawLen*8+5)/6]byte
	copy(out[:], prefix)
	enc.Encode(out[len(prefix):], raw[:])
	return string(out[:])
}

// Decode parses s. ok is false for anything Encode did not produce.
func Decode(s string) (h Handle, ok bool) {
	if len(s) != MaxLen || s[:len(prefix)] != prefix {
		return Handle{}, false
	}
	var raw [rawLen]byte
	var src [4 + (rawLen*8+5)/6]byte
	copy(src[:], s)
	n, err := enc.Decode(raw[:], src[len(prefix):])
	if err != nil || n != rawLen || raw[0] != version {
		return Handle{}, false
	}
	if binary.BigEndian.Uint32(raw[25:]) != checksum(raw[:25]) {
		return Handle{}, false
	}
	return Handle{
		Queue:  binary.BigEndian.Uint64(raw[1:]),
		Seq:    binary.BigEndian.Uint64(raw[9:]),
		Slot:   binary.BigEndian.Uint32(raw[17:]),
		Serial: binary.BigEndian.Uint32(raw[21:]),
	}, true
}

func checksum(b []byte) uint32 {
	h := fnv.New32a()
	_, _ = h.Write(b)
	return h.Sum32()
}
