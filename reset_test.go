package sqsq_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// Reset leaves an empty endpoint: no queue in any namespace, no task, no
// recreate delay, only the broker NewBroker made; a parked long poll and a
// stale *Queue get QueueDoesNotExist.
func TestReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	t.Cleanup(func() { _ = b.Close() })
	other := b.Scope("111111111111", "eu-west-1")
	dlq, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "dlq"})
	if err != nil {
		t.Fatal(err)
	}
	src, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "src", Attributes: sqsq.QueueAttributes{
		RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})}})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := dlq.Send(ctx, sqsq.SendInput{MessageBody: "dead"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.StartMoveTask(ctx, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), DestinationArn: src.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)}); err != nil {
		t.Fatal(err)
	}
	gone, err := other.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.DeleteQueue(ctx, gone.URL()); err != nil { // its name is held for 60 s
		t.Fatal(err)
	}
	parked := make(chan error, 1)
	go func() {
		_, err := src.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		parked <- err
	}()
	if err := src.WaitForReceivers(ctx, 1); err != nil {
		t.Fatal(err)
	}

	if err := b.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-parked; !errors.Is(err, &sqsq.Error{Code: sqsq.CodeQueueDoesNotExist}) {
		t.Errorf("parked long poll: %v, want QueueDoesNotExist", err)
	}
	if _, err := src.Send(ctx, sqsq.SendInput{MessageBody: "x"}); !errors.Is(err, &sqsq.Error{Code: sqsq.CodeQueueDoesNotExist}) {
		t.Errorf("send on a queue of before: %v, want QueueDoesNotExist", err)
	}
	if n := len(b.Scopes()); n != 1 {
		t.Errorf("%d namespaces after Reset, want 1", n)
	}
	for _, s := range []*sqsq.Broker{b, other, b.Scope("111111111111", "eu-west-1")} {
		if qs := s.Queues(); len(qs) != 0 {
			t.Errorf("%d queues after Reset", len(qs))
		}
	}
	// Names are free at once, in every namespace; the new queues are empty
	// and have no task.
	if _, err := b.Scope("111111111111", "eu-west-1").CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"}); err != nil {
		t.Errorf("recreate a name deleted before the reset: %v", err)
	}
	nd, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "dlq"})
	if err != nil {
		t.Fatal(err)
	}
	if tasks, err := b.ListMoveTasks(ctx, nd.ARN(), sqsq.Some(10)); err != nil || len(tasks) != 0 {
		t.Errorf("tasks of the new dlq: %v, %v; want none", tasks, err)
	}
	clk.Add(time.Hour) // the cancelled task moves nothing anywhere
	if st, _ := nd.Stats(); st.Visible+st.InFlight+st.Delayed != 0 {
		t.Errorf("new dlq: %+v, want empty", st)
	}
}
