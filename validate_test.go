package sqsq

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkErr fails unless got has wantCode (nil when wantCode is "") and, when
// wantMsg is not empty, exactly that message.
func checkErr(t *testing.T, reason string, got *Error, wantCode Code, wantMsg string) {
	t.Helper()
	switch {
	case wantCode == "" && got != nil:
		t.Errorf("got error %v, want nil\nreason: %s", got, reason)
	case wantCode != "" && got == nil:
		t.Errorf("got nil, want %s error\nreason: %s", wantCode, reason)
	case got == nil:
	case got.Code != wantCode:
		t.Errorf("got code %s (%q), want %s\nreason: %s", got.Code, got.Message, wantCode, reason)
	case got.Receiver:
		t.Errorf("got a receiver fault, want a sender fault\nreason: %s", reason)
	case wantMsg != "" && got.Message != wantMsg:
		t.Errorf("got message\n\t%q\nwant\n\t%q\nreason: %s", got.Message, wantMsg, reason)
	}
}

// charCases drive both validateBody and validCharsString: they apply the
// same character rule (§5.6).
var charCases = []struct {
	reason string
	s      string
	ok     bool
}{
	{"plain ASCII is allowed", "hello, world", true},
	{"tab, LF and CR are the allowed control characters", "a\tb\nc\r\n", true},
	{"space is the first allowed ASCII character (#x20)", " ", true},
	{"DEL (U+007F) lies inside #x20–#xD7FF", "\x7f", true},
	{"JSON and markup pass through", `{"a":"&quot;<b>"}`, true},
	{"U+0000 is below #x20", "\x00", false},
	{"U+0008 is below #x20", "\x08", false},
	{"U+0013 is below #x20", "\x13", false},
	{"U+001F is the last character below #x20", "\x1f", false},
	{"Latin-1 letters are allowed", "é ø ß ä", true},
	{"U+D7FF is the top of the first range", "\uD7FF", true},
	{"U+E000 is the bottom of the second range", "\uE000", true},
	{"a literal U+FFFD is allowed even though it is the decoder's error rune", "\uFFFD", true},
	{"U+FFFE is outside #xE000–#xFFFD", "\uFFFE", false},
	{"U+FFFF is outside #xE000–#xFFFD", "\uFFFF", false},
	{"U+10000 is the bottom of the supplementary range", "\U00010000", true},
	{"U+10FFFF is the last code point", "\U0010FFFF", true},
	{"emoji are supplementary characters", "🙂 ok", true},
	{"a lone 0xFF byte is invalid UTF-8", "\xff", false},
	{"a truncated two-byte sequence is invalid UTF-8", "ab\xc3", false},
	{"an encoded surrogate (U+D800) is invalid UTF-8", "\xed\xa0\x80", false},
	{"an overlong encoding of '/' is invalid UTF-8", "\xc0\xaf", false},
	{"a code point above U+10FFFF is invalid UTF-8", "\xf4\x90\x80\x80", false},
	{"a long ASCII run goes through the eight-byte fast path", strings.Repeat("abcdefgh", 33), true},
	{"a bad byte after several fast-path words is found", strings.Repeat("a", 17) + "\x00" + "a", false},
	{"a bad byte inside an eight-byte word is found", "abcdefg\x01abcdefgh", false},
	{"a bad byte in the last byte of a word is found", "abcdefg\x00", false},
	{"U+001F inside a word is found (the fast path's lower bound)", "abc\x1fdefgh", false},
	{"spaces and DEL inside a word take the fast path", "a b\x7fc d e", true},
	{"a non-ASCII byte inside a word leaves the fast path", "abcé" + "defgh", true},
	{"a bad byte in the tail after the last full word is found", "abcdefgh\x02", false},
	{"newlines in the middle of words fall back and resume", "abc\ndefghijklmn\topqrstuvwxyz", true},
	{"multi-byte runes between ASCII words are decoded", "abcdefghé" + strings.Repeat("x", 16) + "ø", true},
	{"U+FFFF after a fast-path word is found", "abcdefgh\uFFFF", false},
	{"invalid UTF-8 after a fast-path word is found", "abcdefgh\xe2\x82", false},
}

func TestValidateBody(t *testing.T) {
	t.Parallel()
	const msg = "Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF"
	for _, tc := range charCases {
		var wantCode Code
		if !tc.ok {
			wantCode = CodeInvalidMessageContents
		}
		checkErr(t, fmt.Sprintf("%s (body %q)", tc.reason, tc.s), validateBody(tc.s), wantCode, msg)
	}
}

func TestValidCharsString(t *testing.T) {
	t.Parallel()
	for _, tc := range charCases {
		if got := validCharsString(tc.s); got != tc.ok {
			t.Errorf("validCharsString(%q) = %v, want %v\nreason: %s", tc.s, got, tc.ok, tc.reason)
		}
	}
}

// TestValidateBodyAllocs is not parallel: testing.AllocsPerRun panics while
// parallel tests run.
func TestValidateBodyAllocs(t *testing.T) {
	body := strings.Repeat("0123456789abcdef", 64) // 1 KiB of ASCII
	if n := testing.AllocsPerRun(100, func() {
		if validateBody(body) != nil {
			t.Fatal("valid body rejected")
		}
	}); n != 0 {
		t.Errorf("validateBody on a valid 1 KiB body allocates %v times per call, want 0", n)
	}
}

func BenchmarkValidateBody(b *testing.B) {
	body := strings.Repeat("0123456789abcdef", 64) // 1 KiB of ASCII
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		if validateBody(body) != nil {
			b.Fatal("valid body rejected")
		}
	}
}

// refValidChars is a deliberately naive statement of §5.6.
func refValidChars(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return false // invalid UTF-8
		}
		switch {
		case r == 0x9, r == 0xA, r == 0xD:
		case 0x20 <= r && r <= 0xD7FF:
		case 0xE000 <= r && r <= 0xFFFD:
		case 0x10000 <= r && r <= 0x10FFFF:
		default:
			return false
		}
		i += size
	}
	return true
}

func FuzzValidateBody(f *testing.F) {
	for _, tc := range charCases {
		f.Add(tc.s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := validateBody(s)
		if want := refValidChars(s); (err == nil) != want {
			t.Fatalf("validateBody(%q) = %v, reference says valid=%v", s, err, want)
		}
		if err != nil && err.Code != CodeInvalidMessageContents {
			t.Fatalf("validateBody(%q) code = %s, want %s", s, err.Code, CodeInvalidMessageContents)
		}
		if got := validCharsString(s); got != (err == nil) {
			t.Fatalf("validCharsString(%q) = %v disagrees with validateBody", s, got)
		}
	})
}

func strAttr(v string) MessageAttribute { return MessageAttribute{DataType: "String", StringValue: v} }

// nAttrs returns n valid String attributes named a0, a1, ….
func nAttrs(n int) map[string]MessageAttribute {
	m := make(map[string]MessageAttribute, n)
	for i := range n {
		m[fmt.Sprintf("a%d", i)] = strAttr("v")
	}
	return m
}

func TestValidateMessageAttributes(t *testing.T) {
	t.Parallel()
	const charsMsg = "Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF"
	badName := func(name string) string { return fmt.Sprintf("Message (user) attribute name '%s' is invalid.", name) }
	badType := func(name string) string {
		return fmt.Sprintf("The type of message (user) attribute '%s' is invalid. You must use only the following supported type prefixes: Binary, Number, String.", name)
	}
	emptyValue := func(name, typ string) string {
		return fmt.Sprintf("Message (user) attribute '%s' must contain a non-empty value of type '%s'.", name, typ)
	}
	notNumber := func(name string) string {
		return fmt.Sprintf("Can't cast the value of message (user) attribute '%s' to a number.", name)
	}
	one := func(name string, a MessageAttribute) map[string]MessageAttribute {
		return map[string]MessageAttribute{name: a}
	}
	const ipv = CodeInvalidParameterValue
	tests := []struct {
		reason   string
		attrs    map[string]MessageAttribute
		wantCode Code // "" for success
		wantMsg  string
	}{
		{"no attributes at all is fine", nil, "", ""},
		{"an empty map is fine", map[string]MessageAttribute{}, "", ""},
		{"10 attributes is the maximum", nAttrs(10), "", ""},
		{"11 attributes exceed the maximum", nAttrs(11), ipv, "Number of message attributes [11] exceeds the allowed maximum [10]."},

		// Names.
		{"a one-letter name is fine", one("a", strAttr("x")), "", ""},
		{"AWS accepts Latin-1 letters, digits and dots", one("attr.1øßä", strAttr("x")), "", ""},
		{"underscore, hyphen and inner dots are allowed", one("A_b-c.d", strAttr("x")), "", ""},
		{"names may be all digits", one("123", strAttr("x")), "", ""},
		{"256 characters is the maximum name length", one(strings.Repeat("a", 256), strAttr("x")), "", ""},
		{"the name limit counts characters, not bytes", one(strings.Repeat("ø", 256), strAttr("x")), "", ""},
		{"257 characters is too long", one(strings.Repeat("a", 257), strAttr("x")), ipv, badName(strings.Repeat("a", 257))},
		{"the empty name is invalid", one("", strAttr("x")), ipv, badName("")},
		{"the AWS. prefix is reserved in any case", one("aWs.x", strAttr("x")), ipv, badName("aWs.x")},
		{"the AWS. prefix is reserved", one("AWS.x", strAttr("x")), ipv, badName("AWS.x")},
		{"the Amazon. prefix is reserved in any case", one("AMAZON.x", strAttr("x")), ipv, badName("AMAZON.x")},
		{"the Amazon. prefix is reserved in lower case", one("amazon.x", strAttr("x")), ipv, badName("amazon.x")},
		{"AWS without the dot is an ordinary name", one("AWSx", strAttr("x")), "", ""},
		{"Amazon without the dot is an ordinary name", one("amazonx", strAttr("x")), "", ""},
		{"a name cannot start with a dot", one(".x", strAttr("x")), ipv, badName(".x")},
		{"a name cannot end with a dot", one("x.", strAttr("x")), ipv, badName("x.")},
		{"a name cannot contain two dots in a row", one("a..b", strAttr("x")), ipv, badName("a..b")},
		{"'!' is not allowed in names", one("a!b", strAttr("x")), ipv, badName("a!b")},
		{"'\"' is not allowed in names", one(`a"b`, strAttr("x")), ipv, badName(`a"b`)},
		{"'§' is not a letter", one("a§b", strAttr("x")), ipv, badName("a§b")},
		{"'(' is not allowed in names", one("a(b", strAttr("x")), ipv, badName("a(b")},
		{"'?' is not allowed in names", one("a?b", strAttr("x")), ipv, badName("a?b")},
		{"spaces are not allowed in names", one("a b", strAttr("x")), ipv, badName("a b")},
		{"slashes are not allowed in names", one("a/b", strAttr("x")), ipv, badName("a/b")},
		{"invalid UTF-8 in a name is rejected", one("a\xffb", strAttr("x")), ipv, ""},

		// Data types.
		{"String is a type", one("k", MessageAttribute{DataType: "String", StringValue: "x"}), "", ""},
		{"a custom label follows a dot", one("k", MessageAttribute{DataType: "String.json", StringValue: "{}"}), "", ""},
		{"Number.float is a labelled Number", one("k", MessageAttribute{DataType: "Number.float", StringValue: "1.5"}), "", ""},
		{"Binary.gif is a labelled Binary", one("k", MessageAttribute{DataType: "Binary.gif", BinaryValue: []byte{1}}), "", ""},
		{"a label may itself contain dots", one("k", MessageAttribute{DataType: "Number.float.x", StringValue: "1"}), "", ""},
		{"type prefixes are case-sensitive", one("k", MessageAttribute{DataType: "string", StringValue: "x"}), ipv, badType("k")},
		{"upper-case prefixes are wrong too", one("k", MessageAttribute{DataType: "STRING", StringValue: "x"}), ipv, badType("k")},
		{"a prefix must be a whole type name", one("k", MessageAttribute{DataType: "Strings", StringValue: "x"}), ipv, badType("k")},
		{"a truncated type is unknown", one("k", MessageAttribute{DataType: "Str", StringValue: "x"}), ipv, badType("k")},
		{"a dot needs a label after it", one("k", MessageAttribute{DataType: "String.", StringValue: "x"}), ipv, badType("k")},
		{"a label cannot hold disallowed characters", one("k", MessageAttribute{DataType: "String.\x00", StringValue: "x"}), ipv, badType("k")},
		{"the data type is required", one("k", MessageAttribute{StringValue: "x"}), ipv, "Message (user) attribute 'k' must contain a non-empty message attribute type."},
		{"a 256-character data type is the maximum", one("k", MessageAttribute{DataType: "String." + strings.Repeat("x", 249), StringValue: "x"}), "", ""},
		{"a 257-character data type is too long", one("k", MessageAttribute{DataType: "String." + strings.Repeat("x", 250), StringValue: "x"}), ipv, "Message (user) attribute 'k' type must be at most 256 characters long."},

		// Values.
		{"String needs a non-empty value", one("k", strAttr("")), ipv, emptyValue("k", "String")},
		{"Number needs a non-empty value", one("k", MessageAttribute{DataType: "Number"}), ipv, emptyValue("k", "Number")},
		{"a labelled Number is still reported as Number", one("k", MessageAttribute{DataType: "Number.int"}), ipv, emptyValue("k", "Number")},
		{"Binary needs a non-empty value", one("k", MessageAttribute{DataType: "Binary"}), ipv, emptyValue("k", "Binary")},
		{"an empty but non-nil binary value is empty", one("k", MessageAttribute{DataType: "Binary", BinaryValue: []byte{}}), ipv, emptyValue("k", "Binary")},
		{"binary values are arbitrary bytes", one("k", MessageAttribute{DataType: "Binary", BinaryValue: []byte{0, 0xff}}), "", ""},
		{"U+0000 in a string value is InvalidParameterValue, not InvalidMessageContents", one("k", strAttr("a\x00")), ipv, "Message (user) attribute 'k' contains invalid characters. " + charsMsg},
		{"U+FFFF in a string value is rejected", one("k", strAttr("\uFFFF")), ipv, ""},
		{"invalid UTF-8 in a string value is rejected", one("k", strAttr("\xff")), ipv, ""},
		{"supplementary characters are fine in string values", one("k", strAttr("\U00010000")), "", ""},
		{"U+0008 in a Number value is a character error", one("k", MessageAttribute{DataType: "Number", StringValue: "1\x08"}), ipv, "Message (user) attribute 'k' contains invalid characters. " + charsMsg},
		{"a Number value must be numeric", one("k", MessageAttribute{DataType: "Number", StringValue: "abc"}), ipv, notNumber("k")},
		{"a Number value must be in range", one("k", MessageAttribute{DataType: "Number.big", StringValue: "1e127"}), ipv, notNumber("k")},
		{"a decimal Number value is fine", one("k", MessageAttribute{DataType: "Number", StringValue: "-12.5e3"}), "", ""},
		{"a Binary attribute cannot carry a string value", one("k", MessageAttribute{DataType: "Binary", BinaryValue: []byte{1}, StringValue: "x"}), ipv, "Message (user) attribute 'k' of type 'Binary' must not contain a string value."},
		{"a String attribute cannot carry a binary value", one("k", MessageAttribute{DataType: "String", StringValue: "x", BinaryValue: []byte{1}}), ipv, "Message (user) attribute 'k' of type 'String' must not contain a binary value."},
		{"a Number attribute cannot carry a binary value", one("k", MessageAttribute{DataType: "Number", StringValue: "1", BinaryValue: []byte{1}}), ipv, "Message (user) attribute 'k' of type 'Number' must not contain a binary value."},

		// Order.
		{"names are checked in sorted order", map[string]MessageAttribute{
			"z":  {DataType: "bogus", StringValue: "x"},
			"m":  strAttr(""),
			"A!": strAttr("x"),
		}, ipv, badName("A!")},
		{"the count is checked before any name", func() map[string]MessageAttribute {
			m := nAttrs(10)
			m["AWS.bad"] = strAttr("")
			return m
		}(), ipv, "Number of message attributes [11] exceeds the allowed maximum [10]."},
	}
	for _, tc := range tests {
		// Repeat so that map iteration order cannot hide nondeterminism.
		for range 5 {
			checkErr(t, tc.reason, validateMessageAttributes(tc.attrs), tc.wantCode, tc.wantMsg)
		}
	}
}

func TestValidateNumber(t *testing.T) {
	t.Parallel()
	digits38 := "12345678901234567890123456789012345678"
	tests := []struct {
		reason string
		s      string
		ok     bool
	}{
		{"an integer", "42", true},
		{"zero", "0", true},
		{"negative zero", "-0", true},
		{"an explicit plus sign", "+1", true},
		{"a negative decimal", "-1.25", true},
		{"a fraction without integer digits, as BigDecimal accepts", ".5", true},
		{"a trailing point, as BigDecimal accepts", "5.", true},
		{"an exponent", "1e10", true},
		{"an upper-case exponent with a negative sign", "1E-10", true},
		{"an exponent with a plus sign", "1.5e+3", true},
		{"zero with any exponent is zero", "0e999999999999999999", true},
		{"38 significant digits is the maximum", digits38, true},
		{"leading zeros do not count as significant", "0000" + digits38, true},
		{"zeros after the point before the first digit do not count", "0.0000" + digits38, true},
		{"trailing zeros do not count as significant", digits38 + "000", true},
		{"trailing zeros of a fraction do not count", "1." + strings.Repeat("0", 60), true},
		{"inner zeros count", "1" + strings.Repeat("0", 36) + "1", true},
		{"10^-128 is the smallest magnitude", "1e-128", true},
		{"10^-128 written out", "0." + strings.Repeat("0", 127) + "1", true},
		{"a negative value at the small end", "-9.99e-128", true},
		{"10^126 is the largest magnitude", "1e126", true},
		{"10^126 written differently", "0.1e127", true},
		{"10^126 with trailing zeros", "1000e123", true},
		{"just under 10^126", "9.9e125", true},
		{"-10^126 is the most negative", "-1e126", true},

		{"the empty string is no number", "", false},
		{"a lone sign", "-", false},
		{"a lone plus", "+", false},
		{"a lone point", ".", false},
		{"a sign and a point", "-.", false},
		{"an exponent without a mantissa", "e5", false},
		{"an exponent without digits", "1e", false},
		{"an exponent with only a sign", "1e+", false},
		{"two points", "1.2.3", false},
		{"two signs", "--1", false},
		{"a fractional exponent", "1e5.5", false},
		{"a leading space", " 1", false},
		{"a trailing space", "1 ", false},
		{"letters", "abc", false},
		{"NaN", "NaN", false},
		{"Infinity", "Infinity", false},
		{"hex", "0x10", false},
		{"digit separators", "1_000", false},
		{"non-ASCII digits", "١", false},
		{"39 significant digits", digits38 + "9", false},
		{"39 significant digits spread over the point", "1234567890123456789.01234567890123456789", false},
		{"inner zeros count towards 38", "1" + strings.Repeat("0", 37) + "1", false},
		{"below 10^-128", "9.9e-129", false},
		{"10^-129 written out", "0." + strings.Repeat("0", 128) + "1", false},
		{"10^127", "1e127", false},
		{"above 10^126 by a digit", "1.1e126", false},
		{"twice 10^126", "2e126", false},
		{"-2 × 10^126", "-2e126", false},
		{"an exponent that overflows int", "1e99999999999999999999999999", false},
		{"a negative exponent that overflows int", "1e-99999999999999999999999999", false},
		{"a huge exponent cannot be offset by a long mantissa", "0." + strings.Repeat("0", 200) + "1e99999999999999999999", false},
	}
	for _, tc := range tests {
		if got := validateNumber(tc.s); got != tc.ok {
			t.Errorf("validateNumber(%q) = %v, want %v\nreason: %s", tc.s, got, tc.ok, tc.reason)
		}
	}
}

func TestValidateSystemAttributes(t *testing.T) {
	t.Parallel()
	const ipv = CodeInvalidParameterValue
	const trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1"
	one := func(name string, a MessageAttribute) map[string]MessageAttribute {
		return map[string]MessageAttribute{name: a}
	}
	tests := []struct {
		reason   string
		attrs    map[string]MessageAttribute
		wantCode Code
		wantMsg  string
	}{
		{"no system attributes is fine", nil, "", ""},
		{"an empty map is fine", map[string]MessageAttribute{}, "", ""},
		{"AWSTraceHeader as a String is the one valid attribute", one("AWSTraceHeader", strAttr(trace)), "", ""},
		{"the name is case-sensitive", one("awstraceheader", strAttr(trace)), ipv, "Message system attribute name 'awstraceheader' is invalid."},
		{"other names are not system attributes", one("SenderId", strAttr("x")), ipv, "Message system attribute name 'SenderId' is invalid."},
		{"the type must be exactly String", one("AWSTraceHeader", MessageAttribute{DataType: "String.x", StringValue: trace}), ipv, "The type of message system attribute 'AWSTraceHeader' is invalid. Must be 'String'."},
		{"Binary is not allowed", one("AWSTraceHeader", MessageAttribute{DataType: "Binary", BinaryValue: []byte(trace)}), ipv, "The type of message system attribute 'AWSTraceHeader' is invalid. Must be 'String'."},
		{"the type is required", one("AWSTraceHeader", MessageAttribute{StringValue: trace}), ipv, "The type of message system attribute 'AWSTraceHeader' is invalid. Must be 'String'."},
		{"the value must not be empty", one("AWSTraceHeader", strAttr("")), ipv, "Message system attribute 'AWSTraceHeader' must contain a non-empty value of type 'String'."},
		{"a String must not carry a binary value", one("AWSTraceHeader", MessageAttribute{DataType: "String", StringValue: trace, BinaryValue: []byte{1}}), ipv, "Message system attribute 'AWSTraceHeader' of type 'String' must not contain a binary value."},
		{"the value obeys the character rule", one("AWSTraceHeader", strAttr("Root=\x00")), ipv, ""},
		{"a bad name sorted first is reported first", map[string]MessageAttribute{
			"AAA":            strAttr("x"),
			"AWSTraceHeader": {DataType: "Number", StringValue: "1"},
		}, ipv, "Message system attribute name 'AAA' is invalid."},
		{"a bad name sorted last is reported after a bad trace header", map[string]MessageAttribute{
			"Zzz":            strAttr("x"),
			"AWSTraceHeader": {DataType: "Number", StringValue: "1"},
		}, ipv, "The type of message system attribute 'AWSTraceHeader' is invalid. Must be 'String'."},
	}
	for _, tc := range tests {
		for range 5 {
			checkErr(t, tc.reason, validateSystemAttributes(tc.attrs), tc.wantCode, tc.wantMsg)
		}
	}
}

func TestAttributesSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		attrs  map[string]MessageAttribute
		want   int
	}{
		{"no attributes add nothing", nil, 0},
		{"k/String/x counts 8 bytes (§5.7)", map[string]MessageAttribute{"k": strAttr("x")}, 8},
		{"binary values count their raw length", map[string]MessageAttribute{"b": {DataType: "Binary.gif", BinaryValue: []byte{1, 2, 3}}}, 1 + 10 + 3},
		{"names and values count UTF-8 bytes, not characters", map[string]MessageAttribute{"ø": strAttr("é🙂")}, 2 + 6 + 2 + 4},
		{"every attribute counts", map[string]MessageAttribute{"k": strAttr("x"), "n": {DataType: "Number", StringValue: "12"}}, 8 + 1 + 6 + 2},
	}
	for _, tc := range tests {
		if got := attributesSize(tc.attrs); got != tc.want {
			t.Errorf("attributesSize = %d, want %d\nreason: %s", got, tc.want, tc.reason)
		}
	}
}

func TestMessageSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		body   string
		attrs  map[string]MessageAttribute
		want   int
	}{
		{"a body alone counts its bytes", "hello", nil, 5},
		{"the body counts UTF-8 bytes", "héllo", nil, 6},
		{"attributes add to the body", "hello", map[string]MessageAttribute{"k": strAttr("x")}, 13},
	}
	for _, tc := range tests {
		if got := messageSize(tc.body, tc.attrs); got != tc.want {
			t.Errorf("messageSize(%q) = %d, want %d\nreason: %s", tc.body, got, tc.want, tc.reason)
		}
	}
}

func TestValidateGroupOrDedupID(t *testing.T) {
	t.Parallel()
	punct := "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
	tests := []struct {
		reason string
		param  string
		v      string
		ok     bool
	}{
		{"one character is enough", "MessageGroupId", "a", true},
		{"letters and digits", "MessageGroupId", "Group-01", true},
		{"every ASCII punctuation character is allowed", "MessageDeduplicationId", punct, true},
		{"128 characters is the maximum", "MessageGroupId", strings.Repeat("a", 128), true},
		{"129 characters is too long", "MessageGroupId", strings.Repeat("a", 129), false},
		{"the empty string is too short", "MessageGroupId", "", false},
		{"spaces are not allowed", "MessageGroupId", "a b", false},
		{"tabs are not allowed", "MessageDeduplicationId", "a\tb", false},
		{"DEL is not punctuation", "MessageGroupId", "a\x7f", false},
		{"non-ASCII letters are not allowed", "MessageGroupId", "é", false},
	}
	for _, tc := range tests {
		var wantCode Code
		wantMsg := ""
		if !tc.ok {
			wantCode = CodeInvalidParameterValue
			wantMsg = fmt.Sprintf("Value %s for parameter %s is invalid. Reason: %s can only include alphanumeric and punctuation characters. 1 to 128 in length.", tc.v, tc.param, tc.param)
		}
		checkErr(t, fmt.Sprintf("%s (%s %q)", tc.reason, tc.param, tc.v), validateGroupOrDedupID(tc.param, tc.v), wantCode, wantMsg)
	}
}

func TestValidBatchEntryID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		id     string
		ok     bool
	}{
		{"one character is enough", "a", true},
		{"letters, digits, hyphen and underscore", "Az09-_", true},
		{"80 characters is the maximum", strings.Repeat("x", 80), true},
		{"81 characters is too long", strings.Repeat("x", 81), false},
		{"the empty Id is invalid", "", false},
		{"dots are not allowed", "a.b", false},
		{"spaces are not allowed", "a b", false},
		{"non-ASCII letters are not allowed", "ä", false},
	}
	for _, tc := range tests {
		if got := validBatchEntryID(tc.id); got != tc.ok {
			t.Errorf("validBatchEntryID(%q) = %v, want %v\nreason: %s", tc.id, got, tc.ok, tc.reason)
		}
	}
}

func TestValidateQueueName(t *testing.T) {
	t.Parallel()
	const (
		stdMsg  = "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
		fifoMsg = "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix. The queue name may be up to 80 characters."
	)
	tests := []struct {
		reason  string
		name    string
		fifo    bool
		wantMsg string // "" for success
	}{
		{"a one-character standard name", "q", false, ""},
		{"letters, digits, hyphen and underscore", "My_queue-01", false, ""},
		{"80 characters is the maximum", strings.Repeat("a", 80), false, ""},
		{"81 characters is too long", strings.Repeat("a", 81), false, stdMsg},
		{"the empty name is invalid", "", false, stdMsg},
		{"spaces are not allowed", "a b", false, stdMsg},
		{"slashes are not allowed", "a/b", false, stdMsg},
		{"dots are not allowed outside the .fifo suffix", "a.b", false, stdMsg},
		{"'!' is not allowed", "a!", false, stdMsg},
		{"non-ASCII letters are not allowed", "ä", false, stdMsg},
		{"a standard queue cannot have the .fifo suffix", "q.fifo", false, stdMsg},

		{"a FIFO name ends in .fifo", "q.fifo", true, ""},
		{"the suffix counts toward 80 characters", strings.Repeat("a", 75) + ".fifo", true, ""},
		{"81 characters including the suffix is too long", strings.Repeat("a", 76) + ".fifo", true, fifoMsg},
		{"a FIFO queue needs the suffix", "q", true, fifoMsg},
		{"the suffix alone has an empty base name", ".fifo", true, fifoMsg},
		{"the suffix is case-sensitive", "q.FIFO", true, fifoMsg},
		{"a dot in the base name is still invalid", "a.b.fifo", true, fifoMsg},
		{"a doubled suffix leaves a dot in the base name", "q.fifo.fifo", true, fifoMsg},
		{"the base name follows the standard alphabet", "ä.fifo", true, fifoMsg},
	}
	for _, tc := range tests {
		var wantCode Code
		if tc.wantMsg != "" {
			wantCode = CodeInvalidParameterValue
		}
		checkErr(t, fmt.Sprintf("%s (%q, fifo=%v)", tc.reason, tc.name, tc.fifo), validateQueueName(tc.name, tc.fifo), wantCode, tc.wantMsg)
	}
}
