package sqsq_test

import (
	"context"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/state"
)

// A move between two queues reaches the journal as one Group, so that a
// store writes both sides or neither: written apart, a crash between them
// left a message moved back twice (found by internal/crash after 971
// kills). Both moves: a dead letter, and a move task's step.
func TestJournalMovesAreOneGroup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := &collector{}
	clk := clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk), c.option())
	defer b.Close()
	dlq, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "dlq"})
	if err != nil {
		t.Fatal(err)
	}
	src, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "src", Attributes: sqsq.QueueAttributes{
		RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Send(ctx, sqsq.SendInput{MessageBody: "x"}); err != nil {
		t.Fatal(err)
	}
	if got, err := src.Receive(ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Second)}); err != nil || len(got) != 1 {
		t.Fatalf("receive: %v, %v", got, err)
	}
	clk.Add(2 * time.Second)
	c.take()
	if got, err := src.Receive(ctx, sqsq.ReceiveInput{}); err != nil || len(got) != 0 {
		t.Fatalf("the second receive: %v, %v; want the message dead-lettered", got, err)
	}
	checkMoveGroup(t, "dead letter", c.take())

	if _, err := b.StartMoveTask(ctx, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()}); err != nil {
		t.Fatal(err)
	}
	c.take()
	clk.Add(time.Second)
	if n, _ := src.Stats(); n.Visible != 1 {
		t.Fatalf("after the move task: %+v; want the message back", n)
	}
	checkMoveGroup(t, "move task", c.take())
}

// checkMoveGroup fails unless one Group in recs holds a MessageDelete and
// a MessagePut, and no such record is outside a Group.
func checkMoveGroup(t *testing.T, what string, recs []state.Change) {
	t.Helper()
	found := false
	for _, r := range recs {
		switch r.Kind {
		case state.MessageDelete, state.MessagePut:
			t.Errorf("%s: a message record outside a Group: %+v", what, r)
		case state.Group:
			var del, put bool
			for _, c := range r.Changes {
				del = del || c.Kind == state.MessageDelete
				put = put || c.Kind == state.MessagePut
			}
			found = found || (del && put)
		}
	}
	if !found {
		t.Errorf("%s: no Group with both sides of the move in %d records", what, len(recs))
	}
}
