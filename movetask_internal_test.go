package sqsq

// White-box tests of the move-task table (movetask.go): the history kept
// per source is bounded, and a task left behind by a bounded call re-arms
// the parked receivers when it catches up.

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

// taskFixture is a broker on a mock clock with a dead-letter queue, named
// dlq-<name>, and its source for each name.
type taskFixture struct {
	ctx context.Context
	clk *clock.Mock
	b   *Broker
}

func setupTasks(t *testing.T) *taskFixture {
	t.Helper()
	clk := clock.NewMock()
	clk.Set(time.Date(2024, time.March, 1, 12, 0, 0, 0, time.UTC))
	b := NewBroker(WithClock(clk))
	t.Cleanup(func() { _ = b.Close() })
	return &taskFixture{ctx: context.Background(), clk: clk, b: b}
}

func (f *taskFixture) queue(t *testing.T, name string, attrs QueueAttributes) *Queue {
	t.Helper()
	q, err := f.b.CreateQueue(f.ctx, CreateQueueInput{QueueName: name, Attributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// dlq creates dlq-name and a source src-name whose RedrivePolicy names it.
func (f *taskFixture) dlq(t *testing.T, name string) *Queue {
	t.Helper()
	dlq := f.queue(t, "dlq-"+name, QueueAttributes{})
	f.queue(t, "src-"+name, QueueAttributes{RedrivePolicy: Some(&RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})})
	return dlq
}

func TestMoveTaskHistoryIsBoundedPerSource(t *testing.T) {
	t.Parallel()
	f := setupTasks(t)
	dlqs := []*Queue{f.dlq(t, "a"), f.dlq(t, "b")}
	const started = 50
	handles := map[*Queue][]string{}
	startedAt := map[*Queue][]int64{}
	for i := 0; i < started; i++ {
		for _, dlq := range dlqs {
			// The DLQ is empty: the task completes on the next call.
			h, err := f.b.StartMoveTask(f.ctx, StartMoveTaskInput{SourceArn: dlq.ARN()})
			if err != nil {
				t.Fatalf("start %d on %s: %v", i, dlq.Name(), err)
			}
			handles[dlq] = append(handles[dlq], h)
			startedAt[dlq] = append(startedAt[dlq], f.clk.Now().UnixMilli())
		}
		f.clk.Add(time.Millisecond) // distinct StartedTimestamps
	}
	for _, dlq := range dlqs {
		got, err := f.b.ListMoveTasks(f.ctx, dlq.ARN(), Some(10))
		if err != nil || len(got) != 10 {
			t.Fatalf("ListMoveTasks(%s) = %d tasks, %v; want the 10 most recent", dlq.Name(), len(got), err)
		}
		for k, task := range got {
			if want := startedAt[dlq][started-1-k]; task.StartedTimestamp != want || task.Status != MoveTaskCompleted {
				t.Errorf("%s task %d: %s, started %d; want COMPLETED, started %d (newest first)", dlq.Name(), k, task.Status, task.StartedTimestamp, want)
			}
		}
		f.b.w.mu.Lock()
		kept := f.b.w.tasks.bySource[dlq.ARN()]
		if len(kept) != moveTaskHistory || cap(kept) > 2*moveTaskHistory {
			t.Errorf("%s: %d tasks kept (array of %d) after %d started, want %d: the history is bounded per source",
				dlq.Name(), len(kept), cap(kept), started, moveTaskHistory)
		}
		f.b.w.mu.Unlock()

		// The oldest kept task can no longer be cancelled, as a finished
		// one; an older one is forgotten: a task that does not exist.
		tests := []struct {
			reason string
			handle string
			code   Code
			msg    string
		}{
			{"the oldest task kept is COMPLETED", handles[dlq][started-moveTaskHistory], CodeInvalidParameterValue,
				"Only a task in the RUNNING status can be cancelled."},
			{"a task older than the history is forgotten", handles[dlq][started-moveTaskHistory-1], CodeResourceNotFound, "Task does not exist."},
			{"the first task is forgotten", handles[dlq][0], CodeResourceNotFound, "Task does not exist."},
		}
		for _, tt := range tests {
			_, err := f.b.CancelMoveTask(f.ctx, tt.handle)
			var e *Error
			if !errors.As(err, &e) || e.Code != tt.code || !strings.HasSuffix(e.Message, tt.msg) {
				t.Errorf("%s: CancelMoveTask = %v, want %s %q", tt.reason, err, tt.code, tt.msg)
			}
		}
	}
	if n := len(f.b.w.tasks.runningTasks()); n != 0 || f.b.runningTasks.Load() != 0 {
		t.Errorf("%d tasks listed as running (count %d), want none: finished tasks leave the running list", n, f.b.runningTasks.Load())
	}
}

func TestMoveTaskCaughtUpRearmsParkedReceivers(t *testing.T) {
	t.Parallel()
	f := setupTasks(t)
	dlq := f.dlq(t, "a")
	dest := f.queue(t, "dest", QueueAttributes{})
	idle := f.queue(t, "idle", QueueAttributes{})
	const n = 1500
	for i := 0; i < n; i++ {
		if _, err := dlq.Send(f.ctx, SendInput{MessageBody: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.b.StartMoveTask(f.ctx, StartMoveTaskInput{SourceArn: dlq.ARN(), DestinationArn: dest.ARN(), MaxNumberOfMessagesPerSecond: Some(500)}); err != nil {
		t.Fatal(err)
	}
	task := f.b.w.tasks.runningTasks()[0]
	moved := func() int64 {
		task.mu.Lock()
		defer task.mu.Unlock()
		return task.moved
	}
	// 1,201 steps due (one every 2 ms from the start), and nothing calls.
	f.clk.Add(2400 * time.Millisecond)
	parkedAt := f.clk.Now().UnixNano()

	// A long poll on an unrelated queue carries out a bounded slice and
	// parks without waiting for the steps it left behind.
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan error, 1)
	go func() {
		_, err := idle.Receive(ctx, ReceiveInput{WaitTimeSeconds: Some(20 * time.Second)})
		done <- err
	}()
	if err := idle.WaitForReceivers(f.ctx, 1); err != nil {
		t.Fatal(err)
	}
	until := func() int64 {
		idle.mu.Lock()
		defer idle.mu.Unlock()
		for w := range idle.waiters {
			return w.until
		}
		return 0
	}
	if got := moved(); got != moveTaskBatch || !task.lagging.Load() {
		t.Fatalf("the long poll moved %d (lagging %v), want %d and the task left behind", got, task.lagging.Load(), moveTaskBatch)
	}
	if got, want := until(), parkedAt+int64(20*time.Second); got != want {
		t.Fatalf("the receiver parked until +%v, want the end of its wait, +20s", time.Duration(got-parkedAt))
	}

	// The next call catches the task up: it steps on time again, so the
	// receiver, which may be its destination's by then, wakes for it.
	if _, err := f.b.ListQueues(f.ctx, ListQueuesInput{}); err != nil {
		t.Fatal(err)
	}
	if got := moved(); got != 1201 || task.lagging.Load() {
		t.Fatalf("after a second call, %d moved (lagging %v), want 1201, caught up", got, task.lagging.Load())
	}
	if got, want := until(), task.due.Load(); got != want {
		t.Errorf("the receiver is armed for +%v, want the task's next step, +%v", time.Duration(got-parkedAt), time.Duration(want-parkedAt))
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Receive = %v, want context.Canceled", err)
	}
}
