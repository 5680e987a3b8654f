package sqsqtest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqsqtest"
)

func TestPeek(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, _ := sqsqtest.NewBroker(t)
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q"})
	for i := 0; i < 2500; i++ { // more than a page
		if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "m"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Receive(ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	all := sqsqtest.Peek(t, q)
	if len(all) != 2500 || all[0].State != sqsq.StateInFlight || all[1].State != sqsq.StateAvailable {
		t.Errorf("Peek: %d messages, the first two %s and %s; want 2500, inflight and available", len(all), all[0].State, all[1].State)
	}
	if s, _ := q.Stats(); s.InFlight != 1 || s.Received != 1 {
		t.Errorf("after Peek: in flight %d, received %d; want 1 and 1", s.InFlight, s.Received)
	}

	// On error it fails the test.
	if err := q.DeleteQueue(ctx); err != nil {
		t.Fatal(err)
	}
	var f fatals
	if got := sqsqtest.Peek(&f, q); got != nil || len(f) != 1 || !strings.Contains(f[0], "QueueDoesNotExist") {
		t.Errorf("Peek of a deleted queue: %v, failures %q", got, f)
	}
}
