package awssqs

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq"
)

// StartMessageMoveTask starts moving the messages of a dead-letter queue
// (SourceArn) back to their source queues or to DestinationArn, at
// MaxNumberOfMessagesPerSecond (default 500) per second of the broker's
// clock. It returns while the task is RUNNING; follow it with
// ListMessageMoveTasks.
func (c *Client) StartMessageMoveTask(ctx context.Context, params *sqs.StartMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.StartMessageMoveTaskOutput, error) {
	return call(ctx, c, "StartMessageMoveTask", params, (*Client).startMessageMoveTask)
}

func (c *Client) startMessageMoveTask(ctx context.Context, in *sqs.StartMessageMoveTaskInput) (*sqs.StartMessageMoveTaskOutput, error) {
	if in.SourceArn == nil {
		return nil, sqsq.MissingParameter("SourceArn")
	}
	start := sqsq.StartMoveTaskInput{SourceArn: *in.SourceArn, DestinationArn: str(in.DestinationArn)}
	if in.MaxNumberOfMessagesPerSecond != nil {
		start.MaxNumberOfMessagesPerSecond = sqsq.Some(int(*in.MaxNumberOfMessagesPerSecond))
	}
	handle, err := c.b.StartMoveTask(ctx, start)
	if err != nil {
		return nil, err
	}
	return &sqs.StartMessageMoveTaskOutput{TaskHandle: &handle}, nil
}

// ListMessageMoveTasks lists the most recent move tasks of a source queue,
// newest first (MaxResults 1–10, default 1). Members AWS omits are nil:
// TaskHandle unless the task is RUNNING, DestinationArn and
// MaxNumberOfMessagesPerSecond unless the task was started with them,
// FailureReason unless it FAILED. StartedTimestamp is in epoch milliseconds.
func (c *Client) ListMessageMoveTasks(ctx context.Context, params *sqs.ListMessageMoveTasksInput, optFns ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error) {
	return call(ctx, c, "ListMessageMoveTasks", params, (*Client).listMessageMoveTasks)
}

func (c *Client) listMessageMoveTasks(ctx context.Context, in *sqs.ListMessageMoveTasksInput) (*sqs.ListMessageMoveTasksOutput, error) {
	if in.SourceArn == nil {
		return nil, sqsq.MissingParameter("SourceArn")
	}
	tasks, err := c.b.ListMoveTasks(ctx, *in.SourceArn, maxResults(in.MaxResults))
	if err != nil {
		return nil, err
	}
	out := &sqs.ListMessageMoveTasksOutput{}
	if len(tasks) == 0 {
		return out, nil
	}
	out.Results = make([]types.ListMessageMoveTasksResultEntry, len(tasks))
	for i := range tasks {
		t, r := &tasks[i], &out.Results[i]
		r.Status, r.SourceArn = &t.Status, &t.SourceArn
		r.ApproximateNumberOfMessagesMoved = t.ApproximateNumberOfMessagesMoved
		r.ApproximateNumberOfMessagesToMove = &t.ApproximateNumberOfMessagesToMove
		r.StartedTimestamp = t.StartedTimestamp
		if t.TaskHandle != "" {
			r.TaskHandle = &t.TaskHandle
		}
		if t.DestinationArn != "" {
			r.DestinationArn = &t.DestinationArn
		}
		if rate, ok := t.MaxNumberOfMessagesPerSecond.Get(); ok {
			n := int32(rate)
			r.MaxNumberOfMessagesPerSecond = &n
		}
		if t.FailureReason != "" {
			r.FailureReason = &t.FailureReason
		}
	}
	return out, nil
}

// CancelMessageMoveTask cancels a running move task and returns how many
// messages it had moved; they stay moved.
func (c *Client) CancelMessageMoveTask(ctx context.Context, params *sqs.CancelMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.CancelMessageMoveTaskOutput, error) {
	return call(ctx, c, "CancelMessageMoveTask", params, (*Client).cancelMessageMoveTask)
}

func (c *Client) cancelMessageMoveTask(ctx context.Context, in *sqs.CancelMessageMoveTaskInput) (*sqs.CancelMessageMoveTaskOutput, error) {
	if in.TaskHandle == nil {
		return nil, sqsq.MissingParameter("TaskHandle")
	}
	moved, err := c.b.CancelMoveTask(ctx, *in.TaskHandle)
	if err != nil {
		return nil, err
	}
	return &sqs.CancelMessageMoveTaskOutput{ApproximateNumberOfMessagesMoved: moved}, nil
}
