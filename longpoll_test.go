package sqsq_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// Long-poll tests are four-step stories (style guide §8): start the receive
// in a goroutine that reports on a channel, wait until the queue says it is
// parked, act (send, advance the mock clock, cancel…), read the result.
// Nothing sleeps on the wall clock.

type receiveResult struct {
	msgs []sqsq.Message
	err  error
}

// startReceive runs q.Receive(ctx, in) in a goroutine and reports its result
// on the returned channel, which is buffered so the goroutine always ends
// (setup's cleanup closes the broker, which releases a receive a failed test
// left parked).
func startReceive(ctx context.Context, q *sqsq.Queue, in sqsq.ReceiveInput) <-chan receiveResult {
	ch := make(chan receiveResult, 1)
	go func() {
		msgs, err := q.Receive(ctx, in)
		ch <- receiveResult{msgs, err}
	}()
	return ch
}

// waitParked blocks until n receives are parked on q.
func (f *fixture) waitParked(t *testing.T, q *sqsq.Queue, n int) {
	t.Helper()
	if err := q.WaitForReceivers(f.ctx, n); err != nil {
		t.Fatalf("WaitForReceivers(%d): %v", n, err)
	}
}

// longPoll is a receive that waits up to 20 s.
var longPoll = sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)}

// stillParked fails the test unless n receives are parked on q right now.
func stillParked(t *testing.T, q *sqsq.Queue, n int, reason string) {
	t.Helper()
	if got := q.ParkedReceivers(); got != n {
		t.Fatalf("%d receives parked, want %d\nreason: %s", got, n, reason)
	}
}

func TestLongPollWokenBySend(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ch := startReceive(f.ctx, f.q, longPoll)
	f.waitParked(t, f.q, 1)
	start := f.clk.Now()
	f.send(t, f.q, "hello")
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	if d := diff([]string{"hello"}, bodies(r.msgs)); d != "" {
		t.Errorf("a message sent during the wait is returned (§5.3):\n%s", d)
	}
	if !f.clk.Now().Equal(start) {
		t.Errorf("the clock moved")
	}
	stillParked(t, f.q, 0, "the receive returned")
	s := stats(t, f.q)
	got := []int64{s.LongPolls, s.Received, int64(s.InFlight), s.EmptyReceives}
	if d := diff([]int64{1, 1, 1, 0}, got); d != "" {
		t.Errorf("LongPolls, Received, InFlight, EmptyReceives:\n%s", d)
	}
}

func TestLongPollReturnsAtOnceWhenAMessageIsAvailable(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "ready")
	// Called synchronously: it must not park, as a message is available.
	msgs := f.receive(t, f.q, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second), MaxNumberOfMessages: 10})
	if d := diff([]string{"ready"}, bodies(msgs)); d != "" {
		t.Errorf("a long poll returns as soon as one message is available, without filling Max (§5.3):\n%s", d)
	}
	if s := stats(t, f.q); s.LongPolls != 0 {
		t.Errorf("LongPolls = %d, want 0: the receive never waited", s.LongPolls)
	}
}

func TestLongPollWokenByDelayEnd(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "delayed", DelaySeconds: sqsq.Some(5 * time.Second)})
	ch := startReceive(f.ctx, f.q, longPoll)
	f.waitParked(t, f.q, 1)
	f.clk.Add(4 * time.Second)
	stillParked(t, f.q, 1, "the delay has not ended at +4 s")
	f.clk.Add(time.Second)
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	if d := diff([]string{"delayed"}, bodies(r.msgs)); d != "" {
		t.Errorf("the clock passing the delay deadline wakes the long poll (§5.3):\n%s", d)
	}
	// Visibility starts when the long poll returns the message (+5 s), not
	// when the call began (§4.1).
	f.clk.Add(30*time.Second - time.Millisecond)
	if s := stats(t, f.q); s.Visible != 0 {
		t.Errorf("visible again before 30 s after the long poll returned it")
	}
	f.clk.Add(time.Millisecond)
	if s := stats(t, f.q); s.Visible != 1 {
		t.Errorf("not visible 30 s after the long poll returned it")
	}
}

func TestLongPollWokenByVisibilityEnd(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "m")
	f.receiveOne(t, f.q, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(10 * time.Second)})
	ch := startReceive(f.ctx, f.q, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second),
		MessageSystemAttributeNames: []string{"ApproximateReceiveCount"}})
	f.waitParked(t, f.q, 1)
	f.clk.Add(10 * time.Second)
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(r.msgs) != 1 || r.msgs[0].Attributes["ApproximateReceiveCount"] != "2" {
		t.Fatalf("the visibility deadline should wake the long poll with the redelivered message; got %+v", r.msgs)
	}
}

func TestLongPollWokenByChangeVisibilityZero(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "m")
	rh := f.receiveOne(t, f.q, sqsq.ReceiveInput{}).ReceiptHandle
	ch := startReceive(f.ctx, f.q, longPoll)
	f.waitParked(t, f.q, 1)
	start := f.clk.Now()
	if err := f.q.ChangeVisibility(f.ctx, rh, 0); err != nil {
		t.Fatal(err)
	}
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	if d := diff([]string{"m"}, bodies(r.msgs)); d != "" {
		t.Errorf("ChangeVisibility(0) wakes the long poll (§5.3):\n%s", d)
	}
	if !f.clk.Now().Equal(start) {
		t.Errorf("the clock moved")
	}
}

func TestLongPollWokenByShorterVisibility(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "m")
	rh := f.receiveOne(t, f.q, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Hour)}).ReceiptHandle
	ch := startReceive(f.ctx, f.q, longPoll)
	f.waitParked(t, f.q, 1)
	if err := f.q.ChangeVisibility(f.ctx, rh, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	// The receive re-arms for the new, earlier deadline.
	f.waitParked(t, f.q, 1)
	f.clk.Add(5 * time.Second)
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	if d := diff([]string{"m"}, bodies(r.msgs)); d != "" {
		t.Errorf("a visibility shortened below the wait ends the wait when it passes:\n%s", d)
	}
}

func TestLongPollWaitEnds(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ch := startReceive(f.ctx, f.q, longPoll)
	f.waitParked(t, f.q, 1)
	f.clk.Add(19 * time.Second)
	stillParked(t, f.q, 1, "1 s of the 20 s wait remains")
	f.clk.Add(time.Second)
	r := <-ch
	if r.err != nil || r.msgs != nil {
		t.Fatalf("at the end of the wait: %v, %v; want no messages (nil) and no error (§5.3)", bodies(r.msgs), r.err)
	}
	stillParked(t, f.q, 0, "the receive returned")
	if s := stats(t, f.q); s.EmptyReceives != 1 || s.LongPolls != 1 {
		t.Errorf("EmptyReceives %d, LongPolls %d; want 1 and 1", s.EmptyReceives, s.LongPolls)
	}
}

func TestLongPollQueueWaitTime(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, sqsq.QueueAttributes{ReceiveMessageWaitTimeSeconds: sqsq.Some(5 * time.Second)})
	ch := startReceive(f.ctx, f.q, sqsq.ReceiveInput{})
	f.waitParked(t, f.q, 1) // a request without WaitTimeSeconds long-polls for the queue's 5 s
	f.clk.Add(4 * time.Second)
	stillParked(t, f.q, 1, "1 s of the queue's 5 s wait remains")
	f.clk.Add(time.Second)
	r := <-ch
	if r.err != nil || r.msgs != nil {
		t.Fatalf("at the end of the queue's wait: %v, %v", bodies(r.msgs), r.err)
	}
}

func TestLongPollExplicitZeroIsShortPoll(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, sqsq.QueueAttributes{ReceiveMessageWaitTimeSeconds: sqsq.Some(20 * time.Second)})
	// Called synchronously: a parked receive would hang the test.
	msgs, err := f.q.Receive(f.ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(0 * time.Second)})
	if err != nil || msgs != nil {
		t.Fatalf("WaitTimeSeconds Some(0) on a queue waiting 20 s: %v, %v; want an immediate empty result (§3.10)", bodies(msgs), err)
	}
	if s := stats(t, f.q); s.LongPolls != 0 || s.EmptyReceives != 1 {
		t.Errorf("LongPolls %d, EmptyReceives %d; want 0 and 1", s.LongPolls, s.EmptyReceives)
	}
}

func TestLongPollContextCancel(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx, cancel := context.WithCancel(f.ctx)
	defer cancel()
	ch := startReceive(ctx, f.q, longPoll)
	f.waitParked(t, f.q, 1)
	start := f.clk.Now()
	cancel()
	r := <-ch
	if !errors.Is(r.err, context.Canceled) || r.msgs != nil {
		t.Fatalf("after cancel: %v, %v; want context.Canceled at once (§5.3)", bodies(r.msgs), r.err)
	}
	if !f.clk.Now().Equal(start) {
		t.Errorf("the clock moved")
	}
	stillParked(t, f.q, 0, "a cancelled receive is no longer parked")

	// Nothing changed: a message sent now is there for the next receive.
	f.send(t, f.q, "m")
	if s := stats(t, f.q); s.Visible != 1 || s.Received != 0 {
		t.Errorf("after a cancelled long poll and a send: %+v", s)
	}
}

func TestReceiveCancelledContext(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "m")
	ctx, cancel := context.WithCancel(f.ctx)
	cancel()
	before := stats(t, f.q)
	for _, in := range []sqsq.ReceiveInput{{}, longPoll} {
		msgs, err := f.q.Receive(ctx, in)
		if !errors.Is(err, context.Canceled) || msgs != nil {
			t.Errorf("Receive with a cancelled context: %v, %v; want context.Canceled", bodies(msgs), err)
		}
	}
	if d := diff(before, stats(t, f.q)); d != "" {
		t.Errorf("a receive with a cancelled context changed the queue:\n%s", d)
	}
}

func TestLongPollBrokerClose(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ch1 := startReceive(f.ctx, f.q, longPoll)
	ch2 := startReceive(f.ctx, f.q, longPoll)
	f.waitParked(t, f.q, 2)
	if err := f.b.Close(); err != nil {
		t.Fatal(err)
	}
	for i, ch := range []<-chan receiveResult{ch1, ch2} {
		if r := <-ch; !errors.Is(r.err, sqsq.ErrClosed) || r.msgs != nil {
			t.Errorf("receiver %d after Close: %v, %v; want ErrClosed", i, bodies(r.msgs), r.err)
		}
	}
}

func TestLongPollDeleteQueue(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ch := startReceive(f.ctx, f.q, longPoll)
	f.waitParked(t, f.q, 1)
	if err := f.b.DeleteQueue(f.ctx, f.q.URL()); err != nil {
		t.Fatal(err)
	}
	r := <-ch
	wantErr(t, r.err, sqsq.CodeQueueDoesNotExist, "", "DeleteQueue wakes parked receives with QueueDoesNotExist (§3.5)")
	if r.msgs != nil {
		t.Errorf("got messages %v", bodies(r.msgs))
	}
	stillParked(t, f.q, 0, "the queue is gone")
}

func TestLongPollTwoReceiversOneMessage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	results := make(chan receiveResult, 2)
	for i := 0; i < 2; i++ {
		ch := startReceive(f.ctx, f.q, longPoll)
		go func() { results <- <-ch }()
	}
	f.waitParked(t, f.q, 2)
	f.send(t, f.q, "only one")
	first := <-results
	if first.err != nil {
		t.Fatal(first.err)
	}
	if d := diff([]string{"only one"}, bodies(first.msgs)); d != "" {
		t.Fatalf("the first receiver to return:\n%s", d)
	}
	// The other one goes back to waiting and ends empty with its wait.
	f.waitParked(t, f.q, 1)
	f.clk.Add(20 * time.Second)
	second := <-results
	if second.err != nil || second.msgs != nil {
		t.Errorf("the other receiver: %v, %v; want nothing: the message was delivered once", bodies(second.msgs), second.err)
	}
	if s := stats(t, f.q); s.Received != 1 || s.InFlight != 1 {
		t.Errorf("Received %d, InFlight %d; want 1 and 1", s.Received, s.InFlight)
	}
}

func TestLongPollInFlightLimit(t *testing.T) {
	t.Parallel()
	t.Run("a long poll at the limit waits and ends empty, without error", func(t *testing.T) {
		t.Parallel()
		f := setup(t, sqsq.WithInFlightLimit(1))
		f.send(t, f.q, "1")
		f.send(t, f.q, "2")
		f.receiveOne(t, f.q, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(300 * time.Second)})
		ch := startReceive(f.ctx, f.q, longPoll)
		f.waitParked(t, f.q, 1)
		f.clk.Add(20 * time.Second)
		r := <-ch
		if r.err != nil || r.msgs != nil {
			t.Errorf("long poll at the in-flight limit: %v, %v; want empty and no error (§4.6)", bodies(r.msgs), r.err)
		}
	})
	t.Run("a delete that frees a place wakes it", func(t *testing.T) {
		t.Parallel()
		f := setup(t, sqsq.WithInFlightLimit(1))
		f.send(t, f.q, "1")
		f.send(t, f.q, "2")
		rh := f.receiveOne(t, f.q, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(300 * time.Second)}).ReceiptHandle
		ch := startReceive(f.ctx, f.q, longPoll)
		f.waitParked(t, f.q, 1)
		if err := f.q.Delete(f.ctx, rh); err != nil {
			t.Fatal(err)
		}
		r := <-ch
		if r.err != nil {
			t.Fatal(r.err)
		}
		if d := diff([]string{"2"}, bodies(r.msgs)); d != "" {
			t.Errorf("after the delete:\n%s", d)
		}
	})
}

func TestLongPollWakeupsCounter(t *testing.T) {
	t.Parallel()
	t.Run("a receive woken by a send counts one wakeup", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		ch := startReceive(f.ctx, f.q, longPoll)
		f.waitParked(t, f.q, 1)
		f.send(t, f.q, "m")
		if r := <-ch; r.err != nil {
			t.Fatal(r.err)
		}
		if s := stats(t, f.q); s.LongPollWakeups != 1 {
			t.Errorf("LongPollWakeups = %d, want 1", s.LongPollWakeups)
		}
	})
	t.Run("a wait that simply ends is not a wakeup", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		ch := startReceive(f.ctx, f.q, longPoll)
		f.waitParked(t, f.q, 1)
		f.clk.Add(20 * time.Second)
		if r := <-ch; r.err != nil {
			t.Fatal(r.err)
		}
		if s := stats(t, f.q); s.LongPollWakeups != 0 {
			t.Errorf("LongPollWakeups = %d, want 0", s.LongPollWakeups)
		}
	})
}

func TestWaitIdle(t *testing.T) {
	t.Parallel()
	f := setup(t)
	done := make(chan error, 1)
	go func() {
		_, err := f.q.Receive(f.ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		done <- err
	}()
	if err := f.q.WaitForReceivers(f.ctx, 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(f.ctx)
	cancel()
	if err := f.b.WaitIdle(ctx); err == nil {
		t.Fatal("WaitIdle returned nil while a receive was parked")
	}
	if err := f.b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.b.WaitIdle(f.ctx); err != nil {
		t.Fatalf("WaitIdle after Close: %v", err)
	}
	if err := <-done; !errors.Is(err, sqsq.ErrClosed) {
		t.Errorf("parked receive returned %v, want ErrClosed", err)
	}
}

// jumpyClock is a mock that another goroutine seems to advance by jump
// while the first receiver arms its timer: between the receiver's look at
// the queue and the timer's creation.
type jumpyClock struct {
	*clock.Mock
	jump time.Duration
	once sync.Once
}

func (c *jumpyClock) AfterFunc(d time.Duration, f func()) *clock.Timer {
	c.once.Do(func() { c.Add(c.jump) })
	return c.Mock.AfterFunc(d, f)
}

// An advance that lands while a receiver arms its timer slips past nothing:
// what it made due is taken at once, and the timer still rings at the
// instant it was meant for, not that much later.
func TestLongPollClockMovesWhileArming(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason    string
		jump      time.Duration // while arming
		then      time.Duration // after parking
		wantAfter time.Duration // from the send to the receive's return
	}{
		{"the move made the delayed message visible: taken at once", 10 * time.Second, 0, 10 * time.Second},
		{"the move went part way: the timer rings when the delay ends", 3 * time.Second, 2 * time.Second, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			clk := &jumpyClock{Mock: clock.NewMock(), jump: tt.jump}
			clk.Set(epoch)
			f := setup(t, sqsq.WithClock(clk))
			f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "later", DelaySeconds: sqsq.Some(5 * time.Second)})
			type result struct {
				receiveResult
				at time.Time
			}
			ch := make(chan result, 1)
			go func() {
				msgs, err := f.q.Receive(f.ctx, longPoll)
				ch <- result{receiveResult{msgs, err}, clk.Now()}
			}()
			if tt.then > 0 {
				f.waitParked(t, f.q, 1)
				clk.Add(tt.then)
			}
			r := <-ch
			if r.err != nil || len(r.msgs) != 1 {
				t.Fatalf("Receive = %v, %v; want the delayed message", bodies(r.msgs), r.err)
			}
			if got := r.at.Sub(epoch); got != tt.wantAfter {
				t.Errorf("returned %v after the send, want %v", got, tt.wantAfter)
			}
		})
	}
}

// A send wakes only as many parked receivers as it takes to receive what
// it made available: one message wakes one, a batch of ten wakes one
// receiver that asks for ten. The rest stay parked (no thundering herd).
func TestLongPollWakesOnlyWhomItNeeds(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ten := sqsq.ReceiveInput{MaxNumberOfMessages: 10, WaitTimeSeconds: sqsq.Some(20 * time.Second)}
	a := startReceive(f.ctx, f.q, ten)
	b := startReceive(f.ctx, f.q, ten)
	f.waitParked(t, f.q, 2)
	var entries []sqsq.SendBatchEntry
	for i := range 10 {
		entries = append(entries, sqsq.SendBatchEntry{Id: fmt.Sprint("m", i), SendInput: sqsq.SendInput{MessageBody: fmt.Sprint(i)}})
	}
	if _, err := f.q.SendBatch(f.ctx, entries); err != nil {
		t.Fatal(err)
	}
	var r receiveResult
	select {
	case r = <-a:
	case r = <-b:
	}
	if r.err != nil || len(r.msgs) != 10 {
		t.Fatalf("the woken receive got %d messages (%v), want all 10", len(r.msgs), r.err)
	}
	stillParked(t, f.q, 1, "the other receiver was never woken")
	if s := stats(t, f.q); s.LongPollWakeups != 1 {
		t.Errorf("LongPollWakeups = %d, want 1", s.LongPollWakeups)
	}
}
