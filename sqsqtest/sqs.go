package sqsqtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
)

// SQS is the scenario's queues as code written against the AWS SDK sees
// them: every operation method of *sqs.Client, with the SDK's signatures,
// answered by the awssqs adapter (so errors are the SDK's); code written
// against an interface of *sqs.Client methods takes it unchanged. Each
// call is a step of the schedule. A ReceiveMessage that would wait
// (WaitTimeSeconds, or the queue's ReceiveMessageWaitTimeSeconds) waits in
// virtual time: it goes once messages are there or when its wait ends.
type SQS struct{ e *Env }

// SQS returns the SDK-shaped view of the scenario's queues; pass
// [Env.QueueURL] (or [Env.URL]) as the QueueUrl.
func (e *Env) SQS() *SQS { return &SQS{e} }

func (s *SQS) client() *awssqs.Client {
	r := s.e.r
	if r.client == nil {
		r.client = awssqs.New(r.b, awssqs.WithRequestIDFunc(func() string { return "request-id" }))
	}
	return r.client
}

// do runs f as one step, named what, or by describe from in once it is
// parked (describe may read the run's bookkeeping).
func do[In, Out any](s *SQS, what string, describe func(*run, *call) string,
	f func(*awssqs.Client, context.Context, *In, ...func(*sqs.Options)) (*Out, error),
	ctx context.Context, in *In, optFns []func(*sqs.Options)) (*Out, error) {
	return step(s, what, describe, f, ctx, in, optFns, false)
}

// doEvented is do for a call whose every change to a queue the broker
// reports as an event (a delete, a visibility change): the kit need not
// read the queues' counts again for it (see run.stats), which a heartbeat
// had done after each extension.
func doEvented[In, Out any](s *SQS, describe func(*run, *call) string,
	f func(*awssqs.Client, context.Context, *In, ...func(*sqs.Options)) (*Out, error),
	ctx context.Context, in *In, optFns []func(*sqs.Options)) (*Out, error) {
	return step(s, "", describe, f, ctx, in, optFns, true)
}

// step is do and doEvented: evented calls leave untracked alone.
func step[In, Out any](s *SQS, what string, describe func(*run, *call) string,
	f func(*awssqs.Client, context.Context, *In, ...func(*sqs.Options)) (*Out, error),
	ctx context.Context, in *In, optFns []func(*sqs.Options), evented bool) (*Out, error) {
	cl := s.e.r.sch.newCall()
	cl.c, cl.text, cl.describe, cl.in = s.e.c, what, describe, in
	if !s.e.r.sch.park(cl) {
		return nil, ErrCrashed
	}
	out, err := f(s.client(), ctx, in, optFns...)
	if !evented {
		s.e.r.untracked.Add(1)
	}
	s.e.r.logCall(s.e.c, cl.text, err)
	return out, err
}

// queueName is the name at the end of a queue URL.
func queueName(url *string) string {
	u := aws.ToString(url)
	return u[strings.LastIndexByte(u, '/')+1:]
}

// DeleteMessage is [sqs.Client.DeleteMessage] as one step.
func (s *SQS) DeleteMessage(ctx context.Context, in *sqs.DeleteMessageInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error) {
	return doEvented(s, describeSDKDelete, (*awssqs.Client).DeleteMessage, ctx, in, optFns)
}

// DeleteMessageBatch is [sqs.Client.DeleteMessageBatch] as one step.
func (s *SQS) DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	return doEvented(s, func(r *run, cl *call) string {
		var ls []string
		for _, e := range cl.in.(*sqs.DeleteMessageBatchInput).Entries {
			ls = append(ls, r.labelOf(aws.ToString(e.ReceiptHandle)))
		}
		return "delete batch(" + strings.Join(ls, ",") + ")"
	}, (*awssqs.Client).DeleteMessageBatch, ctx, in, optFns)
}

// ChangeMessageVisibility is [sqs.Client.ChangeMessageVisibility] as one
// step.
func (s *SQS) ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	return doEvented(s, describeSDKExtend, (*awssqs.Client).ChangeMessageVisibility, ctx, in, optFns)
}

// describeSDKDelete and describeSDKExtend name the two calls a consumer
// makes for nearly every message.
func describeSDKDelete(r *run, cl *call) string {
	return r.deleteText(aws.ToString(cl.in.(*sqs.DeleteMessageInput).ReceiptHandle))
}

func describeSDKExtend(r *run, cl *call) string {
	in := cl.in.(*sqs.ChangeMessageVisibilityInput)
	return r.extendText(aws.ToString(in.ReceiptHandle), strconv.Itoa(int(in.VisibilityTimeout)), "s")
}

// ChangeMessageVisibilityBatch is [sqs.Client.ChangeMessageVisibilityBatch]
// as one step.
func (s *SQS) ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	return doEvented(s, func(r *run, cl *call) string {
		var ls []string
		for _, e := range cl.in.(*sqs.ChangeMessageVisibilityBatchInput).Entries {
			ls = append(ls, fmt.Sprintf("%s, %ds", r.labelOf(aws.ToString(e.ReceiptHandle)), e.VisibilityTimeout))
		}
		return "extend batch(" + strings.Join(ls, "; ") + ")"
	}, (*awssqs.Client).ChangeMessageVisibilityBatch, ctx, in, optFns)
}

// SendMessage is [sqs.Client.SendMessage] as one step; the send is
// recorded in [Result.Sent].
func (s *SQS) SendMessage(ctx context.Context, in *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	r := s.e.r
	what := "send(" + r.labelOfBody(aws.ToString(in.MessageBody)) + ") to " + queueName(in.QueueUrl)
	out, err := do(s, what, nil, (*awssqs.Client).SendMessage, ctx, in, optFns)
	if err == nil {
		r.sentBy[queueName(in.QueueUrl)] = append(r.sentBy[queueName(in.QueueUrl)], aws.ToString(in.MessageBody))
	}
	return out, err
}

// SendMessageBatch is [sqs.Client.SendMessageBatch] as one step; the sends
// that succeed are recorded in [Result.Sent].
func (s *SQS) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	r := s.e.r
	var ls []string
	for _, e := range in.Entries {
		ls = append(ls, r.labelOfBody(aws.ToString(e.MessageBody)))
	}
	what := fmt.Sprintf("send batch(%s) to %s", strings.Join(ls, ","), queueName(in.QueueUrl))
	out, err := do(s, what, nil, (*awssqs.Client).SendMessageBatch, ctx, in, optFns)
	if err == nil {
		ok := map[string]bool{}
		for _, e := range out.Successful {
			ok[aws.ToString(e.Id)] = true
		}
		for _, e := range in.Entries {
			if ok[aws.ToString(e.Id)] {
				r.sentBy[queueName(in.QueueUrl)] = append(r.sentBy[queueName(in.QueueUrl)], aws.ToString(e.MessageBody))
			}
		}
	}
	return out, err
}

// GetQueueAttributes is [sqs.Client.GetQueueAttributes] as one step.
func (s *SQS) GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	return do(s, "get attributes of "+queueName(in.QueueUrl), nil, (*awssqs.Client).GetQueueAttributes, ctx, in, optFns)
}

// GetQueueUrl is [sqs.Client.GetQueueUrl] as one step.
func (s *SQS) GetQueueUrl(ctx context.Context, in *sqs.GetQueueUrlInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error) {
	return do(s, "get URL of "+aws.ToString(in.QueueName), nil, (*awssqs.Client).GetQueueUrl, ctx, in, optFns)
}

// ReceiveMessage is [sqs.Client.ReceiveMessage] as one step. A receive
// that waits parks until the queue has a message or its wait ends on the
// run's clock, whichever the schedule picks first; one that does not wait
// goes at once.
func (s *SQS) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	r, c := s.e.r, s.e.c
	name := queueName(in.QueueUrl)
	q := r.queues[name]
	wait := time.Duration(in.WaitTimeSeconds) * time.Second
	if in.WaitTimeSeconds == 0 && q != nil {
		if a, err := q.GetAttributes(ctx, sqsq.AttrReceiveMessageWaitTimeSeconds); err == nil {
			if n, err := strconv.Atoi(a[sqsq.AttrReceiveMessageWaitTimeSeconds]); err == nil {
				wait = time.Duration(n) * time.Second
			}
		}
	}
	cl := &call{c: c, text: "receive from " + name, receive: true}
	if wait > 0 && q != nil {
		cl.wake = r.now().Add(wait)
		cl.ready = func() bool { st, _ := q.Stats(); return st.Visible > 0 }
	}
	if !r.sch.park(cl) {
		return nil, ErrCrashed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The kit answers a long poll once messages are there, or at its end:
	// a receive that does not wait, but is not sampled like a short poll.
	in2 := *in
	in2.WaitTimeSeconds = 0
	if wait > 0 {
		r.pol.setLongPoll(true)
		defer r.pol.setLongPoll(false)
	}
	out, err := s.client().ReceiveMessage(ctx, &in2, optFns...)
	got := r.receivedLabels()
	r.process()
	notes := r.faultNotes()
	switch {
	case err != nil && len(got) > 0:
		r.logf("receive(%s) by %s: %s, response lost%s", strings.Join(got, ","), c.name, errText(err), notes)
	case err != nil:
		r.logf("receive by %s: %s%s", c.name, errText(err), notes)
	case len(out.Messages) == 0:
		c.lastEmpty.Store(r.version)
		r.logf("receive by %s: empty%s", c.name, notes)
		r.loggedEmpty(notes)
	default:
		var ls []string
		for _, m := range out.Messages {
			l := r.labelOfBody(aws.ToString(m.Body))
			ls = append(ls, l)
			r.ledger.Deliveries[l]++
		}
		r.logf("receive(%s) by %s%s", strings.Join(ls, ","), c.name, notes)
	}
	return out, err
}

// Message returns m as the SDK's types.Message.
func (m Msg) Message() types.Message {
	// One allocation for the three strings the message points to, not
	// three.
	s := &[3]string{m.MessageId, m.ReceiptHandle, m.Body}
	out := types.Message{MessageId: &s[0], ReceiptHandle: &s[1], Body: &s[2], Attributes: m.Attributes}
	if len(m.MessageAttributes) > 0 {
		out.MessageAttributes = map[string]types.MessageAttributeValue{}
		for k, v := range m.MessageAttributes {
			out.MessageAttributes[k] = types.MessageAttributeValue{DataType: aws.String(v.DataType),
				StringValue: aws.String(v.StringValue), BinaryValue: v.BinaryValue}
		}
	}
	return out
}
