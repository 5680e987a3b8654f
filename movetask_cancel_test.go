package sqsq_test

// Black-box tests of message move tasks (docs/sqs-semantics.md §8):
// CancelMoveTask (§8.5). The move task helpers are in
// movetask_helpers_test.go; the fixture (setupDLQ) and the dead-letter helpers
// in redrive_helpers_test.go.

import (
	"encoding/base64"
	"reflect"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

func TestCancelMoveTask(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	other := f.queue(t, "other", sqsq.QueueAttributes{})
	f.deadLetterAll(t, src, "m1", "m2", "m3", "m4")
	started := f.clk.Now()
	h := f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), DestinationArn: other.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
	f.clk.Add(time.Second)
	moved, err := f.b.CancelMoveTask(f.ctx, h)
	if err != nil || moved != 2 {
		t.Fatalf("CancelMoveTask = %d, %v; want 2 moved at the time of the call", moved, err)
	}
	want := sqsq.MoveTask{
		Status: sqsq.MoveTaskCancelling, SourceArn: dlq.ARN(), DestinationArn: other.ARN(),
		MaxNumberOfMessagesPerSecond: sqsq.Some(1), ApproximateNumberOfMessagesMoved: 2,
		ApproximateNumberOfMessagesToMove: 4, StartedTimestamp: epochMs(started),
	}
	wantTask(t, f.task(t, dlq.ARN()), want, "CANCELLING at the instant of the call; no TaskHandle once not RUNNING")
	f.clk.Add(time.Second)
	want.Status = sqsq.MoveTaskCancelled
	wantTask(t, f.task(t, dlq.ARN()), want, "CANCELLED once the clock moves, and nothing more moved (§8.5 [EMU])")
	f.clk.Add(time.Minute)
	wantTask(t, f.task(t, dlq.ARN()), want, "a cancelled task stays cancelled")
	if got := f.getBodies(t, dlq, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"m3", "m4"}) {
		t.Errorf("DLQ holds %v, want [m3 m4]", got)
	}
	if got := f.getBodies(t, other, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"m1", "m2"}) {
		t.Errorf("destination holds %v, want [m1 m2]: moved messages stay moved", got)
	}
	// The source is free for a new task.
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()})
}

func TestCancelMoveTaskErrors(t *testing.T) {
	t.Parallel()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	type env struct {
		f       *dlqFixture
		dlq     *sqsq.Queue
		dlq2    *sqsq.Queue // no task
		running string      // handle of a running task on dlq
	}
	tests := []struct {
		reason string
		handle func(t *testing.T, e env) string
		code   sqsq.Code
		msg    string
	}{
		{
			reason: "a handle that is not base64 is invalid",
			handle: func(*testing.T, env) string { return "not a handle!" },
			code:   sqsq.CodeInvalidParameterValue, msg: "Value for parameter TaskHandle is invalid.",
		},
		{
			reason: "an empty handle is invalid",
			handle: func(*testing.T, env) string { return "" },
			code:   sqsq.CodeInvalidParameterValue, msg: "Value for parameter TaskHandle is invalid.",
		},
		{
			reason: "base64 of something that is not the handle JSON is invalid",
			handle: func(*testing.T, env) string { return b64("hello") },
			code:   sqsq.CodeInvalidParameterValue, msg: "Value for parameter TaskHandle is invalid.",
		},
		{
			reason: "an unknown task id with a valid source is ResourceNotFoundException",
			handle: func(_ *testing.T, e env) string {
				return b64(`{"taskId":"00000000-0000-4000-8000-000000000000","sourceArn":"` + e.dlq.ARN() + `"}`)
			},
			code: sqsq.CodeResourceNotFound, msg: "Task does not exist.",
		},
		{
			reason: "a handle naming a missing source is ResourceNotFoundException",
			handle: func(_ *testing.T, e env) string {
				return b64(`{"taskId":"00000000-0000-4000-8000-000000000000","sourceArn":"` + e.f.arn("no-such-queue") + `"}`)
			},
			code: sqsq.CodeResourceNotFound, msg: "The resource that you specified for the SourceArn parameter doesn't exist.",
		},
		{
			reason: "a real handle whose source queue was deleted is ResourceNotFoundException",
			handle: func(t *testing.T, e env) string {
				_, dlq3 := e.f.pair(t, "src3", "dlq3", 1)
				h := e.f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq3.ARN()})
				if err := e.f.b.DeleteQueue(e.f.ctx, dlq3.ARN()); err != nil {
					t.Fatal(err)
				}
				return h
			},
			code: sqsq.CodeResourceNotFound, msg: "The resource that you specified for the SourceArn parameter doesn't exist.",
		},
		{
			reason: "a completed task cannot be cancelled",
			handle: func(t *testing.T, e env) string {
				h := e.f.start(t, sqsq.StartMoveTaskInput{SourceArn: e.dlq2.ARN()})
				e.f.clk.Add(time.Second)
				if got := e.f.task(t, e.dlq2.ARN()).Status; got != sqsq.MoveTaskCompleted {
					t.Fatalf("task %s, want COMPLETED", got)
				}
				return h
			},
			code: sqsq.CodeInvalidParameterValue,
		},
		{
			reason: "a task already cancelling cannot be cancelled again",
			handle: func(t *testing.T, e env) string {
				if _, err := e.f.b.CancelMoveTask(e.f.ctx, e.running); err != nil {
					t.Fatal(err)
				}
				return e.running
			},
			code: sqsq.CodeInvalidParameterValue,
		},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			src, dlq := f.pair(t, "src", "dlq", 1)
			src2, dlq2 := f.pair(t, "src2", "dlq2", 1)
			f.deadLetterAll(t, src, "m1", "m2", "m3")
			e := env{f: f, dlq: dlq, dlq2: dlq2}
			e.running = f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
			h := tt.handle(t, e)
			qs := []*sqsq.Queue{src, dlq, src2, dlq2}
			before := f.snapshot(t, qs...)
			tasksBefore := [][]sqsq.MoveTask{f.tasks(t, dlq.ARN()), f.tasks(t, dlq2.ARN())}
			moved, err := f.b.CancelMoveTask(f.ctx, h)
			wantErr(t, err, tt.code, tt.msg, tt.reason)
			if moved != 0 {
				t.Errorf("moved %d returned with an error", moved)
			}
			f.unchanged(t, before, tt.reason, qs...)
			if got := [][]sqsq.MoveTask{f.tasks(t, dlq.ARN()), f.tasks(t, dlq2.ARN())}; !reflect.DeepEqual(got, tasksBefore) {
				t.Errorf("tasks changed by a failed cancel\n-%+v\n+%+v", tasksBefore, got)
			}
		})
	}
}
