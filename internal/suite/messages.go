package suite

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

var messageTests = []test{
	{"send, receive and delete with digests", testSendReceiveDelete},
	{"receive returns only what was asked for", testReceiveShape},
	{"zero means not set where the SDK omits it", testZeroIsAbsent},
	{"visibility timeout, redelivery and stale handles", testVisibility},
	{"change visibility: zero, heartbeat and the 12-hour cap", testChangeVisibility},
	{"long poll woken by a send", testLongPollWokenBySend},
	{"long poll ends on the clock", testLongPollEndsOnClock},
	{"in-flight limit", testOverLimit},
	{"cancelled context", testCancelledContext},
	{"send validation", testSendValidation},
	{"required members", testRequiredMembers},
}

func testSendReceiveDelete(e *env) {
	url := e.createQueue("digests", nil)
	out := e.send(url, "message")
	e.diff("78e731027d8fd50ed642340b7c9a63b3", aws.ToString(out.MD5OfMessageBody), "MD5OfMessageBody of \"message\" (§5.8)")
	if out.MessageId == nil || out.MD5OfMessageAttributes != nil || out.MD5OfMessageSystemAttributes != nil || out.SequenceNumber != nil {
		e.t.Errorf("send without attributes on a standard queue: %+v; want only MessageId and MD5OfMessageBody (§3.8)", out)
	}
	out = e.sendIn(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("test"),
		MessageAttributes: map[string]types.MessageAttributeValue{"Foo": {DataType: aws.String("String"), StringValue: aws.String("Bar")}},
		MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{"AWSTraceHeader": {DataType: aws.String("String"),
			StringValue: aws.String("Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1")}},
	})
	e.diff([]string{"098f6bcd4621d373cade4e832627b4f6", "ae7155c6026991b6d54b11589678bf9c", "5ae4d5d7636402d80f4eb6d213245a88"},
		[]string{aws.ToString(out.MD5OfMessageBody), aws.ToString(out.MD5OfMessageAttributes), aws.ToString(out.MD5OfMessageSystemAttributes)},
		"the three digests of a send with attributes (§5.8 vectors)")

	msgs := e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, MessageAttributeNames: []string{"All"}})
	e.diff([]string{"message", "test"}, bodies(msgs), "a standard queue returns messages oldest first")
	for _, m := range msgs {
		if aws.ToString(m.MD5OfBody) != md5Hex(aws.ToString(m.Body)) || m.ReceiptHandle == nil || m.MessageId == nil {
			e.t.Errorf("received %+v: want MessageId, ReceiptHandle and MD5OfBody", m)
		}
	}
	e.diff("ae7155c6026991b6d54b11589678bf9c", aws.ToString(msgs[1].MD5OfMessageAttributes), "MD5OfMessageAttributes on receive")
	e.diff(aws.ToString(out.MessageId), aws.ToString(msgs[1].MessageId), "the MessageId of the send")
	for _, m := range msgs {
		e.deleteMessage(url, m)
	}
	e.diff([3]int{}, e.counts(url), "deleted messages are gone")
	e.advance(time.Hour)
	e.diff([]types.Message(nil), e.receiveN(url, 10), "deleted messages never come back")
}

func testReceiveShape(e *env) {
	url := e.createQueue("shape", nil)
	out, err := e.api().ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url)})
	e.must(err, "ReceiveMessage")
	e.diff([]types.Message(nil), out.Messages, "an empty receive has no Messages member (§3.10)")

	str := func(s string) types.MessageAttributeValue {
		return types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(s)}
	}
	e.sendIn(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("hello"),
		MessageAttributes: map[string]types.MessageAttributeValue{"General": str("Kenobi"), "Hello": str("There"), "Help.Me": str("Me")}})
	sentAt := strconv.FormatInt(e.now().UnixMilli(), 10)

	m := e.receiveOne(url)
	if m.Attributes != nil || m.MessageAttributes != nil || m.MD5OfMessageAttributes != nil {
		e.t.Errorf("a receive that asks for no attributes got %+v (§3.10)", m)
	}
	tests := []struct {
		reason  string
		filter  []string
		names   []string
		md5     string
		present bool
	}{
		{"All returns every attribute", []string{"All"}, []string{"General", "Hello", "Help.Me"}, "4c360f3fdafd970e05fae2f149d997f5", true},
		{"exact names return those that exist", []string{"General", "Hello", "Nope"}, []string{"General", "Hello"}, "fca026605781cb4126a1e9044df24232", true},
		{"Help does not match Help.Me", []string{"Hello", "Help"}, []string{"Hello"}, "a311262e065454b75da111d535b8dacd", true},
		{"a prefix.* filter", []string{"Hel.*"}, []string{"Hello", "Help.Me"}, "83fee93c1bcd8b9a5a923ffacdc636c7", true},
		{"nothing matched: no MessageAttributes member", []string{"Nope"}, nil, "", false},
	}
	for _, tt := range tests {
		_, err := e.api().ChangeMessageVisibility(e.ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
		e.must(err, "ChangeMessageVisibility 0")
		msgs := e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MessageAttributeNames: tt.filter})
		if len(msgs) != 1 {
			e.t.Fatalf("%s: received %d messages", tt.reason, len(msgs))
		}
		m = msgs[0]
		e.diff(tt.names, sortedKeys(m.MessageAttributes), tt.reason+": names (§5.5)")
		e.diff(tt.md5, aws.ToString(m.MD5OfMessageAttributes), tt.reason+": MD5 over the returned attributes only (§5.8)")
		if (m.MessageAttributes != nil) != tt.present {
			e.t.Errorf("%s: MessageAttributes present = %v", tt.reason, m.MessageAttributes != nil)
		}
	}

	_, err = e.api().ChangeMessageVisibility(e.ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
	e.must(err, "ChangeMessageVisibility 0")
	e.advance(time.Second)
	msgs := e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url),
		AttributeNames:              []types.QueueAttributeName{"SentTimestamp"},
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount},
	})
	e.diff(map[string]string{"SentTimestamp": sentAt, "ApproximateReceiveCount": strconv.Itoa(len(tests) + 2)}, msgs[0].Attributes,
		"the deprecated AttributeNames and MessageSystemAttributeNames are merged (§5.4); timestamps in ms")
	first := msgs[0].Attributes
	_, err = e.api().ChangeMessageVisibility(e.ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: msgs[0].ReceiptHandle})
	e.must(err, "ChangeMessageVisibility 0")
	msgs = e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url),
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
	all := msgs[0].Attributes
	if all["SenderId"] == "" || all["ApproximateFirstReceiveTimestamp"] != sentAt || all["SentTimestamp"] != first["SentTimestamp"] {
		e.t.Errorf("All system attributes: %v (§5.4)", all)
	}
	if _, ok := all["SequenceNumber"]; ok {
		e.t.Errorf("a standard queue has no SequenceNumber: %v", all)
	}
}

func testZeroIsAbsent(e *env) {
	url := e.createQueue("zeros", map[string]string{"VisibilityTimeout": "30", "DelaySeconds": "10"})
	e.sendIn(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("d"), DelaySeconds: 0})
	e.diff([3]int{0, 0, 1}, e.counts(url), "DelaySeconds 0 is not sent: the queue's 10 s delay applies (§13.2)")
	e.advance(10 * time.Second)

	msgs := e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url), VisibilityTimeout: 0, MaxNumberOfMessages: 0})
	e.diff([]string{"d"}, bodies(msgs), "MaxNumberOfMessages 0 is the default, 1")
	e.diff([]types.Message(nil), e.receiveN(url, 10), "VisibilityTimeout 0 is not sent: the queue's 30 s applies (§13.2)")
	e.advance(30 * time.Second)
	msgs = e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url), VisibilityTimeout: 5})
	e.diff([]string{"d"}, bodies(msgs), "visible again after the queue's 30 s")
	e.advance(5 * time.Second)
	e.diff([]string{"d"}, bodies(e.receiveN(url, 1)), "a VisibilityTimeout that is sent applies to that receive")
	e.sendIn(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("e"), DelaySeconds: 1})
	e.advance(time.Second)
	e.diff([]string{"e"}, bodies(e.receiveN(url, 1)), "a DelaySeconds that is sent overrides the queue's")
}

func testVisibility(e *env) {
	url := e.createQueue("visibility", map[string]string{"VisibilityTimeout": "30"})
	e.send(url, "job")
	first := e.receiveOne(url)
	e.advance(29 * time.Second)
	e.diff([]types.Message(nil), e.receiveN(url, 1), "hidden for the visibility timeout (§4.1)")
	e.advance(time.Second)
	second := e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url),
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}})
	if len(second) != 1 || aws.ToString(second[0].ReceiptHandle) == aws.ToString(first.ReceiptHandle) ||
		second[0].Attributes["ApproximateReceiveCount"] != "2" {
		e.t.Fatalf("redelivery after 30 s: %+v; want a new handle and ApproximateReceiveCount 2 (§4)", second)
	}
	_, err := e.api().DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: first.ReceiptHandle})
	e.must(err, "DeleteMessage with a stale handle succeeds on a standard queue (§4.5)")
	e.diff([3]int{0, 1, 0}, e.counts(url), "a stale handle deletes nothing")
	e.deleteMessage(url, second[0])
	e.diff([3]int{}, e.counts(url), "the latest handle deletes")

	_, err = e.api().DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String("INVALID")})
	e.wantErr(err, wantErr{op: "DeleteMessage", is: isA[*types.ReceiptHandleIsInvalid], code: "ReceiptHandleIsInvalid", status: 400,
		msg: `The input receipt handle "INVALID" is not a valid receipt handle.`}, "a malformed handle (§3.11)")
	other := e.createQueue("other", nil)
	e.send(other, "x")
	foreign := e.receiveOne(other)
	_, err = e.api().DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: foreign.ReceiptHandle})
	e.wantErr(err, wantErr{op: "DeleteMessage", is: isA[*types.ReceiptHandleIsInvalid], code: "ReceiptHandleIsInvalid", status: 400},
		"a handle of another queue (§4.5)")
}

func testChangeVisibility(e *env) {
	url := e.createQueue("change", map[string]string{"VisibilityTimeout": "30"})
	e.send(url, "job")
	m := e.receiveOne(url)
	change := func(rh *string, secs int32) error {
		_, err := e.api().ChangeMessageVisibility(e.ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url),
			ReceiptHandle: rh, VisibilityTimeout: secs})
		return err
	}
	e.must(change(m.ReceiptHandle, 0), "ChangeMessageVisibility 0")
	m = e.receiveOne(url)    // the 0 was sent: visible at once (§13.2)
	for i := 0; i < 3; i++ { // a heartbeat every 20 s keeps it hidden
		e.advance(20 * time.Second)
		e.must(change(m.ReceiptHandle, 30), "heartbeat")
		e.diff([]types.Message(nil), e.receiveN(url, 1), "a heartbeat keeps the message hidden (§4.3)")
	}
	// 60 s since the receive: 43,140 s more reach the 12-hour cap exactly.
	err := change(m.ReceiptHandle, 43141)
	e.wantErr(err, invalidParameter("ChangeMessageVisibility",
		"Value 43141 for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]"),
		"the 12-hour budget counts from the receive (§3.13)")
	e.must(change(m.ReceiptHandle, 43140), "up to the cap is allowed")
	e.deleteMessage(url, m)
	err = change(m.ReceiptHandle, 10)
	e.wantErr(err, invalidParameter("ChangeMessageVisibility", "Value "+aws.ToString(m.ReceiptHandle)+
		" for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change."),
		"a deleted message (§3.13)")
	err = change(aws.String("INVALID"), 10)
	e.wantErr(err, wantErr{op: "ChangeMessageVisibility", is: isA[*types.ReceiptHandleIsInvalid], code: "ReceiptHandleIsInvalid", status: 400},
		"a malformed handle (§3.13)")
}

// receiveAsync starts a receive and returns the channel its result comes on.
func (e *env) receiveAsync(in *sqs.ReceiveMessageInput) <-chan []types.Message {
	done := make(chan []types.Message, 1)
	go func() {
		out, err := e.api().ReceiveMessage(e.ctx, in)
		if err != nil {
			if e.ctx.Err() == nil { // not a test that skipped and ended
				e.t.Errorf("long poll: %v", err)
			}
			done <- nil
			return
		}
		done <- out.Messages
	}()
	return done
}

func testLongPollWokenBySend(e *env) {
	url := e.createQueue("longpoll", nil)
	done := e.receiveAsync(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 20})
	e.waitParked(url, 1)
	e.advance(5 * time.Second)
	e.send(url, "wake up")
	e.diff([]string{"wake up"}, bodies(<-done), "a send wakes a parked receive (§5.3)")
}

func testLongPollEndsOnClock(e *env) {
	url := e.createQueue("waits", map[string]string{"ReceiveMessageWaitTimeSeconds": "20"})
	done := e.receiveAsync(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 0})
	e.waitParked(url, 1) // WaitTimeSeconds 0 is not sent: the queue's 20 s apply (§13.2)
	e.advance(20 * time.Second)
	e.diff([]types.Message(nil), <-done, "the wait ends on the clock with nothing")

	e.sendIn(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("later"), DelaySeconds: 15})
	done = e.receiveAsync(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 20})
	e.waitParked(url, 1)
	e.advance(15 * time.Second)
	e.diff([]string{"later"}, bodies(<-done), "a delay ending during the wait wakes the receive")
}

func testOverLimit(e *env) {
	limit := e.h.InFlightLimit
	if limit == 0 || limit > 100 {
		e.t.Skip("the harness sets no small in-flight limit")
	}
	url := e.createQueue("busy", nil)
	for i := 0; i <= limit; i++ {
		e.send(url, "m"+strconv.Itoa(i))
	}
	for got := 0; got < limit; {
		got += len(e.receiveN(url, 10))
	}
	_, err := e.api().ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url)})
	e.wantErr(err, wantErr{op: "ReceiveMessage", is: isA[*types.OverLimit], code: "OverLimit", status: 403},
		"a short poll at the in-flight limit (§4.6)")
	done := e.receiveAsync(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 1})
	e.waitParked(url, 1)
	e.advance(time.Second)
	e.diff([]types.Message(nil), <-done, "a long poll at the limit returns nothing, no error (§3.10)")
}

func testCancelledContext(e *env) {
	url := e.createQueue("cancel", nil)
	ctx, cancel := context.WithCancel(e.ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := e.api().ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 20})
		errc <- err
	}()
	e.waitParked(url, 1)
	cancel()
	err := <-errc
	var op *smithy.OperationError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &op) || op.OperationName != "ReceiveMessage" || !isA[*smithy.CanceledError](err) {
		e.t.Errorf("cancelled long poll: %v (%T); want an OperationError around a smithy.CanceledError of context.Canceled", err, err)
	}
	_, err = e.api().SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("x")})
	if !errors.Is(err, context.Canceled) || !errors.As(err, &op) || op.OperationName != "SendMessage" {
		e.t.Errorf("send with a cancelled context: %v", err)
	}
	e.diff([3]int{}, e.counts(url), "a cancelled send stores nothing")
}

func testSendValidation(e *env) {
	url := e.createQueue("validation", map[string]string{"MaximumMessageSize": "1024"})
	send := func(in *sqs.SendMessageInput) error {
		in.QueueUrl = aws.String(url)
		if in.MessageBody == nil {
			in.MessageBody = aws.String("body")
		}
		_, err := e.api().SendMessage(e.ctx, in)
		return err
	}
	str := func(s string) types.MessageAttributeValue {
		return types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(s)}
	}
	big := make([]byte, 1025)
	for i := range big {
		big[i] = 'x'
	}
	tests := []struct {
		reason string
		in     *sqs.SendMessageInput
		want   wantErr
	}{
		{"an empty body is missing (§3.8)", &sqs.SendMessageInput{MessageBody: aws.String("")}, missingParameter("SendMessage", "MessageBody")},
		{"a body over MaximumMessageSize (§3.8)", &sqs.SendMessageInput{MessageBody: aws.String(string(big))},
			invalidParameter("SendMessage", "One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes.")},
		{"a disallowed body character (§5.6)", &sqs.SendMessageInput{MessageBody: aws.String("nul\x00")},
			wantErr{op: "SendMessage", is: isA[*types.InvalidMessageContents], code: "InvalidMessageContents", status: 400}},
		{"DelaySeconds over 900 (§3.8)", &sqs.SendMessageInput{DelaySeconds: 901},
			invalidParameter("SendMessage", "Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.")},
		{"an empty attribute value (§3.8)", &sqs.SendMessageInput{MessageAttributes: map[string]types.MessageAttributeValue{"a": str("")}},
			invalidParameter("SendMessage", "Message (user) attribute 'a' must contain a non-empty value of type 'String'.")},
		{"a lower-case data type (§5.5)", &sqs.SendMessageInput{MessageAttributes: map[string]types.MessageAttributeValue{
			"a": {DataType: aws.String("string"), StringValue: aws.String("x")}}}, invalidParameter("SendMessage", "")},
		{"list values are reserved (§5.5)", &sqs.SendMessageInput{MessageAttributes: map[string]types.MessageAttributeValue{
			"a": {DataType: aws.String("String"), StringListValues: []string{"x"}}}}, invalidParameter("SendMessage", "")},
		{"an empty MessageGroupId is malformed, not absent (§3.8)", &sqs.SendMessageInput{MessageGroupId: aws.String("")},
			invalidParameter("SendMessage", "Value  for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.")},
		{"a MessageDeduplicationId on a standard queue, in AWS's words, sic (§3.8)", &sqs.SendMessageInput{MessageDeduplicationId: aws.String("d")},
			invalidParameter("SendMessage", "Value d for parameter MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue type.")},
		{"a system attribute other than AWSTraceHeader (§5.4)", &sqs.SendMessageInput{MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{
			"Other": {DataType: aws.String("String"), StringValue: aws.String("x")}}}, invalidParameter("SendMessage", "")},
	}
	for _, tt := range tests {
		e.wantErr(send(tt.in), tt.want, tt.reason)
	}
	e.diff([3]int{}, e.counts(url), "failed sends store nothing")
	e.must(send(&sqs.SendMessageInput{MessageBody: aws.String(string(big[:1024]))}), "a body of exactly MaximumMessageSize is accepted (§5.7)")
	e.must(send(&sqs.SendMessageInput{MessageGroupId: aws.String("fair")}), "MessageGroupId is valid on a standard queue (§3.8)")

	_, err := e.api().ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 11})
	e.wantErr(err, invalidParameter("ReceiveMessage", "Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided."),
		"MaxNumberOfMessages over 10 (§3.10)")
	_, err = e.api().ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 21})
	e.wantErr(err, invalidParameter("ReceiveMessage", "Value 21 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided."),
		"WaitTimeSeconds over 20 (§3.10)")
}

func testRequiredMembers(e *env) {
	url := e.createQueue("required", nil)
	calls := []struct {
		op, member string
		call       func() error
	}{
		{"SendMessage", "QueueUrl", func() error {
			_, err := e.api().SendMessage(e.ctx, &sqs.SendMessageInput{MessageBody: aws.String("x")})
			return err
		}},
		{"SendMessage", "MessageBody", func() error {
			_, err := e.api().SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url)})
			return err
		}},
		{"ReceiveMessage", "QueueUrl", func() error {
			_, err := e.api().ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{})
			return err
		}},
		{"DeleteMessage", "ReceiptHandle", func() error {
			_, err := e.api().DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url)})
			return err
		}},
		{"CreateQueue", "QueueName", func() error {
			_, err := e.api().CreateQueue(e.ctx, &sqs.CreateQueueInput{})
			return err
		}},
		{"GetQueueUrl", "QueueName", func() error {
			_, err := e.api().GetQueueUrl(e.ctx, &sqs.GetQueueUrlInput{})
			return err
		}},
		{"SendMessageBatch", "Entries", func() error {
			_, err := e.api().SendMessageBatch(e.ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url)})
			return err
		}},
		{"TagQueue", "Tags", func() error {
			_, err := e.api().TagQueue(e.ctx, &sqs.TagQueueInput{QueueUrl: aws.String(url)})
			return err
		}},
		{"ListMessageMoveTasks", "SourceArn", func() error {
			_, err := e.api().ListMessageMoveTasks(e.ctx, &sqs.ListMessageMoveTasksInput{})
			return err
		}},
		{"CancelMessageMoveTask", "TaskHandle", func() error {
			_, err := e.api().CancelMessageMoveTask(e.ctx, &sqs.CancelMessageMoveTaskInput{})
			return err
		}},
	}
	for _, c := range calls {
		err := c.call()
		if e.h.Features.ClientValidation {
			var ip smithy.InvalidParamsError
			if !errors.As(err, &ip) {
				e.t.Errorf("%s without %s: %v; want the SDK's smithy.InvalidParamsError", c.op, c.member, err)
			}
			continue
		}
		e.wantErr(err, missingParameter(c.op, c.member), c.op+" without "+c.member)
	}
}
