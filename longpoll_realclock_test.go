package sqsq_test

import (
	"context"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

// Real-clock tests: sqsq.NewBroker() with its default clock, as users and
// cmd/sqsq run it. Each takes at most a second or so and asserts with
// tolerances, never instants: a long poll that should be woken waits up to
// 20 s, so a missed wake shows as a return at 20 s, far beyond the slack a
// loaded CI machine may add.

// slack is what a busy machine may add to a real wait.
const slack = 5 * time.Second

// realSetup is a broker on the real clock with one standard queue.
func realSetup(t *testing.T) *fixture {
	t.Helper()
	b := sqsq.NewBroker()
	t.Cleanup(func() { _ = b.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f := &fixture{ctx: ctx, b: b}
	f.q = f.create(t, "real-queue", sqsq.QueueAttributes{})
	return f
}

// within fails the test unless lo <= d <= hi.
func within(t *testing.T, what string, d, lo, hi time.Duration) {
	t.Helper()
	if d < lo || d > hi {
		t.Errorf("%s took %v, want between %v and %v", what, d, lo, hi)
	}
}

func wait(d time.Duration) sqsq.ReceiveInput {
	return sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(d)}
}

func TestRealClockLongPollWokenBySend(t *testing.T) {
	t.Parallel()
	f := realSetup(t)
	ch := startReceive(f.ctx, f.q, wait(20*time.Second))
	f.waitParked(t, f.q, 1)
	sendStart := time.Now()
	f.send(t, f.q, "hi")
	sent := time.Now()
	within(t, "the send beside a parked long poll", sent.Sub(sendStart), 0, slack)
	r := <-ch
	within(t, "the long poll after the send", time.Since(sent), 0, slack)
	if r.err != nil || len(r.msgs) != 1 || r.msgs[0].Body != "hi" {
		t.Fatalf("Receive = %v, %v; want the message sent during the wait", bodies(r.msgs), r.err)
	}
	if s := stats(t, f.q); s.LongPollWakeups != 1 {
		t.Errorf("LongPollWakeups = %d, want 1", s.LongPollWakeups)
	}
}

func TestRealClockLongPollEndsEmpty(t *testing.T) {
	t.Parallel()
	f := realSetup(t)
	start := time.Now()
	msgs := f.receive(t, f.q, wait(time.Second))
	within(t, "a 1 s long poll on an empty queue", time.Since(start), time.Second, time.Second+slack)
	if len(msgs) != 0 {
		t.Errorf("got %v from an empty queue", bodies(msgs))
	}
}

func TestRealClockVisibilityTimeoutExpires(t *testing.T) {
	t.Parallel()
	f := realSetup(t)
	f.send(t, f.q, "again")
	start := time.Now()
	f.receiveOne(t, f.q, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Second)})
	// Parked until the visibility timeout ends, then woken by its timer.
	m := f.receiveOne(t, f.q, wait(20*time.Second))
	within(t, "the redelivery after a 1 s visibility timeout", time.Since(start), time.Second, time.Second+slack)
	if m.Body != "again" {
		t.Errorf("redelivered %q", m.Body)
	}
}

func TestRealClockDelay(t *testing.T) {
	t.Parallel()
	f := realSetup(t)
	start := time.Now()
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "later", DelaySeconds: sqsq.Some(time.Second)})
	m := f.receiveOne(t, f.q, wait(20*time.Second))
	within(t, "the receive of a message delayed 1 s", time.Since(start), time.Second, time.Second+slack)
	if m.Body != "later" {
		t.Errorf("received %q", m.Body)
	}
}

func TestRealClockLongPollCancelAndClose(t *testing.T) {
	t.Parallel()
	f := realSetup(t)
	ctx, cancel := context.WithCancel(f.ctx)
	ch := startReceive(ctx, f.q, wait(2*time.Second))
	f.waitParked(t, f.q, 1)
	start := time.Now()
	cancel()
	if r := <-ch; r.err != context.Canceled {
		t.Errorf("a cancelled long poll returned %v, want context.Canceled", r.err)
	}
	within(t, "a cancelled long poll", time.Since(start), 0, slack)

	ch = startReceive(f.ctx, f.q, wait(2*time.Second))
	f.waitParked(t, f.q, 1)
	start = time.Now()
	_ = f.b.Close()
	if r := <-ch; r.err != sqsq.ErrClosed {
		t.Errorf("a long poll on a closed broker returned %v, want ErrClosed", r.err)
	}
	within(t, "a long poll when the broker closes", time.Since(start), 0, slack)
	if err := f.b.WaitIdle(f.ctx); err != nil {
		t.Error(err)
	}
}

// A move task runs at its real rate and wakes a receiver parked on its
// destination.
func TestRealClockMoveTask(t *testing.T) {
	t.Parallel()
	f := realSetup(t)
	dlq := f.create(t, "real-dlq", sqsq.QueueAttributes{})
	src := f.create(t, "real-src", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
		DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1,
	})})
	for _, body := range []string{"a", "b", "c"} {
		f.send(t, src, body)
	}
	// Received once with visibility 0, then dead-lettered by the next receive.
	f.receive(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Duration(0))})
	if got := f.receive(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); len(got) != 0 {
		t.Fatalf("the dead-lettering receive returned %v", bodies(got))
	}
	ch := startReceive(f.ctx, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10, WaitTimeSeconds: sqsq.Some(20 * time.Second)})
	f.waitParked(t, src, 1)
	start := time.Now()
	if _, err := f.b.StartMoveTask(f.ctx, sqsq.StartMoveTaskInput{
		SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(10),
	}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for r := range 3 {
		if r > 0 {
			ch = startReceive(f.ctx, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10, WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		}
		res := <-ch
		if res.err != nil {
			t.Fatal(res.err)
		}
		got = append(got, bodies(res.msgs)...)
		if len(got) == 3 {
			break
		}
	}
	// 10 a second: the three moves take about 0.2–0.3 s, not the 2 s wait.
	within(t, "moving 3 messages at 10/s to a parked receiver", time.Since(start), 0, 300*time.Millisecond+slack)
	if d := diff([]string{"a", "b", "c"}, got); d != "" {
		t.Errorf("moved messages:\n%s", d)
	}
	deadline := time.Now().Add(slack)
	for {
		ts, err := f.b.ListMoveTasks(f.ctx, dlq.ARN(), sqsq.Optional[int]{})
		if err != nil {
			t.Fatal(err)
		}
		if ts[0].Status == sqsq.MoveTaskCompleted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s after 2 s, want COMPLETED", ts[0].Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
