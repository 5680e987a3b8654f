package awssqs

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/present"
)

// SendMessage sends one message. As the SDK never sends a DelaySeconds of
// 0, 0 means "not set": the queue's delay applies. MessageGroupId and
// MessageDeduplicationId given as "" are refused with InvalidParameterValue.
// The output carries MD5OfMessageBody always, MD5OfMessageAttributes and
// MD5OfMessageSystemAttributes only when such attributes were sent, and
// SequenceNumber on FIFO queues.
func (c *Client) SendMessage(ctx context.Context, params *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	return call(ctx, c, "SendMessage", params, (*Client).sendMessage)
}

// sendResult is a SendMessageOutput with the strings it points to, so that
// a send allocates one output.
type sendResult struct {
	out                                   sqs.SendMessageOutput
	id, md5Body, md5Attrs, md5System, seq string
}

func (c *Client) sendMessage(ctx context.Context, in *sqs.SendMessageInput) (*sqs.SendMessageOutput, error) {
	if in.QueueUrl != nil && in.MessageBody == nil {
		return nil, sqsq.MissingParameter("MessageBody")
	}
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	send, err := sendInput(in.MessageBody, in.DelaySeconds, present.Sent(ctx, &in.DelaySeconds),
		in.MessageAttributes, in.MessageSystemAttributes, in.MessageGroupId, in.MessageDeduplicationId)
	if err != nil {
		return nil, err
	}
	res, err := q.Send(ctx, send)
	if err != nil {
		return nil, err
	}
	r := &sendResult{id: res.MessageId, md5Body: res.MD5OfMessageBody(), seq: res.SequenceNumber}
	r.out.MessageId, r.out.MD5OfMessageBody = &r.id, &r.md5Body
	if len(send.MessageAttributes) > 0 {
		r.md5Attrs = res.MD5OfMessageAttributes()
		r.out.MD5OfMessageAttributes = &r.md5Attrs
	}
	if len(send.MessageSystemAttributes) > 0 {
		r.md5System = res.MD5OfMessageSystemAttributes()
		r.out.MD5OfMessageSystemAttributes = &r.md5System
	}
	if r.seq != "" {
		r.out.SequenceNumber = &r.seq
	}
	return &r.out, nil
}

// sendInput translates the members SendMessage and a SendMessageBatch
// entry share. delaySent tells whether DelaySeconds was sent (see
// [present.Sent]): the SDK omits a 0, so the service sees it as not set.
func sendInput(body *string, delay int32, delaySent bool, attrs map[string]types.MessageAttributeValue,
	system map[string]types.MessageSystemAttributeValue, group, dedup *string) (sqsq.SendInput, error) {
	in := sqsq.SendInput{MessageBody: str(body)}
	if delaySent {
		in.DelaySeconds = sqsq.Some(seconds(delay))
	}
	var err error
	if in.MessageAttributes, err = messageAttributesIn(attrs); err != nil {
		return sqsq.SendInput{}, err
	}
	if in.MessageSystemAttributes, err = systemAttributesIn(system); err != nil {
		return sqsq.SendInput{}, err
	}
	if in.MessageGroupId, in.MessageDeduplicationId, err = groupAndDedupIDs(group, dedup); err != nil {
		return sqsq.SendInput{}, err
	}
	return in, nil
}

// ReceiveMessage receives up to MaxNumberOfMessages messages, waiting up to
// WaitTimeSeconds on the broker's clock. As the SDK never sends a 0 for
// MaxNumberOfMessages, VisibilityTimeout or WaitTimeSeconds, 0 means "not
// set" for each (1 message, the queue's visibility timeout, the queue's
// ReceiveMessageWaitTimeSeconds). System attributes are the union of
// MessageSystemAttributeNames and the deprecated AttributeNames. Messages
// is nil when nothing is received; each message's Attributes and
// MessageAttributes are nil unless some are returned, and
// MD5OfMessageAttributes covers the returned attributes only.
func (c *Client) ReceiveMessage(ctx context.Context, params *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	return call(ctx, c, "ReceiveMessage", params, (*Client).receiveMessage)
}

func (c *Client) receiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput) (*sqs.ReceiveMessageOutput, error) {
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	r := sqsq.ReceiveInput{
		MaxNumberOfMessages:         int(in.MaxNumberOfMessages),
		MessageSystemAttributeNames: systemAttributeNames(in.AttributeNames, in.MessageSystemAttributeNames),
		MessageAttributeNames:       in.MessageAttributeNames,
		ReceiveRequestAttemptId:     str(in.ReceiveRequestAttemptId),
	}
	// The SDK omits these when 0, so a 0 is "not set" unless a wire client
	// sent it (see package present). The core reads MaxNumberOfMessages 0
	// as its default, so a sent 0 is refused here.
	if in.MaxNumberOfMessages == 0 && present.Sent(ctx, &in.MaxNumberOfMessages) {
		return nil, sqsq.InvalidParameter("MaxNumberOfMessages", "0", "Must be between 1 and 10, if provided.")
	}
	if present.Sent(ctx, &in.VisibilityTimeout) {
		r.VisibilityTimeout = sqsq.Some(seconds(in.VisibilityTimeout))
	}
	if present.Sent(ctx, &in.WaitTimeSeconds) {
		r.WaitTimeSeconds = sqsq.Some(seconds(in.WaitTimeSeconds))
	}
	msgs, err := q.Receive(ctx, r)
	if err != nil {
		return nil, err
	}
	return &sqs.ReceiveMessageOutput{Messages: messagesOut(msgs)}, nil
}

// DeleteMessage deletes the message a receipt handle names. As on AWS, a
// stale handle of a standard queue succeeds, and a malformed or foreign
// one fails with *types.ReceiptHandleIsInvalid.
func (c *Client) DeleteMessage(ctx context.Context, params *sqs.DeleteMessageInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error) {
	return call(ctx, c, "DeleteMessage", params, (*Client).deleteMessage)
}

func (c *Client) deleteMessage(ctx context.Context, in *sqs.DeleteMessageInput) (*sqs.DeleteMessageOutput, error) {
	if in.QueueUrl != nil && in.ReceiptHandle == nil {
		return nil, sqsq.MissingParameter("ReceiptHandle")
	}
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if err := q.Delete(ctx, *in.ReceiptHandle); err != nil {
		return nil, err
	}
	return &sqs.DeleteMessageOutput{}, nil
}

// ChangeMessageVisibility sets a received message's visibility timeout,
// counted from now. The SDK always sends this VisibilityTimeout, so 0 is a
// real 0: the message is visible again at once.
func (c *Client) ChangeMessageVisibility(ctx context.Context, params *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	return call(ctx, c, "ChangeMessageVisibility", params, (*Client).changeMessageVisibility)
}

func (c *Client) changeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput) (*sqs.ChangeMessageVisibilityOutput, error) {
	if in.QueueUrl != nil && in.ReceiptHandle == nil {
		return nil, sqsq.MissingParameter("ReceiptHandle")
	}
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if err := q.ChangeVisibility(ctx, *in.ReceiptHandle, seconds(in.VisibilityTimeout)); err != nil {
		return nil, err
	}
	return &sqs.ChangeMessageVisibilityOutput{}, nil
}
