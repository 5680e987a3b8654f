package sqsq_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"pgregory.net/rapid"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/state"
)

// corruptBase returns the state of a small endpoint with a little of
// everything, for the tests to corrupt: two scopes; "std" with an
// available, an in-flight and a delayed message and a tag; "q.fifo" with
// groups, a receive attempt and deduplication ids; "dlq" with dead-lettered
// messages, a running move task and a finished one; a name deleted
// recently; "x" in the other scope.
func corruptBase(t fatalT) *state.World {
	t.Helper()
	ctx := context.Background()
	clk := clock.NewMock()
	clk.Set(epoch)
	n := 0
	b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithIDFunc(func() string { n++; return fmt.Sprintf("m-%d", n) }))
	defer b.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("building the base endpoint: %v", err)
		}
	}
	create := func(b *sqsq.Broker, name string, a sqsq.QueueAttributes) *sqsq.Queue {
		q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: name, Attributes: a, Tags: map[string]string{"team": "a"}})
		must(err)
		return q
	}
	send := func(q *sqsq.Queue, in sqsq.SendInput) {
		_, err := q.Send(ctx, in)
		must(err)
	}
	dlq := create(b, "dlq", sqsq.QueueAttributes{})
	std := create(b, "std", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})})
	fifo := create(b, "q.fifo", sqsq.QueueAttributes{FifoQueue: sqsq.Some(true), ContentBasedDeduplication: sqsq.Some(true)})
	create(b, "gone", sqsq.QueueAttributes{})
	must(b.DeleteQueue(ctx, "gone"))
	x := create(b.Scope(otherAccount, otherRegion), "x", sqsq.QueueAttributes{})
	send(x, sqsq.SendInput{MessageBody: "far"})

	for _, body := range []string{"dead-1", "dead-2", "dead-3"} {
		send(std, sqsq.SendInput{MessageBody: body})
	}
	_, err := std.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Second)})
	must(err)
	clk.Add(time.Second)
	_, err = std.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10}) // all three dead-letter
	must(err)
	_, err = b.StartMoveTask(ctx, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
	must(err)
	clk.Add(1500 * time.Millisecond) // one moved back, two to go
	send(std, sqsq.SendInput{MessageBody: "in flight", MessageAttributes: map[string]sqsq.MessageAttribute{"b": {DataType: "Binary", BinaryValue: []byte{1}}}})
	_, err = std.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	must(err)
	send(std, sqsq.SendInput{MessageBody: "available"})
	send(std, sqsq.SendInput{MessageBody: "delayed", DelaySeconds: sqsq.Some(time.Minute)})

	for i, g := range []string{"g1", "g1", "g2"} {
		send(fifo, sqsq.SendInput{MessageBody: fmt.Sprint("f", i), MessageGroupId: g})
	}
	_, err = fifo.Receive(ctx, sqsq.ReceiveInput{ReceiveRequestAttemptId: "attempt"})
	must(err)
	return exportOf(t, b)
}

// queueNamed returns the saved queue of that name, in any scope.
func queueNamed(w *state.World, name string) *state.Queue {
	for i := range w.Scopes {
		for j := range w.Scopes[i].Queues {
			if q := &w.Scopes[i].Queues[j]; q.Name == name {
				return q
			}
		}
	}
	panic("no queue " + name)
}

// TestImportRejectsCorruptWorld checks that Import refuses bad data with an
// error that names what is wrong (and where), and returns no broker.
func TestImportRejectsCorruptWorld(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reason  string
		corrupt func(w *state.World)
		want    []string // in the error, in this order
	}{
		{"no scope", "an endpoint has its first scope at least",
			func(w *state.World) { w.Scopes = nil }, []string{"no scope"}},
		{"bad account", "an account goes into ARNs and URLs unescaped",
			func(w *state.World) { w.Scopes[1].Account = "a:b" }, []string{"scope 1", `"a:b"`}},
		{"two scopes alike", "a namespace is one broker",
			func(w *state.World) { w.Scopes[1] = w.Scopes[0] }, []string{"scopes 0 and 1"}},
		{"two queues of a name", "a name is one queue of its scope",
			func(w *state.World) { queueNamed(w, "q.fifo").Name = "std" }, []string{`two queues named "std"`}},
		{"two queues of an id", "handles name queues by id",
			func(w *state.World) { queueNamed(w, "x").ID = queueNamed(w, "std").ID }, []string{":std and", ":x both have id"}},
		{"queue id 0", "ids start at 1",
			func(w *state.World) { queueNamed(w, "std").ID = 0 }, []string{":std (id 0)"}},
		{"bad queue name", "CreateQueue's name rules",
			func(w *state.World) { queueNamed(w, "std").Name = "no spaces" }, []string{"no spaces", "InvalidParameterValue"}},
		{"FIFO name without .fifo", "a FIFO queue's name ends in .fifo",
			func(w *state.World) { q := queueNamed(w, "std"); q.FIFO = true }, []string{":std"}},
		{"attribute the parser refuses", "CreateQueue's parser decides",
			func(w *state.World) { queueNamed(w, "std").Attributes["VisibilityTimeout"] = "forty" }, []string{":std", "VisibilityTimeout"}},
		{"attribute out of range", "CreateQueue's ranges",
			func(w *state.World) { queueNamed(w, "std").Attributes["MessageRetentionPeriod"] = "5" }, []string{":std", "MessageRetentionPeriod"}},
		{"unknown attribute", "only settable attributes are saved",
			func(w *state.World) { queueNamed(w, "std").Attributes["Colour"] = "red" }, []string{":std", "Colour"}},
		{"redrive policy not JSON", "ParseRedrivePolicy decides",
			func(w *state.World) { queueNamed(w, "std").Attributes["RedrivePolicy"] = "{" }, []string{":std", "RedrivePolicy"}},
		{"FifoQueue on a standard queue", "the type is the queue's, and the attribute says the same",
			func(w *state.World) { queueNamed(w, "std").Attributes["FifoQueue"] = "true" }, []string{":std", "FifoQueue"}},
		{"FIFO attribute on a standard queue", "checkType's rule",
			func(w *state.World) { queueNamed(w, "std").Attributes["ContentBasedDeduplication"] = "true" }, []string{":std", "ContentBasedDeduplication"}},
		{"reserved tag", "TagQueue's rules",
			func(w *state.World) { queueNamed(w, "std").Tags["aws:x"] = "y" }, []string{":std", "tags", "aws:x"}},
		{"unknown counter", "counters are saved by name",
			func(w *state.World) {
				q := queueNamed(w, "std")
				q.Counters = append(q.Counters, state.Counter{Name: "Bananas", Value: 1})
			}, []string{":std", `"Bananas"`}},
		{"unknown message state", "available, in flight or delayed",
			func(w *state.World) { queueNamed(w, "std").Messages[0].State = 9 }, []string{":std", "message m-", "unknown state 9"}},
		{"held message", "held lasts only while a receive holds the lock",
			func(w *state.World) { queueNamed(w, "std").Messages[0].State = 4 }, []string{":std", "unknown state 4"}},
		{"slot used twice", "a slot is one message's",
			func(w *state.World) { m := queueNamed(w, "std").Messages; m[1].Slot = m[0].Slot }, []string{":std", "slot", "too"}},
		{"slot outside the table", "the table is as long as the data says",
			func(w *state.World) { queueNamed(w, "std").Messages[0].Slot = 1 << 30 }, []string{":std", "outside the slot table"}},
		{"messages out of order", "indexes are rebuilt in send order",
			func(w *state.World) { m := queueNamed(w, "std").Messages; m[0], m[1] = m[1], m[0] }, []string{":std", "send order"}},
		{"message after the last sequence number", "the queue's counter issued every seq",
			func(w *state.World) { queueNamed(w, "std").Seq = 1 }, []string{":std", "outside 1–1"}},
		{"FIFO message without a group", "FIFO delivery is by group",
			func(w *state.World) { queueNamed(w, "q.fifo").Messages[0].GroupID = "" }, []string{":q.fifo", "message m-", "no message group"}},
		{"slot of two messages", "a slot holds one message",
			func(w *state.World) { m := queueNamed(w, "std").Messages; m[1].Slot = m[0].Slot }, []string{":std", "is message seq"}},
		{"dedup ids on a standard queue", "deduplication is FIFO's",
			func(w *state.World) { queueNamed(w, "std").DedupByID = queueNamed(w, "q.fifo").DedupByID }, []string{":std", "standard queue"}},
		{"dedup pair without its group", "pair keys are group and id",
			func(w *state.World) { queueNamed(w, "q.fifo").DedupByPair[0].Key = "nogroup" }, []string{":q.fifo", `"nogroup"`}},
		{"attempt without visibility", "an attempt is recorded only with a timeout",
			func(w *state.World) { queueNamed(w, "q.fifo").Attempts[0].Vis = 0 }, []string{":q.fifo", `attempt "attempt"`}},
		{"unknown task status", "the five statuses",
			func(w *state.World) { w.Tasks[0].Status = "PAUSED" }, []string{"move task", `"PAUSED"`}},
		{"task rate 0", "steps are 1/rate apart",
			func(w *state.World) { w.Tasks[0].Rate = 0 }, []string{"move task", "rate 0"}},
		{"task without source id", "ids start at 1",
			func(w *state.World) { w.Tasks[0].SourceID = 0 }, []string{"move task", "source queue id 0"}},
		{"task source id of another queue", "id and ARN name one queue",
			func(w *state.World) { w.Tasks[0].SourceID = queueNamed(w, "std").ID }, []string{"move task", ":std"}},
		{"deleted task source not an ARN", "a deleted source is rebuilt from its ARN",
			func(w *state.World) { w.Tasks[0].SourceID, w.Tasks[0].Source = 999, "dlq" }, []string{"move task", "not a queue ARN"}},
		{"tasks out of order", "the history is in start order",
			func(w *state.World) { w.Tasks = append(w.Tasks, w.Tasks[0]) }, []string{"move task", "start order"}},
		{"two active tasks of a source", "one active task per source",
			func(w *state.World) {
				t := w.Tasks[0]
				t.Seq++
				w.Tasks = append(w.Tasks, t)
			}, []string{"move task", "active too"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := corruptBase(t)
			tc.corrupt(w)
			b, err := state.Import(w, []sqsq.Option{sqsq.WithClock(clock.NewMock())})
			if err == nil {
				t.Fatalf("Import accepted it (%s)", tc.reason)
			}
			if b != nil {
				t.Errorf("Import returned a broker with its error %v", err)
			}
			msg, rest := err.Error(), err.Error()
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error %q does not say %q (%s)", msg, w, tc.reason)
				}
				rest = rest[i+len(w):]
			}
		})
	}
	t.Run("nil world", func(t *testing.T) {
		t.Parallel()
		if _, err := state.Import(nil, nil); err == nil {
			t.Errorf("Import(nil) succeeded")
		}
	})
	t.Run("options of another type", func(t *testing.T) {
		t.Parallel()
		if _, err := state.Import(corruptBase(t), []string{"x"}); err == nil || !strings.Contains(err.Error(), "[]sqsq.Option") {
			t.Errorf("Import with []string options: %v, want an error naming []sqsq.Option", err)
		}
	})
	t.Run("export of another type", func(t *testing.T) {
		t.Parallel()
		if _, err := state.Export("broker"); err == nil {
			t.Errorf("Export of a string succeeded")
		}
	})
}

// TestImportSurvivesCorruption corrupts a saved endpoint at random — any
// field of any message, queue or task — and checks that Import and then
// every kind of call on what it accepted never panic: a store's damaged
// file must be an error or a working broker, never a crash.
func TestImportSurvivesCorruption(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		w := corruptBase(t)
		for range rapid.IntRange(1, 4).Draw(t, "corruptions") {
			corruptField(t, w)
		}
		clk := clock.NewMock()
		clk.Set(epoch.Add(rapid.SampledFrom([]time.Duration{0, time.Minute, time.Hour, -time.Hour}).Draw(t, "downtime")))
		got, err := state.Import(w, []sqsq.Option{sqsq.WithClock(clk)})
		if err != nil {
			return
		}
		b := got.(*sqsq.Broker)
		defer b.Close()
		exercise(t, b, clk)
	})
}

// corruptField sets one drawn field of w to a drawn value.
func corruptField(t *rapid.T, w *state.World) {
	s := &w.Scopes[rapid.IntRange(0, len(w.Scopes)-1).Draw(t, "scope")]
	if len(s.Queues) == 0 {
		return
	}
	q := &s.Queues[rapid.IntRange(0, len(s.Queues)-1).Draw(t, "queue")]
	u32 := func(label string) uint32 { return uint32(rapid.IntRange(0, 8).Draw(t, label)) }
	i64 := func(label string) int64 {
		return rapid.SampledFrom([]int64{0, -1, 1, epoch.UnixNano(), epoch.Add(time.Hour).UnixNano(), 1 << 62, -1 << 63}).Draw(t, label)
	}
	switch rapid.IntRange(0, 14).Draw(t, "what") {
	case 0, 1, 2, 3, 4, 5:
		if len(q.Messages) == 0 {
			return
		}
		m := &q.Messages[rapid.IntRange(0, len(q.Messages)-1).Draw(t, "message")]
		switch rapid.IntRange(0, 10).Draw(t, "messageField") {
		case 0:
			m.State = uint8(rapid.IntRange(0, 5).Draw(t, "state"))
		case 1:
			m.Slot = u32("slot")
		case 2:
			m.Seq = uint64(rapid.IntRange(0, 12).Draw(t, "seq"))
		case 3:
			m.Serial = u32("serial")
		case 4:
			m.Gen = u32("gen")
		case 5:
			m.ReceiveCount = int32(rapid.IntRange(-2, 5).Draw(t, "receiveCount"))
		case 6:
			m.VisibleAt = i64("visibleAt")
		case 7:
			m.EnqueuedAt = i64("enqueuedAt")
		case 8:
			m.AvailableSince, m.ReceivedAt = i64("availableSince"), i64("receivedAt")
		case 9:
			m.GroupID = rapid.SampledFrom([]string{"", "g1", "g9"}).Draw(t, "group")
		case 10:
			m.FirstReceiveAt = i64("firstReceiveAt")
		}
	case 6:
		if len(q.Messages) > 0 { // a slot far up the table: the slots below it are free
			q.Messages[0].Slot = u32("slot") * 1000
		}
	case 7:
		q.Seq = uint64(rapid.IntRange(0, 12).Draw(t, "queueSeq"))
	case 8:
		name := rapid.SampledFrom([]string{"VisibilityTimeout", "DelaySeconds", "MessageRetentionPeriod", "RedrivePolicy", "FifoQueue"}).Draw(t, "attribute")
		q.Attributes[name] = rapid.SampledFrom([]string{"0", "60", "900", "", "true", `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:nowhere","maxReceiveCount":1}`}).Draw(t, "value")
	case 9:
		if len(q.Attempts) > 0 {
			a := &q.Attempts[0]
			a.Msgs = append(a.Msgs, state.AttemptMsg{Seq: uint64(u32("attemptSeq")), Slot: u32("attemptSlot"), Serial: u32("attemptSerial"), Gen: u32("attemptGen")})
		}
	case 10:
		q.FIFO = !q.FIFO
	case 11, 12, 13, 14:
		if len(w.Tasks) == 0 {
			return
		}
		tk := &w.Tasks[rapid.IntRange(0, len(w.Tasks)-1).Draw(t, "task")]
		switch rapid.IntRange(0, 6).Draw(t, "taskField") {
		case 0:
			tk.Status = rapid.SampledFrom([]string{sqsq.MoveTaskRunning, sqsq.MoveTaskCancelling, sqsq.MoveTaskCompleted, "X"}).Draw(t, "status")
		case 1:
			tk.Rate = rapid.IntRange(-1, 600).Draw(t, "rate")
		case 2:
			tk.Moved, tk.ToMove = int64(rapid.IntRange(-1, 5).Draw(t, "moved")), int64(rapid.IntRange(-1, 5).Draw(t, "toMove"))
		case 3:
			tk.Started, tk.Cancel = i64("started"), i64("cancel")
		case 4:
			tk.SourceID = uint64(rapid.IntRange(0, 9).Draw(t, "sourceID"))
		case 5:
			tk.Dest = rapid.SampledFrom([]string{"", "x", "arn:aws:sqs:us-east-1:000000000000:std"}).Draw(t, "dest")
		case 6:
			tk.Source = rapid.SampledFrom([]string{"arn:aws:sqs:us-east-1:000000000000:dlq", "arn:aws:sqs:us-west-9:222222222222:old", "nope"}).Draw(t, "source")
		}
	}
}

// exercise calls everything on every queue of b's endpoint, twice, with
// the clock moved between: receives (which may dead-letter), deletes and
// visibility changes with the handles they return, sends, Peek, Stats,
// attributes, move tasks, purges, export. Errors are fine; a panic fails.
func exercise(t *rapid.T, b *sqsq.Broker, clk *clock.Mock) {
	ctx := context.Background()
	for round := range 2 {
		for _, s := range b.Scopes() {
			for _, q := range s.Queues() {
				msgs, _ := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, ReceiveRequestAttemptId: "attempt", WaitTimeSeconds: sqsq.Some(time.Duration(0))})
				for i, m := range msgs {
					if i%2 == 0 {
						_ = q.Delete(ctx, m.ReceiptHandle)
					} else {
						_ = q.ChangeVisibility(ctx, m.ReceiptHandle, 0)
					}
				}
				_, _ = q.Send(ctx, sqsq.SendInput{MessageBody: "again", MessageGroupId: "g1", MessageDeduplicationId: "d"})
				_, _ = q.Peek(ctx, sqsq.PeekInput{})
				_, _ = q.Stats()
				_, _ = q.GetAttributes(ctx, "All")
				_, _ = q.ListDeadLetterSourceQueues(ctx, sqsq.ListDeadLetterSourceQueuesInput{})
				_, _ = b.ListMoveTasks(ctx, q.ARN(), sqsq.Some(10))
				if h, err := b.StartMoveTask(ctx, sqsq.StartMoveTaskInput{SourceArn: q.ARN()}); err == nil && round == 1 {
					_, _ = b.CancelMoveTask(ctx, h)
				}
				if round == 1 {
					_ = q.Purge(ctx)
				}
			}
		}
		if _, err := state.Export(b); err != nil {
			t.Fatalf("Export of an imported endpoint: %v", err)
		}
		clk.Add(time.Hour)
	}
}
