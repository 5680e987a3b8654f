package sqsqtest

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsq/sqsq/awssqs"
)

// SQS is the queue under test as a handler written against the AWS SDK sees
// it: the *sqs.Client methods a consumer calls while handling a message,
// with the SDK's signatures, answered by the awssqs adapter (so errors are
// the SDK's). Each call is a step of the schedule.
type SQS struct{ e *Env }

// SQS returns the SDK-shaped view of the queue; pass [Env.QueueURL] as the
// QueueUrl.
func (e *Env) SQS() *SQS { return &SQS{e} }

func (s *SQS) client() *awssqs.Client {
	if s.e.r.client == nil {
		s.e.r.client = awssqs.New(s.e.r.b, awssqs.WithRequestIDFunc(func() string { return "request-id" }))
	}
	return s.e.r.client
}

// DeleteMessage is [sqs.Client.DeleteMessage] as one step.
func (s *SQS) DeleteMessage(ctx context.Context, in *sqs.DeleteMessageInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error) {
	s.e.pause("delete")
	out, err := s.client().DeleteMessage(ctx, in, optFns...)
	s.e.r.logCall(s.e.c, "delete("+s.e.r.labelOf(aws.ToString(in.ReceiptHandle))+")", err)
	return out, err
}

// ChangeMessageVisibility is [sqs.Client.ChangeMessageVisibility] as one
// step.
func (s *SQS) ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	s.e.pause("change visibility")
	out, err := s.client().ChangeMessageVisibility(ctx, in, optFns...)
	s.e.r.logCall(s.e.c, fmt.Sprintf("extend(%s, %ds)", s.e.r.labelOf(aws.ToString(in.ReceiptHandle)), in.VisibilityTimeout), err)
	return out, err
}
