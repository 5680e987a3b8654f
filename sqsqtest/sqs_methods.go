package sqsqtest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
)

// The rest of the *sqs.Client operations, so that consumer code written
// against an interface of any of them takes an *SQS unchanged. Each is one
// step answered by the awssqs adapter. Those that change what the run
// tracks without the broker telling its observer (a purge, a deleted or
// created queue, a move task the consumer starts) fix the run's
// bookkeeping right after the call, still inside the step.

// refName is the queue name a QueueUrl, queue name or ARN ends with.
func refName(ref *string) string {
	u := aws.ToString(ref)
	return u[strings.LastIndexAny(u, "/:")+1:]
}

// sortedKeys lists a map's keys in order, for step names that do not
// depend on map iteration.
func sortedKeys[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// forget drops the visibility deadlines and delays of the messages that
// were in the queue named name, which a purge or a delete of the queue
// removed without an event: the clock must not advance to them, and they
// are no longer stored ([Result.Left]). Call it in a granted step.
func (s *SQS) forget(name string) {
	r := s.e.r
	for id, st := range r.stored {
		if st[0] == name {
			delete(r.stored, id)
		}
	}
	in := func(id string) bool {
		h := r.rec.History(id)
		return len(h) > 0 && h[len(h)-1].Queue == name
	}
	for id := range r.deadlines.m {
		if in(id) {
			r.deadlines.del(id)
		}
	}
	for id := range r.delays.m {
		if in(id) {
			r.delays.del(id)
		}
	}
	if r.dlq != nil && name == r.dlq.Name() {
		r.inDLQ = nil // what the kit's next redrive would name
	}
	r.version++
}

// moveTaskKey is the run.delays key of a move task a consumer started: its
// end is an instant the clock may advance to, as for the kit's redrives.
func moveTaskKey(handle string) string { return "move task " + handle }

// AddPermission is [sqs.Client.AddPermission] as one step.
func (s *SQS) AddPermission(ctx context.Context, in *sqs.AddPermissionInput, optFns ...func(*sqs.Options)) (*sqs.AddPermissionOutput, error) {
	what := "add permission"
	if in != nil {
		what = fmt.Sprintf("add permission %s to %s", aws.ToString(in.Label), refName(in.QueueUrl))
	}
	return do(s, what, nil, (*awssqs.Client).AddPermission, ctx, in, optFns)
}

// RemovePermission is [sqs.Client.RemovePermission] as one step.
func (s *SQS) RemovePermission(ctx context.Context, in *sqs.RemovePermissionInput, optFns ...func(*sqs.Options)) (*sqs.RemovePermissionOutput, error) {
	what := "remove permission"
	if in != nil {
		what = fmt.Sprintf("remove permission %s from %s", aws.ToString(in.Label), refName(in.QueueUrl))
	}
	return do(s, what, nil, (*awssqs.Client).RemovePermission, ctx, in, optFns)
}

// CreateQueue is [sqs.Client.CreateQueue] as one step. A queue it creates
// joins the scenario's queues: [Env.URL] knows it, ReceiveMessage long
// polls it in virtual time, and its stats are in [Result.Queues].
func (s *SQS) CreateQueue(ctx context.Context, in *sqs.CreateQueueInput, optFns ...func(*sqs.Options)) (*sqs.CreateQueueOutput, error) {
	name := ""
	if in != nil {
		name = aws.ToString(in.QueueName)
	}
	out, err := do(s, strings.TrimSpace("create queue "+name), nil, (*awssqs.Client).CreateQueue, ctx, in, optFns)
	if err == nil {
		r := s.e.r
		if q, gerr := r.b.GetQueue(context.Background(), name); gerr == nil && r.queues[name] != q {
			r.queues[name] = q
			r.version++
		}
	}
	return out, err
}

// DeleteQueue is [sqs.Client.DeleteQueue] as one step. The queue leaves
// the scenario's queues, and the run forgets its messages' deadlines.
func (s *SQS) DeleteQueue(ctx context.Context, in *sqs.DeleteQueueInput, optFns ...func(*sqs.Options)) (*sqs.DeleteQueueOutput, error) {
	name := ""
	if in != nil {
		name = refName(in.QueueUrl)
	}
	out, err := do(s, strings.TrimSpace("delete queue "+name), nil, (*awssqs.Client).DeleteQueue, ctx, in, optFns)
	if err == nil {
		r := s.e.r
		if q := r.queues[name]; q != nil {
			if _, serr := q.Stats(); serr != nil { // gone, not another queue of that name
				delete(r.queues, name)
			}
		}
		s.forget(name)
	}
	return out, err
}

// PurgeQueue is [sqs.Client.PurgeQueue] as one step. The broker tells no
// observer of a purge, so the run forgets the deadlines and delays of the
// purged messages here.
func (s *SQS) PurgeQueue(ctx context.Context, in *sqs.PurgeQueueInput, optFns ...func(*sqs.Options)) (*sqs.PurgeQueueOutput, error) {
	name := ""
	if in != nil {
		name = refName(in.QueueUrl)
	}
	out, err := do(s, strings.TrimSpace("purge queue "+name), nil, (*awssqs.Client).PurgeQueue, ctx, in, optFns)
	if err == nil {
		s.forget(name)
	}
	return out, err
}

// SetQueueAttributes is [sqs.Client.SetQueueAttributes] as one step.
func (s *SQS) SetQueueAttributes(ctx context.Context, in *sqs.SetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.SetQueueAttributesOutput, error) {
	what := "set attributes"
	if in != nil {
		what = fmt.Sprintf("set attributes of %s (%s)", refName(in.QueueUrl), sortedKeys(in.Attributes))
	}
	out, err := do(s, what, nil, (*awssqs.Client).SetQueueAttributes, ctx, in, optFns)
	if err == nil {
		s.e.r.version++ // a receive that found nothing may find something now
	}
	return out, err
}

// ListQueues is [sqs.Client.ListQueues] as one step.
func (s *SQS) ListQueues(ctx context.Context, in *sqs.ListQueuesInput, optFns ...func(*sqs.Options)) (*sqs.ListQueuesOutput, error) {
	what := "list queues"
	if in != nil && aws.ToString(in.QueueNamePrefix) != "" {
		what += " " + aws.ToString(in.QueueNamePrefix) + "*"
	}
	return do(s, what, nil, (*awssqs.Client).ListQueues, ctx, in, optFns)
}

// ListDeadLetterSourceQueues is [sqs.Client.ListDeadLetterSourceQueues] as
// one step.
func (s *SQS) ListDeadLetterSourceQueues(ctx context.Context, in *sqs.ListDeadLetterSourceQueuesInput, optFns ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error) {
	what := "list dead-letter sources"
	if in != nil {
		what += " of " + refName(in.QueueUrl)
	}
	return do(s, what, nil, (*awssqs.Client).ListDeadLetterSourceQueues, ctx, in, optFns)
}

// TagQueue is [sqs.Client.TagQueue] as one step.
func (s *SQS) TagQueue(ctx context.Context, in *sqs.TagQueueInput, optFns ...func(*sqs.Options)) (*sqs.TagQueueOutput, error) {
	what := "tag queue"
	if in != nil {
		what = fmt.Sprintf("tag queue %s (%s)", refName(in.QueueUrl), sortedKeys(in.Tags))
	}
	return do(s, what, nil, (*awssqs.Client).TagQueue, ctx, in, optFns)
}

// UntagQueue is [sqs.Client.UntagQueue] as one step.
func (s *SQS) UntagQueue(ctx context.Context, in *sqs.UntagQueueInput, optFns ...func(*sqs.Options)) (*sqs.UntagQueueOutput, error) {
	what := "untag queue"
	if in != nil {
		what = fmt.Sprintf("untag queue %s (%s)", refName(in.QueueUrl), strings.Join(in.TagKeys, ","))
	}
	return do(s, what, nil, (*awssqs.Client).UntagQueue, ctx, in, optFns)
}

// ListQueueTags is [sqs.Client.ListQueueTags] as one step.
func (s *SQS) ListQueueTags(ctx context.Context, in *sqs.ListQueueTagsInput, optFns ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error) {
	what := "list tags"
	if in != nil {
		what += " of " + refName(in.QueueUrl)
	}
	return do(s, what, nil, (*awssqs.Client).ListQueueTags, ctx, in, optFns)
}

// StartMessageMoveTask is [sqs.Client.StartMessageMoveTask] as one step:
// a redrive the consumer starts. The messages move as the run's clock
// passes their instants (500 a second unless the input sets a rate), and
// the task's end is an instant the clock may advance to; the messages to
// move count in [Ledger].Redriven, as the kit's own redrives do.
func (s *SQS) StartMessageMoveTask(ctx context.Context, in *sqs.StartMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.StartMessageMoveTaskOutput, error) {
	what := "start move task"
	if in != nil {
		what += " from " + refName(in.SourceArn)
		if in.DestinationArn != nil {
			what += " to " + refName(in.DestinationArn)
		}
	}
	out, err := do(s, what, nil, (*awssqs.Client).StartMessageMoveTask, ctx, in, optFns)
	if err != nil {
		return out, err
	}
	r := s.e.r
	handle := aws.ToString(out.TaskHandle)
	rate := int64(500) // the broker's rate when the request sets none
	if in.MaxNumberOfMessagesPerSecond != nil && *in.MaxNumberOfMessagesPerSecond > 0 {
		rate = int64(*in.MaxNumberOfMessagesPerSecond)
	}
	var toMove int64
	tasks, _ := r.b.ListMoveTasks(context.Background(), aws.ToString(in.SourceArn), sqsq.Optional[int]{})
	for _, t := range tasks {
		if t.TaskHandle == handle {
			toMove = t.ApproximateNumberOfMessagesToMove
		}
	}
	// The k-th message (from 0) moves k/rate after the start and the task
	// ends with its last one; with nothing to move it ends at once.
	if toMove > 0 {
		r.delays.set(moveTaskKey(handle), r.now().Add(time.Duration(toMove)*time.Second/time.Duration(rate)+time.Millisecond))
	}
	r.ledger.Redriven += int(toMove)
	if r.dlq != nil {
		if src, gerr := r.b.GetQueue(context.Background(), aws.ToString(in.SourceArn)); gerr == nil && src == r.dlq {
			r.inDLQ = nil
		}
	}
	r.version++
	return out, nil
}

// CancelMessageMoveTask is [sqs.Client.CancelMessageMoveTask] as one step.
func (s *SQS) CancelMessageMoveTask(ctx context.Context, in *sqs.CancelMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.CancelMessageMoveTaskOutput, error) {
	out, err := do(s, "cancel move task", nil, (*awssqs.Client).CancelMessageMoveTask, ctx, in, optFns)
	if err == nil {
		// A cancelled task is CANCELLING until the clock moves past the
		// call, then CANCELLED: its end is now, not when its last message
		// would have moved.
		r := s.e.r
		if _, ok := r.delays.get(moveTaskKey(aws.ToString(in.TaskHandle))); ok {
			r.delays.set(moveTaskKey(aws.ToString(in.TaskHandle)), r.now().Add(time.Millisecond))
		}
		r.version++
	}
	return out, err
}

// ListMessageMoveTasks is [sqs.Client.ListMessageMoveTasks] as one step.
func (s *SQS) ListMessageMoveTasks(ctx context.Context, in *sqs.ListMessageMoveTasksInput, optFns ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error) {
	what := "list move tasks"
	if in != nil {
		what += " of " + refName(in.SourceArn)
	}
	return do(s, what, nil, (*awssqs.Client).ListMessageMoveTasks, ctx, in, optFns)
}
