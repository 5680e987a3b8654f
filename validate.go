package sqsq

import (
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits that the validators below enforce (sqs-semantics.md §1.1, §3.9, §5.5, §6.2).
const (
	maxQueueNameLen       = 80
	maxBatchEntryIDLen    = 80
	maxGroupOrDedupIDLen  = 128
	maxMessageAttributes  = 10
	maxAttributeNameLen   = 256 // characters, not bytes
	maxAttributeTypeLen   = 256 // characters, not bytes
	maxNumberSignificant  = 38
	minNumberExponent     = -128 // smallest non-zero magnitude is 10^-128
	maxNumberExponent     = 126  // largest magnitude is 10^126
	traceHeaderAttribute  = "AWSTraceHeader"
	fifoSuffix            = ".fifo"
	invalidCharactersText = "Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF"
	queueNameReason       = "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
	fifoQueueNameReason   = "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix. The queue name may be up to 80 characters."
	groupOrDedupIDReason  = " can only include alphanumeric and punctuation characters. 1 to 128 in length."
)

// validateBody checks that a message body holds only the characters SQS
// allows (§5.6); invalid UTF-8 is rejected too. It does not check for an
// empty body: the caller reports that as MissingParameter. It allocates
// nothing unless it fails.
func validateBody(body string) *Error {
	if validCharsString(body) {
		return nil
	}
	return newError(CodeInvalidMessageContents, invalidCharactersText)
}

// load64 reads s[i:i+8] little-endian; the compiler makes it one load.
func load64(s string, i int) uint64 {
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// validCharsString reports whether s is valid UTF-8 made only of the code
// points #x9 | #xA | #xD | #x20–#xD7FF | #xE000–#xFFFD | #x10000–#x10FFFF.
// It runs on every send, so it checks eight printable ASCII bytes at a time
// and decodes runes only where it meets anything else.
func validCharsString(s string) bool {
	const (
		highBits = 0x8080808080808080
		// Adding 0x60 to a byte below 0x80 sets its high bit exactly when
		// the byte is >= 0x20, and cannot carry into the next byte.
		add20 = 0x6060606060606060
	)
	i := 0
	// 32 bytes a pass while they are all printable ASCII: with no high bit
	// set the additions cannot carry, so the words can be checked together.
	for len(s)-i >= 32 {
		w0, w1, w2, w3 := load64(s, i), load64(s, i+8), load64(s, i+16), load64(s, i+24)
		if (w0|w1|w2|w3)&highBits != 0 || (w0+add20)&(w1+add20)&(w2+add20)&(w3+add20)&highBits != highBits {
			break
		}
		i += 32
	}
	for i < len(s) {
		if len(s)-i >= 8 {
			w := load64(s, i)
			if w&highBits == 0 && (w+add20)&highBits == highBits {
				i += 8
				continue
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		// A valid non-ASCII rune takes at least two bytes, so size 1 means
		// invalid UTF-8 (a literal U+FFFD decodes with size 3). The decoder
		// never yields surrogates or code points above U+10FFFF.
		if size == 1 || (r > 0xD7FF && r < 0xE000) || r == 0xFFFE || r == 0xFFFF {
			return false
		}
		i += size
	}
	return true
}

// validateMessageAttributes checks user message attributes against §5.5. It
// checks the names in sorted order so the first error reported does not
// depend on map iteration. Every failure is InvalidParameterValue.
func validateMessageAttributes(attrs map[string]MessageAttribute) *Error {
	if len(attrs) == 0 {
		return nil
	}
	if len(attrs) > maxMessageAttributes {
		return newError(CodeInvalidParameterValue,
			"Number of message attributes [%d] exceeds the allowed maximum [%d].", len(attrs), maxMessageAttributes)
	}
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		if err := validateMessageAttribute(name, attrs[name]); err != nil {
			return err
		}
	}
	return nil
}

// validateMessageAttribute checks one user attribute: name, then data type,
// then value.
func validateMessageAttribute(name string, a MessageAttribute) *Error {
	if !validAttributeName(name) {
		return newError(CodeInvalidParameterValue, "Message (user) attribute name '%s' is invalid.", name)
	}
	if a.DataType == "" {
		return newError(CodeInvalidParameterValue,
			"Message (user) attribute '%s' must contain a non-empty message attribute type.", name)
	}
	if utf8.RuneCountInString(a.DataType) > maxAttributeTypeLen {
		return newError(CodeInvalidParameterValue,
			"Message (user) attribute '%s' type must be at most %d characters long.", name, maxAttributeTypeLen)
	}
	base, ok := attributeBaseType(a.DataType)
	if !ok {
		return newError(CodeInvalidParameterValue,
			"The type of message (user) attribute '%s' is invalid. You must use only the following supported type prefixes: Binary, Number, String.", name)
	}
	switch base {
	case "Binary":
		if len(a.BinaryValue) == 0 {
			return newError(CodeInvalidParameterValue,
				"Message (user) attribute '%s' must contain a non-empty value of type 'Binary'.", name)
		}
		if a.StringValue != "" {
			return newError(CodeInvalidParameterValue,
				"Message (user) attribute '%s' of type 'Binary' must not contain a string value.", name)
		}
	default: // String, Number
		if a.StringValue == "" {
			return newError(CodeInvalidParameterValue,
				"Message (user) attribute '%s' must contain a non-empty value of type '%s'.", name, base)
		}
		if len(a.BinaryValue) != 0 {
			return newError(CodeInvalidParameterValue,
				"Message (user) attribute '%s' of type '%s' must not contain a binary value.", name, base)
		}
		if !validCharsString(a.StringValue) {
			return newError(CodeInvalidParameterValue,
				"Message (user) attribute '%s' contains invalid characters. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF", name)
		}
		if base == "Number" && !validateNumber(a.StringValue) {
			return newError(CodeInvalidParameterValue,
				"Can't cast the value of message (user) attribute '%s' to a number.", name)
		}
	}
	return nil
}

// validAttributeName reports whether name is a legal user attribute name:
// 1–256 letters (any Unicode letter, as AWS accepts ø ß ä), digits, '_',
// '-' and '.'; no "AWS." or "Amazon." prefix in any case; no leading or
// trailing '.'; no "..".
func validAttributeName(name string) bool {
	if name == "" || utf8.RuneCountInString(name) > maxAttributeNameLen {
		return false
	}
	if hasPrefixASCIIFold(name, "aws.") || hasPrefixASCIIFold(name, "amazon.") {
		return false
	}
	if name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
		return false
	}
	for _, r := range name { // invalid UTF-8 reads as U+FFFD, which is no letter
		if r != '_' && r != '-' && r != '.' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// hasPrefixASCIIFold reports whether s starts with the lower-case ASCII
// prefix, ignoring ASCII case. Unlike strings.EqualFold it does not fold
// look-alikes such as the Kelvin sign, which AWS's check would not either.
func hasPrefixASCIIFold(s, lowerPrefix string) bool {
	if len(s) < len(lowerPrefix) {
		return false
	}
	for i := 0; i < len(lowerPrefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lowerPrefix[i] {
			return false
		}
	}
	return true
}

// attributeBaseType splits a data type such as "Number.float" and returns
// its base type. The base is case-sensitive; a label, if present, must be
// non-empty and made of allowed characters.
func attributeBaseType(dataType string) (string, bool) {
	base, label, hasLabel := strings.Cut(dataType, ".")
	switch base {
	case "String", "Number", "Binary":
	default:
		return "", false
	}
	if hasLabel && (label == "" || !validCharsString(label)) {
		return "", false
	}
	return base, true
}

// validateNumber reports whether s is a number SQS accepts for a Number
// attribute: an optional sign, digits with an optional fraction (".5" and
// "5." as in Java's BigDecimal), an optional exponent, at most 38
// significant digits (leading and trailing zeros do not count), and a
// magnitude of zero or within 10^-128 … 10^126. No spaces, NaN or Infinity.
func validateNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intStart := i
	for i < len(s) && isASCIIDigit(s[i]) {
		i++
	}
	intDigits := s[intStart:i]
	fracDigits := ""
	if i < len(s) && s[i] == '.' {
		i++
		fracStart := i
		for i < len(s) && isASCIIDigit(s[i]) {
			i++
		}
		fracDigits = s[fracStart:i]
	}
	if intDigits == "" && fracDigits == "" {
		return false
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		neg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			neg = s[i] == '-'
			i++
		}
		expStart := i
		// Saturate well beyond anything the mantissa's length could offset,
		// so a huge exponent stays out of range without overflowing.
		limit := len(s) + 1024
		for i < len(s) && isASCIIDigit(s[i]) {
			if exp < limit {
				exp = exp*10 + int(s[i]-'0')
			}
			i++
		}
		if i == expStart {
			return false
		}
		if neg {
			exp = -exp
		}
	}
	if i != len(s) {
		return false
	}

	// Positions index the concatenated digits intDigits+fracDigits.
	digit := func(k int) byte {
		if k < len(intDigits) {
			return intDigits[k]
		}
		return fracDigits[k-len(intDigits)]
	}
	n := len(intDigits) + len(fracDigits)
	first := 0
	for first < n && digit(first) == '0' {
		first++
	}
	if first == n {
		return true // zero, whatever its exponent
	}
	last := n - 1
	for digit(last) == '0' {
		last--
	}
	significant := last - first + 1
	if significant > maxNumberSignificant {
		return false
	}
	// The value is d.ddd × 10^e with d the first non-zero digit.
	e := len(intDigits) - 1 - first + exp
	switch {
	case e < minNumberExponent, e > maxNumberExponent:
		return false
	case e == maxNumberExponent:
		return significant == 1 && digit(first) == '1' // exactly 10^126
	}
	return true
}

func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }

// validateSystemAttributes checks message system attributes (§5.4): only
// AWSTraceHeader exists, with DataType exactly "String" and a non-empty
// value of allowed characters. Every failure is InvalidParameterValue.
func validateSystemAttributes(attrs map[string]MessageAttribute) *Error {
	if len(attrs) == 0 {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		a := attrs[name]
		switch {
		case name != traceHeaderAttribute:
			return newError(CodeInvalidParameterValue, "Message system attribute name '%s' is invalid.", name)
		case a.DataType != "String":
			return newError(CodeInvalidParameterValue,
				"The type of message system attribute '%s' is invalid. Must be 'String'.", name)
		case a.StringValue == "":
			return newError(CodeInvalidParameterValue,
				"Message system attribute '%s' must contain a non-empty value of type 'String'.", name)
		case len(a.BinaryValue) != 0:
			return newError(CodeInvalidParameterValue,
				"Message system attribute '%s' of type 'String' must not contain a binary value.", name)
		case !validCharsString(a.StringValue):
			return newError(CodeInvalidParameterValue,
				"Message system attribute '%s' contains invalid characters. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF", name)
		}
	}
	return nil
}

// attributesSize is the number of bytes message attributes add to a
// message's size (§5.7): name, data type and value of each, in UTF-8 bytes
// (raw length for binary values).
func attributesSize(attrs map[string]MessageAttribute) int {
	n := 0
	for name, a := range attrs {
		n += len(name) + len(a.DataType) + len(a.StringValue) + len(a.BinaryValue)
	}
	return n
}

// messageSize is a message's size as SQS counts it against
// MaximumMessageSize and the batch limit: body bytes plus attribute bytes.
// System attributes do not count.
func messageSize(body string, attrs map[string]MessageAttribute) int {
	return len(body) + attributesSize(attrs)
}

// validateGroupOrDedupID checks a MessageGroupId or MessageDeduplicationId
// (param names which): 1–128 ASCII letters, digits and punctuation.
func validateGroupOrDedupID(param, v string) *Error {
	ok := v != "" && len(v) <= maxGroupOrDedupIDLen
	for i := 0; ok && i < len(v); i++ {
		c := v[i]
		ok = isIDChar(c) || isASCIIPunct(c)
	}
	if ok {
		return nil
	}
	return invalidValue(param, v, param+groupOrDedupIDReason)
}

// isASCIIPunct reports whether c is one of !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~.
func isASCIIPunct(c byte) bool {
	return ('!' <= c && c <= '/') || (':' <= c && c <= '@') || ('[' <= c && c <= '`') || ('{' <= c && c <= '~')
}

// isIDChar reports whether c is in [A-Za-z0-9_-], the alphabet of queue
// names and batch entry IDs.
func isIDChar(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || isASCIIDigit(c) || c == '_' || c == '-'
}

// allIDChars reports whether s is non-empty and made only of [A-Za-z0-9_-].
func allIDChars(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIDChar(s[i]) {
			return false
		}
	}
	return true
}

// validBatchEntryID reports whether id is a legal batch entry Id: 1–80
// characters of [A-Za-z0-9_-].
func validBatchEntryID(id string) bool {
	return len(id) <= maxBatchEntryIDLen && allIDChars(id)
}

// validateQueueName checks a queue name (§1.1): 1–80 characters of
// [A-Za-z0-9_-], plus a ".fifo" suffix (counted in the 80) exactly when
// fifo is true. Failures are InvalidParameterValue.
func validateQueueName(name string, fifo bool) *Error {
	base, hasSuffix := strings.CutSuffix(name, fifoSuffix)
	if fifo {
		if !hasSuffix || len(name) > maxQueueNameLen || !allIDChars(base) {
			return newError(CodeInvalidParameterValue, fifoQueueNameReason)
		}
		return nil
	}
	// A standard queue's name cannot end in ".fifo": '.' is not in the alphabet.
	if len(name) > maxQueueNameLen || !allIDChars(name) {
		return newError(CodeInvalidParameterValue, queueNameReason)
	}
	return nil
}
