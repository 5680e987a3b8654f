package console

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/jsontext"
)

// message is a stored message as GET …/messages shows it (see
// sqsq.PeekedMessage). Times are RFC 3339; TimeLeftMs is Until less the
// broker's clock, so it is right on a virtual clock too.
type message struct {
	MessageID           string                      `json:"messageId"`
	Body                string                      `json:"body"`
	BodySize            int                         `json:"bodySize"`
	BodyTruncated       bool                        `json:"bodyTruncated"`
	MessageAttributes   map[string]messageAttribute `json:"messageAttributes"`
	State               sqsq.MessageState           `json:"state"`
	Until               *time.Time                  `json:"until,omitempty"`
	TimeLeftMs          int64                       `json:"timeLeftMs"`
	ReceiveCount        int                         `json:"receiveCount"`
	SentAt              time.Time                   `json:"sentAt"`
	FirstReceivedAt     *time.Time                  `json:"firstReceivedAt,omitempty"`
	GroupID             string                      `json:"groupId,omitempty"`
	DeduplicationID     string                      `json:"deduplicationId,omitempty"`
	SequenceNumber      string                      `json:"sequenceNumber,omitempty"`
	DeadLetterSourceArn string                      `json:"deadLetterSourceArn,omitempty"`
}

// messageAttribute is a message attribute; a binary value is base64 in
// JSON, as in SQS's JSON protocol.
type messageAttribute struct {
	DataType    string `json:"dataType"`
	StringValue string `json:"stringValue,omitempty"`
	BinaryValue []byte `json:"binaryValue,omitempty"`
}

// peek answers GET /_sqsq/api/queues/{name}/messages with a page of the
// queue's messages, oldest first, without changing anything (Queue.Peek).
// Query: state (available, delayed, inflight, held; comma-separated or
// repeated), group (a FIFO message group), limit (1–1000, default 100),
// cursor (nextCursor of the previous page), bodyPrefix (bytes of each body
// to return; 0, the default, returns them whole). The answer is streamed,
// and a page ends early, with a nextCursor, once its bodies reach 8 MiB.
func (c *console) peek(w http.ResponseWriter, r *http.Request) {
	_, q, ok := c.queue(w, r) // first, as SQS resolves the queue before the parameters
	if !ok {
		return
	}
	query := r.URL.Query()
	in := sqsq.PeekInput{GroupId: query.Get("group"), Cursor: query.Get("cursor")}
	for _, v := range query["state"] {
		for s := range strings.SplitSeq(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				in.States = append(in.States, sqsq.MessageState(s))
			}
		}
	}
	if in.Limit, ok = intParam(w, query.Get("limit"), "limit"); !ok {
		return
	}
	if in.BodyPrefix, ok = intParam(w, query.Get("bodyPrefix"), "bodyPrefix"); !ok {
		return
	}
	c.streamPage(w, r, q, in)
}

// maxPageBytes bounds the bodies and attribute values of one page of
// …/messages: a page stops early, with a nextCursor, once they reach it,
// so 1,000 messages of 1 MiB cost the server one page of 8 MiB at a time.
const maxPageBytes = 8 << 20

// peekChunk is the most messages streamPage asks Peek for at a time: the
// messages it holds at once.
const peekChunk = 16

// streamPage writes the page of in as it reads it from the queue, a few
// messages at a time, never the whole page in memory: the first Peek's
// error is answered as usual; the page ends at in.Limit messages (100 by
// default), at maxPageBytes of bodies, or at the end of the queue.
func (c *console) streamPage(w http.ResponseWriter, r *http.Request, q *sqsq.Queue, in sqsq.PeekInput) {
	limit := in.Limit
	if limit == 0 {
		limit = 100
	}
	sub := in
	sub.Limit = 1 // the size of what follows is not known yet
	if limit > 1000 {
		sub.Limit = limit // for Peek's error
	}
	page, err := q.Peek(r.Context(), sub) // validates in
	if err != nil {
		fail(w, err)
		return
	}
	now := c.now()
	setJSONHeaders(w)
	w.WriteHeader(http.StatusOK)
	var buf []byte
	_, _ = io.WriteString(w, `{"messages":[`)
	n, size := 0, 0
	for {
		for _, m := range page.Messages {
			if n > 0 {
				_, _ = io.WriteString(w, ",")
			}
			buf = writeMessage(w, buf, toMessage(m, now))
			n++
			size += len(m.Body)
			for _, a := range m.MessageAttributes {
				size += len(a.StringValue) + len(a.BinaryValue)
			}
		}
		if page.NextCursor == "" || n >= limit || size >= c.cfg.pageBytes {
			break
		}
		// As many as fit the byte cap at the sizes seen so far, so the
		// page stops near it (a page ends only where a Peek does).
		fit := (c.cfg.pageBytes - size) / max(size/n, 1)
		sub.Cursor, sub.Limit = page.NextCursor, max(min(limit-n, peekChunk, fit), 1)
		next, err := q.Peek(r.Context(), sub)
		if err != nil { // the queue went away meanwhile: the page ends here
			page.NextCursor = ""
			break
		}
		page = next
	}
	cursor, _ := json.Marshal(page.NextCursor)
	at, _ := json.Marshal(now)
	_, _ = io.WriteString(w, `],"nextCursor":`+string(cursor)+`,"now":`+string(at)+"}\n")
}

// writeMessage writes m as JSON, its body streamed from the stored string
// through buf (returned for reuse) rather than copied into an encoding of
// the whole message: what serving a page allocates does not grow with its
// bodies.
func writeMessage(w io.Writer, buf []byte, m message) []byte {
	body := m.Body
	m.Body = ""
	head, _ := json.Marshal(m) // {"messageId":"…","body":"",…}: the body is the second field
	i := bytes.Index(head, []byte(`,"body":""`)) + len(`,"body":"`)
	_, _ = w.Write(head[:i])
	buf = jsontext.Pieces(buf, body, 32<<10, func(p []byte) { _, _ = w.Write(p) })
	_, _ = w.Write(head[i:])
	return buf
}

// intParam parses the query parameter name, a count ("" is 0).
func intParam(w http.ResponseWriter, s, name string) (int, bool) {
	if s == "" {
		return 0, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		fail(w, sqsq.InvalidParameter(name, s, "it must be a count (0 or more)."))
		return 0, false
	}
	return n, true
}

func toMessage(m sqsq.PeekedMessage, now time.Time) message {
	out := message{
		MessageID: m.MessageId, Body: m.Body, BodySize: m.BodySize, BodyTruncated: m.BodyTruncated,
		MessageAttributes: map[string]messageAttribute{},
		State:             m.State, ReceiveCount: m.ReceiveCount, SentAt: m.SentAt.UTC(),
		GroupID: m.GroupId, DeduplicationID: m.DeduplicationId, SequenceNumber: m.SequenceNumber,
		DeadLetterSourceArn: m.DeadLetterSourceArn,
	}
	for name, a := range m.MessageAttributes {
		out.MessageAttributes[name] = messageAttribute{DataType: a.DataType, StringValue: a.StringValue, BinaryValue: a.BinaryValue}
	}
	if !m.Until.IsZero() {
		until := m.Until.UTC()
		out.Until = &until
		out.TimeLeftMs = max(until.Sub(now).Milliseconds(), 0)
	}
	if !m.FirstReceivedAt.IsZero() {
		first := m.FirstReceivedAt.UTC()
		out.FirstReceivedAt = &first
	}
	return out
}

// sendInput is the body of POST …/messages, SendMessage's fields.
type sendInput struct {
	Body              string                      `json:"body"`
	MessageAttributes map[string]messageAttribute `json:"messageAttributes"`
	GroupID           string                      `json:"groupId"`
	DeduplicationID   string                      `json:"deduplicationId"`
	// DelaySeconds, 0–900, overrides the queue's delay; absent uses it.
	DelaySeconds *int `json:"delaySeconds"`
}

// send answers POST /_sqsq/api/queues/{name}/messages: SendMessage, with
// its validation and errors (MissingParameter for an empty body,
// InvalidParameterValue, InvalidMessageContents, …).
func (c *console) send(w http.ResponseWriter, r *http.Request) {
	var in sendInput
	if !decode(w, r, &in) {
		return
	}
	_, q, ok := c.queue(w, r)
	if !ok {
		return
	}
	s := sqsq.SendInput{MessageBody: in.Body, MessageGroupId: in.GroupID, MessageDeduplicationId: in.DeduplicationID}
	if len(in.MessageAttributes) > 0 {
		s.MessageAttributes = make(map[string]sqsq.MessageAttribute, len(in.MessageAttributes))
		for name, a := range in.MessageAttributes {
			s.MessageAttributes[name] = sqsq.MessageAttribute{DataType: a.DataType, StringValue: a.StringValue, BinaryValue: a.BinaryValue}
		}
	}
	if in.DelaySeconds != nil {
		// Clamped so that a huge value is refused by Send's range check
		// rather than overflowing the Duration.
		s.DelaySeconds = sqsq.Some(time.Duration(min(max(*in.DelaySeconds, -1), 1<<20)) * time.Second)
	}
	res, err := q.Send(r.Context(), s)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		MessageID        string `json:"messageId"`
		SequenceNumber   string `json:"sequenceNumber,omitempty"`
		MD5OfMessageBody string `json:"md5OfMessageBody"`
	}{res.MessageId, res.SequenceNumber, res.MD5OfMessageBody()})
}

// getMessage answers GET /_sqsq/api/queues/{name}/messages/{id}: the
// stored message with that id, its body whole, as a page of …/messages
// shows it; 404 ResourceNotFoundException if the queue has none. It is for
// a body a page cut short (bodyPrefix): one message, never a page of
// whole bodies. It looks through the queue in pages, as Peek allows, so it
// costs O(n) for n messages stored, like DeleteMessageById.
func (c *console) getMessage(w http.ResponseWriter, r *http.Request) {
	_, q, ok := c.queue(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	in := sqsq.PeekInput{Limit: 1000}
	for {
		page, err := q.Peek(r.Context(), in)
		if err != nil {
			fail(w, err)
			return
		}
		for _, m := range page.Messages {
			if m.MessageId == id {
				writeJSON(w, http.StatusOK, toMessage(m, c.now()))
				return
			}
		}
		if page.NextCursor == "" {
			writeError(w, http.StatusNotFound, sqsq.CodeResourceNotFound, "the queue "+q.Name()+" has no message "+id)
			return
		}
		in.Cursor = page.NextCursor
	}
}

// deleteMessage answers DELETE /_sqsq/api/queues/{name}/messages/{id}:
// it deletes the message whatever its state (Queue.DeleteMessageById), or
// answers 404 ResourceNotFoundException if the queue has no such message.
func (c *console) deleteMessage(w http.ResponseWriter, r *http.Request) {
	_, q, ok := c.queue(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	found, err := q.DeleteMessageById(r.Context(), id)
	if err != nil {
		fail(w, err)
		return
	}
	if !found {
		writeError(w, http.StatusNotFound, sqsq.CodeResourceNotFound, "the queue "+q.Name()+" has no message "+id)
		return
	}
	writeJSON(w, http.StatusOK, struct{}{})
}
