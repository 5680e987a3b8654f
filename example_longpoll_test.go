package sqsq_test

import (
	"context"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// A long poll parks until a message arrives. The test waits until the
// receiver is parked before it moves the mock clock, then reads the result
// from a channel.
func ExampleQueue_WaitForReceivers() {
	ctx := context.Background()
	clk := clock.NewMock()
	start := clk.Now()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})

	type result struct {
		msgs []sqsq.Message
		at   time.Duration
	}
	done := make(chan result)
	go func() {
		msgs, err := q.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		if err != nil {
			panic(err)
		}
		done <- result{msgs, clk.Now().Sub(start)}
	}()

	// Step 2: wait until the receiver has armed its timer.
	if err := q.WaitForReceivers(ctx, 1); err != nil {
		panic(err)
	}
	fmt.Println("parked:", q.ParkedReceivers())

	// Step 3: move the clock, but not to the end of the wait.
	clk.Add(5 * time.Second)
	fmt.Println("parked after 5s:", q.ParkedReceivers())

	// A send wakes the receiver at once.
	if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "order-1"}); err != nil {
		panic(err)
	}

	// Step 4: read the result.
	r := <-done
	fmt.Printf("received %q after %v\n", r.msgs[0].Body, r.at)
	// Output:
	// parked: 1
	// parked after 5s: 1
	// received "order-1" after 5s
}

// A long poll that nothing satisfies returns empty when its wait ends on the
// clock.
func ExampleQueue_WaitForReceivers_waitEnds() {
	ctx := context.Background()
	clk := clock.NewMock()
	start := clk.Now()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})

	done := make(chan int)
	go func() {
		msgs, err := q.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		if err != nil {
			panic(err)
		}
		done <- len(msgs)
	}()
	if err := q.WaitForReceivers(ctx, 1); err != nil {
		panic(err)
	}
	clk.Add(20 * time.Second)
	fmt.Printf("t=%v received %d messages\n", clk.Now().Sub(start), <-done)
	// Output:
	// t=20s received 0 messages
}
