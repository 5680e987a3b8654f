package sqsq_test

// Black-box tests of message move tasks (docs/sqs-semantics.md §8): failures —
// a deleted destination, a message without a source, the duration limit,
// in-flight messages and a DLQ that runs dry. The move task helpers are in
// movetask_helpers_test.go; the fixture (setupDLQ) and the dead-letter helpers
// in redrive_helpers_test.go.

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

func TestMoveTaskDestinationDeleted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason   string
		explicit bool // DestinationArn names "other"; else messages go back to "src"
	}{
		{"an explicit destination deleted mid-task fails the task (§8.3)", true},
		{"a message's own source deleted mid-task fails the task", false},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			src, dlq := f.pair(t, "src", "dlq", 1)
			f.deadLetterAll(t, src, "m1", "m2", "m3", "m4")
			dest := src
			in := sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)}
			if tt.explicit {
				dest = f.queue(t, "other", sqsq.QueueAttributes{})
				in.DestinationArn = dest.ARN()
			}
			started := f.clk.Now()
			f.start(t, in)
			f.clk.Add(time.Second)
			if got := f.task(t, dlq.ARN()).ApproximateNumberOfMessagesMoved; got != 2 {
				t.Fatalf("moved %d after 1 s, want 2", got)
			}
			if err := f.b.DeleteQueue(f.ctx, dest.ARN()); err != nil {
				t.Fatal(err)
			}
			f.clk.Add(time.Second)
			want := sqsq.MoveTask{
				Status: sqsq.MoveTaskFailed, SourceArn: dlq.ARN(), DestinationArn: in.DestinationArn,
				MaxNumberOfMessagesPerSecond: sqsq.Some(1), ApproximateNumberOfMessagesMoved: 2,
				ApproximateNumberOfMessagesToMove: 4, FailureReason: sqsq.MoveTaskNonExistentQueue,
				StartedTimestamp: epochMs(started),
			}
			wantTask(t, f.task(t, dlq.ARN()), want, tt.reason)
			if got := f.getBodies(t, dlq, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"m3", "m4"}) {
				t.Errorf("DLQ holds %v, want [m3 m4]: the remaining messages stay (§8.3)", got)
			}
			f.clk.Add(time.Minute)
			wantTask(t, f.task(t, dlq.ARN()), want, "a failed task moves nothing more")
			// A new task may start once the old one failed (with a source
			// still pointing at the DLQ, which makes it a DLQ).
			rescue := f.queue(t, "rescue", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 5})})
			f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), DestinationArn: rescue.ARN()})
		})
	}
}

func TestMoveTaskMessageWithoutSource(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	_, dlq := f.pair(t, "src", "dlq", 1)
	f.putBody(t, dlq, "sent directly")
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()})
	f.clk.Add(time.Second)
	got := f.task(t, dlq.ARN())
	if got.Status != sqsq.MoveTaskFailed || got.FailureReason != sqsq.MoveTaskNonExistentQueue || got.ApproximateNumberOfMessagesMoved != 0 {
		t.Errorf("task %+v; want FAILED with %s: the message has no source to go back to (§8.2 [EMU])", got, sqsq.MoveTaskNonExistentQueue)
	}
	if n := storedIn(t, dlq); n != 1 {
		t.Errorf("DLQ holds %d, want 1", n)
	}
}

func TestMoveTaskDurationLimit(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	_, dlq := f.pair(t, "src", "dlq", 1)
	other := f.queue(t, "other", sqsq.QueueAttributes{})
	// At 1 msg/s, 36 h move 129,601 messages (the first at once); one more
	// keeps the task busy until its time is up.
	const limit = 36 * time.Hour
	n := int(limit/time.Second) + 2
	batch := make([]sqsq.SendBatchEntry, 0, 10)
	for i := 0; i < n; i++ {
		batch = append(batch, sqsq.SendBatchEntry{Id: "e" + strconv.Itoa(len(batch)), SendInput: sqsq.SendInput{MessageBody: strconv.Itoa(i)}})
		if len(batch) == 10 || i == n-1 {
			if res, err := dlq.SendBatch(f.ctx, batch); err != nil || len(res.Failed) > 0 {
				t.Fatalf("SendBatch: %v %v", err, res.Failed)
			}
			batch = batch[:0]
		}
	}
	started := f.clk.Now()
	h := f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), DestinationArn: other.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
	want := sqsq.MoveTask{
		TaskHandle: h, Status: sqsq.MoveTaskRunning, SourceArn: dlq.ARN(), DestinationArn: other.ARN(),
		MaxNumberOfMessagesPerSecond: sqsq.Some(1), ApproximateNumberOfMessagesMoved: int64(n - 2),
		ApproximateNumberOfMessagesToMove: int64(n), StartedTimestamp: epochMs(started),
	}
	f.clk.Add(limit - time.Second)
	wantTask(t, f.task(t, dlq.ARN()), want, "1 s before 36 h the task still runs")
	f.clk.Add(time.Second)
	want.TaskHandle, want.Status, want.FailureReason = "", sqsq.MoveTaskFailed, sqsq.MoveTaskTimedOut
	want.ApproximateNumberOfMessagesMoved = int64(n - 1)
	wantTask(t, f.task(t, dlq.ARN()), want, "a task runs at most 36 hours of clock time (§8.1, §8.3)")
	if got := storedIn(t, dlq); got != 1 {
		t.Errorf("DLQ holds %d, want the 1 message not moved", got)
	}
}

func TestMoveTaskSkipsInFlightMessages(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.deadLetterAll(t, src, "m1", "m2", "m3")
	if got := f.getBodies(t, dlq, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Hour)}); !reflect.DeepEqual(got, []string{"m1"}) {
		t.Fatalf("DLQ receive = %v, want [m1]", got)
	}
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
	if got := f.task(t, dlq.ARN()).ApproximateNumberOfMessagesToMove; got != 2 {
		t.Errorf("ToMove = %d, want 2: the available messages when the task starts (§8.3)", got)
	}
	f.clk.Add(time.Second)
	if got := f.task(t, dlq.ARN()); got.Status != sqsq.MoveTaskCompleted || got.ApproximateNumberOfMessagesMoved != 2 {
		t.Errorf("task %+v, want COMPLETED with 2 moved", got)
	}
	if s := dlqStats(t, dlq); s.InFlight != 1 || s.Visible != 0 {
		t.Errorf("DLQ %+v: want m1 still in flight there: redrive skips in-flight messages (§8.2)", s)
	}
	if got := f.getBodies(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"m2", "m3"}) {
		t.Errorf("source holds %v, want [m2 m3]", got)
	}
}

func TestMoveTaskCompletesWhenTheDLQRunsDry(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.deadLetterAll(t, src, "m1", "m2", "m3")
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
	f.clk.Add(time.Second)
	// A consumer of the DLQ takes the last message meanwhile.
	if got := f.getBodies(t, dlq, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Hour)}); !reflect.DeepEqual(got, []string{"m3"}) {
		t.Fatalf("DLQ receive = %v, want [m3]", got)
	}
	f.clk.Add(time.Second)
	got := f.task(t, dlq.ARN())
	if got.Status != sqsq.MoveTaskCompleted || got.ApproximateNumberOfMessagesMoved != 2 || got.ApproximateNumberOfMessagesToMove != 3 {
		t.Errorf("task %+v; want COMPLETED, 2 of 3 moved: the DLQ has nothing more available (§8.3)", got)
	}
}
