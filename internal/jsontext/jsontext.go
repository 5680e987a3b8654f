// Package jsontext writes JSON strings by hand, for the encoders that
// stream their answers or write them without reflection: sqshttp's AWS JSON
// protocol and the console's listings.
package jsontext

import "unicode/utf8"

// AppendString appends s as a JSON string. Bytes that are not UTF-8
// become U+FFFD, so the document stays valid whatever a message echoes.
// There are no HTML escapes: these answers are read by programs, not as
// HTML.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	return append(AppendContent(b, s), '"')
}

// AppendContent appends the escaped content of s, without its quotes, as
// AppendString does: runs of plain bytes at once.
func AppendContent(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// Pieces calls write with the escaped content of s, without its quotes,
// in pieces of about size bytes of s, each cut at a rune's start, through
// buf, which it returns for reuse: a long string is written without a
// copy of it whole.
func Pieces(buf []byte, s string, size int, write func([]byte)) []byte {
	for len(s) > 0 {
		n := min(len(s), size)
		for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
			n-- // never split a rune, which would read as invalid UTF-8
		}
		for n == 0 || n < len(s) && !utf8.RuneStart(s[n]) {
			n++ // a piece smaller than the rune: the whole rune
		}
		buf = AppendContent(buf[:0], s[:n])
		write(buf)
		s = s[n:]
	}
	return buf[:0]
}
