package sqsq_test

// Black-box tests of message move tasks (docs/sqs-semantics.md §8.3): a
// task left alone while the clock moved far has a backlog of due steps. A
// call about other queues carries out a bounded slice of it; a call about
// the task's own queues, or a listing of the task, carries out all of it
// first and sees exact state, every message moved as of its own instant.
// The move task helpers are in movetask_helpers_test.go; the fixture
// (setupDLQ) and the dead-letter helpers in redrive_helpers_test.go.

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/testsize"
)

// backlogBatch is the most steps of others' tasks one call carries out
// (moveTaskBatch in movetask.go).
const backlogBatch = 1000

// moveLog records the redrive events of a broker: the instant of each move,
// in the order the moves happened.
type moveLog struct {
	mu sync.Mutex
	at []int64
}

func (l *moveLog) Observe(e sqsq.Event) {
	if e.Kind != sqsq.EventRedriven {
		return
	}
	l.mu.Lock()
	l.at = append(l.at, e.At.UnixNano())
	l.mu.Unlock()
}

func (l *moveLog) moved() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.at)
}

// fillBodies sends n messages to q in batches of 10.
func fillBodies(t *testing.T, f *dlqFixture, q *sqsq.Queue, n int) {
	t.Helper()
	batch := make([]sqsq.SendBatchEntry, 0, 10)
	for i := 0; i < n; i++ {
		batch = append(batch, sqsq.SendBatchEntry{Id: "e" + strconv.Itoa(len(batch)), SendInput: sqsq.SendInput{MessageBody: strconv.Itoa(i)}})
		if len(batch) == 10 || i == n-1 {
			if res, err := q.SendBatch(f.ctx, batch); err != nil || len(res.Failed) > 0 {
				t.Fatalf("SendBatch: %v %v", err, res.Failed)
			}
			batch = batch[:0]
		}
	}
}

func TestMoveTaskBacklogStaysWithItsQueues(t *testing.T) {
	t.Parallel()
	// A backlog of many batches: ten in the quick suite (each check below
	// still sees a bounded slice, then all of it), a hundred with SQSQ_LONG=1.
	n := testsize.Scale(10*backlogBatch, 100*backlogBatch)
	type env struct {
		f                     *dlqFixture
		src, dlq, dest, other *sqsq.Queue
		srcOfDLQ              *sqsq.Queue // a queue whose DLQ is the task's source
		defaultDest           bool
	}
	tests := []struct {
		reason      string
		defaultDest bool // no DestinationArn: messages go back to src, which has dropped its policy since
		observe     func(t *testing.T, e env)
	}{
		{reason: "Stats of the destination", observe: func(t *testing.T, e env) { dlqStats(t, e.dest) }},
		{reason: "Stats of the source", observe: func(t *testing.T, e env) { dlqStats(t, e.dlq) }},
		{reason: "ListMoveTasks of the source", observe: func(t *testing.T, e env) { e.f.task(t, e.dlq.ARN()) }},
		{reason: "GetAttributes of the destination", observe: func(t *testing.T, e env) { e.f.attrs(t, e.dest) }},
		{reason: "a send to the destination", observe: func(t *testing.T, e env) { e.f.putBody(t, e.dest, "sent") }},
		{reason: "a receive from a queue whose dead-letter queue is the source", observe: func(t *testing.T, e env) {
			e.f.get(t, e.srcOfDLQ, sqsq.ReceiveInput{})
		}},
		{reason: "Stats of the queue the messages go back to, which no longer names the DLQ", defaultDest: true,
			observe: func(t *testing.T, e env) { dlqStats(t, e.dest) }},
		{reason: "a receive from the queue the messages go back to", defaultDest: true,
			observe: func(t *testing.T, e env) {
				e.f.get(t, e.dest, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Hour)})
			}},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			log := &moveLog{}
			f := setupDLQ(t, sqsq.WithObserver(log))
			e := env{f: f, defaultDest: tt.defaultDest}
			e.src, e.dlq = f.pair(t, "src", "dlq", 1)
			e.srcOfDLQ = f.queue(t, "src2", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: e.dlq.ARN(), MaxReceiveCount: 5})})
			e.other = f.queue(t, "other", sqsq.QueueAttributes{})
			in := sqsq.StartMoveTaskInput{SourceArn: e.dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(500)}
			if tt.defaultDest {
				// Dead-letter n messages from src: received once, then moved.
				e.dest = e.src
				fillBodies(t, f, e.src, n)
				for len(f.get(t, e.src, sqsq.ReceiveInput{MaxNumberOfMessages: 10})) > 0 {
				}
				f.clk.Add(30 * time.Second)
				f.get(t, e.src, sqsq.ReceiveInput{})
			} else {
				e.dest = f.queue(t, "dest", sqsq.QueueAttributes{})
				in.DestinationArn = e.dest.ARN()
				fillBodies(t, f, e.dlq, n)
			}
			if got := storedIn(t, e.dlq); got != n {
				t.Fatalf("DLQ holds %d, want %d", got, n)
			}
			started := f.clk.Now()
			f.start(t, in)
			if tt.defaultDest {
				// Only the messages' DeadLetterQueueSourceArn links src to the task now.
				if err := e.src.SetAttributes(f.ctx, sqsq.QueueAttributes{RedrivePolicy: sqsq.Some[*sqsq.RedrivePolicy](nil)}); err != nil {
					t.Fatal(err)
				}
			}
			// n messages at 500/s take (n-1)/500 s; nothing calls meanwhile.
			f.clk.Add(time.Duration(n/500+1) * time.Second)

			// Calls about other queues carry out a bounded slice of the backlog.
			if s := dlqStats(t, e.other); s.Visible != 0 || s.RedrivenIn != 0 {
				t.Errorf("Stats of an unrelated queue %+v, want it empty", s)
			}
			first := log.moved()
			if first < 1 || first > backlogBatch {
				t.Fatalf("an unrelated Stats moved %d messages, want 1–%d: a bounded slice of the backlog", first, backlogBatch)
			}
			if _, err := f.b.ListQueues(f.ctx, sqsq.ListQueuesInput{}); err != nil {
				t.Fatal(err)
			}
			f.putBody(t, e.other, "unrelated")
			if got := log.moved(); got > first+2*backlogBatch {
				t.Fatalf("two more unrelated calls moved %d messages in all, want at most %d", got, first+2*backlogBatch)
			}

			// A call about the task's queues catches it up.
			tt.observe(t, e)
			if got := log.moved(); got != n {
				t.Fatalf("after %s, %d of %d messages moved, want all: it observes the task's queues", tt.reason, got, n)
			}
			log.mu.Lock()
			for k, at := range log.at {
				if want := started.UnixNano() + max(1, int64(k)*int64(2*time.Millisecond)); at != want {
					log.mu.Unlock()
					t.Fatalf("move %d happened as of %v, want %v: each move as of its own due instant, in order",
						k, time.Unix(0, at).Sub(started), time.Unix(0, want).Sub(started))
				}
			}
			log.mu.Unlock()
			want := sqsq.MoveTask{Status: sqsq.MoveTaskCompleted, SourceArn: e.dlq.ARN(), DestinationArn: in.DestinationArn,
				MaxNumberOfMessagesPerSecond: sqsq.Some(500), ApproximateNumberOfMessagesMoved: int64(n),
				ApproximateNumberOfMessagesToMove: int64(n), StartedTimestamp: epochMs(started)}
			wantTask(t, f.task(t, e.dlq.ARN()), want, "the task finished when its last message moved")
			s := dlqStats(t, e.dest)
			if s.RedrivenIn != int64(n) || s.Visible+s.InFlight < n {
				t.Errorf("destination %+v, want all %d moved there", s, n)
			}
			if age := f.clk.Now().Sub(started.Add(time.Nanosecond)); s.OldestAge != age {
				t.Errorf("destination's oldest message is %v old, want %v: the first moved at the start", s.OldestAge, age)
			}
			if got := storedIn(t, e.dlq); got != 0 {
				t.Errorf("DLQ holds %d, want 0", got)
			}
		})
	}
}

// TestMoveTaskBacklogBeforeDeleteQueue: deleting a task's destination
// carries out the task's backlog first, so every message due before the
// delete is moved, whatever the calls before it left behind.
func TestMoveTaskBacklogBeforeDeleteQueue(t *testing.T) {
	t.Parallel()
	const n = 5 * backlogBatch
	f := setupDLQ(t)
	_, dlq := f.pair(t, "src", "dlq", 1)
	dest := f.queue(t, "dest", sqsq.QueueAttributes{})
	other := f.queue(t, "other", sqsq.QueueAttributes{})
	fillBodies(t, f, dlq, 2*n)
	started := f.clk.Now()
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), DestinationArn: dest.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(500)})
	f.clk.Add(time.Duration(n-1) * 2 * time.Millisecond) // n messages due
	dlqStats(t, other)                                   // leaves most of them
	if err := f.b.DeleteQueue(f.ctx, dest.URL()); err != nil {
		t.Fatal(err)
	}
	f.clk.Add(time.Second)
	want := sqsq.MoveTask{Status: sqsq.MoveTaskFailed, SourceArn: dlq.ARN(), DestinationArn: dest.ARN(),
		MaxNumberOfMessagesPerSecond: sqsq.Some(500), ApproximateNumberOfMessagesMoved: n,
		ApproximateNumberOfMessagesToMove: 2 * n, FailureReason: sqsq.MoveTaskNonExistentQueue, StartedTimestamp: epochMs(started)}
	wantTask(t, f.task(t, dlq.ARN()), want, "the messages due before the delete moved, the next step failed")
	if got := storedIn(t, dlq); got != n {
		t.Errorf("DLQ holds %d, want %d", got, n)
	}
}
