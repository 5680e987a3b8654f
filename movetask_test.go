package sqsq_test

// Black-box tests of message move tasks (docs/sqs-semantics.md §8):
// StartMoveTask, ListMoveTasks and CancelMoveTask on a mock clock, and a
// rapid test that no message is lost or duplicated by any interleaving of
// sends, receives that dead-letter, deletes, clock advances and move tasks.
// The fixture (setupDLQ) and helpers are in redrive_test.go.

import (
	"context"
	"encoding/base64"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"go.uber.org/goleak"
	"pgregory.net/rapid"

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

// ---------------------------------------------------------------------------
// StartMoveTask.

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
			wantSQSErr(t, err, tt.code, tt.msg, tt.reason)
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

// ---------------------------------------------------------------------------
// Progress on the clock (§8.3) and ListMoveTasks fields (§8.4).

func TestMoveTaskProgress(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.deadLetterAll(t, src, "m1", "m2", "m3", "m4")
	started := f.clk.Now()
	h := f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
	want := sqsq.MoveTask{
		TaskHandle:                        h,
		Status:                            sqsq.MoveTaskRunning,
		SourceArn:                         dlq.ARN(),
		MaxNumberOfMessagesPerSecond:      sqsq.Some(1),
		ApproximateNumberOfMessagesToMove: 4,
		StartedTimestamp:                  epochMs(started),
	}
	wantTask(t, f.task(t, dlq.ARN()), want, "the call is asynchronous: the task is RUNNING, nothing moved yet, ToMove is the DLQ's count (§8.1, §8.3)")
	if got := storedIn(t, dlq); got != 4 {
		t.Errorf("DLQ holds %d right after the start, want 4: progress needs the clock to move", got)
	}

	steps := []struct {
		reason string
		moved  int64
		status string
	}{
		{"after 1 s at 1 msg/s: the first message at once, the second a second later", 2, sqsq.MoveTaskRunning},
		{"after 2 s: 3 moved", 3, sqsq.MoveTaskRunning},
		{"after 3 s: all 4 moved (4 messages at 1/s take 3 s, as on AWS), COMPLETED, no handle", 4, sqsq.MoveTaskCompleted},
	}
	for _, s := range steps {
		f.clk.Add(time.Second)
		want.ApproximateNumberOfMessagesMoved = s.moved
		want.Status = s.status
		if s.status != sqsq.MoveTaskRunning {
			want.TaskHandle = ""
		}
		wantTask(t, f.task(t, dlq.ARN()), want, s.reason)
		if got := storedIn(t, dlq); got != 4-int(s.moved) {
			t.Errorf("DLQ holds %d, want %d\nreason: %s", got, 4-s.moved, s.reason)
		}
	}
	if got := f.getBodies(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"m1", "m2", "m3", "m4"}) {
		t.Errorf("source receives %v, want m1..m4 in DLQ order (oldest first, §8.2)", got)
	}
	ss, ds := dlqStats(t, src), dlqStats(t, dlq)
	if ds.RedrivenOut != 4 || ss.RedrivenIn != 4 || ss.Sent != 4 {
		t.Errorf("RedrivenOut %d, RedrivenIn %d, source Sent %d; want 4, 4, 4 (a redrive is not a send)", ds.RedrivenOut, ss.RedrivenIn, ss.Sent)
	}
	f.clk.Add(time.Hour)
	wantTask(t, f.task(t, dlq.ARN()), want, "a completed task stays as it was")
}

func TestMoveTaskFieldPresence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason   string
		dest     bool
		rate     sqsq.Optional[int]
		wantRate sqsq.Optional[int]
	}{
		{reason: "neither DestinationArn nor MaxNumberOfMessagesPerSecond when not given (§8.4)"},
		{reason: "MaxNumberOfMessagesPerSecond when given", rate: sqsq.Some(500), wantRate: sqsq.Some(500)},
		{reason: "DestinationArn when given", dest: true},
		{reason: "both when both are given", dest: true, rate: sqsq.Some(3), wantRate: sqsq.Some(3)},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			src, dlq := f.pair(t, "src", "dlq", 1)
			other := f.queue(t, "other", sqsq.QueueAttributes{})
			f.deadLetterAll(t, src, "m")
			in := sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: tt.rate}
			if tt.dest {
				in.DestinationArn = other.ARN()
			}
			started := f.clk.Now()
			h := f.start(t, in)
			want := sqsq.MoveTask{
				TaskHandle: h, Status: sqsq.MoveTaskRunning, SourceArn: dlq.ARN(),
				DestinationArn: in.DestinationArn, MaxNumberOfMessagesPerSecond: tt.wantRate,
				ApproximateNumberOfMessagesToMove: 1, StartedTimestamp: epochMs(started),
			}
			wantTask(t, f.task(t, dlq.ARN()), want, tt.reason)
			f.clk.Add(time.Second)
			want.TaskHandle, want.Status, want.ApproximateNumberOfMessagesMoved = "", sqsq.MoveTaskCompleted, 1
			wantTask(t, f.task(t, dlq.ARN()), want, tt.reason+"; no TaskHandle and no FailureReason once COMPLETED")
		})
	}
}

func TestMoveTaskMessagesAreNew(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	attrs := map[string]sqsq.MessageAttribute{"tenant": {DataType: "String", StringValue: "acme"}}
	orig := f.put(t, src, sqsq.SendInput{MessageBody: "poison", MessageAttributes: attrs})
	origSent := f.clk.Now()
	f.get(t, src, sqsq.ReceiveInput{})
	f.clk.Add(30 * time.Second)
	f.get(t, src, sqsq.ReceiveInput{}) // moves it
	f.clk.Add(time.Hour)
	started := f.clk.Now()
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()})
	f.clk.Add(time.Second)
	if got := f.task(t, dlq.ARN()).Status; got != sqsq.MoveTaskCompleted {
		t.Fatalf("task %s, want COMPLETED", got)
	}

	msgs := f.get(t, src, recvAll)
	if len(msgs) != 1 {
		t.Fatalf("the source returned %v after the redrive, want the message received normally: the receive count starts afresh, so maxReceiveCount 1 allows this delivery (§8.2 [OBS])", msgBodies(msgs))
	}
	m := msgs[0]
	sentMs, _ := strconv.ParseInt(m.Attributes[sqsq.SysSentTimestamp], 10, 64)
	checks := []struct {
		reason string
		ok     bool
	}{
		{"a redriven message gets a new MessageId", m.MessageId != orig.MessageId && m.MessageId != ""},
		{"the body is kept", m.Body == "poison"},
		{"message attributes are kept", reflect.DeepEqual(m.MessageAttributes, attrs)},
		{"MD5OfMessageAttributes is kept", m.MD5OfMessageAttributes() == orig.MD5OfMessageAttributes()},
		{"ApproximateReceiveCount starts afresh", m.Attributes[sqsq.SysApproximateReceiveCount] == "1"},
		{"SentTimestamp is the redrive's, not the original send's",
			sentMs != epochMs(origSent) && sentMs >= epochMs(started) && sentMs <= epochMs(f.clk.Now())},
		{"DeadLetterQueueSourceArn is gone", m.Attributes[sqsq.SysDeadLetterQueueSourceArn] == ""},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: got %+v", c.reason, m)
		}
	}
	// It can be dead-lettered again: one more delivery allowed (none), so
	// the next receive moves it.
	f.clk.Add(30 * time.Second)
	if got := f.getBodies(t, src, sqsq.ReceiveInput{}); got != nil {
		t.Errorf("second receive after the redrive = %v, want nothing (moved again)", got)
	}
	if got := storedIn(t, dlq); got != 1 {
		t.Errorf("DLQ holds %d, want 1", got)
	}
}

func TestMoveTaskRetentionRestarts(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	const day = 24 * time.Hour
	dlq := f.queue(t, "dlq", sqsq.QueueAttributes{MessageRetentionPeriod: sqsq.Some(14 * day)})
	src := f.queue(t, "src", sqsq.QueueAttributes{
		MessageRetentionPeriod: sqsq.Some(2 * day),
		RedrivePolicy:          sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1}),
	})
	f.deadLetterAll(t, src, "old")
	f.clk.Add(3 * day) // older than the source's retention by now
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()})
	f.clk.Add(time.Second)
	if s := dlqStats(t, src); s.Visible != 1 || s.Expired != 0 || s.OldestAge > time.Second {
		t.Fatalf("source after the redrive: %+v; want the message there with a fresh enqueue time (§5.2)", s)
	}
	f.clk.Add(2*day - 2*time.Second)
	if got := storedIn(t, src); got != 1 {
		t.Fatalf("source holds %d just before 2 days after the redrive, want 1", got)
	}
	f.clk.Add(2 * time.Second)
	if s := dlqStats(t, src); s.Visible != 0 || s.Expired != 1 {
		t.Errorf("source 2 days after the redrive: %+v; want it expired", s)
	}
}

func TestMoveTaskDefaultDestinationIsEachMessagesSource(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	dlq := f.queue(t, "dlq", sqsq.QueueAttributes{})
	policy := sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})}
	a := f.queue(t, "src-a", policy)
	b := f.queue(t, "src-b", policy)
	f.deadLetterAll(t, a, "a1")
	f.deadLetterAll(t, b, "b1")
	f.deadLetterAll(t, a, "a2")
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()})
	f.clk.Add(time.Second)
	if got := f.task(t, dlq.ARN()); got.Status != sqsq.MoveTaskCompleted || got.ApproximateNumberOfMessagesMoved != 3 {
		t.Fatalf("task %+v, want COMPLETED with 3 moved", got)
	}
	if got := f.getBodies(t, a, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"a1", "a2"}) {
		t.Errorf("src-a holds %v, want [a1 a2]: each message goes back to its own source (§8.2)", got)
	}
	if got := f.getBodies(t, b, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"b1"}) {
		t.Errorf("src-b holds %v, want [b1]", got)
	}
}

func TestMoveTaskExplicitDestination(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	other := f.queue(t, "other", sqsq.QueueAttributes{})
	f.deadLetterAll(t, src, "m1", "m2", "m3")
	f.putBody(t, dlq, "sent to the DLQ directly") // no source of its own: fine with a DestinationArn
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), DestinationArn: other.ARN()})
	f.clk.Add(time.Second)
	got := f.task(t, dlq.ARN())
	if got.Status != sqsq.MoveTaskCompleted || got.ApproximateNumberOfMessagesMoved != 4 || got.DestinationArn != other.ARN() {
		t.Fatalf("task %+v, want COMPLETED, 4 moved, DestinationArn %s", got, other.ARN())
	}
	if got := f.getBodies(t, other, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"m1", "m2", "m3", "sent to the DLQ directly"}) {
		t.Errorf("destination holds %v, want all four in DLQ order", got)
	}
	if got := storedIn(t, src); got != 0 {
		t.Errorf("the original source holds %d, want 0", got)
	}
}

func TestMoveTaskFIFO(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src.fifo", "dlq.fifo", 1)
	var ids []string
	for _, body := range []string{"A", "B"} {
		ids = append(ids, f.put(t, src, sqsq.SendInput{MessageBody: body, MessageGroupId: "g", MessageDeduplicationId: "d-" + body}).MessageId)
	}
	f.get(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	f.clk.Add(30 * time.Second)
	if got := f.getBodies(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); got != nil {
		t.Fatalf("receive = %v, want both moved", got)
	}
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()})
	f.clk.Add(time.Second)
	msgs := f.get(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10, MessageSystemAttributeNames: []string{sqsq.SysAll}})
	if !reflect.DeepEqual(msgBodies(msgs), []string{"A", "B"}) {
		t.Fatalf("source returned %v, want [A B] in order", msgBodies(msgs))
	}
	for i, m := range msgs {
		if m.MessageId == ids[i] {
			t.Errorf("%s kept its MessageId; a redriven message is new (§8.2)", m.Body)
		}
		if m.Attributes[sqsq.SysMessageGroupId] != "g" || m.Attributes[sqsq.SysMessageDeduplicationId] != ids[i] {
			t.Errorf("%s: group %q, dedup id %q; want g and the original MessageId %s (kept from the DLQ, §8.2)",
				m.Body, m.Attributes[sqsq.SysMessageGroupId], m.Attributes[sqsq.SysMessageDeduplicationId], ids[i])
		}
	}
}

// ---------------------------------------------------------------------------
// Failures.

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

// ---------------------------------------------------------------------------
// CancelMoveTask (§8.5).

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
			wantSQSErr(t, err, tt.code, tt.msg, tt.reason)
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

// ---------------------------------------------------------------------------
// ListMoveTasks (§8.4).

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
			wantSQSErr(t, err, tt.code, tt.msg, tt.reason)
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

// ---------------------------------------------------------------------------
// Waking receivers, closing the broker.

func TestMoveTaskWakesLongPollOnDestination(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.deadLetterAll(t, src, "m1", "m2")
	type result struct {
		msgs []sqsq.Message
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		msgs, err := src.Receive(f.ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second), MaxNumberOfMessages: 10})
		ch <- result{msgs, err}
	}()
	if err := src.WaitForReceivers(f.ctx, 1); err != nil {
		t.Fatal(err)
	}
	start := f.clk.Now()
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
	if got := src.ParkedReceivers(); got != 1 {
		t.Fatalf("%d receivers parked right after the start, want 1: nothing moves until the clock does", got)
	}
	f.clk.Add(500 * time.Millisecond)
	r := <-ch
	if r.err != nil || !reflect.DeepEqual(msgBodies(r.msgs), []string{"m1"}) {
		t.Fatalf("long poll on the destination = %v, %v; want [m1], moved at the start and woken by the task (§5.3)", msgBodies(r.msgs), r.err)
	}
	if d := f.clk.Now().Sub(start); d != 500*time.Millisecond {
		t.Errorf("clock at %v, want 500ms", d)
	}
}

// TestMoveTaskStopsOnClose is not parallel: it checks that Close leaves no
// goroutine behind, which only holds while no other test runs.
func TestMoveTaskStopsOnClose(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.deadLetterAll(t, src, "m1", "m2", "m3", "m4")
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
	f.clk.Add(time.Second)
	if err := f.b.Close(); err != nil {
		t.Fatal(err)
	}
	f.clk.Add(time.Minute)
	if _, err := f.b.ListMoveTasks(f.ctx, dlq.ARN(), sqsq.Optional[int]{}); !errors.Is(err, sqsq.ErrClosed) {
		t.Errorf("ListMoveTasks after Close = %v, want ErrClosed", err)
	}
	if _, err := f.b.StartMoveTask(f.ctx, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()}); !errors.Is(err, sqsq.ErrClosed) {
		t.Errorf("StartMoveTask after Close = %v, want ErrClosed", err)
	}
	goleak.VerifyNone(t, ignore)
}

// ---------------------------------------------------------------------------
// Nothing is lost or duplicated.

// TestMoveTaskConservation drives random interleavings of sends, receives
// that dead-letter, deletes, clock advances and move tasks started and
// cancelled over two standard sources sharing a DLQ and a FIFO pair, and
// checks after every step that every message sent is stored in exactly one
// queue, deleted or expired — counted with the Stats counters. At the end it
// drains every queue and checks that no body comes out twice.
func TestMoveTaskConservation(t *testing.T) {
	t.Parallel()
	t.Run("standard", func(t *testing.T) {
		t.Parallel()
		rapid.Check(t, conservationMachine(false))
	})
	t.Run("standard and FIFO", func(t *testing.T) {
		t.Parallel()
		rapid.Check(t, conservationMachine(true))
	})
}

// conservationMachine is the state machine of TestMoveTaskConservation; withFIFO
// adds a FIFO source, DLQ and destination to the standard ones.
func conservationMachine(withFIFO bool) func(*rapid.T) {
	return func(rt *rapid.T) {
		ctx := context.Background()
		clk := clock.NewMock()
		clk.Set(dlqEpoch)
		b := sqsq.NewBroker(sqsq.WithClock(clk))
		defer b.Close()
		mk := func(name string, a sqsq.QueueAttributes) *sqsq.Queue {
			if strings.HasSuffix(name, ".fifo") {
				a.FifoQueue = sqsq.Some(true)
			}
			q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: name, Attributes: a})
			if err != nil {
				rt.Fatalf("CreateQueue(%s): %v", name, err)
			}
			return q
		}
		retention := func(label string) sqsq.QueueAttributes {
			secs := rapid.SampledFrom([]int{60, 300, 3600, 345600}).Draw(rt, label)
			return sqsq.QueueAttributes{MessageRetentionPeriod: sqsq.Some(time.Duration(secs) * time.Second)}
		}
		redrive := func(dlq *sqsq.Queue, label string) sqsq.QueueAttributes {
			a := retention(label + "-retention")
			a.RedrivePolicy = sqsq.Some(&sqsq.RedrivePolicy{
				DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: rapid.IntRange(1, 3).Draw(rt, label+"-max")})
			return a
		}
		dlq := mk("dlq", retention("dlq-retention"))
		srcA := mk("src-a", redrive(dlq, "src-a"))
		srcB := mk("src-b", redrive(dlq, "src-b"))
		other := mk("other", sqsq.QueueAttributes{})
		sources := []*sqsq.Queue{srcA, srcB}
		dlqs := []*sqsq.Queue{dlq}
		others := []*sqsq.Queue{other}
		var fsrc, fother *sqsq.Queue
		if withFIFO {
			fdlq := mk("dlq.fifo", retention("fdlq-retention"))
			fsrc = mk("src.fifo", redrive(fdlq, "fsrc"))
			fother = mk("other.fifo", sqsq.QueueAttributes{})
			sources = append(sources, fsrc)
			dlqs = append(dlqs, fdlq)
			others = append(others, fother)
		}
		all := append(append(append([]*sqsq.Queue(nil), sources...), dlqs...), others...)
		// pick draws one of qs by name, so failure logs stay readable.
		pick := func(rt *rapid.T, qs []*sqsq.Queue, label string) *sqsq.Queue {
			return qs[rapid.IntRange(0, len(qs)-1).Draw(rt, label+" (index)")]
		}

		type held struct {
			q *sqsq.Queue
			h string
		}
		var handles []held
		var taskHandles []string
		sent := 0
		bodies := map[string]bool{}

		totals := func() (st sqsq.Stats) {
			for _, q := range all {
				s, err := q.Stats()
				if err != nil {
					rt.Fatalf("Stats(%s): %v", q.Name(), err)
				}
				st.Visible += s.Visible + s.InFlight + s.Delayed
				st.Sent += s.Sent
				st.Deleted += s.Deleted
				st.Expired += s.Expired
				st.Purged += s.Purged
				st.MovedToDLQ += s.MovedToDLQ
				st.DeadLettered += s.DeadLettered
				st.RedrivenOut += s.RedrivenOut
				st.RedrivenIn += s.RedrivenIn
			}
			return st
		}
		check := func(rt *rapid.T) {
			st := totals()
			if st.Sent != int64(sent) {
				rt.Fatalf("Sent counters sum to %d, %d sends succeeded", st.Sent, sent)
			}
			if got := int64(st.Visible) + st.Deleted + st.Expired + st.Purged; got != st.Sent {
				rt.Fatalf("stored %d + deleted %d + expired %d + purged %d = %d, want sent %d: a message was lost or duplicated",
					st.Visible, st.Deleted, st.Expired, st.Purged, got, st.Sent)
			}
			if st.MovedToDLQ != st.DeadLettered {
				rt.Fatalf("MovedToDLQ %d != DeadLettered %d", st.MovedToDLQ, st.DeadLettered)
			}
			if st.RedrivenOut != st.RedrivenIn {
				rt.Fatalf("RedrivenOut %d != RedrivenIn %d", st.RedrivenOut, st.RedrivenIn)
			}
		}

		rt.Repeat(map[string]func(*rapid.T){
			"Send": func(rt *rapid.T) {
				q := pick(rt, all, "send to")
				body := "m" + strconv.Itoa(len(bodies))
				in := sqsq.SendInput{MessageBody: body}
				if q.FIFO() {
					in.MessageGroupId = rapid.SampledFrom([]string{"g1", "g2"}).Draw(rt, "group")
					in.MessageDeduplicationId = body
				}
				if _, err := q.Send(ctx, in); err != nil {
					rt.Fatalf("Send to %s: %v", q.Name(), err)
				}
				bodies[body] = true
				sent++
			},
			"Receive": func(rt *rapid.T) {
				q := pick(rt, all, "receive from")
				vis := rapid.SampledFrom([]time.Duration{0, time.Second, 5 * time.Second, 30 * time.Second}).Draw(rt, "visibility")
				max := rapid.IntRange(1, 10).Draw(rt, "max")
				msgs, err := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: max, VisibilityTimeout: sqsq.Some(vis)})
				if err != nil {
					rt.Fatalf("Receive from %s: %v", q.Name(), err)
				}
				seen := map[string]bool{}
				for _, m := range msgs {
					if seen[m.Body] {
						rt.Fatalf("one receive returned %s twice", m.Body)
					}
					seen[m.Body] = true
					handles = append(handles, held{q, m.ReceiptHandle})
				}
			},
			"Delete": func(rt *rapid.T) {
				if len(handles) == 0 {
					rt.Skip("no handle")
				}
				h := handles[rapid.IntRange(0, len(handles)-1).Draw(rt, "handle (index)")]
				err := h.q.Delete(ctx, h.h)
				var e *sqsq.Error
				if err != nil && !(asSQSErr(err, &e) && e.Code == sqsq.CodeInvalidParameterValue && h.q.FIFO()) {
					rt.Fatalf("Delete on %s: %v", h.q.Name(), err)
				}
			},
			"Advance": func(rt *rapid.T) {
				d := rapid.SampledFrom([]time.Duration{time.Millisecond, time.Second, 7 * time.Second, 30 * time.Second, 5 * time.Minute, time.Hour}).Draw(rt, "advance")
				clk.Add(d)
			},
			"StartMoveTask": func(rt *rapid.T) {
				src := pick(rt, dlqs, "task source")
				in := sqsq.StartMoveTaskInput{SourceArn: src.ARN()}
				if rapid.Bool().Draw(rt, "rated") {
					in.MaxNumberOfMessagesPerSecond = sqsq.Some(rapid.IntRange(1, 5).Draw(rt, "rate"))
				}
				switch rapid.IntRange(0, 2).Draw(rt, "destination") {
				case 1: // another queue
					in.DestinationArn = other.ARN()
					if src.FIFO() {
						in.DestinationArn = fother.ARN()
					}
				case 2: // one of the sources, explicitly
					if src.FIFO() {
						in.DestinationArn = fsrc.ARN()
					} else {
						in.DestinationArn = pick(rt, []*sqsq.Queue{srcA, srcB}, "to source").ARN()
					}
				}
				h, err := b.StartMoveTask(ctx, in)
				var e *sqsq.Error
				switch {
				case err == nil:
					taskHandles = append(taskHandles, h)
				case asSQSErr(err, &e) && e.Code == sqsq.CodeInvalidParameterValue: // one already active
				default:
					rt.Fatalf("StartMoveTask(%+v): %v", in, err)
				}
			},
			"CancelMoveTask": func(rt *rapid.T) {
				if len(taskHandles) == 0 {
					rt.Skip("no task")
				}
				h := taskHandles[rapid.IntRange(0, len(taskHandles)-1).Draw(rt, "task (index)")]
				_, err := b.CancelMoveTask(ctx, h)
				var e *sqsq.Error
				if err != nil && !(asSQSErr(err, &e) && e.Code == sqsq.CodeInvalidParameterValue) {
					rt.Fatalf("CancelMoveTask: %v", err)
				}
			},
			"": check,
		})

		// Stop every task, let every visibility timeout end, and drain:
		// sources first (their receives may still dead-letter), then the
		// rest. Every body comes out once at most.
		for _, h := range taskHandles {
			_, _ = b.CancelMoveTask(ctx, h)
		}
		check(rt)
		before := totals()
		drained := map[string]bool{}
		// Rounds, each a minute apart, until nothing is left: a message
		// still in flight (30 s at most) is visible in the next round.
		for round := 0; round < 5 && totals().Visible > 0; round++ {
			clk.Add(time.Minute)
			for _, q := range all { // sources, then DLQs, then the rest
				drainAndCheck(rt, ctx, q, bodies, drained)
			}
		}
		after := totals()
		check(rt)
		if after.Visible != 0 {
			rt.Fatalf("%d messages left after the drain", after.Visible)
		}
		if got, want := int64(len(drained)), after.Deleted-before.Deleted; got != want {
			rt.Fatalf("drained %d bodies, %d deletes", got, want)
		}
	}
}

// drainAndCheck receives and deletes every available message of q, failing if
// a body comes out twice or was never sent.
func drainAndCheck(rt *rapid.T, ctx context.Context, q *sqsq.Queue, sent, drained map[string]bool) {
	for {
		msgs, err := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Hour)})
		if err != nil {
			rt.Fatalf("drain %s: %v", q.Name(), err)
		}
		if len(msgs) == 0 {
			break
		}
		for _, m := range msgs {
			if drained[m.Body] {
				rt.Fatalf("%s came out twice (again from %s)", m.Body, q.Name())
			}
			if !sent[m.Body] {
				rt.Fatalf("%s was never sent", m.Body)
			}
			drained[m.Body] = true
			if err := q.Delete(ctx, m.ReceiptHandle); err != nil {
				rt.Fatalf("drain delete: %v", err)
			}
		}
	}
}

func asSQSErr(err error, target **sqsq.Error) bool { return errors.As(err, target) }
