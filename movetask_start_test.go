package sqsq_test

// Black-box tests of message move tasks (docs/sqs-semantics.md §8):
// StartMoveTask on a mock clock. The move task helpers are in
// movetask_helpers_test.go; the fixture (setupDLQ) and the dead-letter helpers
// in redrive_helpers_test.go.

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"github.com/sqsq/sqsq"
)

func TestStartMoveTaskErrors(t *testing.T) {
	t.Parallel()
	const (
		srcNotFound = "The resource that you specified for the SourceArn parameter doesn't exist."
		dstNotFound = "The resource that you specified for the DestinationArn parameter doesn't exist."
	)
	type env struct {
		f            *dlqFixture
		dlq, fifoDLQ *sqsq.Queue
		plain        *sqsq.Queue
	}
	tests := []struct {
		reason string
		prep   func(t *testing.T, e env) // runs before the snapshot
		in     func(e env) sqsq.StartMoveTaskInput
		code   sqsq.Code
		msg    string
	}{
		{
			reason: "a missing source queue is ResourceNotFoundException (§8.1)",
			in: func(e env) sqsq.StartMoveTaskInput {
				return sqsq.StartMoveTaskInput{SourceArn: e.f.arn("no-such-queue")}
			},
			code: sqsq.CodeResourceNotFound, msg: srcNotFound,
		},
		{
			reason: "a source ARN of another account is missing too",
			in: func(e env) sqsq.StartMoveTaskInput {
				return sqsq.StartMoveTaskInput{SourceArn: "arn:aws:sqs:us-east-1:111111111111:dlq"}
			},
			code: sqsq.CodeResourceNotFound, msg: srcNotFound,
		},
		{
			reason: "a queue that no RedrivePolicy names is not a dead-letter queue",
			in:     func(e env) sqsq.StartMoveTaskInput { return sqsq.StartMoveTaskInput{SourceArn: e.plain.ARN()} },
			code:   sqsq.CodeInvalidParameterValue, msg: "Source queue must be configured as a Dead Letter Queue.",
		},
		{
			reason: "a missing destination is ResourceNotFoundException (§8.1)",
			in: func(e env) sqsq.StartMoveTaskInput {
				return sqsq.StartMoveTaskInput{SourceArn: e.dlq.ARN(), DestinationArn: e.f.arn("no-such-queue")}
			},
			code: sqsq.CodeResourceNotFound, msg: dstNotFound,
		},
		{
			reason: "only one active task per source",
			prep: func(t *testing.T, e env) {
				e.f.start(t, sqsq.StartMoveTaskInput{SourceArn: e.dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
			},
			in:   func(e env) sqsq.StartMoveTaskInput { return sqsq.StartMoveTaskInput{SourceArn: e.dlq.ARN()} },
			code: sqsq.CodeInvalidParameterValue,
			msg:  "There is already a task running. Only one active task is allowed for a source queue arn at a given time.",
		},
		{
			reason: "a cancelling task is still active",
			prep: func(t *testing.T, e env) {
				h := e.f.start(t, sqsq.StartMoveTaskInput{SourceArn: e.dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
				if _, err := e.f.b.CancelMoveTask(e.f.ctx, h); err != nil {
					t.Fatal(err)
				}
			},
			in:   func(e env) sqsq.StartMoveTaskInput { return sqsq.StartMoveTaskInput{SourceArn: e.dlq.ARN()} },
			code: sqsq.CodeInvalidParameterValue,
			msg:  "There is already a task running. Only one active task is allowed for a source queue arn at a given time.",
		},
		{
			reason: "a rate of 0 messages per second is below 1–500",
			in: func(e env) sqsq.StartMoveTaskInput {
				return sqsq.StartMoveTaskInput{SourceArn: e.dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(0)}
			},
			code: sqsq.CodeInvalidParameterValue,
		},
		{
			reason: "a rate of 501 messages per second is above 1–500",
			in: func(e env) sqsq.StartMoveTaskInput {
				return sqsq.StartMoveTaskInput{SourceArn: e.dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(501)}
			},
			code: sqsq.CodeInvalidParameterValue,
		},
		{
			reason: "a standard DLQ cannot move to a FIFO destination",
			in: func(e env) sqsq.StartMoveTaskInput {
				return sqsq.StartMoveTaskInput{SourceArn: e.dlq.ARN(), DestinationArn: e.f.arn("other.fifo")}
			},
			code: sqsq.CodeInvalidParameterValue,
		},
		{
			reason: "a FIFO DLQ cannot move to a standard destination",
			in: func(e env) sqsq.StartMoveTaskInput {
				return sqsq.StartMoveTaskInput{SourceArn: e.fifoDLQ.ARN(), DestinationArn: e.plain.ARN()}
			},
			code: sqsq.CodeInvalidParameterValue,
		},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			src, dlq := f.pair(t, "src", "dlq", 1)
			fsrc, fdlq := f.pair(t, "src.fifo", "dlq.fifo", 1)
			e := env{f: f, dlq: dlq, fifoDLQ: fdlq, plain: f.queue(t, "plain", sqsq.QueueAttributes{})}
			f.queue(t, "other.fifo", sqsq.QueueAttributes{})
			f.deadLetterAll(t, src, "m1", "m2")
			if tt.prep != nil {
				tt.prep(t, e)
			}
			qs := []*sqsq.Queue{src, dlq, fsrc, fdlq, e.plain}
			before := f.snapshot(t, qs...)
			tasksBefore := [][]sqsq.MoveTask{f.tasks(t, dlq.ARN()), f.tasks(t, fdlq.ARN())}
			h, err := f.b.StartMoveTask(f.ctx, tt.in(e))
			wantErr(t, err, tt.code, tt.msg, tt.reason)
			if h != "" {
				t.Errorf("handle %q returned with an error", h)
			}
			f.unchanged(t, before, tt.reason, qs...)
			if got := [][]sqsq.MoveTask{f.tasks(t, dlq.ARN()), f.tasks(t, fdlq.ARN())}; !reflect.DeepEqual(got, tasksBefore) {
				t.Errorf("tasks changed by a failed start\n-%+v\n+%+v", tasksBefore, got)
			}
		})
	}
}

func TestStartMoveTaskHandle(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	_, dlq := f.pair(t, "src", "dlq", 1)
	h := f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()})
	raw, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		t.Fatalf("handle %q is not base64: %v", h, err)
	}
	// §8.1: base64 of {"taskId":"<uuid>","sourceArn":"<source ARN>"}.
	want := `"sourceArn":"` + dlq.ARN() + `"`
	if s := string(raw); !strings.HasPrefix(s, "{") || !strings.Contains(s, `"taskId":"`) || !strings.Contains(s, want) {
		t.Errorf("handle decodes to %s, want {\"taskId\":…,%s}", raw, want)
	}
}
