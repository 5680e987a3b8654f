package sqsq_test

import (
	"context"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// A test looks at what a consumer left behind without receiving: Peek
// shows every message in its state, and changes nothing — the message in
// flight stays in flight, no receive is counted.
func ExampleQueue_Peek() {
	ctx := context.Background()
	clk := clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	for _, in := range []sqsq.SendInput{
		{MessageBody: "order-1"},
		{MessageBody: "order-2", DelaySeconds: sqsq.Some(time.Minute)},
		{MessageBody: `{"order": 3, "note": "gift wrap"}`},
	} {
		if _, err := q.Send(ctx, in); err != nil {
			panic(err)
		}
	}
	// A consumer took order-1 and has not deleted it yet.
	if _, err := q.Receive(ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(30 * time.Second)}); err != nil {
		panic(err)
	}
	clk.Add(10 * time.Second)

	out, err := q.Peek(ctx, sqsq.PeekInput{BodyPrefix: 12})
	if err != nil {
		panic(err)
	}
	for _, m := range out.Messages {
		body := m.Body
		if m.BodyTruncated {
			body += "…"
		}
		fmt.Printf("%-9s %-14s received %d", m.State, body, m.ReceiveCount)
		if !m.Until.IsZero() {
			fmt.Printf(", %v to go", m.Until.Sub(clk.Now()))
		}
		fmt.Println()
	}

	// Filters apply before the limit; follow NextCursor to the end.
	in := sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateAvailable, sqsq.StateDelayed}, Limit: 1}
	for page := 1; ; page++ {
		out, err := q.Peek(ctx, in)
		if err != nil {
			panic(err)
		}
		for _, m := range out.Messages {
			fmt.Printf("page %d: %s (%d bytes)\n", page, m.State, m.BodySize)
		}
		if out.NextCursor == "" {
			break
		}
		in.Cursor = out.NextCursor
	}

	s, _ := q.Stats()
	fmt.Printf("in flight %d, received %d\n", s.InFlight, s.Received)
	// Output:
	// inflight  order-1        received 1, 20s to go
	// delayed   order-2        received 0, 50s to go
	// available {"order": 3,…  received 0
	// page 1: delayed (7 bytes)
	// page 2: available (33 bytes)
	// in flight 1, received 1
}
