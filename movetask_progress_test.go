package sqsq_test

// Black-box tests of message move tasks (docs/sqs-semantics.md §8): progress
// on the clock (§8.3) and ListMoveTasks fields (§8.4). The move task helpers
// are in movetask_helpers_test.go; the fixture (setupDLQ) and the dead-letter
// helpers in redrive_helpers_test.go.

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

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
