package digest

import (
	"fmt"
	"strings"
	"testing"
)

func TestBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body, want, reason string
	}{
		{"message", "78e731027d8fd50ed642340b7c9a63b3", "spec §5.8 observed AWS vector"},
		{"test", "098f6bcd4621d373cade4e832627b4f6", "spec §5.8 observed AWS vector"},
		{"a", "0cc175b9c0f1b6a831c399e269772661", "spec §5.8 observed AWS vector"},
		{"", "d41d8cd98f00b204e9800998ecf8427e", "RFC 1321 MD5 of the empty string"},
		{"héllo ☃ 𝄞", "430ccdd27f219dc187f8e421e4b92934", "multi-byte UTF-8 is hashed as its bytes (md5sum)"},
	}
	for _, tt := range tests {
		if got := Body(tt.body); got != tt.want {
			t.Errorf("Body(%q) = %s, want %s (%s)", tt.body, got, tt.want, tt.reason)
		}
	}
}

func str(name, dataType, value string) Attribute {
	return Attribute{Name: name, DataType: dataType, StringValue: value}
}

func bin(name, dataType, value string) Attribute {
	return Attribute{Name: name, DataType: dataType, BinaryValue: []byte(value), Binary: true}
}

// specVectors is the §5.8 test-vector table of sqs-semantics.md, row by row.
var specVectors = []struct {
	name  string
	attrs []Attribute
	want  string
}{
	{"MyAttribute", []Attribute{str("MyAttribute", "String", "foobar")}, "adb59cd4678ea5a855436b949cd07ab6"},
	{"Foo", []Attribute{str("Foo", "String", "Bar")}, "ae7155c6026991b6d54b11589678bf9c"},
	{"timestamp Number", []Attribute{str("timestamp", "Number", "1493147359900")}, "235c5c510d26fb653d073faed50ae77c"},
	{"k", []Attribute{str("k", "String", "x")}, "a45daa70926828a2f0a1db3418e6feb4"},
	{"General Hello Help.Me", []Attribute{
		str("General", "String", "Kenobi"), str("Hello", "String", "There"), str("Help.Me", "String", "Me"),
	}, "4c360f3fdafd970e05fae2f149d997f5"},
	{"General Hello", []Attribute{
		str("General", "String", "Kenobi"), str("Hello", "String", "There"),
	}, "fca026605781cb4126a1e9044df24232"},
	{"Hello", []Attribute{str("Hello", "String", "There")}, "a311262e065454b75da111d535b8dacd"},
	{"attribName1", []Attribute{str("attribName1", "String", "attribValue 1")}, "19e27d4e946b072f3f58da80d94fd778"},
	{"custom Number.float", []Attribute{
		str("customNumberTypeAttrib", "Number.float", "4563442423554324324264524243.32543234"),
	}, "9fe1b90bbd9965bdf77bac517c7d2495"},
	{"binaryAttribute", []Attribute{bin("binaryAttribute", "Binary", "Hello binary world!")}, "31a92b15d92f8db860eda32aceb656c3"},
	{"attribName1 custom binary together", []Attribute{
		str("attribName1", "String", "attribValue 1"),
		str("customNumberTypeAttrib", "Number.float", "4563442423554324324264524243.32543234"),
		bin("binaryAttribute", "Binary", "Hello binary world!"),
	}, "c932db14a896c663f83c260297d594ff"},
	{"Hello Help.Me", []Attribute{
		str("Hello", "String", "There"), str("Help.Me", "String", "Me"),
	}, "83fee93c1bcd8b9a5a923ffacdc636c7"},
	{"binary traceparent", []Attribute{
		bin("attr1", "Binary", "traceparent\x1e00-774062d6c37081a5a0b9b5b88e30627c-2d2482211f6489da-01"),
	}, "8cbe4db156db8a94db8b801b7addb984"},
	{"system AWSTraceHeader", []Attribute{
		str("AWSTraceHeader", "String", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"),
	}, "5ae4d5d7636402d80f4eb6d213245a88"},
}

func TestAttributes(t *testing.T) {
	t.Parallel()

	t.Run("spec vectors", func(t *testing.T) {
		t.Parallel()
		for _, tt := range specVectors {
			if got := Attributes(tt.attrs); got != tt.want {
				t.Errorf("%s: Attributes = %s, want %s", tt.name, got, tt.want)
			}
		}
	})

	t.Run("empty has no digest", func(t *testing.T) {
		t.Parallel()
		if got := Attributes(nil); got != "" {
			t.Errorf("Attributes(nil) = %q, want empty", got)
		}
		if got := Attributes([]Attribute{}); got != "" {
			t.Errorf("Attributes([]) = %q, want empty", got)
		}
	})

	t.Run("input order does not matter and input is untouched", func(t *testing.T) {
		t.Parallel()
		attrs := []Attribute{
			str("Help.Me", "String", "Me"), str("Hello", "String", "There"), str("General", "String", "Kenobi"),
		}
		if got, want := Attributes(attrs), "4c360f3fdafd970e05fae2f149d997f5"; got != want {
			t.Errorf("reversed input: Attributes = %s, want %s", got, want)
		}
		if attrs[0].Name != "Help.Me" || attrs[2].Name != "General" {
			t.Errorf("Attributes reordered its argument: %v", attrs)
		}
	})

	t.Run("transport byte follows Binary, not DataType", func(t *testing.T) {
		t.Parallel()
		// Same name, type and bytes: only the transport byte (0x01 vs 0x02) differs.
		s := Attributes([]Attribute{str("a", "Binary", "v")})
		b := Attributes([]Attribute{bin("a", "Binary", "v")})
		if s == b {
			t.Errorf("string and binary transport gave the same digest %s", s)
		}
	})

	t.Run("long names and values match the naive encoding", func(t *testing.T) {
		t.Parallel()
		long := strings.Repeat("0123456789abcdef", 100)
		for _, a := range []Attribute{str(long, long, long), bin(long, "Binary.x", long)} {
			want := referenceDigest([]Attribute{a, str("z", "String", "tail")})
			if got := Attributes([]Attribute{str("z", "String", "tail"), a}); got != want {
				t.Errorf("binary=%v: Attributes = %s, want %s", a.Binary, got, want)
			}
		}
	})

	t.Run("more attributes than the stack index holds", func(t *testing.T) {
		t.Parallel()
		var sorted, shuffled []Attribute
		for i := 0; i < 3*maxStackAttrs; i++ {
			sorted = append(sorted, str(fmt.Sprintf("attr%03d", i), "String", fmt.Sprint(i)))
		}
		for i := len(sorted) - 1; i >= 0; i-- {
			shuffled = append(shuffled, sorted[i])
		}
		if got, want := Attributes(shuffled), referenceDigest(sorted); got != want {
			t.Errorf("Attributes = %s, want %s", got, want)
		}
	})

	t.Run("equal names keep input order", func(t *testing.T) {
		t.Parallel()
		// SQS rejects duplicate names before hashing; the digest is still
		// deterministic for them.
		in := []Attribute{str("b", "String", "2"), str("a", "String", "1"), str("b", "String", "1")}
		want := referenceDigest([]Attribute{in[1], in[0], in[2]})
		if got := Attributes(in); got != want {
			t.Errorf("Attributes = %s, want %s", got, want)
		}
	})
}

// referenceDigest is a naive encoding of §5.8 for attributes already in
// name order: build the whole stream, then hash it.
func referenceDigest(sorted []Attribute) string {
	var stream []byte
	put := func(b []byte) {
		n := len(b)
		stream = append(stream, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		stream = append(stream, b...)
	}
	for _, a := range sorted {
		put([]byte(a.Name))
		put([]byte(a.DataType))
		if a.Binary {
			stream = append(stream, 2)
			put(a.BinaryValue)
		} else {
			stream = append(stream, 1)
			put([]byte(a.StringValue))
		}
	}
	return Body(string(stream))
}

func BenchmarkBody1KiB(b *testing.B) {
	body := strings.Repeat("x", 1024)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		_ = Body(body)
	}
}

func BenchmarkAttributes3(b *testing.B) {
	attrs := []Attribute{
		str("customNumberTypeAttrib", "Number.float", "4563442423554324324264524243.32543234"),
		bin("binaryAttribute", "Binary", "Hello binary world!"),
		str("attribName1", "String", "attribValue 1"),
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = Attributes(attrs)
	}
}
