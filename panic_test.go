package sqsq_test

// A panic in the user's code — an Observer, a Faults policy, the id
// function of WithIDFunc — reaches the caller of the operation that ran it,
// and the broker goes on: no lock is left held, no message is left half
// moved or held out of every index, parked receives still wake, and the
// next operations on the queue work.

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// boom is what the user code of these tests panics with.
type boom string

// panicOn is an Observer that panics the first time it is told of kind for
// a message whose body is body.
type panicOn struct {
	kind sqsq.EventKind
	body string
	left *atomic.Int32
}

func newPanicOn(kind sqsq.EventKind, body string) panicOn {
	p := panicOn{kind: kind, body: body, left: new(atomic.Int32)}
	p.left.Store(1)
	return p
}

func (p panicOn) Observe(e sqsq.Event) {
	if e.Kind == p.kind && e.Body == p.body && p.left.Add(-1) >= 0 {
		panic(boom("observer told: " + p.kind.String()))
	}
}

// recovered runs f and returns what it panicked with, nil if it returned.
func recovered(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// wantBoom fails the test unless f panics with the user code's panic: the
// core passes it on, it does not swallow it.
func wantBoom(t *testing.T, what string, f func()) {
	t.Helper()
	if v := recovered(f); !isBoom(v) {
		t.Fatalf("%s: recovered %v (%T), want the user code's panic", what, v, v)
	}
}

func isBoom(v any) bool {
	_, ok := v.(boom)
	return ok
}

// wantUnlocked fails the test if a queue is left locked.
func wantUnlocked(t *testing.T, qs ...*sqsq.Queue) {
	t.Helper()
	for _, q := range qs {
		if sqsq.Locked(q) {
			t.Fatalf("%s is left locked after the panic", q.Name())
		}
	}
}

// sendTo sends body to q, in group on a FIFO queue.
func (f *dlqFixture) sendTo(t *testing.T, q *sqsq.Queue, group, body string) {
	t.Helper()
	in := sqsq.SendInput{MessageBody: body}
	if q.FIFO() {
		in.MessageGroupId, in.MessageDeduplicationId = group, body
	}
	f.put(t, q, in)
}

type received struct {
	msgs []sqsq.Message
	err  error
}

// park starts a 20-second long poll on q and returns once it is parked.
func (f *dlqFixture) park(t *testing.T, q *sqsq.Queue) <-chan received {
	t.Helper()
	ctx, parkedOrDone := context.WithCancel(f.ctx)
	out := make(chan received, 1)
	go func() {
		msgs, err := q.Receive(f.ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		parkedOrDone()
		out <- received{msgs, err}
	}()
	if err := q.WaitForReceivers(ctx, 1); err != nil {
		r := <-out
		t.Fatalf("the long poll on %s did not park: got %v, %v", q.Name(), msgBodies(r.msgs), r.err)
	}
	return out
}

// wantBodies fails the test unless a receive got exactly bodies.
func wantBodies(t *testing.T, r received, reason string, bodies ...string) {
	t.Helper()
	if got := msgBodies(r.msgs); r.err != nil || !equal(got, bodies) {
		t.Fatalf("got %q, %v; want %q\nreason: %s", got, r.err, bodies, reason)
	}
}

// stillWorks proves q serves after a panic: its visible messages are
// received and deleted, and a long poll parks on it and wakes for a send.
func (f *dlqFixture) stillWorks(t *testing.T, q *sqsq.Queue) {
	t.Helper()
	wantUnlocked(t, q)
	f.drain(t, q)
	parked := f.park(t, q)
	f.sendTo(t, q, "after", "after")
	r := <-parked
	wantBodies(t, r, "a long poll parked on the queue after the panic wakes for a send", "after")
	if err := q.Delete(f.ctx, r.msgs[0].ReceiptHandle); err != nil {
		t.Fatalf("Delete after the panic: %v", err)
	}
}

func wantStats(t *testing.T, q *sqsq.Queue, visible, inFlight int, reason string) {
	t.Helper()
	if st := dlqStats(t, q); st.Visible != visible || st.InFlight != inFlight || st.Delayed != 0 {
		t.Fatalf("%s: %d visible, %d in flight, %d delayed; want %d, %d, 0\nreason: %s",
			q.Name(), st.Visible, st.InFlight, st.Delayed, visible, inFlight, reason)
	}
}

// A send is told to the observer once it is whole: the message is stored
// and its receivers woken, so a panic there leaves the send applied.
func TestObserverPanicOnSend(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t, sqsq.WithObserver(newPanicOn(sqsq.EventSent, "boom")))
	q := f.queue(t, "q", sqsq.QueueAttributes{})
	parked := f.park(t, q)
	wantBoom(t, "Send", func() { _, _ = q.Send(f.ctx, sqsq.SendInput{MessageBody: "boom"}) })
	if n := q.ParkedReceivers(); n != 0 {
		t.Fatalf("%d receivers still parked after the send: it wakes them before the observer is told", n)
	}
	wantBodies(t, <-parked, "the panicking send stored its message and woke the parked receive", "boom")
	// Only now: the woken receive takes q's lock to collect boom, so before
	// it returns the lock may be held, not left.
	wantUnlocked(t, q)
	wantStats(t, q, 0, 1, "the message is in flight with the receive that got it")
	f.clk.Add(4*24*time.Hour + time.Second)
	if st := dlqStats(t, q); st.Visible+st.InFlight != 0 || st.Expired != 1 {
		t.Fatalf("after the retention period: %+v; want the message expired, as any other", st)
	}
	f.stillWorks(t, q)
}

// The observer hears of a receive's deliveries once the selection is
// whole. A panic there leaves the receive applied, as a lost response
// does: its messages are in flight, those received with visibility 0
// visible again (not held out of every index), a FIFO group not stuck.
func TestObserverPanicOnReceive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		fifo     bool
		vis      sqsq.Optional[time.Duration]
		longPoll bool
		visible  int
		inFlight int
		reason   string
	}{
		{"InFlight", false, sqsq.Optional[time.Duration]{}, false, 0, 2, "the receive stays applied: its messages are in flight"},
		{"VisibilityZero", false, sqsq.Some(time.Duration(0)), false, 2, 0, "messages received with visibility 0 are visible again"},
		{"FIFOInFlight", true, sqsq.Optional[time.Duration]{}, false, 0, 2, "the receive stays applied: its messages are in flight, their group locked until they are visible"},
		{"FIFOVisibilityZero", true, sqsq.Some(time.Duration(0)), false, 2, 0, "messages received with visibility 0 are visible again, their group not locked"},
		{"LongPoll", false, sqsq.Optional[time.Duration]{}, true, 0, 2, "a woken long poll's receive stays applied, and it lets its locks go however it ends"},
		{"FIFOLongPoll", true, sqsq.Optional[time.Duration]{}, true, 0, 2, "a woken long poll's receive stays applied, and it lets its locks go however it ends"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t, sqsq.WithObserver(newPanicOn(sqsq.EventReceived, "boom")))
			name := "q"
			if tc.fifo {
				name = "q.fifo"
			}
			q := f.queue(t, name, sqsq.QueueAttributes{})
			in := sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: tc.vis}
			if tc.longPoll {
				in.WaitTimeSeconds = sqsq.Some(20 * time.Second)
				panicked := make(chan any, 1)
				go func() { panicked <- recovered(func() { _, _ = q.Receive(f.ctx, in) }) }()
				if err := q.WaitForReceivers(f.ctx, 1); err != nil {
					t.Fatal(err)
				}
				_, err := q.SendBatch(f.ctx, []sqsq.SendBatchEntry{
					{Id: "1", SendInput: sqsq.SendInput{MessageBody: "boom", MessageGroupId: fifoOnly(tc.fifo, "g"), MessageDeduplicationId: fifoOnly(tc.fifo, "1")}},
					{Id: "2", SendInput: sqsq.SendInput{MessageBody: "b", MessageGroupId: fifoOnly(tc.fifo, "g"), MessageDeduplicationId: fifoOnly(tc.fifo, "2")}},
				})
				if err != nil {
					t.Fatal(err)
				}
				wantBoom(t, "the woken long poll", func() { panic(<-panicked) })
			} else {
				f.sendTo(t, q, "g", "boom")
				f.sendTo(t, q, "g", "b")
				wantBoom(t, "Receive", func() { _, _ = q.Receive(f.ctx, in) })
			}
			wantUnlocked(t, q)
			wantStats(t, q, tc.visible, tc.inFlight, tc.reason)
			f.clk.Add(30 * time.Second)
			wantBodies(t, received{msgs: f.get(t, q, sqsq.ReceiveInput{MaxNumberOfMessages: 10})},
				"the messages come back, in order", "boom", "b")
			f.stillWorks(t, q)
		})
	}
}

func fifoOnly(fifo bool, s string) string {
	if fifo {
		return s
	}
	return ""
}

// A delete or visibility change is told once applied; a panic there leaves
// it applied.
func TestObserverPanicOnDeleteAndChangeVisibility(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		kind              sqsq.EventKind
		call              func(ctx context.Context, q *sqsq.Queue, rh string)
		visible, inFlight int
		reason            string
	}{
		{"Delete", sqsq.EventDeleted, func(ctx context.Context, q *sqsq.Queue, rh string) { _ = q.Delete(ctx, rh) },
			0, 0, "the delete stays applied"},
		{"DeleteBatch", sqsq.EventDeleted, func(ctx context.Context, q *sqsq.Queue, rh string) {
			_, _ = q.DeleteBatch(ctx, []sqsq.DeleteBatchEntry{{Id: "1", ReceiptHandle: rh}})
		}, 0, 0, "the entry stays applied"},
		{"ChangeVisibility", sqsq.EventVisibilityChanged, func(ctx context.Context, q *sqsq.Queue, rh string) {
			_ = q.ChangeVisibility(ctx, rh, 0)
		}, 1, 0, "the change stays applied: the message is visible"},
		{"ChangeVisibilityBatch", sqsq.EventVisibilityChanged, func(ctx context.Context, q *sqsq.Queue, rh string) {
			_, _ = q.ChangeVisibilityBatch(ctx, []sqsq.ChangeVisibilityBatchEntry{{Id: "1", ReceiptHandle: rh}})
		}, 1, 0, "the entry stays applied: the message is visible"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t, sqsq.WithObserver(newPanicOn(tc.kind, "boom")))
			q := f.queue(t, "q", sqsq.QueueAttributes{})
			f.sendTo(t, q, "", "boom")
			msgs := f.get(t, q, sqsq.ReceiveInput{})
			wantBoom(t, tc.name, func() { tc.call(f.ctx, q, msgs[0].ReceiptHandle) })
			wantUnlocked(t, q)
			wantStats(t, q, tc.visible, tc.inFlight, tc.reason)
			f.stillWorks(t, q)
		})
	}
}

// A dead-letter move is told once the receive's selection is whole: the
// message is in the dead-letter queue, whose parked receivers are woken,
// and the rest of the selection is done — on a FIFO queue the group goes
// on with its next message.
func TestObserverPanicOnDeadLetter(t *testing.T) {
	t.Parallel()
	for _, fifo := range []bool{false, true} {
		t.Run(map[bool]string{false: "Standard", true: "FIFO"}[fifo], func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t, sqsq.WithObserver(newPanicOn(sqsq.EventDeadLettered, "boom")))
			sfx := map[bool]string{false: "", true: ".fifo"}[fifo]
			src, dlq := f.pair(t, "src"+sfx, "dlq"+sfx, 2)
			f.sendTo(t, src, "g", "boom")
			for range 2 { // boom's two deliveries
				wantBodies(t, received{msgs: f.get(t, src, sqsq.ReceiveInput{})}, "boom is the only message", "boom")
				f.clk.Add(30 * time.Second)
			}
			f.sendTo(t, src, "g", "next") // available before boom is again
			f.clk.Add(30 * time.Second)
			parked := f.park(t, dlq)
			wantBoom(t, "the dead-lettering receive", func() { _, _ = src.Receive(f.ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10}) })
			wantUnlocked(t, src)
			if n := dlq.ParkedReceivers(); n != 0 {
				t.Fatalf("%d receivers still parked on the DLQ: the move wakes them before the observer is told", n)
			}
			wantBodies(t, <-parked, "the message moved to the DLQ and woke its parked receive", "boom")
			// Only now: the woken receive takes the DLQ's lock to collect
			// boom, so before it returns the lock may be held, not left.
			wantUnlocked(t, dlq)
			wantStats(t, src, 0, 1, "next was received by the panicking call: in flight, as after a lost response")
			f.clk.Add(30 * time.Second)
			wantBodies(t, received{msgs: f.get(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10})},
				"next comes back (on FIFO: its group is not stuck)", "next")
			f.stillWorks(t, src)
			f.stillWorks(t, dlq)
		})
	}
}

// A move task's step is told once the move is whole and counted; the panic
// reaches the call that ran the step, and the next call carries on.
func TestObserverPanicOnMoveTaskStep(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t, sqsq.WithObserver(newPanicOn(sqsq.EventRedriven, "boom")))
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.deadLetterAll(t, src, "a", "boom", "c")
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()})
	f.clk.Add(time.Second)
	wantBoom(t, "the call that ran the steps", func() { _, _ = f.b.ListMoveTasks(f.ctx, dlq.ARN(), sqsq.Some(1)) })
	wantUnlocked(t, src, dlq)
	got := f.task(t, dlq.ARN())
	if got.Status != sqsq.MoveTaskCompleted || got.ApproximateNumberOfMessagesMoved != 3 || got.ApproximateNumberOfMessagesToMove != 3 {
		t.Fatalf("task after the panic: %+v; want COMPLETED, 3 of 3 moved: the move told of boom was counted", got)
	}
	if n := storedIn(t, dlq); n != 0 {
		t.Fatalf("%d messages left in the DLQ", n)
	}
	wantBodies(t, received{msgs: f.get(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10})},
		"every message moved once, in order", "a", "boom", "c")
	f.stillWorks(t, src)
	f.stillWorks(t, dlq)
}

// secondsClock is a clock whose every read is a second after the one
// before, so calls find a move-task step fallen due between their first
// read (in syncTasks) and the one under their lock, and take the path
// that lets the lock go to run it. Its timers are a mock's that nothing
// advances.
type secondsClock struct {
	*clock.Mock
	reads atomic.Int64
}

func (c *secondsClock) Now() time.Time {
	return dlqEpoch.Add(time.Duration(c.reads.Add(1)) * time.Second)
}
func (c *secondsClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c *secondsClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

// CreateQueue and CancelMoveTask let their lock go to run a step that fell
// due while they waited for it. A panic told of that step must not meet a
// deferred unlock of the lock they no longer hold, which would be fatal to
// the process.
func TestObserverPanicOnStepRunWithoutTheLock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		call func(f *dlqFixture, src *sqsq.Queue, handle string)
	}{
		{"CreateQueue", func(f *dlqFixture, src *sqsq.Queue, _ string) {
			_, _ = f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: src.Name()})
		}},
		{"CancelMoveTask", func(f *dlqFixture, _ *sqsq.Queue, handle string) {
			_, _ = f.b.CancelMoveTask(f.ctx, handle)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := &secondsClock{Mock: clock.NewMock()}
			b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithObserver(newPanicOn(sqsq.EventRedriven, "boom")))
			t.Cleanup(func() { _ = b.Close() })
			f := &dlqFixture{ctx: context.Background(), clk: clk.Mock, b: b}
			src, dlq := f.pair(t, "src", "dlq", 1)
			bodies := []string{"a", "b", "boom", "d"}
			for _, body := range bodies {
				f.putBody(t, src, body)
			}
			vis0 := sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Duration(0))}
			if got := f.getBodies(t, src, vis0); len(got) != 4 {
				t.Fatalf("first receive got %v", got)
			}
			if got := f.getBodies(t, src, vis0); got != nil {
				t.Fatalf("the dead-lettering receive got %v", got)
			}
			handle := f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
			for i := 0; ; i++ {
				if i == len(bodies) {
					t.Fatalf("%s never ran the step told of boom", tc.name)
				}
				if v := recovered(func() { tc.call(f, src, handle) }); v != nil {
					if !isBoom(v) {
						t.Fatalf("%s panicked with %v, want the observer's panic", tc.name, v)
					}
					break
				}
			}
			wantUnlocked(t, src, dlq)
			if _, err := b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "other"}); err != nil {
				t.Fatalf("CreateQueue after the panic: %v", err)
			}
			var task sqsq.MoveTask
			for range 10 { // every call moves time on, and the task with it
				if task = f.task(t, dlq.ARN()); task.Status != sqsq.MoveTaskRunning {
					break
				}
			}
			if task.Status != sqsq.MoveTaskCompleted || task.ApproximateNumberOfMessagesMoved != 4 || storedIn(t, src) != 4 || storedIn(t, dlq) != 0 {
				t.Fatalf("task %+v; %d messages in the source and %d in the DLQ: want COMPLETED, each moved once and counted",
					task, storedIn(t, src), storedIn(t, dlq))
			}
		})
	}
}

// panicFaults is a Faults policy that panics the first time method is
// consulted and otherwise takes the lucky branch (Duplicate excepted: it
// delivers the first in-flight message again, so that it is consulted).
type panicFaults struct {
	method string
	left   atomic.Int32
}

func (p *panicFaults) at(method string) {
	if method == p.method && p.left.Add(-1) >= 0 {
		panic(boom("policy consulted: " + method))
	}
}

func (p *panicFaults) Reject(c sqsq.Call) sqsq.Code {
	p.at("Reject" + c.Op.String())
	return ""
}
func (p *panicFaults) Sample(_ sqsq.Call, n int) int          { p.at("Sample"); return n }
func (p *panicFaults) Duplicate(sqsq.Call, int) int           { p.at("Duplicate"); return 0 }
func (p *panicFaults) Shuffle(sqsq.Call, int, func(i, j int)) { p.at("Shuffle") }
func (p *panicFaults) LoseResponse(c sqsq.Call) bool {
	p.at("LoseResponse" + c.Op.String())
	return false
}

// A policy that panics leaves the queue unlocked and whole: it is consulted
// before a call changes anything (Reject, Sample, Duplicate) or once it is
// complete (Shuffle, LoseResponse), and every message is in one state.
func TestFaultsPanic(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method            string
		receive           bool // the panicking call is a receive (else a delete)
		received          bool // the receive took messages, with visibility 0
		visible, inFlight int
		reason            string
	}{
		{"RejectReceive", true, false, 2, 1, "consulted before the receive changes anything"},
		{"Sample", true, false, 2, 1, "consulted before the receive changes anything"},
		{"Duplicate", true, false, 2, 1, "consulted before the receive changes anything"},
		{"Shuffle", true, true, 3, 0, "consulted once the selection is whole: the three received with visibility 0 are visible again, none held"},
		{"LoseResponseReceive", true, true, 3, 0, "consulted once the receive is complete and unlocked"},
		{"RejectDelete", false, false, 2, 1, "consulted before the delete changes anything"},
		{"LoseResponseDelete", false, false, 2, 0, "consulted once the delete is applied"},
	} {
		t.Run(tc.method, func(t *testing.T) {
			t.Parallel()
			p := &panicFaults{method: tc.method}
			p.left.Store(-1) // not yet: the setup consults the policy too
			f := setupDLQ(t, sqsq.WithFaults(p))
			q := f.queue(t, "q", sqsq.QueueAttributes{})
			for _, body := range []string{"a", "b", "c"} {
				f.sendTo(t, q, "", body)
			}
			// One message in flight, so that Duplicate is consulted: it
			// comes again, with the other two, in each lucky receive.
			held := f.get(t, q, sqsq.ReceiveInput{})[0]
			before := dlqStats(t, q)
			p.left.Store(1)
			if tc.receive {
				wantBoom(t, "Receive", func() {
					_, _ = q.Receive(f.ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Duration(0))})
				})
			} else {
				wantBoom(t, "Delete", func() { _ = q.Delete(f.ctx, held.ReceiptHandle) })
			}
			wantUnlocked(t, q)
			wantStats(t, q, tc.visible, tc.inFlight, tc.reason)
			if took := dlqStats(t, q).Received - before.Received; tc.received != (took > 0) {
				t.Fatalf("the receive took %d messages; want some: %v\nreason: %s", took, tc.received, tc.reason)
			}
			f.stillWorks(t, q)
		})
	}
}

// The id function runs before a send changes anything: a panic there
// stores nothing.
func TestIDFuncPanic(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	ids := func() string {
		if n.Add(1) == 2 {
			panic(boom("id function"))
		}
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", n.Load())
	}
	f := setupDLQ(t, sqsq.WithIDFunc(ids))
	q := f.queue(t, "q.fifo", sqsq.QueueAttributes{})
	f.sendTo(t, q, "g", "first")
	in := sqsq.SendInput{MessageBody: "second", MessageGroupId: "g", MessageDeduplicationId: "second"}
	wantBoom(t, "Send", func() { _, _ = q.Send(f.ctx, in) })
	wantUnlocked(t, q)
	wantStats(t, q, 1, 0, "the send whose id function panicked stored nothing")
	res := f.put(t, q, in) // its deduplication id is not remembered either
	if res.MessageId != "00000000-0000-4000-8000-000000000003" {
		t.Fatalf("the retried send got id %s, want a new message's", res.MessageId)
	}
	f.stillWorks(t, q)
}
