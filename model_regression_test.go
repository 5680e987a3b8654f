package sqsq_test

// Regression tests for core bugs found by the model-based tests
// (model_test.go, model_redrive_test.go), each the shrunk case, or the
// plainest form of it, as a fixed sequence of calls.
//
// The bugs below share one rule of docs/sqs-semantics.md §0: time-driven
// transitions — move-task progress among them — are evaluated lazily, so
// their outcome must be what eager evaluation would give. In particular a
// read-only call (Stats) made in between must never change it.

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

// rgTask returns the newest move task of the source ARN.
func rgTask(t *testing.T, b *sqsq.Broker, sourceArn string) sqsq.MoveTask {
	t.Helper()
	ts, err := b.ListMoveTasks(context.Background(), sourceArn, sqsq.Optional[int]{})
	if err != nil || len(ts) != 1 {
		t.Fatalf("ListMoveTasks(%s): %v, %d tasks", sourceArn, err, len(ts))
	}
	return ts[0]
}

func rgQueue(t *testing.T, b *sqsq.Broker, name string, a sqsq.QueueAttributes) *sqsq.Queue {
	t.Helper()
	q, err := b.CreateQueue(context.Background(), sqsq.CreateQueueInput{QueueName: name, Attributes: a})
	if err != nil {
		t.Fatalf("CreateQueue(%s): %v", name, err)
	}
	return q
}

func rgStored(t *testing.T, q *sqsq.Queue) int {
	t.Helper()
	st, err := q.Stats()
	if err != nil {
		t.Fatalf("Stats(%s): %v", q.Name(), err)
	}
	return st.Visible + st.InFlight + st.Delayed
}

// TestModelRegressionMoveTaskStepsAsOfDueInstant is TestModelRedrive's
// shrunk case (with rdTasksSeeNow false). A message sent straight to the
// DLQ has no source queue to go back to; a task without DestinationArn is
// started, and the clock then moves 4 days in one step, past the message's
// retention. The task's first step was due 1 ns after the start, when the
// message was there: the task must have FAILED with NonExistentQueue
// (§8.2), as it does if anything calls the broker before the message
// expires.
//
// Observed: COMPLETED, 0 of 1 moved. movetask.go, moveTask.moveOne brings
// the DLQ up to the call's now (src.advance(now)), not up to the step's due
// instant at: the message has expired by then, the DLQ looks dry and the
// task completes.
func TestModelRegressionMoveTaskStepsAsOfDueInstant(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &rdClock{now: dlqEpoch}
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	defer b.Close()
	dlq := rgQueue(t, b, "dlq", sqsq.QueueAttributes{})
	rgQueue(t, b, "src-a", sqsq.QueueAttributes{
		RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1}),
	})
	if _, err := dlq.Send(ctx, sqsq.SendInput{MessageBody: "m1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.StartMoveTask(ctx, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()}); err != nil {
		t.Fatal(err)
	}
	clk.add(4 * 24 * time.Hour) // the default retention: m1 expires now
	got := rgTask(t, b, dlq.ARN())
	if got.Status != sqsq.MoveTaskFailed || got.FailureReason != sqsq.MoveTaskNonExistentQueue ||
		got.ApproximateNumberOfMessagesMoved != 0 || got.ApproximateNumberOfMessagesToMove != 1 {
		t.Errorf("task %s %q, %d of %d moved; want FAILED %q, 0 of 1 moved (its first step, due 1 ns after the start, found m1 with no source queue)",
			got.Status, got.FailureReason, got.ApproximateNumberOfMessagesMoved, got.ApproximateNumberOfMessagesToMove,
			sqsq.MoveTaskNonExistentQueue)
	}
}

// TestModelRegressionMoveTaskOutcomeIndependentOfObservers is the same bug
// where it costs messages: three messages are dead-lettered 50 s after
// their send into a DLQ that keeps messages 60 s (standard: retention
// counts from the send, §5.2, §7.3); a task at 1 message/s moves them at
// +1 ns, +1 s and +2 s, well before they expire. Whether or not anything
// calls the broker while the clock moves on, all three must be back in the
// source as new messages.
//
// Observed: with a Stats call every second, 3 of 3 moved; with none until
// the clock is 100 s on, 0 of 3 moved — the three expired in the DLQ
// (movetask.go, moveTask.moveOne: src.advance(now) before each due step).
func TestModelRegressionMoveTaskOutcomeIndependentOfObservers(t *testing.T) {
	t.Parallel()
	run := func(observe bool) string {
		ctx := context.Background()
		clk := &rdClock{now: dlqEpoch}
		b := sqsq.NewBroker(sqsq.WithClock(clk))
		defer b.Close()
		dlq := rgQueue(t, b, "dlq", sqsq.QueueAttributes{MessageRetentionPeriod: sqsq.Some(60 * time.Second)})
		src := rgQueue(t, b, "src", sqsq.QueueAttributes{
			VisibilityTimeout: sqsq.Some(time.Duration(0)),
			RedrivePolicy:     sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1}),
		})
		for i := 1; i <= 3; i++ {
			if _, err := src.Send(ctx, sqsq.SendInput{MessageBody: fmt.Sprint("m", i)}); err != nil {
				t.Fatal(err)
			}
		}
		receive := func() int {
			msgs, err := src.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, WaitTimeSeconds: sqsq.Some(time.Duration(0))})
			if err != nil {
				t.Fatal(err)
			}
			return len(msgs)
		}
		if n := receive(); n != 3 {
			t.Fatalf("first receive: %d messages, want 3", n)
		}
		clk.add(50 * time.Second)
		if n := receive(); n != 0 || rgStored(t, dlq) != 3 {
			t.Fatalf("second receive: %d messages and %d in the DLQ, want 0 and 3", n, rgStored(t, dlq))
		}
		if _, err := b.StartMoveTask(ctx, sqsq.StartMoveTaskInput{
			SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1),
		}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			clk.add(time.Second)
			if observe {
				rgStored(t, dlq)
			}
		}
		task := rgTask(t, b, dlq.ARN())
		return fmt.Sprintf("%s, %d of %d moved, %d in the source, %d in the DLQ",
			task.Status, task.ApproximateNumberOfMessagesMoved, task.ApproximateNumberOfMessagesToMove,
			rgStored(t, src), rgStored(t, dlq))
	}
	const want = "COMPLETED, 3 of 3 moved, 3 in the source, 0 in the DLQ"
	for _, observe := range []bool{true, false} {
		if got := run(observe); got != want {
			t.Errorf("Stats every second %v: %s; want %s", observe, got, want)
		}
	}
}

// TestModelRegressionCreateQueueBringsMoveTasksUpToDate: a task redrives a
// message back to its source, src-b, which has been deleted. Its first step
// is due 1 ns after the start, while src-b does not exist: the task must
// fail with NonExistentQueue (§8.3), even if src-b is created again (after
// the 60 s recreate delay) before anything else calls the broker.
//
// Observed: COMPLETED, 1 of 1 moved into the new src-b; with a Stats call
// before the CreateQueue, FAILED. broker.go, Broker.CreateQueue is the one
// call that changes what a task step sees without bringing the tasks up to
// date first (b.syncTasks()), so the step runs after the queue is back.
func TestModelRegressionCreateQueueBringsMoveTasksUpToDate(t *testing.T) {
	t.Parallel()
	run := func(observe bool) string {
		ctx := context.Background()
		clk := &rdClock{now: dlqEpoch}
		b := sqsq.NewBroker(sqsq.WithClock(clk))
		defer b.Close()
		dlq := rgQueue(t, b, "dlq", sqsq.QueueAttributes{})
		policy := sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})
		rgQueue(t, b, "src-a", sqsq.QueueAttributes{RedrivePolicy: policy})
		srcB := rgQueue(t, b, "src-b", sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(time.Duration(0)), RedrivePolicy: policy})
		if _, err := srcB.Send(ctx, sqsq.SendInput{MessageBody: "m1"}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ { // delivered once, then dead-lettered
			if _, err := srcB.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(time.Duration(0))}); err != nil {
				t.Fatal(err)
			}
		}
		if n := rgStored(t, dlq); n != 1 {
			t.Fatalf("%d messages in the DLQ, want 1", n)
		}
		if err := b.DeleteQueue(ctx, srcB.ARN()); err != nil {
			t.Fatal(err)
		}
		if _, err := b.StartMoveTask(ctx, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()}); err != nil {
			t.Fatal(err)
		}
		clk.add(61 * time.Second)
		if observe {
			rgStored(t, dlq)
		}
		srcB = rgQueue(t, b, "src-b", sqsq.QueueAttributes{})
		task := rgTask(t, b, dlq.ARN())
		return fmt.Sprintf("%s %q, %d of %d moved, %d in the new src-b",
			task.Status, task.FailureReason, task.ApproximateNumberOfMessagesMoved,
			task.ApproximateNumberOfMessagesToMove, rgStored(t, srcB))
	}
	want := fmt.Sprintf("FAILED %q, 0 of 1 moved, 0 in the new src-b", sqsq.MoveTaskNonExistentQueue)
	for _, observe := range []bool{true, false} {
		if got := run(observe); got != want {
			t.Errorf("Stats before CreateQueue %v: %s; want %s", observe, got, want)
		}
	}
}
