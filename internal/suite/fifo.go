package suite

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

var fifoTests = []test{
	{"order within a group and group locking", testFIFOOrder},
	{"deduplication", testFIFODedup},
	{"content-based deduplication", testFIFOContentDedup},
	{"FIFO send rules", testFIFOSendRules},
	{"FIFO expired handles", testFIFOExpiredHandle},
}

func (e *env) sendGroup(url, group, body, dedup string) *sqs.SendMessageOutput {
	e.t.Helper()
	in := &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body), MessageGroupId: aws.String(group)}
	if dedup != "" {
		in.MessageDeduplicationId = aws.String(dedup)
	}
	return e.sendIn(in)
}

func testFIFOOrder(e *env) {
	url := e.fifoQueue("orders.fifo", nil)
	var seqs []string
	for _, m := range []struct{ group, body string }{{"a", "a1"}, {"b", "b1"}, {"a", "a2"}, {"a", "a3"}, {"b", "b2"}} {
		out := e.sendGroup(url, m.group, m.body, m.body)
		if out.SequenceNumber == nil {
			e.t.Fatalf("FIFO send without SequenceNumber: %+v (§6.7)", out)
		}
		seqs = append(seqs, *out.SequenceNumber)
	}
	first := e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 2,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"SequenceNumber", "MessageGroupId"}})
	e.diff([]string{"a1", "a2"}, bodies(first), "one receive returns a group's messages in order (§6.4)")
	if len(first) == 2 {
		e.diff(map[string]string{"SequenceNumber": seqs[0], "MessageGroupId": "a"}, first[0].Attributes, "SequenceNumber and MessageGroupId on receive")
	}
	e.diff([]string{"b1", "b2"}, bodies(e.receiveN(url, 10)), "group a is locked while its messages are in flight (§6.4)")
	e.diff([]types.Message(nil), e.receiveN(url, 10), "every group is locked")
	for _, m := range first {
		e.deleteMessage(url, m)
	}
	e.diff([]string{"a3"}, bodies(e.receiveN(url, 10)), "deleting unlocks the group, in order")
	e.advance(30 * time.Second)
	e.diff([]string{"b1", "b2", "a3"}, bodies(e.receiveN(url, 10)), "visibility ended: b and a come back in order")
}

func testFIFODedup(e *env) {
	url := e.fifoQueue("dedup.fifo", nil)
	one := e.sendGroup(url, "g", "first", "id-1")
	two := e.sendGroup(url, "g", "second", "id-1")
	e.diff(aws.ToString(one.MessageId), aws.ToString(two.MessageId), "a duplicate is answered with the original's MessageId (§6.5)")
	e.diff(aws.ToString(one.SequenceNumber), aws.ToString(two.SequenceNumber), "and its SequenceNumber")
	e.diff(md5Hex("second"), aws.ToString(two.MD5OfMessageBody), "the digest is of the body sent")
	e.diff([3]int{1, 0, 0}, e.counts(url), "a duplicate within 5 minutes enqueues nothing (§6.5)")
	e.advance(5 * time.Minute)
	three := e.sendGroup(url, "g", "third", "id-1")
	if aws.ToString(three.MessageId) == aws.ToString(one.MessageId) {
		e.t.Errorf("after the 5-minute window the id is new again (§6.5)")
	}
	e.diff([3]int{2, 0, 0}, e.counts(url), "the window ended: a new message")
	_, err := e.api().PurgeQueue(e.ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)})
	e.must(err, "PurgeQueue")
	e.sendGroup(url, "g", "fourth", "id-1")
	e.diff([3]int{1, 0, 0}, e.counts(url), "a purge clears the deduplication cache (§3.7)")
}

func testFIFOContentDedup(e *env) {
	url := e.fifoQueue("content.fifo", map[string]string{"ContentBasedDeduplication": "true"})
	one := e.sendGroup(url, "g", "same body", "")
	two := e.sendGroup(url, "g", "same body", "")
	e.diff(aws.ToString(one.MessageId), aws.ToString(two.MessageId), "the same body is a duplicate (§6.5)")
	e.sendGroup(url, "g", "same body", "explicit")
	e.diff([3]int{2, 0, 0}, e.counts(url), "an explicit id takes precedence over the content")
	msgs := e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url),
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"MessageDeduplicationId"}})
	if len(msgs) != 1 || len(msgs[0].Attributes["MessageDeduplicationId"]) != 64 {
		e.t.Errorf("content-based MessageDeduplicationId: %+v; want the SHA-256 hex of the body", msgs)
	}
}

func testFIFOSendRules(e *env) {
	url := e.fifoQueue("rules.fifo", nil)
	send := func(in *sqs.SendMessageInput) error {
		in.QueueUrl, in.MessageBody = aws.String(url), aws.String("x")
		_, err := e.api().SendMessage(e.ctx, in)
		return err
	}
	tests := []struct {
		reason string
		in     *sqs.SendMessageInput
		want   wantErr
	}{
		{"MessageGroupId is required (§3.8)", &sqs.SendMessageInput{MessageDeduplicationId: aws.String("d")},
			missingParameter("SendMessage", "MessageGroupId")},
		{"a deduplication id is required without content-based deduplication (§3.8)", &sqs.SendMessageInput{MessageGroupId: aws.String("g")},
			invalidParameter("SendMessage", "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly")},
		{"per-message delays are refused (§6.6)", &sqs.SendMessageInput{MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("d"), DelaySeconds: 5},
			invalidParameter("SendMessage", "Value 5 for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.")},
		{"an empty MessageDeduplicationId is malformed, not absent", &sqs.SendMessageInput{MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("")},
			invalidParameter("SendMessage", "Value  for parameter MessageDeduplicationId is invalid. Reason: MessageDeduplicationId can only include alphanumeric and punctuation characters. 1 to 128 in length.")},
		{"a space in MessageGroupId (§3.8)", &sqs.SendMessageInput{MessageGroupId: aws.String("a b"), MessageDeduplicationId: aws.String("d")},
			invalidParameter("SendMessage", "Value a b for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.")},
	}
	for _, tt := range tests {
		e.wantErr(send(tt.in), tt.want, tt.reason)
	}
	_, err := e.api().SendMessageBatch(e.ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url),
		Entries: []types.SendMessageBatchRequestEntry{entry("a", "x")}})
	e.wantErr(err, invalidParameter("SendMessageBatch", "The request must contain the parameter MessageGroupId."),
		"in a batch a missing MessageGroupId is InvalidParameterValue (§3.9)")
	_, err = e.api().CreateQueue(e.ctx, &sqs.CreateQueueInput{QueueName: aws.String("nosuffix"), Attributes: map[string]string{"FifoQueue": "true"}})
	e.wantErr(err, invalidParameter("CreateQueue", ""), "a FIFO queue's name ends in .fifo (§1.1)")
	e.diff([3]int{}, e.counts(url), "nothing was sent")
}

func testFIFOExpiredHandle(e *env) {
	url := e.fifoQueue("expired.fifo", map[string]string{"VisibilityTimeout": "30"})
	e.sendGroup(url, "g", "x", "d")
	m := e.receiveOne(url)
	e.advance(30 * time.Second)
	_, err := e.api().DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
	e.wantErr(err, invalidParameter("DeleteMessage", "Value "+aws.ToString(m.ReceiptHandle)+
		" for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired."),
		"a FIFO handle whose visibility ended cannot delete (§3.11)")
	e.diff([3]int{1, 0, 0}, e.counts(url), "the message stays")
}
