package sqsq_test

// Helpers shared by the black-box tests of message move tasks
// (movetask_*_test.go). The fixture (setupDLQ) and the dead-letter helpers are
// in redrive_helpers_test.go.

import (
	"reflect"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

// deadLetterAll sends bodies to src (whose maxReceiveCount must be 1) and
// makes every one of them dead-letter: one receive each, a visibility
// timeout, and one receive that moves them all, in send order. It returns
// the send results.
func (f *dlqFixture) deadLetterAll(t *testing.T, src *sqsq.Queue, bodies ...string) []sqsq.SendResult {
	t.Helper()
	var sent []sqsq.SendResult
	for _, body := range bodies {
		sent = append(sent, f.putBody(t, src, body))
	}
	for {
		if len(f.get(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10})) == 0 {
			break
		}
	}
	f.clk.Add(30 * time.Second)
	if got := f.getBodies(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); got != nil {
		t.Fatalf("the dead-lettering receive returned %v, want nothing", got)
	}
	return sent
}

// drain receives and deletes every available message of q.
func (f *dlqFixture) drain(t *testing.T, q *sqsq.Queue) {
	t.Helper()
	for {
		msgs := f.get(t, q, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
		if len(msgs) == 0 {
			return
		}
		for _, m := range msgs {
			if err := q.Delete(f.ctx, m.ReceiptHandle); err != nil {
				t.Fatalf("Delete: %v", err)
			}
		}
	}
}

// start starts a move task and fails the test on error.
func (f *dlqFixture) start(t *testing.T, in sqsq.StartMoveTaskInput) string {
	t.Helper()
	h, err := f.b.StartMoveTask(f.ctx, in)
	if err != nil {
		t.Fatalf("StartMoveTask(%+v): %v", in, err)
	}
	if h == "" {
		t.Fatalf("StartMoveTask returned an empty handle")
	}
	return h
}

// tasks lists up to 10 move tasks of the source ARN, newest first.
func (f *dlqFixture) tasks(t *testing.T, sourceArn string) []sqsq.MoveTask {
	t.Helper()
	ts, err := f.b.ListMoveTasks(f.ctx, sourceArn, sqsq.Some(10))
	if err != nil {
		t.Fatalf("ListMoveTasks(%s): %v", sourceArn, err)
	}
	return ts
}

// task is the newest move task of the source ARN.
func (f *dlqFixture) task(t *testing.T, sourceArn string) sqsq.MoveTask {
	t.Helper()
	ts := f.tasks(t, sourceArn)
	if len(ts) == 0 {
		t.Fatalf("no move task for %s", sourceArn)
	}
	return ts[0]
}

// wantTask compares a listed task with want and reports reason.
func wantTask(t *testing.T, got, want sqsq.MoveTask, reason string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("move task (-want +got):\n-%+v\n+%+v\nreason: %s", want, got, reason)
	}
}

// epochMs is t in epoch milliseconds.
func epochMs(t time.Time) int64 { return t.UnixMilli() }
