package sqsqtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqsqtest"
)

func TestHelpers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("NewBrokerStartsAtEpoch", func(t *testing.T) {
		t.Parallel()
		_, clk := sqsqtest.NewBroker(t)
		if !clk.Now().Equal(sqsqtest.Epoch) {
			t.Errorf("clock at %v", clk.Now())
		}
	})
	t.Run("WaitParkedThenAdvance", func(t *testing.T) {
		t.Parallel()
		b, clk := sqsqtest.NewBroker(t)
		q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q"})
		done := make(chan []sqsq.Message)
		go func() {
			msgs, _ := q.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
			done <- msgs
		}()
		sqsqtest.WaitParked(t, q, 1)
		sqsqtest.Advance(t, clk, 20*time.Second)
		if msgs := <-done; len(msgs) != 0 {
			t.Errorf("got %v", msgs)
		}
	})
	t.Run("CloseWakesParkedReceivers", func(t *testing.T) {
		t.Parallel()
		done := make(chan error, 1)
		t.Run("inner", func(t *testing.T) {
			b, _ := sqsqtest.NewBroker(t)
			q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q"})
			go func() {
				_, err := q.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
				done <- err
			}()
			sqsqtest.WaitParked(t, q, 1)
		}) // cleanup closes the broker
		if err := <-done; err != sqsq.ErrClosed {
			t.Errorf("parked receive ended with %v", err)
		}
	})
	t.Run("DrainAndHistory", func(t *testing.T) {
		t.Parallel()
		b, clk := sqsqtest.NewBroker(t)
		dlq, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q-dlq"})
		q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q", Attributes: sqsq.QueueAttributes{
			RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})}})
		sent, _ := q.Send(ctx, sqsq.SendInput{MessageBody: "poison"})
		msgs, _ := q.Receive(ctx, sqsq.ReceiveInput{})
		_ = q.ChangeVisibility(ctx, msgs[0].ReceiptHandle, 10*time.Second)
		sqsqtest.Advance(t, clk, 10*time.Second)
		if got, _ := q.Receive(ctx, sqsq.ReceiveInput{}); len(got) != 0 { // moves it to the DLQ
			t.Fatalf("got %v", got)
		}
		if _, err := b.StartMoveTask(ctx, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()}); err != nil {
			t.Fatal(err)
		}
		sqsqtest.Advance(t, clk, time.Second)
		drained := sqsqtest.Drain(t, q)
		if len(drained) != 1 || drained[0].MessageId == sent.MessageId {
			t.Fatalf("drained %v", drained)
		}
		var kinds []string
		for _, r := range sqsqtest.History(q, sent.MessageId) {
			kinds = append(kinds, r.Kind)
		}
		want := "[sent received visibility moved to DLQ redriven]"
		if got := fmtSlice(kinds); got != want {
			t.Errorf("history %s, want %s", got, want)
		}
		var newKinds []string
		for _, r := range sqsqtest.History(q, drained[0].MessageId) {
			newKinds = append(newKinds, r.Kind)
		}
		if got := fmtSlice(newKinds); got != "[sent received deleted]" {
			t.Errorf("history of the redriven message %s", got)
		}
	})
}

func fmtSlice(s []string) string {
	out := "["
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out + "]"
}
