package sqsq_test

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

// md5Of is the hex MD5 of s, computed independently of sqsq.
func md5Of(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func str(v string) sqsq.MessageAttribute {
	return sqsq.MessageAttribute{DataType: "String", StringValue: v}
}

// nAttrs returns n distinct string attributes.
func nAttrs(n int) map[string]sqsq.MessageAttribute {
	m := map[string]sqsq.MessageAttribute{}
	for i := 0; i < n; i++ {
		m[fmt.Sprintf("a%d", i)] = str("v")
	}
	return m
}

func TestSendErrorsChangeNothing(t *testing.T) {
	t.Parallel()
	const traceHeader = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
	tests := []struct {
		reason string
		in     sqsq.SendInput
		code   sqsq.Code
		msg    string
	}{
		{"the body is required", sqsq.SendInput{},
			sqsq.CodeMissingParameter, "The request must contain the parameter MessageBody."},
		{"a body one byte over MaximumMessageSize", sqsq.SendInput{MessageBody: strings.Repeat("a", 1025)},
			sqsq.CodeInvalidParameterValue, "One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes."},
		{"attribute name, type and value count toward the size (1017 + k/String/x = 1025)",
			sqsq.SendInput{MessageBody: strings.Repeat("a", 1017), MessageAttributes: map[string]sqsq.MessageAttribute{"k": str("x")}},
			sqsq.CodeInvalidParameterValue, "One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes."},
		{"the size is counted in UTF-8 bytes", sqsq.SendInput{MessageBody: strings.Repeat("é", 513)},
			sqsq.CodeInvalidParameterValue, "One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes."},
		{"U+0000 is not an allowed body character", sqsq.SendInput{MessageBody: "a\x00b"}, sqsq.CodeInvalidMessageContents, ""},
		{"U+0008 is not an allowed body character", sqsq.SendInput{MessageBody: "\b"}, sqsq.CodeInvalidMessageContents, ""},
		{"U+FFFF is not an allowed body character", sqsq.SendInput{MessageBody: "a\uffffb"}, sqsq.CodeInvalidMessageContents, ""},
		{"invalid UTF-8 is rejected as contents", sqsq.SendInput{MessageBody: "a\xffb"}, sqsq.CodeInvalidMessageContents, ""},
		{"11 message attributes are one too many", sqsq.SendInput{MessageBody: "b", MessageAttributes: nAttrs(11)},
			sqsq.CodeInvalidParameterValue, "Number of message attributes [11] exceeds the allowed maximum [10]."},
		{"an attribute name may not start with AWS.", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{"AWS.x": str("v")}}, sqsq.CodeInvalidParameterValue, ""},
		{"an attribute name may not start with amazon. in any case", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{"aMaZoN.x": str("v")}}, sqsq.CodeInvalidParameterValue, ""},
		{"an attribute name may not start with a dot", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{".x": str("v")}}, sqsq.CodeInvalidParameterValue, ""},
		{"an attribute name may not end with a dot", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{"x.": str("v")}}, sqsq.CodeInvalidParameterValue, ""},
		{"an attribute name may not hold two dots in a row", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{"a..b": str("v")}}, sqsq.CodeInvalidParameterValue, ""},
		{"an attribute name may not hold !", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{"bang!": str("v")}}, sqsq.CodeInvalidParameterValue, ""},
		{"an attribute name of 257 characters is too long", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{strings.Repeat("n", 257): str("v")}}, sqsq.CodeInvalidParameterValue, ""},
		{"an empty attribute name", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{"": str("v")}}, sqsq.CodeInvalidParameterValue, ""},
		{"data types are case-sensitive: string is not String", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{"k": {DataType: "string", StringValue: "v"}}},
			sqsq.CodeInvalidParameterValue, "The type of message (user) attribute 'k' is invalid. You must use only the following supported type prefixes: Binary, Number, String."},
		{"an unknown data type", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{"k": {DataType: "Date", StringValue: "v"}}}, sqsq.CodeInvalidParameterValue, ""},
		{"a missing data type", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{"k": {StringValue: "v"}}}, sqsq.CodeInvalidParameterValue, ""},
		{"a String attribute needs a non-empty value", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{"k": str("")}},
			sqsq.CodeInvalidParameterValue, "Message (user) attribute 'k' must contain a non-empty value of type 'String'."},
		{"a Number attribute must hold a number", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{"n": {DataType: "Number", StringValue: "twelve"}}}, sqsq.CodeInvalidParameterValue, ""},
		{"a Binary attribute needs a non-empty value", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{"bin": {DataType: "Binary"}}}, sqsq.CodeInvalidParameterValue, ""},
		{"a bad character in a string attribute value is InvalidParameterValue, not InvalidMessageContents",
			sqsq.SendInput{MessageBody: "b", MessageAttributes: map[string]sqsq.MessageAttribute{"k": str("\x00")}}, sqsq.CodeInvalidParameterValue, ""},
		{"only AWSTraceHeader is a sendable system attribute", sqsq.SendInput{MessageBody: "b",
			MessageSystemAttributes: map[string]sqsq.MessageAttribute{"SenderId": str("me")}}, sqsq.CodeInvalidParameterValue, ""},
		{"AWSTraceHeader must be of type String", sqsq.SendInput{MessageBody: "b",
			MessageSystemAttributes: map[string]sqsq.MessageAttribute{"AWSTraceHeader": {DataType: "Binary", BinaryValue: []byte(traceHeader)}}},
			sqsq.CodeInvalidParameterValue, ""},
		{"DelaySeconds 901 is above 15 min", sqsq.SendInput{MessageBody: "b", DelaySeconds: sqsq.Some(901 * time.Second)},
			sqsq.CodeInvalidParameterValue, "Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900."},
		{"DelaySeconds -1 is below 0", sqsq.SendInput{MessageBody: "b", DelaySeconds: sqsq.Some(-time.Second)},
			sqsq.CodeInvalidParameterValue, "Value -1 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900."},
		{"MessageDeduplicationId is for FIFO queues only, in AWS's words (sic)", sqsq.SendInput{MessageBody: "b", MessageDeduplicationId: "d1"},
			sqsq.CodeInvalidParameterValue, "Value d1 for parameter MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue type."},
		{"a MessageGroupId with a space is malformed, on standard queues too", sqsq.SendInput{MessageBody: "b", MessageGroupId: "a b"},
			sqsq.CodeInvalidParameterValue, "Value a b for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length."},
		{"a MessageGroupId of 129 characters is too long", sqsq.SendInput{MessageBody: "b", MessageGroupId: strings.Repeat("g", 129)},
			sqsq.CodeInvalidParameterValue, ""},
		{"the first failing check wins: an empty body before a bad delay (§3.8 order)",
			sqsq.SendInput{DelaySeconds: sqsq.Some(901 * time.Second)}, sqsq.CodeMissingParameter, ""},
		{"the first failing check wins: size before characters",
			sqsq.SendInput{MessageBody: strings.Repeat("\x00", 1025)}, sqsq.CodeInvalidParameterValue, ""},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			f.set(t, sqsq.QueueAttributes{MaximumMessageSize: sqsq.Some(1024)})
			f.send(t, f.q, "already there")
			before := stats(t, f.q)
			res, err := f.q.Send(f.ctx, tt.in)
			wantErr(t, err, tt.code, tt.msg, tt.reason)
			if res.MessageId != "" {
				t.Errorf("a failed Send returned MessageId %q\nreason: %s", res.MessageId, tt.reason)
			}
			if d := diff(before, stats(t, f.q)); d != "" {
				t.Errorf("a failed Send changed the queue:\n%s\nreason: %s", d, tt.reason)
			}
		})
	}
}

func TestSendAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		in     sqsq.SendInput
	}{
		{"a body of exactly MaximumMessageSize bytes is accepted", sqsq.SendInput{MessageBody: strings.Repeat("a", 1024)}},
		{"body plus attributes of exactly MaximumMessageSize bytes is accepted (1016 + k/String/x)",
			sqsq.SendInput{MessageBody: strings.Repeat("a", 1016), MessageAttributes: map[string]sqsq.MessageAttribute{"k": str("x")}}},
		{"system attributes do not count toward the size", sqsq.SendInput{MessageBody: strings.Repeat("a", 1024),
			MessageSystemAttributes: map[string]sqsq.MessageAttribute{"AWSTraceHeader": str("Root=1-5759e988-bd862e3fe1be46a994272793")}}},
		{"tab, LF, CR and the edges of the allowed ranges", sqsq.SendInput{MessageBody: "\t\n\r \ud7ff\ue000\ufffd\U00010000\U0010ffff"}},
		{"10 message attributes are the maximum", sqsq.SendInput{MessageBody: "b", MessageAttributes: nAttrs(10)}},
		{"Latin-1 letters are allowed in attribute names", sqsq.SendInput{MessageBody: "b",
			MessageAttributes: map[string]sqsq.MessageAttribute{"attr.1øßä": str("v")}}},
		{"custom type labels are allowed", sqsq.SendInput{MessageBody: "b", MessageAttributes: map[string]sqsq.MessageAttribute{
			"n": {DataType: "Number.float", StringValue: "1.5"}, "s": {DataType: "String.json", StringValue: "{}"},
			"g": {DataType: "Binary.gif", BinaryValue: []byte{0, 1}}}}},
		{"DelaySeconds 0 and 900 are the bounds", sqsq.SendInput{MessageBody: "b", DelaySeconds: sqsq.Some(900 * time.Second)}},
		{"MessageGroupId is allowed on standard queues (fair queues)", sqsq.SendInput{MessageBody: "b", MessageGroupId: "tenant-1"}},
		{"a MessageGroupId of 128 ASCII punctuation and letters", sqsq.SendInput{MessageBody: "b",
			MessageGroupId: strings.Repeat("!~", 60) + "abcdefgh"}},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			f.set(t, sqsq.QueueAttributes{MaximumMessageSize: sqsq.Some(1024)})
			res, err := f.q.Send(f.ctx, tt.in)
			wantErr(t, err, "", "", tt.reason)
			if res.MessageId == "" {
				t.Errorf("no MessageId\nreason: %s", tt.reason)
			}
			s := stats(t, f.q)
			if s.Visible+s.Delayed != 1 || s.Sent != 1 {
				t.Errorf("after one accepted send: %+v\nreason: %s", s, tt.reason)
			}
		})
	}
}

func TestSendMD5s(t *testing.T) {
	t.Parallel()
	binaryTrace := []byte("traceparent\x1e00-774062d6c37081a5a0b9b5b88e30627c-2d2482211f6489da-01")
	three := map[string]sqsq.MessageAttribute{
		"attribName1":            str("attribValue 1"),
		"customNumberTypeAttrib": {DataType: "Number.float", StringValue: "4563442423554324324264524243.32543234"},
		"binaryAttribute":        {DataType: "Binary", BinaryValue: []byte("Hello binary world!")},
	}
	tests := []struct {
		reason                string
		in                    sqsq.SendInput
		body, attrs, sysAttrs string
	}{
		{"body only: no attribute digests", sqsq.SendInput{MessageBody: "message"},
			"78e731027d8fd50ed642340b7c9a63b3", "", ""},
		{"body test", sqsq.SendInput{MessageBody: "test"}, "098f6bcd4621d373cade4e832627b4f6", "", ""},
		{"Foo: String=Bar", sqsq.SendInput{MessageBody: "a", MessageAttributes: map[string]sqsq.MessageAttribute{"Foo": str("Bar")}},
			"0cc175b9c0f1b6a831c399e269772661", "ae7155c6026991b6d54b11589678bf9c", ""},
		{"MyAttribute: String=foobar", sqsq.SendInput{MessageBody: "a", MessageAttributes: map[string]sqsq.MessageAttribute{"MyAttribute": str("foobar")}},
			"0cc175b9c0f1b6a831c399e269772661", "adb59cd4678ea5a855436b949cd07ab6", ""},
		{"timestamp: Number", sqsq.SendInput{MessageBody: "a", MessageAttributes: map[string]sqsq.MessageAttribute{
			"timestamp": {DataType: "Number", StringValue: "1493147359900"}}},
			"0cc175b9c0f1b6a831c399e269772661", "235c5c510d26fb653d073faed50ae77c", ""},
		{"attributes are sorted by name: General, Hello, Help.Me", sqsq.SendInput{MessageBody: "a", MessageAttributes: map[string]sqsq.MessageAttribute{
			"Help.Me": str("Me"), "Hello": str("There"), "General": str("Kenobi")}},
			"0cc175b9c0f1b6a831c399e269772661", "4c360f3fdafd970e05fae2f149d997f5", ""},
		{"the full data type, binary transport byte and raw binary value", sqsq.SendInput{MessageBody: "a", MessageAttributes: three},
			"0cc175b9c0f1b6a831c399e269772661", "c932db14a896c663f83c260297d594ff", ""},
		{"a binary value with a control byte", sqsq.SendInput{MessageBody: "a", MessageAttributes: map[string]sqsq.MessageAttribute{
			"attr1": {DataType: "Binary", BinaryValue: binaryTrace}}},
			"0cc175b9c0f1b6a831c399e269772661", "8cbe4db156db8a94db8b801b7addb984", ""},
		{"the AWSTraceHeader system attribute", sqsq.SendInput{MessageBody: "a", MessageSystemAttributes: map[string]sqsq.MessageAttribute{
			"AWSTraceHeader": str("Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1")}},
			"0cc175b9c0f1b6a831c399e269772661", "", "5ae4d5d7636402d80f4eb6d213245a88"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			res := f.sendInput(t, f.q, tt.in)
			got := []string{res.MD5OfMessageBody(), res.MD5OfMessageAttributes(), res.MD5OfMessageSystemAttributes()}
			if d := diff([]string{tt.body, tt.attrs, tt.sysAttrs}, got); d != "" {
				t.Errorf("MD5 of body, attributes, system attributes (§5.8):\n%s\nreason: %s", d, tt.reason)
			}
		})
	}
}

func TestSendCopiesAttributes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	attrs := map[string]sqsq.MessageAttribute{"bin": {DataType: "Binary", BinaryValue: []byte("abc")}, "s": str("v")}
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "b", MessageAttributes: attrs})
	attrs["bin"].BinaryValue[0] = 'X'
	attrs["s"] = str("changed")
	attrs["new"] = str("added")
	m := f.receiveOne(t, f.q, sqsq.ReceiveInput{MessageAttributeNames: []string{"All"}})
	want := map[string]sqsq.MessageAttribute{"bin": {DataType: "Binary", BinaryValue: []byte("abc")}, "s": str("v")}
	if d := diff(want, m.MessageAttributes); d != "" {
		t.Errorf("changing the caller's map after Send changed the stored message:\n%s", d)
	}
}

func TestSendMessageGroupIdOnStandardQueue(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "fair", MessageGroupId: "tenant-1"})
	f.send(t, f.q, "no group")
	msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []string{"MessageGroupId", "MessageDeduplicationId", "SequenceNumber"}})
	var got []map[string]string
	for _, m := range msgs {
		got = append(got, m.Attributes)
	}
	want := []map[string]string{{"MessageGroupId": "tenant-1"}, nil}
	if d := diff(want, got); d != "" {
		t.Errorf("system attributes of a grouped and an ungrouped standard message (FIFO-only ones absent, §5.4):\n%s", d)
	}
}

func TestSendAWSTraceHeader(t *testing.T) {
	t.Parallel()
	f := setup(t)
	const trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "traced",
		MessageSystemAttributes: map[string]sqsq.MessageAttribute{"AWSTraceHeader": str(trace)}})
	for _, names := range [][]string{{"AWSTraceHeader"}, {"All"}} {
		f.clk.Add(30 * time.Second)
		m := f.receiveOne(t, f.q, sqsq.ReceiveInput{MessageSystemAttributeNames: names})
		if got := m.Attributes["AWSTraceHeader"]; got != trace {
			t.Errorf("AWSTraceHeader with %v = %q, want %q", names, got, trace)
		}
		if m.MessageAttributes != nil || m.MD5OfMessageAttributes() != "" {
			t.Errorf("system attributes leaked into MessageAttributes: %+v", m.MessageAttributes)
		}
	}
}

func TestSendMessageIDs(t *testing.T) {
	t.Parallel()
	n := 0
	f := setup(t, sqsq.WithIDFunc(func() string { n++; return fmt.Sprintf("id-%d", n) }))
	a := f.send(t, f.q, "a")
	b := f.send(t, f.q, "b")
	if d := diff([]string{"id-1", "id-2"}, []string{a.MessageId, b.MessageId}); d != "" {
		t.Errorf("MessageIds from WithIDFunc:\n%s", d)
	}
	m := f.receiveOne(t, f.q, sqsq.ReceiveInput{})
	if m.MessageId != "id-1" || m.Body != "a" || m.MD5OfBody() != "0cc175b9c0f1b6a831c399e269772661" {
		t.Errorf("received %q %q %q, want the first message with its MD5", m.MessageId, m.Body, m.MD5OfBody())
	}
}

func TestSendDefaultMessageIDsAreUUIDs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		id := f.send(t, f.q, "x").MessageId
		if len(id) != 36 || strings.Count(id, "-") != 4 || seen[id] {
			t.Fatalf("MessageId %q: want a distinct UUID-shaped id (§1.1)", id)
		}
		seen[id] = true
	}
}

func TestSendDelay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason     string
		queueDelay time.Duration
		msgDelay   sqsq.Optional[time.Duration]
		visibleAt  time.Duration // after the send
	}{
		{"no delays: visible at once", 0, sqsq.Optional[time.Duration]{}, 0},
		{"the queue delay applies when the message gives none", 10 * time.Second, sqsq.Optional[time.Duration]{}, 10 * time.Second},
		{"an explicit 0 overrides a queue delay of 10 s", 10 * time.Second, sqsq.Some(0 * time.Second), 0},
		{"a shorter message delay overrides the queue's", 10 * time.Second, sqsq.Some(5 * time.Second), 5 * time.Second},
		{"a longer message delay overrides the queue's", 10 * time.Second, sqsq.Some(900 * time.Second), 900 * time.Second},
		{"a message delay on a queue without one", 0, sqsq.Some(3 * time.Second), 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			f.set(t, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(tt.queueDelay)})
			f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "m", DelaySeconds: tt.msgDelay})
			if tt.visibleAt > 0 {
				if s := stats(t, f.q); s.Delayed != 1 || s.Visible != 0 {
					t.Errorf("right after the send: delayed %d visible %d, want 1 and 0\nreason: %s", s.Delayed, s.Visible, tt.reason)
				}
				f.clk.Add(tt.visibleAt - time.Millisecond)
				if msgs := f.receive(t, f.q, sqsq.ReceiveInput{}); len(msgs) != 0 {
					t.Errorf("received %v 1 ms before the delay ends\nreason: %s", bodies(msgs), tt.reason)
				}
				f.clk.Add(time.Millisecond)
			}
			if s := stats(t, f.q); s.Delayed != 0 || s.Visible != 1 {
				t.Errorf("when the delay ends: delayed %d visible %d, want 0 and 1\nreason: %s", s.Delayed, s.Visible, tt.reason)
			}
			f.receiveOne(t, f.q, sqsq.ReceiveInput{})
		})
	}
}

func TestQueueDelayChangeIsNotRetroactive(t *testing.T) {
	t.Parallel()
	t.Run("shortening the queue delay keeps an already delayed message delayed", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		f.set(t, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(10 * time.Second)})
		f.send(t, f.q, "m")
		f.set(t, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(0 * time.Second)})
		if s := stats(t, f.q); s.Delayed != 1 {
			t.Fatalf("after setting DelaySeconds 0: %d delayed, want 1 (standard: not retroactive, §5.1)", s.Delayed)
		}
		f.clk.Add(9 * time.Second)
		if msgs := f.receive(t, f.q, sqsq.ReceiveInput{}); len(msgs) != 0 {
			t.Fatalf("received %v at 9 s of a 10 s delay", bodies(msgs))
		}
		f.clk.Add(time.Second)
		f.receiveOne(t, f.q, sqsq.ReceiveInput{})
	})
	t.Run("lengthening the queue delay does not hide a message sent before", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		f.set(t, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(10 * time.Second)})
		f.send(t, f.q, "m")
		f.set(t, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(900 * time.Second)})
		f.clk.Add(10 * time.Second)
		f.receiveOne(t, f.q, sqsq.ReceiveInput{})
		f.send(t, f.q, "after the change")
		if s := stats(t, f.q); s.Delayed != 1 {
			t.Errorf("a message sent after the change: %d delayed, want 1", s.Delayed)
		}
	})
}

// entry is a SendBatchEntry with a body.
func entry(id, body string) sqsq.SendBatchEntry {
	return sqsq.SendBatchEntry{Id: id, SendInput: sqsq.SendInput{MessageBody: body}}
}

func entries(n int) []sqsq.SendBatchEntry {
	var out []sqsq.SendBatchEntry
	for i := 0; i < n; i++ {
		out = append(out, entry(fmt.Sprintf("e%d", i), "body"))
	}
	return out
}

func TestSendBatchRequestErrors(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 600*1024)
	tests := []struct {
		reason  string
		entries []sqsq.SendBatchEntry
		code    sqsq.Code
		msg     string
	}{
		{"no entries", nil,
			sqsq.CodeEmptyBatchRequest, "There should be at least one SendMessageBatchRequestEntry in the request."},
		{"11 entries", entries(11),
			sqsq.CodeTooManyEntriesInBatchRequest, "Maximum number of entries per request are 10. You have sent 11."},
		{"an empty Id", []sqsq.SendBatchEntry{entry("a", "b"), entry("", "b")},
			sqsq.CodeInvalidBatchEntryID, "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long."},
		{"an Id with a dot", []sqsq.SendBatchEntry{entry("a.b", "b")}, sqsq.CodeInvalidBatchEntryID, ""},
		{"an Id with a space", []sqsq.SendBatchEntry{entry("a b", "b")}, sqsq.CodeInvalidBatchEntryID, ""},
		{"an Id of 81 characters", []sqsq.SendBatchEntry{entry(strings.Repeat("i", 81), "b")}, sqsq.CodeInvalidBatchEntryID, ""},
		{"duplicate Ids", []sqsq.SendBatchEntry{entry("a", "1"), entry("b", "2"), entry("a", "3")},
			sqsq.CodeBatchEntryIdsNotDistinct, "Id a repeated."},
		{"Ids are case-sensitive, but an invalid Id is reported before a duplicate",
			[]sqsq.SendBatchEntry{entry("a", "1"), entry("a", "2"), entry("b!", "3")}, sqsq.CodeInvalidBatchEntryID, ""},
		{"two entries of 600 KB pass 1,048,576 bytes in total, though each fits the queue",
			[]sqsq.SendBatchEntry{entry("a", big), entry("b", big)},
			sqsq.CodeBatchRequestTooLong, "Batch requests cannot be longer than 1048576 bytes. You have sent 1228800 bytes."},
		{"attributes count toward the batch total",
			[]sqsq.SendBatchEntry{entry("a", strings.Repeat("x", 524288)), {Id: "b", SendInput: sqsq.SendInput{
				MessageBody: strings.Repeat("x", 524288-8), MessageAttributes: map[string]sqsq.MessageAttribute{"k": str("xy")}}}},
			sqsq.CodeBatchRequestTooLong, "Batch requests cannot be longer than 1048576 bytes. You have sent 1048577 bytes."},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			f.send(t, f.q, "already there")
			before := stats(t, f.q)
			res, err := f.q.SendBatch(f.ctx, tt.entries)
			wantErr(t, err, tt.code, tt.msg, tt.reason)
			if len(res.Successful)+len(res.Failed) != 0 {
				t.Errorf("a failed SendBatch reported entries: %+v\nreason: %s", res, tt.reason)
			}
			if d := diff(before, stats(t, f.q)); d != "" {
				t.Errorf("a failed SendBatch changed the queue:\n%s\nreason: %s", d, tt.reason)
			}
		})
	}
}

func TestSendBatchLimits(t *testing.T) {
	t.Parallel()
	half := strings.Repeat("x", 524288)
	tests := []struct {
		reason  string
		entries []sqsq.SendBatchEntry
	}{
		{"10 entries are the maximum", entries(10)},
		{"an Id of 80 characters is the maximum", []sqsq.SendBatchEntry{entry(strings.Repeat("i", 80), "b")}},
		{"Ids use letters, digits, hyphens and underscores", []sqsq.SendBatchEntry{entry("Aa0-_", "b")}},
		{"Ids are case-sensitive", []sqsq.SendBatchEntry{entry("a", "b"), entry("A", "b")}},
		{"exactly 1,048,576 bytes in total is accepted", []sqsq.SendBatchEntry{entry("a", half), entry("b", half)}},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			res, err := f.q.SendBatch(f.ctx, tt.entries)
			wantErr(t, err, "", "", tt.reason)
			if len(res.Successful) != len(tt.entries) || len(res.Failed) != 0 {
				t.Errorf("%d successful, %d failed; want all %d sent\nreason: %s", len(res.Successful), len(res.Failed), len(tt.entries), tt.reason)
			}
			if s := stats(t, f.q); s.Visible != len(tt.entries) {
				t.Errorf("%d visible, want %d\nreason: %s", s.Visible, len(tt.entries), tt.reason)
			}
		})
	}
}

func TestSendBatchEntryFailures(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, sqsq.QueueAttributes{MaximumMessageSize: sqsq.Some(1024)})
	batch := []sqsq.SendBatchEntry{
		entry("ok1", "first"),
		entry("toolarge", strings.Repeat("x", 1025)),
		entry("ok2", "second"),
		entry("badchars", "a\x00"),
		{Id: "baddelay", SendInput: sqsq.SendInput{MessageBody: "d", DelaySeconds: sqsq.Some(901 * time.Second)}},
		{Id: "badattr", SendInput: sqsq.SendInput{MessageBody: "d", MessageAttributes: map[string]sqsq.MessageAttribute{"AWS.x": str("v")}}},
		{Id: "dedup", SendInput: sqsq.SendInput{MessageBody: "d", MessageDeduplicationId: "x"}},
		entry("empty", ""),
		{Id: "ok3", SendInput: sqsq.SendInput{MessageBody: "third", MessageAttributes: map[string]sqsq.MessageAttribute{"Foo": str("Bar")}}},
	}
	res, err := f.q.SendBatch(f.ctx, batch)
	if err != nil {
		t.Fatalf("SendBatch: %v", err)
	}
	type failure struct {
		Id   string
		Code sqsq.Code
		Msg  string
	}
	var gotFailed []failure
	for _, e := range res.Failed {
		if e.Err == nil {
			t.Fatalf("failed entry %q without an error", e.Id)
		}
		if e.Err.Receiver {
			t.Errorf("failed entry %q is a receiver fault, want a sender fault", e.Id)
		}
		fl := failure{Id: e.Id, Code: e.Err.Code}
		if e.Id == "toolarge" || e.Id == "baddelay" {
			fl.Msg = e.Err.Message
		}
		gotFailed = append(gotFailed, fl)
	}
	wantFailed := []failure{
		{"toolarge", sqsq.CodeInvalidParameterValue, "One or more parameters cannot be validated. Reason: Message must be shorter than 1024 bytes."},
		{"badchars", sqsq.CodeInvalidMessageContents, ""},
		{"baddelay", sqsq.CodeInvalidParameterValue, "Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900."},
		{"badattr", sqsq.CodeInvalidParameterValue, ""},
		{"dedup", sqsq.CodeInvalidParameterValue, ""},
		{"empty", sqsq.CodeMissingParameter, ""},
	}
	if d := diff(wantFailed, gotFailed); d != "" {
		t.Errorf("failed entries in request order (§3.9):\n%s", d)
	}
	type success struct{ Id, Body, Attrs string }
	var gotOK []success
	for _, e := range res.Successful {
		if e.MessageId == "" {
			t.Errorf("successful entry %q without MessageId", e.Id)
		}
		gotOK = append(gotOK, success{e.Id, e.MD5OfMessageBody(), e.MD5OfMessageAttributes()})
	}
	wantOK := []success{
		{"ok1", md5Of("first"), ""},
		{"ok2", md5Of("second"), ""},
		{"ok3", md5Of("third"), "ae7155c6026991b6d54b11589678bf9c"},
	}
	if d := diff(wantOK, gotOK); d != "" {
		t.Errorf("successful entries in request order with their MD5s:\n%s", d)
	}
	msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	if d := diff([]string{"first", "second", "third"}, bodies(msgs)); d != "" {
		t.Errorf("the sent entries are stored in request order:\n%s", d)
	}
	if s := stats(t, f.q); s.Sent != 3 {
		t.Errorf("Sent counter = %d, want 3", s.Sent)
	}
}
