package suite

import (
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

var batchTests = []test{
	{"send batch with per-entry failures", testSendBatch},
	{"batch request errors", testBatchRequestErrors},
	{"delete batch", testDeleteBatch},
	{"change visibility batch", testChangeVisibilityBatch},
	{"change visibility batch of deleted messages", testChangeVisibilityBatchDeleted},
}

// entry is a SendMessageBatch entry.
func entry(id, body string) types.SendMessageBatchRequestEntry {
	return types.SendMessageBatchRequestEntry{Id: aws.String(id), MessageBody: aws.String(body)}
}

// failed is a Failed entry as AWS reports it.
func failed(id, code, msg string) types.BatchResultErrorEntry {
	return types.BatchResultErrorEntry{Id: aws.String(id), Code: aws.String(code), SenderFault: true, Message: aws.String(msg)}
}

func testSendBatch(e *env) {
	url := e.createQueue("batch", nil)
	withAttr := entry("attr", "test")
	withAttr.MessageAttributes = map[string]types.MessageAttributeValue{"Foo": {DataType: aws.String("String"), StringValue: aws.String("Bar")}}
	delayed := entry("delayed", "later")
	delayed.DelaySeconds = 901
	listed := entry("listed", "x")
	listed.MessageAttributes = map[string]types.MessageAttributeValue{"a": {DataType: aws.String("String"), BinaryListValues: [][]byte{{1}}}}
	out, err := e.api().SendMessageBatch(e.ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: []types.SendMessageBatchRequestEntry{
		entry("plain", "message"), delayed, withAttr, entry("bad", "nul\x00"), listed,
	}})
	e.must(err, "SendMessageBatch")
	var ids []string
	for _, s := range out.Successful {
		ids = append(ids, aws.ToString(s.Id))
		if s.MessageId == nil || s.SequenceNumber != nil || s.MD5OfMessageSystemAttributes != nil {
			e.t.Errorf("successful entry %+v: want a MessageId and no SequenceNumber on a standard queue", s)
		}
	}
	e.diff([]string{"plain", "attr"}, ids, "the valid entries are sent, in request order (§3.9)")
	if len(out.Successful) == 2 {
		e.diff([]string{"78e731027d8fd50ed642340b7c9a63b3", "", "098f6bcd4621d373cade4e832627b4f6", "ae7155c6026991b6d54b11589678bf9c"},
			[]string{aws.ToString(out.Successful[0].MD5OfMessageBody), aws.ToString(out.Successful[0].MD5OfMessageAttributes),
				aws.ToString(out.Successful[1].MD5OfMessageBody), aws.ToString(out.Successful[1].MD5OfMessageAttributes)},
			"digests per entry; MD5OfMessageAttributes only where attributes were sent")
	}
	if len(out.Failed) != 3 {
		e.t.Fatalf("Failed = %+v, want 3 entries", out.Failed)
	}
	e.diff(failed("delayed", "InvalidParameterValue",
		"Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900."), out.Failed[0],
		"an entry's DelaySeconds out of range fails that entry (§3.9)")
	f := out.Failed[1]
	e.diff([]any{"bad", "InvalidMessageContents", true}, []any{aws.ToString(f.Id), aws.ToString(f.Code), f.SenderFault},
		"disallowed characters fail that entry with the legacy code (§3.9)")
	f = out.Failed[2]
	e.diff([]any{"listed", "InvalidParameterValue", true}, []any{aws.ToString(f.Id), aws.ToString(f.Code), f.SenderFault},
		"list values fail that entry")
	e.diff([3]int{2, 0, 0}, e.counts(url), "only the successful entries are stored")

	fifo := e.fifoQueue("batch.fifo", map[string]string{"ContentBasedDeduplication": "true"})
	var entries []types.SendMessageBatchRequestEntry
	for i := 0; i < 10; i++ {
		en := entry("e"+strconv.Itoa(i), "m"+strconv.Itoa(i))
		en.MessageGroupId = aws.String("g")
		entries = append(entries, en)
	}
	out, err = e.api().SendMessageBatch(e.ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(fifo), Entries: entries})
	e.must(err, "SendMessageBatch to FIFO")
	prev := ""
	for _, s := range out.Successful {
		seq := aws.ToString(s.SequenceNumber)
		if len(seq) < len(prev) || (len(seq) == len(prev) && seq <= prev) {
			e.t.Errorf("sequence numbers %s then %s: want increasing (§6.7)", prev, seq)
		}
		prev = seq
	}
	e.diff([]string{"m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"}, bodies(e.receiveN(fifo, 10)),
		"a FIFO batch is enqueued in request order (§3.9)")
}

func testBatchRequestErrors(e *env) {
	url := e.createQueue("batch-errors", nil)
	send := func(entries ...types.SendMessageBatchRequestEntry) error {
		if entries == nil {
			entries = []types.SendMessageBatchRequestEntry{} // present but empty; nil would be missing
		}
		_, err := e.api().SendMessageBatch(e.ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
		return err
	}
	var eleven []types.SendMessageBatchRequestEntry
	for i := 0; i < 11; i++ {
		eleven = append(eleven, entry("e"+strconv.Itoa(i), "x"))
	}
	big := strings.Repeat("x", 600_000)
	tests := []struct {
		reason string
		err    error
		want   wantErr
	}{
		{"no entries (§3.9)", send(), wantErr{op: "SendMessageBatch", is: isA[*types.EmptyBatchRequest],
			code: "AWS.SimpleQueueService.EmptyBatchRequest", status: 400,
			msg: "There should be at least one SendMessageBatchRequestEntry in the request."}},
		{"more than 10 entries (§3.9)", send(eleven...), wantErr{op: "SendMessageBatch", is: isA[*types.TooManyEntriesInBatchRequest],
			code: "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", status: 400,
			msg: "Maximum number of entries per request are 10. You have sent 11."}},
		{"an id outside [A-Za-z0-9_-] (§3.9)", send(entry("a.b", "x")), wantErr{op: "SendMessageBatch", is: isA[*types.InvalidBatchEntryId],
			code: "AWS.SimpleQueueService.InvalidBatchEntryId", status: 400,
			msg: "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long."}},
		{"a repeated id (§3.9)", send(entry("a", "x"), entry("a", "y")), wantErr{op: "SendMessageBatch", is: isA[*types.BatchEntryIdsNotDistinct],
			code: "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", status: 400, msg: "Id a repeated."}},
		{"over 1,048,576 bytes in total (§3.9)", send(entry("a", big), entry("b", big)), wantErr{op: "SendMessageBatch", is: isA[*types.BatchRequestTooLong],
			code: "AWS.SimpleQueueService.BatchRequestTooLong", status: 400,
			msg: "Batch requests cannot be longer than 1048576 bytes. You have sent 1200000 bytes."}},
	}
	for _, tt := range tests {
		e.wantErr(tt.err, tt.want, tt.reason)
	}
	e.diff([3]int{}, e.counts(url), "a failed request sends nothing")

	_, err := e.api().DeleteMessageBatch(e.ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: []types.DeleteMessageBatchRequestEntry{}})
	e.wantErr(err, wantErr{op: "DeleteMessageBatch", is: isA[*types.EmptyBatchRequest], code: "AWS.SimpleQueueService.EmptyBatchRequest",
		status: 400, msg: "There should be at least one DeleteMessageBatchRequestEntry in the request."}, "an empty delete batch")
}

func testDeleteBatch(e *env) {
	url := e.createQueue("delete-batch", nil)
	e.send(url, "a")
	e.send(url, "b")
	msgs := e.receiveN(url, 10)
	out, err := e.api().DeleteMessageBatch(e.ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("a"), ReceiptHandle: msgs[0].ReceiptHandle},
		{Id: aws.String("garbage"), ReceiptHandle: aws.String("INVALID")},
		{Id: aws.String("b"), ReceiptHandle: msgs[1].ReceiptHandle},
	}})
	e.must(err, "DeleteMessageBatch")
	e.diff([]types.DeleteMessageBatchResultEntry{{Id: aws.String("a")}, {Id: aws.String("b")}}, out.Successful, "the valid entries are applied (§3.12)")
	e.diff([]types.BatchResultErrorEntry{failed("garbage", "ReceiptHandleIsInvalid", `The input receipt handle "INVALID" is not a valid receipt handle.`)},
		out.Failed, "a malformed handle fails its entry (§3.12)")
	e.diff([3]int{}, e.counts(url), "both messages are deleted")

	e.send(url, "c")
	m := e.receiveOne(url)
	out, err = e.api().DeleteMessageBatch(e.ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("c"), ReceiptHandle: m.ReceiptHandle}}})
	e.must(err, "DeleteMessageBatch")
	e.diff([]types.BatchResultErrorEntry(nil), out.Failed, "no failures: the Failed member is absent")
}

func testChangeVisibilityBatch(e *env) {
	url := e.createQueue("change-batch", map[string]string{"VisibilityTimeout": "30"})
	e.send(url, "a")
	e.send(url, "b")
	msgs := e.receiveN(url, 10)
	out, err := e.api().ChangeMessageVisibilityBatch(e.ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(url),
		Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
			{Id: aws.String("a"), ReceiptHandle: msgs[0].ReceiptHandle, VisibilityTimeout: 0},
			{Id: aws.String("garbage"), ReceiptHandle: aws.String("INVALID"), VisibilityTimeout: 10},
			{Id: aws.String("b"), ReceiptHandle: msgs[1].ReceiptHandle, VisibilityTimeout: 120},
		}})
	e.must(err, "ChangeMessageVisibilityBatch")
	e.diff([]types.ChangeMessageVisibilityBatchResultEntry{{Id: aws.String("a")}, {Id: aws.String("b")}}, out.Successful,
		"the valid entries are applied (§3.14)")
	e.diff([]types.BatchResultErrorEntry{failed("garbage", "ReceiptHandleIsInvalid", `The input receipt handle "INVALID" is not a valid receipt handle.`)},
		out.Failed, "a malformed handle fails only its entry (§3.14)")
	e.diff([]string{"a"}, bodies(e.receiveN(url, 10)), "VisibilityTimeout 0 in a batch entry is a real 0 (§13.2)")
	e.advance(60 * time.Second)
	again := e.receiveN(url, 10)
	e.diff([]string{"a"}, bodies(again), "120 s for b outlasts the queue's 30 s")
	for _, m := range again {
		e.deleteMessage(url, m)
	}
	e.advance(60 * time.Second)
	e.diff([]string{"b"}, bodies(e.receiveN(url, 10)), "b is back after its 120 s")
}

// testChangeVisibilityBatchDeleted nacks messages already acked, as the Go
// CDK's SQS driver does: AWS fails each entry with ReceiptHandleIsInvalid
// (recorded traffic, §3.14), the code the driver drops, where the single
// call says InvalidParameterValue.
func testChangeVisibilityBatchDeleted(e *env) {
	url := e.createQueue("acked", nil)
	e.send(url, "a")
	e.send(url, "b")
	msgs := e.receiveN(url, 10)
	if len(msgs) != 2 {
		e.t.Fatalf("received %d messages, want 2", len(msgs))
	}
	e.deleteMessage(url, msgs[0])
	out, err := e.api().ChangeMessageVisibilityBatch(e.ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(url),
		Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
			{Id: aws.String("acked"), ReceiptHandle: msgs[0].ReceiptHandle, VisibilityTimeout: 0},
			{Id: aws.String("live"), ReceiptHandle: msgs[1].ReceiptHandle, VisibilityTimeout: 0},
		}})
	e.must(err, "ChangeMessageVisibilityBatch")
	e.diff([]types.BatchResultErrorEntry{failed("acked", "ReceiptHandleIsInvalid",
		"Message does not exist or is not available for visibility timeout change")}, out.Failed,
		"the entry of a deleted message (§3.14)")
	e.diff([]types.ChangeMessageVisibilityBatchResultEntry{{Id: aws.String("live")}}, out.Successful, "the other entry is applied")
	e.diff([3]int{1, 0, 0}, e.counts(url), "the live message is visible again, the deleted one stays gone")
}
