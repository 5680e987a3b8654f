package sqsq

import (
	"context"
	"strconv"
	"time"

	"github.com/sqsq/sqsq/internal/digest"
)

// SendInput is one message to send. Field names follow SendMessage.
type SendInput struct {
	// MessageBody is required: at least one character, from the characters
	// SQS allows (#x9 #xA #xD #x20–#xD7FF #xE000–#xFFFD #x10000–#x10FFFF).
	MessageBody string
	// DelaySeconds overrides the queue's delay for this message, 0–900 s.
	// Unset uses the queue's DelaySeconds; FIFO queues accept only 0.
	DelaySeconds Optional[time.Duration]
	// MessageAttributes: at most 10. Their names, types and values count
	// toward the queue's MaximumMessageSize together with the body.
	MessageAttributes map[string]MessageAttribute
	// MessageSystemAttributes: only "AWSTraceHeader", of type String.
	MessageSystemAttributes map[string]MessageAttribute
	// MessageGroupId is required on FIFO queues; on standard queues it is
	// stored and returned (fair queues). "" means not given.
	MessageGroupId string
	// MessageDeduplicationId, FIFO queues only. "" means not given.
	MessageDeduplicationId string
}

// SendResult is what SendMessage returns.
type SendResult struct {
	MessageId string
	// SequenceNumber is set on FIFO queues only.
	SequenceNumber string

	body         string
	m            *message
	attrs, sysAt map[string]MessageAttribute
}

// MD5OfMessageBody returns the hex MD5 of the body, computed once per message.
func (r SendResult) MD5OfMessageBody() string {
	if r.m != nil {
		return r.m.bodyMD5()
	}
	return digest.Body(r.body)
}

// MD5OfMessageAttributes returns the MD5 of the sent message attributes, or ""
// when none were sent.
func (r SendResult) MD5OfMessageAttributes() string { return attributesMD5(r.attrs) }

// MD5OfMessageSystemAttributes returns the MD5 of the sent system attributes,
// or "" when none were sent.
func (r SendResult) MD5OfMessageSystemAttributes() string { return attributesMD5(r.sysAt) }

// Send sends one message (SendMessage). Validation follows semantics §3.8:
// MissingParameter for an empty body, InvalidParameterValue for a message
// larger than MaximumMessageSize, InvalidMessageContents for disallowed body
// characters, InvalidParameterValue for bad attributes, delays and ids. A
// failed send stores nothing.
func (q *Queue) Send(ctx context.Context, in SendInput) (SendResult, error) {
	if err := ctx.Err(); err != nil {
		return SendResult{}, err
	}
	now, err := q.lock()
	if err != nil {
		return SendResult{}, err
	}
	defer q.mu.Unlock()
	if in.MessageBody == "" {
		return SendResult{}, MissingParameter("MessageBody")
	}
	size := messageSize(in.MessageBody, in.MessageAttributes)
	if size > q.settings.maxSize {
		return SendResult{}, newError(CodeInvalidParameterValue,
			"One or more parameters are invalid. Reason: Message must be shorter than %d bytes.", q.settings.maxSize)
	}
	if err := q.validateSend(&in); err != nil {
		return SendResult{}, err
	}
	return q.send(&in, size, now), nil
}

// reasonWrongQueueType is AWS's reason for a parameter the queue type does
// not take (a MessageDeduplicationId on a standard queue, a DelaySeconds on a
// FIFO queue), word for word, its grammar included.
const reasonWrongQueueType = "The request include parameter that is not valid for this queue type."

// validateSend runs the checks after the size check, in §3.8 order.
func (q *Queue) validateSend(in *SendInput) *Error {
	if err := validateBody(in.MessageBody); err != nil {
		return err
	}
	if err := validateMessageAttributes(in.MessageAttributes); err != nil {
		return err
	}
	if err := validateSystemAttributes(in.MessageSystemAttributes); err != nil {
		return err
	}
	if d, ok := in.DelaySeconds.Get(); ok && (d < 0 || d > 900*time.Second || d%time.Second != 0) {
		return invalidValue("DelaySeconds", int64(d/time.Second), "DelaySeconds must be >= 0 and <= 900.")
	}
	if in.MessageGroupId != "" {
		if err := validateGroupOrDedupID("MessageGroupId", in.MessageGroupId); err != nil {
			return err
		}
	}
	if in.MessageDeduplicationId != "" {
		if err := validateGroupOrDedupID("MessageDeduplicationId", in.MessageDeduplicationId); err != nil {
			return err
		}
		if !q.fifo {
			return invalidValue("MessageDeduplicationId", in.MessageDeduplicationId, reasonWrongQueueType)
		}
	}
	if q.fifo {
		if d, ok := in.DelaySeconds.Get(); ok && d != 0 {
			return invalidValue("DelaySeconds", int64(d/time.Second), reasonWrongQueueType)
		}
		return q.checkFIFOIDs(in, CodeMissingParameter)
	}
	return nil
}

// checkFIFOIDs requires the ids a FIFO send needs: a MessageGroupId (missing:
// groupCode, which SendMessageBatch makes InvalidParameterValue) and a
// deduplication id unless the queue derives it from the body.
func (q *Queue) checkFIFOIDs(in *SendInput, groupCode Code) *Error {
	if in.MessageGroupId == "" {
		e := MissingParameter("MessageGroupId")
		e.Code = groupCode
		return e
	}
	if in.MessageDeduplicationId == "" && !q.settings.contentDedup {
		return newError(CodeInvalidParameterValue,
			"The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly")
	}
	return nil
}

// send stores a validated message, or on a FIFO queue answers a duplicate
// within the deduplication interval with the original's id and sequence
// number, storing nothing. Caller holds q.mu.
func (q *Queue) send(in *SendInput, size int, now int64) SendResult {
	delay := in.DelaySeconds.Or(q.settings.delay)
	var dedupID string
	if q.fifo {
		delay = q.settings.delay // FIFO delays are the queue's, retroactively
		dedupID = in.MessageDeduplicationId
		if dedupID == "" {
			dedupID = contentDedupID(in.MessageBody)
		}
		if e, ok := q.f.dedup.lookup(q.settings.dedupScope, in.MessageGroupId, dedupID); ok {
			q.counters.DuplicatesSuppressed++
			return SendResult{
				MessageId:      e.messageID,
				SequenceNumber: strconv.FormatUint(e.seqNum, 10),
				body:           in.MessageBody,
				attrs:          in.MessageAttributes,
				sysAt:          in.MessageSystemAttributes,
			}
		}
	}
	m := &message{
		id:     q.b.ids(),
		body:   in.MessageBody,
		sentAt: now / int64(time.Millisecond),
	}
	if len(in.MessageAttributes) > 0 || len(in.MessageSystemAttributes) > 0 || in.MessageGroupId != "" {
		m.ext = &messageExt{
			attrs:    cloneAttributes(in.MessageAttributes),
			sysAttrs: cloneAttributes(in.MessageSystemAttributes),
			groupID:  in.MessageGroupId,
			dedupID:  dedupID,
			size:     size,
		}
	}
	res := SendResult{MessageId: m.id, body: m.body, m: m}
	if q.fifo {
		m.ext.seqNum = q.f.nextSeq()
		res.SequenceNumber = strconv.FormatUint(m.ext.seqNum, 10)
		q.f.dedup.add(in.MessageGroupId, dedupID, dedupEntry{messageID: m.id, seqNum: m.ext.seqNum}, now+int64(dedupInterval))
	}
	q.store(m, now, delay)
	q.counters.Sent++
	q.wakeFor(m)
	if o := q.b.cfg.observer; o != nil { // last: a panic there leaves the send whole
		ev := q.event(EventSent, now)
		ev.MessageID, ev.Body, ev.SentAt, ev.Delay = m.id, m.body, time.UnixMilli(m.sentAt), delay
		o.Observe(ev)
	}
	if m.ext != nil {
		res.attrs, res.sysAt = m.ext.attrs, m.ext.sysAttrs
	}
	return res
}

// cloneAttributes copies attrs so a caller mutating its map (or byte slices)
// later cannot change a stored message.
func cloneAttributes(attrs map[string]MessageAttribute) map[string]MessageAttribute {
	if len(attrs) == 0 {
		return nil
	}
	out := make(map[string]MessageAttribute, len(attrs))
	for k, v := range attrs {
		if v.BinaryValue != nil {
			v.BinaryValue = append([]byte(nil), v.BinaryValue...)
		}
		out[k] = v
	}
	return out
}

// SendBatchEntry is one entry of [Queue.SendBatch].
type SendBatchEntry struct {
	// Id identifies the entry in the result: 1–80 characters of [A-Za-z0-9_-],
	// distinct within the batch.
	Id string
	SendInput
}

// SendBatchResultEntry reports one sent entry.
type SendBatchResultEntry struct {
	Id string
	SendResult
}

// BatchResultError reports one failed entry of a batch call.
type BatchResultError struct {
	Id  string
	Err *Error
}

// SendBatchResult is what SendMessageBatch returns: the entries that were
// sent and, next to them, the ones that failed.
type SendBatchResult struct {
	Successful []SendBatchResultEntry
	Failed     []BatchResultError
}

// SendBatch sends up to 10 messages (SendMessageBatch). The whole call fails
// with EmptyBatchRequest, TooManyEntriesInBatchRequest, InvalidBatchEntryId,
// BatchEntryIdsNotDistinct or BatchRequestTooLong (over 1,048,576 bytes in
// total); an entry that fails validation on its own is reported in Failed
// while the others are sent, in request order.
func (q *Queue) SendBatch(ctx context.Context, entries []SendBatchEntry) (SendBatchResult, error) {
	if err := q.check(); err != nil {
		return SendBatchResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return SendBatchResult{}, err
	}
	if err := checkBatchIDs(len(entries), "SendMessageBatchRequestEntry", func(i int) string { return entries[i].Id }); err != nil {
		return SendBatchResult{}, err
	}
	now, err := q.lock()
	if err != nil {
		return SendBatchResult{}, err
	}
	defer q.mu.Unlock()
	if q.fifo { // these fail the whole batch, not the entry
		for i := range entries {
			if err := q.checkFIFOIDs(&entries[i].SendInput, CodeInvalidParameterValue); err != nil {
				return SendBatchResult{}, err
			}
		}
	}
	sizes := make([]int, len(entries))
	total := 0
	for i := range entries {
		sizes[i] = messageSize(entries[i].MessageBody, entries[i].MessageAttributes)
		total += sizes[i]
	}
	if total > maxBatchBytes {
		return SendBatchResult{}, newError(CodeBatchRequestTooLong,
			"Batch requests cannot be longer than %d bytes. You have sent %d bytes.", maxBatchBytes, total)
	}
	var out SendBatchResult
	for i := range entries {
		in := &entries[i].SendInput
		var e *Error
		switch {
		case in.MessageBody == "":
			e = MissingParameter("MessageBody")
		case sizes[i] > q.settings.maxSize:
			e = newError(CodeInvalidParameterValue,
				"One or more parameters cannot be validated. Reason: Message must be shorter than %d bytes.", q.settings.maxSize)
		default:
			e = q.validateSend(in)
		}
		if e != nil {
			out.Failed = append(out.Failed, BatchResultError{Id: entries[i].Id, Err: e})
			continue
		}
		if out.Successful == nil { // once, at its size: nil if none succeeds
			out.Successful = make([]SendBatchResultEntry, 0, len(entries)-i)
		}
		out.Successful = append(out.Successful, SendBatchResultEntry{Id: entries[i].Id, SendResult: q.send(in, sizes[i], now)})
	}
	return out, nil
}

const (
	maxBatchEntries = 10
	maxBatchBytes   = 1048576
)

// checkBatchIDs applies the request-level rules every batch call shares.
func checkBatchIDs(n int, entryName string, id func(int) string) *Error {
	if n == 0 {
		return newError(CodeEmptyBatchRequest, "There should be at least one %s in the request.", entryName)
	}
	if n > maxBatchEntries {
		return newError(CodeTooManyEntriesInBatchRequest, "Maximum number of entries per request are 10. You have sent %d.", n)
	}
	for i := 0; i < n; i++ {
		if !validBatchEntryID(id(i)) {
			return newError(CodeInvalidBatchEntryID,
				"A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.")
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			if id(i) == id(j) {
				return newError(CodeBatchEntryIdsNotDistinct, "Id %s repeated.", id(i))
			}
		}
	}
	return nil
}

// attributesMD5 is MD5OfMessageAttributes over attrs; "" when empty.
func attributesMD5(attrs map[string]MessageAttribute) string {
	if len(attrs) == 0 {
		return ""
	}
	list := make([]digest.Attribute, 0, len(attrs))
	for name, a := range attrs {
		list = append(list, digest.Attribute{
			Name: name, DataType: a.DataType, StringValue: a.StringValue,
			BinaryValue: a.BinaryValue, Binary: isBinaryType(a.DataType),
		})
	}
	return digest.Attributes(list)
}

func isBinaryType(dataType string) bool {
	return len(dataType) >= 6 && dataType[:6] == "Binary"
}

func msString(ms int64) string { return strconv.FormatInt(ms, 10) }
