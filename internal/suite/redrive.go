package suite

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

var redriveTests = []test{
	{"dead-letter queue after maxReceiveCount", testRedrive},
	{"dead-letter source queues page with the SDK paginator", testDeadLetterSourcesPaginator},
	{"move task on the clock", testMoveTask},
	{"cancel a move task", testCancelMoveTask},
}

// redrivePair creates a source queue whose messages go to a new DLQ after
// maxReceiveCount receives; it returns both URLs.
func (e *env) redrivePair(source, dlq, maxReceiveCount string) (string, string) {
	e.t.Helper()
	dlqURL := e.createQueue(dlq, nil)
	srcURL := e.createQueue(source, map[string]string{
		"VisibilityTimeout": "30",
		"RedrivePolicy":     `{"deadLetterTargetArn":"` + e.arn(dlqURL) + `","maxReceiveCount":"` + maxReceiveCount + `"}`,
	})
	return srcURL, dlqURL
}

func testRedrive(e *env) {
	src, dlq := e.redrivePair("work", "work-dlq", "2")
	e.diff(`{"deadLetterTargetArn":"`+e.arn(dlq)+`","maxReceiveCount":2}`, e.attrs(src, "RedrivePolicy")["RedrivePolicy"],
		"RedrivePolicy is returned as JSON with a numeric maxReceiveCount (§7.1)")
	sent := e.send(src, "poison")
	for i := 0; i < 2; i++ {
		e.receiveOne(src)
		e.advance(30 * time.Second)
	}
	e.diff([]types.Message(nil), e.receiveN(src, 10), "the receive after the last allowed delivery moves the message (§7.2)")
	msgs := e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(dlq),
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"DeadLetterQueueSourceArn", "ApproximateReceiveCount"}})
	if len(msgs) != 1 {
		e.t.Fatalf("the DLQ holds %d messages, want 1", len(msgs))
	}
	e.diff(aws.ToString(sent.MessageId), aws.ToString(msgs[0].MessageId), "the MessageId is kept (§7.3)")
	e.diff(map[string]string{"DeadLetterQueueSourceArn": e.arn(src), "ApproximateReceiveCount": "3"}, msgs[0].Attributes,
		"the DLQ copy names its source; the receive count goes on (§7.3)")

	out, err := e.api().ListDeadLetterSourceQueues(e.ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq)})
	e.must(err, "ListDeadLetterSourceQueues")
	e.diff([]string{src}, out.QueueUrls, "the DLQ's sources (§3.15)")
	out, err = e.api().ListDeadLetterSourceQueues(e.ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(src)})
	e.must(err, "ListDeadLetterSourceQueues")
	e.diff([]string(nil), out.QueueUrls, "a queue nobody uses as DLQ has no sources, and no error (§3.15)")

	_, err = e.api().SetQueueAttributes(e.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(src), Attributes: map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"` + e.arn(dlq) + `","maxReceiveCount":0}`}})
	e.wantErr(err, invalidParameter("SetQueueAttributes", ""), "maxReceiveCount is 1-1000 (§7.1)")
}

func testDeadLetterSourcesPaginator(e *env) {
	dlq := e.createQueue("shared-dlq", nil)
	policy := `{"deadLetterTargetArn":"` + e.arn(dlq) + `","maxReceiveCount":3}`
	var want []string
	for _, name := range []string{"s1", "s2", "s3"} {
		want = append(want, e.createQueue(name, map[string]string{"RedrivePolicy": policy}))
	}
	p := sqs.NewListDeadLetterSourceQueuesPaginator(e.api(), &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq), MaxResults: aws.Int32(2)})
	var got []string
	for p.HasMorePages() {
		out, err := p.NextPage(e.ctx)
		e.must(err, "ListDeadLetterSourceQueues page")
		got = append(got, out.QueueUrls...)
	}
	e.diff(want, got, "the SDK's paginator walks every source")
}

// deadLetter puts n messages into dlq by way of src (maxReceiveCount 1).
func (e *env) deadLetter(src, dlq string, bodies ...string) {
	e.t.Helper()
	for _, b := range bodies {
		e.send(src, b)
	}
	for range bodies {
		e.receiveOne(src)
	}
	e.advance(30 * time.Second)
	e.diff([]types.Message(nil), e.receiveN(src, 10), "the receive moves them all")
	e.diff(len(bodies), e.counts(dlq)[0], "the DLQ holds them")
}

func (e *env) moveTasks(dlqARN string, max int32) []types.ListMessageMoveTasksResultEntry {
	e.t.Helper()
	out, err := e.api().ListMessageMoveTasks(e.ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlqARN), MaxResults: aws.Int32(max)})
	e.must(err, "ListMessageMoveTasks")
	return out.Results
}

func testMoveTask(e *env) {
	src, dlq := e.redrivePair("jobs", "jobs-dlq", "1")
	dlqARN := e.arn(dlq)
	e.deadLetter(src, dlq, "m1", "m2", "m3")
	started := e.now().UnixMilli()
	out, err := e.api().StartMessageMoveTask(e.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqARN),
		MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	e.must(err, "StartMessageMoveTask")
	if out.TaskHandle == nil {
		e.t.Fatal("StartMessageMoveTask returned no TaskHandle")
	}
	tasks := e.moveTasks(dlqARN, 10)
	e.diff([]types.ListMessageMoveTasksResultEntry{{
		TaskHandle:                        out.TaskHandle,
		Status:                            aws.String("RUNNING"),
		SourceArn:                         aws.String(dlqARN),
		MaxNumberOfMessagesPerSecond:      aws.Int32(1),
		ApproximateNumberOfMessagesMoved:  0,
		ApproximateNumberOfMessagesToMove: aws.Int64(3),
		StartedTimestamp:                  started,
	}}, tasks, "a task returns RUNNING; the clock has not moved (§8.1, §8.4)")

	_, err = e.api().StartMessageMoveTask(e.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqARN)})
	e.wantErr(err, invalidParameter("StartMessageMoveTask",
		"There is already a task running. Only one active task is allowed for a source queue arn at a given time."),
		"one active task per source (§8.1)")

	e.advance(time.Second)
	tasks = e.moveTasks(dlqARN, 1)
	e.diff([]any{"RUNNING", int64(2)}, []any{aws.ToString(tasks[0].Status), tasks[0].ApproximateNumberOfMessagesMoved},
		"the first message at once, then one per second (§8.3)")
	e.advance(time.Second)
	tasks = e.moveTasks(dlqARN, 1)
	e.diff([]any{"COMPLETED", int64(3), (*string)(nil)}, []any{aws.ToString(tasks[0].Status), tasks[0].ApproximateNumberOfMessagesMoved, tasks[0].TaskHandle},
		"done: COMPLETED, and no TaskHandle once not RUNNING (§8.4)")

	msgs := e.receiveN(src, 10)
	e.diff([]string{"m1", "m2", "m3"}, bodies(msgs), "the messages are back in their source, oldest first (§8.2)")
	e.diff([3]int{}, e.counts(dlq), "and gone from the DLQ")

	_, err = e.api().StartMessageMoveTask(e.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqARN + "-missing")})
	e.wantErr(err, wantErr{op: "StartMessageMoveTask", is: isA[*types.ResourceNotFoundException], code: "ResourceNotFoundException",
		status: 404, msg: "The resource that you specified for the SourceArn parameter doesn't exist."}, "an unknown source (§8.1)")
	_, err = e.api().StartMessageMoveTask(e.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(e.arn(src))})
	e.wantErr(err, invalidParameter("StartMessageMoveTask", "Source queue must be configured as a Dead Letter Queue."),
		"a source that is nobody's DLQ (§8.1)")
}

func testCancelMoveTask(e *env) {
	src, dlq := e.redrivePair("cancel", "cancel-dlq", "1")
	other := e.createQueue("elsewhere", nil)
	dlqARN := e.arn(dlq)
	e.deadLetter(src, dlq, "m1", "m2", "m3", "m4")
	out, err := e.api().StartMessageMoveTask(e.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqARN),
		DestinationArn: aws.String(e.arn(other)), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	e.must(err, "StartMessageMoveTask")
	e.advance(time.Second)
	cancelled, err := e.api().CancelMessageMoveTask(e.ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: out.TaskHandle})
	e.must(err, "CancelMessageMoveTask")
	e.diff(int64(2), cancelled.ApproximateNumberOfMessagesMoved, "Cancel reports what was moved (§8.5)")
	e.advance(time.Second)
	tasks := e.moveTasks(dlqARN, 1)
	e.diff([]any{"CANCELLED", int64(2), e.arn(other)}, []any{aws.ToString(tasks[0].Status), tasks[0].ApproximateNumberOfMessagesMoved,
		aws.ToString(tasks[0].DestinationArn)}, "a cancelled task moves no more; DestinationArn is listed when given (§8.4, §8.5)")
	e.diff([]int{2, 2}, []int{e.counts(other)[0], e.counts(dlq)[0]}, "moved messages stay moved")

	_, err = e.api().CancelMessageMoveTask(e.ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: out.TaskHandle})
	e.wantErr(err, invalidParameter("CancelMessageMoveTask", ""), "only a RUNNING task can be cancelled (§8.5)")
	_, err = e.api().CancelMessageMoveTask(e.ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String("not a handle")})
	e.wantErr(err, invalidParameter("CancelMessageMoveTask", "Value for parameter TaskHandle is invalid."), "an undecodable handle (§8.5)")
}
