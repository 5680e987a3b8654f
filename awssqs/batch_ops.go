package awssqs

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/present"
)

// SendMessageBatch sends up to 10 messages. Request-level errors
// (*types.EmptyBatchRequest, *types.TooManyEntriesInBatchRequest,
// *types.InvalidBatchEntryId, *types.BatchEntryIdsNotDistinct,
// *types.BatchRequestTooLong) fail the call; an entry that fails on its own
// is reported in Failed, with its legacy error code and SenderFault, while
// the others are sent. Entries follow SendMessage's rules, DelaySeconds 0
// meaning "not set" included.
func (c *Client) SendMessageBatch(ctx context.Context, params *sqs.SendMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	return call(ctx, c, "SendMessageBatch", params, (*Client).sendMessageBatch)
}

// refusedEntry stands in, in the core's batch, for an entry the adapter
// refuses itself: the core fails it on its own (no body) without failing
// the request (it has FIFO ids), and its error is then replaced by the
// adapter's. So the core still judges the request as a whole.
var refusedEntry = sqsq.SendInput{MessageGroupId: "refused", MessageDeduplicationId: "refused"}

func (c *Client) sendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput) (*sqs.SendMessageBatchOutput, error) {
	if in.QueueUrl != nil && in.Entries == nil {
		return nil, sqsq.MissingParameter("Entries")
	}
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	entries := make([]sqsq.SendBatchEntry, len(in.Entries))
	var refused map[string]*sqsq.Error
	for i := range in.Entries {
		e := &in.Entries[i]
		entries[i].Id = str(e.Id)
		send, err := sendInput(e.MessageBody, e.DelaySeconds, present.Sent(ctx, &e.DelaySeconds),
			e.MessageAttributes, e.MessageSystemAttributes, e.MessageGroupId, e.MessageDeduplicationId)
		var serr *sqsq.Error
		if errors.As(err, &serr) {
			if refused == nil {
				refused = map[string]*sqsq.Error{}
			}
			refused[entries[i].Id] = serr
			send = refusedEntry
		}
		entries[i].SendInput = send
	}
	res, err := q.SendBatch(ctx, entries)
	if err != nil {
		return nil, err
	}
	for i := range res.Failed {
		if e, ok := refused[res.Failed[i].Id]; ok {
			res.Failed[i].Err = e
		}
	}
	out := &sqs.SendMessageBatchOutput{Failed: batchErrorsOut(res.Failed)}
	if len(res.Successful) == 0 {
		return out, nil
	}
	out.Successful = make([]types.SendMessageBatchResultEntry, len(res.Successful))
	md5s := make([]string, 3*len(res.Successful))
	j := 0 // the request entry of res.Successful[i]: they are in request order
	for i := range res.Successful {
		s := &res.Successful[i]
		for entries[j].Id != s.Id {
			j++
		}
		o := &out.Successful[i]
		md5s[3*i] = s.MD5OfMessageBody()
		o.Id, o.MessageId, o.MD5OfMessageBody = &s.Id, &s.MessageId, &md5s[3*i]
		if len(entries[j].MessageAttributes) > 0 {
			md5s[3*i+1] = s.MD5OfMessageAttributes()
			o.MD5OfMessageAttributes = &md5s[3*i+1]
		}
		if len(entries[j].MessageSystemAttributes) > 0 {
			md5s[3*i+2] = s.MD5OfMessageSystemAttributes()
			o.MD5OfMessageSystemAttributes = &md5s[3*i+2]
		}
		if s.SequenceNumber != "" {
			o.SequenceNumber = &s.SequenceNumber
		}
	}
	return out, nil
}

// DeleteMessageBatch deletes up to 10 messages by receipt handle. Each
// entry behaves like DeleteMessage; its failure is reported in Failed
// while the others are applied.
func (c *Client) DeleteMessageBatch(ctx context.Context, params *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	return call(ctx, c, "DeleteMessageBatch", params, (*Client).deleteMessageBatch)
}

func (c *Client) deleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput) (*sqs.DeleteMessageBatchOutput, error) {
	if in.QueueUrl != nil && in.Entries == nil {
		return nil, sqsq.MissingParameter("Entries")
	}
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	entries := make([]sqsq.DeleteBatchEntry, len(in.Entries))
	for i, e := range in.Entries {
		entries[i] = sqsq.DeleteBatchEntry{Id: str(e.Id), ReceiptHandle: str(e.ReceiptHandle)}
	}
	res, err := q.DeleteBatch(ctx, entries)
	if err != nil {
		return nil, err
	}
	out := &sqs.DeleteMessageBatchOutput{Failed: batchErrorsOut(res.Failed)}
	if len(res.Successful) > 0 {
		out.Successful = make([]types.DeleteMessageBatchResultEntry, len(res.Successful))
		for i := range res.Successful {
			out.Successful[i].Id = &res.Successful[i]
		}
	}
	return out, nil
}

// ChangeMessageVisibilityBatch changes the visibility of up to 10 messages.
// Each entry behaves like ChangeMessageVisibility (VisibilityTimeout 0 is a
// real 0), except that a deleted message fails its entry with
// ReceiptHandleIsInvalid, as AWS answers; a failure is reported in Failed
// while the others are applied.
func (c *Client) ChangeMessageVisibilityBatch(ctx context.Context, params *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	return call(ctx, c, "ChangeMessageVisibilityBatch", params, (*Client).changeMessageVisibilityBatch)
}

func (c *Client) changeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	if in.QueueUrl != nil && in.Entries == nil {
		return nil, sqsq.MissingParameter("Entries")
	}
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	entries := make([]sqsq.ChangeVisibilityBatchEntry, len(in.Entries))
	for i, e := range in.Entries {
		entries[i] = sqsq.ChangeVisibilityBatchEntry{
			Id:                str(e.Id),
			ReceiptHandle:     str(e.ReceiptHandle),
			VisibilityTimeout: seconds(e.VisibilityTimeout),
		}
	}
	res, err := q.ChangeVisibilityBatch(ctx, entries)
	if err != nil {
		return nil, err
	}
	out := &sqs.ChangeMessageVisibilityBatchOutput{Failed: batchErrorsOut(res.Failed)}
	if len(res.Successful) > 0 {
		out.Successful = make([]types.ChangeMessageVisibilityBatchResultEntry, len(res.Successful))
		for i := range res.Successful {
			out.Successful[i].Id = &res.Successful[i]
		}
	}
	return out, nil
}
