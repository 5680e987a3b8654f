package sqsq_test

// Black-box tests of message move tasks (docs/sqs-semantics.md §8):
// ListMoveTasks (§8.4). The move task helpers are in movetask_helpers_test.go;
// the fixture (setupDLQ) and the dead-letter helpers in
// redrive_helpers_test.go.

import (
	"reflect"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

func TestListMoveTasks(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	other := f.queue(t, "other", sqsq.QueueAttributes{})

	// Task 1 (no rate, no destination) completes; task 2 (rate 7) is
	// cancelled; task 3 (a destination) runs.
	f.deadLetterAll(t, src, "a")
	t1At := f.clk.Now()
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()})
	f.clk.Add(time.Second)
	f.drain(t, src) // "a", back from the DLQ
	f.deadLetterAll(t, src, "b", "c")
	t2At := f.clk.Now()
	h2 := f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(7)})
	if _, err := f.b.CancelMoveTask(f.ctx, h2); err != nil {
		t.Fatal(err)
	}
	f.clk.Add(time.Second)
	t3At := f.clk.Now()
	h3 := f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), DestinationArn: other.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})

	t1 := sqsq.MoveTask{Status: sqsq.MoveTaskCompleted, SourceArn: dlq.ARN(), ApproximateNumberOfMessagesMoved: 1,
		ApproximateNumberOfMessagesToMove: 1, StartedTimestamp: epochMs(t1At)}
	t2 := sqsq.MoveTask{Status: sqsq.MoveTaskCancelled, SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(7),
		ApproximateNumberOfMessagesToMove: 2, StartedTimestamp: epochMs(t2At)}
	t3 := sqsq.MoveTask{TaskHandle: h3, Status: sqsq.MoveTaskRunning, SourceArn: dlq.ARN(), DestinationArn: other.ARN(),
		MaxNumberOfMessagesPerSecond: sqsq.Some(1), ApproximateNumberOfMessagesToMove: 2, StartedTimestamp: epochMs(t3At)}

	tests := []struct {
		reason string
		max    sqsq.Optional[int]
		want   []sqsq.MoveTask
	}{
		{"MaxResults defaults to 1: the newest task only", sqsq.Optional[int]{}, []sqsq.MoveTask{t3}},
		{"MaxResults 2: the two newest, newest first", sqsq.Some(2), []sqsq.MoveTask{t3, t2}},
		{"MaxResults 10 (the maximum) lists all three, newest first", sqsq.Some(10), []sqsq.MoveTask{t3, t2, t1}},
	}
	for _, tt := range tests {
		got, err := f.b.ListMoveTasks(f.ctx, dlq.ARN(), tt.max)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ListMoveTasks = %+v, %v\nwant %+v\nreason: %s", got, err, tt.want, tt.reason)
		}
	}
	got, err := f.b.ListMoveTasks(f.ctx, src.ARN(), sqsq.Some(10))
	if err != nil || len(got) != 0 {
		t.Errorf("ListMoveTasks of a queue without tasks = %+v, %v; want none", got, err)
	}
}

func TestListMoveTasksErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		source string // "" is the DLQ
		max    sqsq.Optional[int]
		code   sqsq.Code
		msg    string
	}{
		{reason: "MaxResults 11 is above the maximum of 10", max: sqsq.Some(11), code: sqsq.CodeInvalidParameterValue},
		{reason: "MaxResults 0 is below 1", max: sqsq.Some(0), code: sqsq.CodeInvalidParameterValue},
		{reason: "an unknown source is ResourceNotFoundException", source: "arn:aws:sqs:us-east-1:000000000000:no-such-queue",
			code: sqsq.CodeResourceNotFound, msg: "The resource that you specified for the SourceArn parameter doesn't exist."},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			src, dlq := f.pair(t, "src", "dlq", 1)
			f.deadLetterAll(t, src, "m")
			f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
			source := tt.source
			if source == "" {
				source = dlq.ARN()
			}
			before := f.snapshot(t, src, dlq)
			tasksBefore := f.tasks(t, dlq.ARN())
			got, err := f.b.ListMoveTasks(f.ctx, source, tt.max)
			wantErr(t, err, tt.code, tt.msg, tt.reason)
			if got != nil {
				t.Errorf("tasks %+v returned with an error", got)
			}
			f.unchanged(t, before, tt.reason, src, dlq)
			if after := f.tasks(t, dlq.ARN()); !reflect.DeepEqual(after, tasksBefore) {
				t.Errorf("tasks changed\n-%+v\n+%+v", tasksBefore, after)
			}
		})
	}
}

// TestMoveTaskNeverRewindsTheClock: a running move task must not move the
// broker's clock. The task's goroutine often starts after the test's first
// Add; if it then armed a timer for its first (already past) due instant,
// *clock.Mock would jump back to it (fixed in 2327be3; this guards it).
func TestMoveTaskNeverRewindsTheClock(t *testing.T) {
	t.Parallel()
	for i := 0; i < 20; i++ {
		f := setupDLQ(t)
		src, dlq := f.pair(t, "src", "dlq", 1)
		f.deadLetterAll(t, src, "m1", "m2", "m3")
		start := f.clk.Now()
		f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
		for k := 1; k <= 3; k++ {
			f.clk.Add(time.Second)
			got := f.task(t, dlq.ARN())
			if now := f.clk.Now().Sub(start); now != time.Duration(k)*time.Second {
				t.Fatalf("run %d: after %d×Add(1s) the clock reads start+%v (task moved %d)", i, k, now, got.ApproximateNumberOfMessagesMoved)
			}
		}
	}
}
