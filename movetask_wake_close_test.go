package sqsq_test

// Black-box tests of message move tasks (docs/sqs-semantics.md §8): waking
// receivers on the destination and stopping when the broker is closed. The
// move task helpers are in movetask_helpers_test.go; the fixture (setupDLQ)
// and the dead-letter helpers in redrive_helpers_test.go.

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqsq/sqsq"
)

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
