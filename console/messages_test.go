package console_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

// messageJSON is a message as the API shows it.
type messageJSON struct {
	MessageID         string `json:"messageId"`
	Body              string `json:"body"`
	BodySize          int    `json:"bodySize"`
	BodyTruncated     bool   `json:"bodyTruncated"`
	MessageAttributes map[string]struct {
		DataType    string `json:"dataType"`
		StringValue string `json:"stringValue"`
		BinaryValue []byte `json:"binaryValue"`
	} `json:"messageAttributes"`
	State               string     `json:"state"`
	Until               *time.Time `json:"until"`
	TimeLeftMs          int64      `json:"timeLeftMs"`
	ReceiveCount        int        `json:"receiveCount"`
	SentAt              time.Time  `json:"sentAt"`
	FirstReceivedAt     *time.Time `json:"firstReceivedAt"`
	GroupID             string     `json:"groupId"`
	DeduplicationID     string     `json:"deduplicationId"`
	SequenceNumber      string     `json:"sequenceNumber"`
	DeadLetterSourceArn string     `json:"deadLetterSourceArn"`
}

type pageJSON struct {
	Messages   []messageJSON `json:"messages"`
	NextCursor string        `json:"nextCursor"`
	Now        time.Time     `json:"now"`
}

func TestPeek(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	q := e.queue("q", nil)
	ctx := context.Background()
	inflight := e.send(q, sqsq.SendInput{MessageBody: `{"order":1}`, MessageAttributes: map[string]sqsq.MessageAttribute{
		"kind": {DataType: "String", StringValue: "order"},
		"blob": {DataType: "Binary", BinaryValue: []byte{0, 1, 0xfe}},
	}})
	if _, err := q.Receive(ctx, sqsq.ReceiveInput{}); err != nil {
		t.Fatal(err)
	}
	avail := e.send(q, sqsq.SendInput{MessageBody: "héllo wörld"})
	delayed := e.send(q, sqsq.SendInput{MessageBody: "later", DelaySeconds: sqsq.Some(2 * time.Minute)})
	e.clk.Add(10 * time.Second)
	before := e.stats(q)

	var page pageJSON
	e.ok("GET", "/_sqsq/api/queues/q/messages", nil, &page)
	if len(page.Messages) != 3 || page.NextCursor != "" || !page.Now.Equal(start.Add(10*time.Second)) {
		t.Fatalf("page %+v", page)
	}
	m := page.Messages[0]
	if m.MessageID != inflight || m.State != "inflight" || m.Until == nil || !m.Until.Equal(start.Add(30*time.Second)) ||
		m.TimeLeftMs != 20000 || m.ReceiveCount != 1 || m.FirstReceivedAt == nil || m.Body != `{"order":1}` {
		t.Errorf("in-flight message %+v", m)
	}
	if a := m.MessageAttributes["blob"]; a.DataType != "Binary" || string(a.BinaryValue) != "\x00\x01\xfe" {
		t.Errorf("binary attribute %+v", a)
	}
	if a := m.MessageAttributes["kind"]; a.DataType != "String" || a.StringValue != "order" {
		t.Errorf("string attribute %+v", a)
	}
	if m := page.Messages[1]; m.MessageID != avail || m.State != "available" || m.Until != nil || m.TimeLeftMs != 0 ||
		m.FirstReceivedAt != nil || m.BodySize != len("héllo wörld") || !m.SentAt.Equal(start) {
		t.Errorf("available message %+v", m)
	}
	if m := page.Messages[2]; m.MessageID != delayed || m.State != "delayed" || m.TimeLeftMs != 110000 {
		t.Errorf("delayed message %+v", m)
	}
	if after := e.stats(q); after != before {
		t.Errorf("peeking changed the queue:\n%+v\n%+v", before, after)
	}

	// Filters, paging and body prefixes.
	page = pageJSON{}
	e.ok("GET", "/_sqsq/api/queues/q/messages?state=available,delayed", nil, &page)
	if len(page.Messages) != 2 || page.Messages[0].MessageID != avail || page.Messages[1].MessageID != delayed {
		t.Errorf("available and delayed: %+v", page.Messages)
	}
	page = pageJSON{}
	e.ok("GET", "/_sqsq/api/queues/q/messages?state=inflight&state=delayed", nil, &page)
	if len(page.Messages) != 2 || page.Messages[0].MessageID != inflight {
		t.Errorf("in flight and delayed: %+v", page.Messages)
	}
	page = pageJSON{}
	e.ok("GET", "/_sqsq/api/queues/q/messages?limit=2&bodyPrefix=2", nil, &page)
	if len(page.Messages) != 2 || page.NextCursor == "" || page.Messages[1].Body != "h" || !page.Messages[1].BodyTruncated {
		t.Fatalf("first page of 2, bodies cut at 2 bytes (not inside é): %+v", page)
	}
	cursor := page.NextCursor
	page = pageJSON{}
	e.ok("GET", "/_sqsq/api/queues/q/messages?limit=2&cursor="+cursor, nil, &page)
	if len(page.Messages) != 1 || page.Messages[0].MessageID != delayed || page.NextCursor != "" {
		t.Errorf("second page: %+v", page)
	}
	if after := e.stats(q); after != before {
		t.Errorf("peeking changed the queue:\n%+v\n%+v", before, after)
	}
}

func TestPeekFIFO(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	q := e.queue("q.fifo", map[string]string{sqsq.AttrFifoQueue: "true"})
	for i, g := range []string{"a", "b", "a"} {
		e.send(q, sqsq.SendInput{MessageBody: "in " + g, MessageGroupId: g, MessageDeduplicationId: strconv.Itoa(i)})
	}
	if _, err := q.Receive(context.Background(), sqsq.ReceiveInput{}); err != nil { // the head of group a
		t.Fatal(err)
	}
	var page pageJSON
	e.ok("GET", "/_sqsq/api/queues/q.fifo/messages?group=a", nil, &page)
	if len(page.Messages) != 2 {
		t.Fatalf("group a: %+v", page.Messages)
	}
	if m := page.Messages[0]; m.State != "inflight" || m.GroupID != "a" || m.SequenceNumber == "" || m.DeduplicationID == "" {
		t.Errorf("head of group a: %+v", m)
	}
	if m := page.Messages[1]; m.State != "held" {
		t.Errorf("behind it: %+v, want held", m)
	}
}

func TestPeekRejects(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	q := e.queue("q", nil)
	e.send(q, sqsq.SendInput{MessageBody: "a"})
	before := e.stats(q)
	for _, tc := range []struct {
		name, query string
		status      int
		code        string
	}{
		{"limit not a number", "?limit=ten", 400, "InvalidParameterValue"},
		{"negative limit", "?limit=-1", 400, "InvalidParameterValue"},
		{"limit over 1000", "?limit=1001", 400, "InvalidParameterValue"},
		{"bodyPrefix not a number", "?bodyPrefix=all", 400, "InvalidParameterValue"},
		{"negative bodyPrefix", "?bodyPrefix=-5", 400, "InvalidParameterValue"},
		{"unknown state", "?state=lost", 400, "InvalidParameterValue"},
		{"bad cursor", "?cursor=not-a-cursor", 400, "InvalidParameterValue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e.with(t).fails("GET", "/_sqsq/api/queues/q/messages"+tc.query, nil, tc.status, tc.code)
		})
	}
	t.Run("no such queue", func(t *testing.T) {
		t.Parallel()
		e.with(t).fails("GET", "/_sqsq/api/queues/nope/messages", nil, http.StatusNotFound, "QueueDoesNotExist")
		// The queue first, as SQS resolves it before the parameters.
		e.with(t).fails("GET", "/_sqsq/api/queues/nope/messages?limit=ten", nil, http.StatusNotFound, "QueueDoesNotExist")
	})
	t.Cleanup(func() {
		if after := e.stats(q); after != before {
			t.Errorf("refused peeks changed the queue:\n%+v\n%+v", before, after)
		}
	})
}

func TestSend(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	q := e.queue("q", nil)
	var res struct {
		MessageID        string `json:"messageId"`
		SequenceNumber   string `json:"sequenceNumber"`
		MD5OfMessageBody string `json:"md5OfMessageBody"`
	}
	e.ok("POST", "/_sqsq/api/queues/q/messages", map[string]any{
		"body":         "hello",
		"delaySeconds": 30,
		"messageAttributes": map[string]any{
			"kind": map[string]string{"dataType": "String", "stringValue": "greeting"},
			"n":    map[string]string{"dataType": "Number", "stringValue": "42"},
			"raw":  map[string]string{"dataType": "Binary", "binaryValue": "AAH+"},
		},
	}, &res)
	if res.MessageID == "" || res.SequenceNumber != "" || res.MD5OfMessageBody != "5d41402abc4b2a76b9719d911017c592" {
		t.Errorf("answer %+v", res)
	}
	out, err := q.Peek(context.Background(), sqsq.PeekInput{})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("%v %+v", err, out)
	}
	m := out.Messages[0]
	if m.MessageId != res.MessageID || m.Body != "hello" || m.State != sqsq.StateDelayed || !m.Until.Equal(start.Add(30*time.Second)) {
		t.Errorf("stored %+v", m)
	}
	if a := m.MessageAttributes["raw"]; a.DataType != "Binary" || string(a.BinaryValue) != "\x00\x01\xfe" {
		t.Errorf("binary attribute %+v", a)
	}
	if a := m.MessageAttributes["n"]; a.DataType != "Number" || a.StringValue != "42" {
		t.Errorf("number attribute %+v", a)
	}

	f := e.queue("q.fifo", map[string]string{sqsq.AttrFifoQueue: "true"})
	e.ok("POST", "/_sqsq/api/queues/q.fifo/messages", map[string]any{"body": "x", "groupId": "g", "deduplicationId": "d"}, &res)
	if res.SequenceNumber == "" {
		t.Errorf("FIFO answer without a sequence number: %+v", res)
	}
	// The same deduplication id within 5 minutes is answered, not stored.
	e.ok("POST", "/_sqsq/api/queues/q.fifo/messages", map[string]any{"body": "x", "groupId": "g", "deduplicationId": "d"}, nil)
	if st := e.stats(f); st.Visible != 1 || st.DuplicatesSuppressed != 1 {
		t.Errorf("FIFO queue %+v", st)
	}
}

func TestSendRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, queue string
		body        any
		status      int
		code        string
	}{
		{"empty body", "q", map[string]any{"body": ""}, 400, "MissingParameter"},
		{"no body", "q", map[string]any{}, 400, "MissingParameter"},
		{"delay over 900 s", "q", map[string]any{"body": "x", "delaySeconds": 901}, 400, "InvalidParameterValue"},
		{"negative delay", "q", map[string]any{"body": "x", "delaySeconds": -1}, 400, "InvalidParameterValue"},
		{"huge delay", "q", map[string]any{"body": "x", "delaySeconds": 1 << 40}, 400, "InvalidParameterValue"},
		{"character SQS refuses", "q", map[string]any{"body": "bell \u0007"}, 400, "InvalidMessageContents"},
		{"attribute without type", "q", map[string]any{"body": "x", "messageAttributes": map[string]any{"a": map[string]string{"stringValue": "v"}}}, 400, "InvalidParameterValue"},
		{"binary attribute not base64", "q", map[string]any{"body": "x", "messageAttributes": map[string]any{"a": map[string]string{"dataType": "Binary", "binaryValue": "!!"}}}, 400, "SerializationException"},
		{"FIFO without group", "q.fifo", map[string]any{"body": "x", "deduplicationId": "d"}, 400, "MissingParameter"},
		{"FIFO with a delay", "q.fifo", map[string]any{"body": "x", "groupId": "g", "deduplicationId": "d", "delaySeconds": 5}, 400, "InvalidParameterValue"},
		{"unknown field", "q", map[string]any{"body": "x", "group": "g"}, 400, "SerializationException"},
		{"no such queue", "nope", map[string]any{"body": "x"}, 404, "QueueDoesNotExist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, false)
			q := e.queue("q", nil)
			f := e.queue("q.fifo", map[string]string{sqsq.AttrFifoQueue: "true"})
			e.fails("POST", "/_sqsq/api/queues/"+tc.queue+"/messages", tc.body, tc.status, tc.code)
			for _, q := range []*sqsq.Queue{q, f} {
				if st := e.stats(q); st.Sent != 0 || st.Visible+st.Delayed != 0 {
					t.Errorf("a refused send changed %s: %+v", q.Name(), st)
				}
			}
		})
	}
}

func TestDeleteMessage(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	q := e.queue("q", nil)
	id := e.send(q, sqsq.SendInput{MessageBody: "a"})
	keep := e.send(q, sqsq.SendInput{MessageBody: "b"})
	if _, err := q.Receive(context.Background(), sqsq.ReceiveInput{}); err != nil { // a goes in flight
		t.Fatal(err)
	}
	// Whatever its state.
	e.ok("DELETE", "/_sqsq/api/queues/q/messages/"+id, nil, nil)
	if st := e.stats(q); st.InFlight != 0 || st.Visible != 1 {
		t.Fatalf("after the delete: %+v", st)
	}
	before := e.stats(q)
	e.fails("DELETE", "/_sqsq/api/queues/q/messages/"+id, nil, http.StatusNotFound, "ResourceNotFoundException")
	e.fails("DELETE", "/_sqsq/api/queues/q/messages/no-such-id", nil, http.StatusNotFound, "ResourceNotFoundException")
	e.fails("DELETE", "/_sqsq/api/queues/nope/messages/"+keep, nil, http.StatusNotFound, "QueueDoesNotExist")
	if after := e.stats(q); after != before {
		t.Errorf("refused deletes changed the queue:\n%+v\n%+v", before, after)
	}
	if page := peekIDs(t, q); len(page) != 1 || page[0] != keep {
		t.Errorf("left %v, want %s", page, keep)
	}
}

func peekIDs(t *testing.T, q *sqsq.Queue) []string {
	t.Helper()
	out, err := q.Peek(context.Background(), sqsq.PeekInput{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range out.Messages {
		ids = append(ids, m.MessageId)
	}
	return ids
}

// The console's JSON carries a body of any size SQS allows.
func TestSendLargeBody(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	q := e.queue("q", nil)
	body := strings.Repeat("é", 1<<19) // 1 MiB
	e.ok("POST", "/_sqsq/api/queues/q/messages", map[string]any{"body": body}, nil)
	var page pageJSON
	page = pageJSON{}
	e.ok("GET", "/_sqsq/api/queues/q/messages?bodyPrefix=65536", nil, &page)
	if len(page.Messages) != 1 || page.Messages[0].BodySize != 1<<20 || len(page.Messages[0].Body) != 65536 || !page.Messages[0].BodyTruncated {
		t.Errorf("body %d bytes of %d", len(page.Messages[0].Body), page.Messages[0].BodySize)
	}
	if st := e.stats(q); st.Sent != 1 {
		t.Errorf("sent %d", st.Sent)
	}
}

// GET …/messages/{id} answers one message with its body whole, the way to
// see a body a page cut at bodyPrefix; it finds a message past the first
// page of the queue and nothing after the message is deleted.
func TestGetMessage(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	q := e.queue("q", nil)
	body := strings.Repeat("é", 1<<18) // 512 KiB
	big := e.send(q, sqsq.SendInput{MessageBody: body, MessageAttributes: map[string]sqsq.MessageAttribute{
		"k": {DataType: "String", StringValue: "v"}}})
	var last string
	for i := range 1000 { // more than a page of Peek
		last = e.send(q, sqsq.SendInput{MessageBody: strconv.Itoa(i)})
	}

	var m messageJSON
	e.ok("GET", "/_sqsq/api/queues/q/messages/"+big, nil, &m)
	if m.MessageID != big || m.Body != body || m.BodySize != 1<<19 || m.BodyTruncated || m.State != "available" || m.MessageAttributes["k"].StringValue != "v" {
		t.Errorf("the big message: id %s, %d bytes of %d, truncated %v, state %s, attributes %v",
			m.MessageID, len(m.Body), m.BodySize, m.BodyTruncated, m.State, m.MessageAttributes)
	}
	m = messageJSON{}
	e.ok("GET", "/_sqsq/api/queues/q/messages/"+last, nil, &m)
	if m.MessageID != last || m.Body != "999" {
		t.Errorf("the last message: %+v", m)
	}
	e.fails("GET", "/_sqsq/api/queues/q/messages/nope", nil, http.StatusNotFound, "ResourceNotFoundException")
	e.ok("DELETE", "/_sqsq/api/queues/q/messages/"+big, nil, nil)
	e.fails("GET", "/_sqsq/api/queues/q/messages/"+big, nil, http.StatusNotFound, "ResourceNotFoundException")
	if st := e.stats(q); st.Visible != 1000 || st.Received != 0 {
		t.Errorf("looking changed the queue: %+v", st)
	}
}
