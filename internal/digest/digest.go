// Package digest computes the MD5 digests SQS returns alongside messages:
// MD5OfMessageBody, MD5OfMessageAttributes and MD5OfMessageSystemAttributes.
//
// The attribute layout follows the SQS wire algorithm: attributes sorted by
// name, each encoded as length-prefixed name, length-prefixed data type, a
// one-byte transport type and a length-prefixed value, all fed to one MD5.
package digest

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
	"unsafe"
)

// Transport type bytes from the SQS attribute digest layout.
const (
	transportString byte = 0x01 // String and Number (and their custom subtypes)
	transportBinary byte = 0x02 // Binary
)

// Body returns the lower-case hex MD5 of body's UTF-8 bytes, the value SQS
// reports as MD5OfMessageBody and MD5OfBody. It allocates only the result.
func Body(body string) string {
	sum := md5.Sum(stringBytes(body))
	return hexString(&sum)
}

// Attribute is one message (or system) attribute as seen by the digest.
// When Binary is true the digest uses transport byte 0x02 and BinaryValue;
// otherwise it uses 0x01 and StringValue. DataType is the full type string,
// including any custom suffix such as "Number.float".
type Attribute struct {
	Name        string
	DataType    string
	StringValue string
	BinaryValue []byte
	Binary      bool
}

// maxStackAttrs covers SQS's limit of 10 message attributes with room to
// spare; longer lists sort a heap-allocated index instead.
const maxStackAttrs = 16

// Attributes returns the lower-case hex MD5 of attrs laid out as SQS does
// for MD5OfMessageAttributes and MD5OfMessageSystemAttributes: attributes
// ordered by Name (byte-wise, stable for equal names; AWS's Java sorts by
// UTF-16 code units, which differs only for names with characters above
// U+FFFF), each written as
// uint32 big-endian len(Name), Name, uint32 len(DataType), DataType, the
// transport byte, uint32 len(value), value. attrs itself is not modified.
// It returns "" when attrs is empty, since SQS omits the field then.
//
// For up to 16 attributes it allocates only the result.
func Attributes(attrs []Attribute) string {
	if len(attrs) == 0 {
		return ""
	}
	// Sort a permutation rather than a copy of the attributes: it fits on
	// the stack for any list SQS accepts.
	var stack [maxStackAttrs]int
	var order []int
	if len(attrs) <= maxStackAttrs {
		order = stack[:len(attrs)]
	} else {
		order = make([]int, len(attrs))
	}
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		return strings.Compare(attrs[i].Name, attrs[j].Name)
	})

	// md5.New is inlined here, so the writes below are devirtualized and
	// the hash state and prefix stay on the stack. Keep them in this body:
	// a helper taking hash.Hash would not inline and would force both to
	// the heap.
	h := md5.New()
	var prefix [5]byte // uint32 length, or transport byte + uint32 length
	for _, i := range order {
		a := &attrs[i]
		binary.BigEndian.PutUint32(prefix[:4], uint32(len(a.Name)))
		h.Write(prefix[:4])
		h.Write(stringBytes(a.Name))
		binary.BigEndian.PutUint32(prefix[:4], uint32(len(a.DataType)))
		h.Write(prefix[:4])
		h.Write(stringBytes(a.DataType))
		value := stringBytes(a.StringValue)
		prefix[0] = transportString
		if a.Binary {
			value = a.BinaryValue
			prefix[0] = transportBinary
		}
		binary.BigEndian.PutUint32(prefix[1:], uint32(len(value)))
		h.Write(prefix[:])
		h.Write(value)
	}
	var sum [md5.Size]byte
	h.Sum(sum[:0])
	return hexString(&sum)
}

// stringBytes views s as a byte slice without copying. Callers only read
// it (the hash functions never write to their input).
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// hexString lower-case hex encodes sum with a single allocation.
func hexString(sum *[md5.Size]byte) string {
	var out [2 * md5.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}
