package sqsq_test

import (
	"context"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// A worker extends a message's visibility while it works (a heartbeat), up
// to the 12-hour cap that counts from the receive and that no extension
// resets.
func ExampleQueue_ChangeVisibility() {
	ctx := context.Background()
	clk := clock.NewMock()
	start := clk.Now()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "jobs"})
	if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "resize-image"}); err != nil {
		panic(err)
	}
	msgs, _ := q.Receive(ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(30 * time.Second)})
	h := msgs[0].ReceiptHandle

	// Heartbeat: every 20 s, push the deadline 30 s out again.
	for i := 0; i < 3; i++ {
		clk.Add(20 * time.Second)
		if err := q.ChangeVisibility(ctx, h, 30*time.Second); err != nil {
			panic(err)
		}
		s, _ := q.Stats()
		fmt.Printf("t=%v extended, in flight=%d\n", clk.Now().Sub(start), s.InFlight)
	}

	// One minute after the receive, at most 11h59m of the cap is left.
	err := q.ChangeVisibility(ctx, h, 12*time.Hour)
	fmt.Printf("t=%v extend by 12h: %v\n", clk.Now().Sub(start), err)
	err = q.ChangeVisibility(ctx, h, 12*time.Hour-time.Minute)
	fmt.Printf("t=%v extend by 11h59m: %v\n", clk.Now().Sub(start), err)

	if err := q.Delete(ctx, h); err != nil {
		panic(err)
	}
	// Output:
	// t=20s extended, in flight=1
	// t=40s extended, in flight=1
	// t=1m0s extended, in flight=1
	// t=1m0s extend by 12h: sqsq: InvalidParameterValue: Value 43200 for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]
	// t=1m0s extend by 11h59m: <nil>
}

// A message that is not deleted before its visibility timeout ends is
// delivered again, with a higher receive count and a new receipt handle.
func ExampleQueue_Receive_redelivery() {
	ctx := context.Background()
	clk := clock.NewMock()
	start := clk.Now()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{
		QueueName:  "jobs",
		Attributes: sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(time.Minute)},
	})
	if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "resize-image"}); err != nil {
		panic(err)
	}
	in := sqsq.ReceiveInput{MessageSystemAttributeNames: []string{sqsq.SysApproximateReceiveCount}}

	first, _ := q.Receive(ctx, in)
	fmt.Printf("t=%v received, receive count %s\n", clk.Now().Sub(start), first[0].Attributes[sqsq.SysApproximateReceiveCount])

	clk.Add(59 * time.Second)
	none, _ := q.Receive(ctx, in)
	fmt.Printf("t=%v %d messages: still hidden\n", clk.Now().Sub(start), len(none))

	clk.Add(time.Second)
	again, _ := q.Receive(ctx, in)
	fmt.Printf("t=%v received, receive count %s, new handle %v\n", clk.Now().Sub(start),
		again[0].Attributes[sqsq.SysApproximateReceiveCount], again[0].ReceiptHandle != first[0].ReceiptHandle)
	// Output:
	// t=0s received, receive count 1
	// t=59s 0 messages: still hidden
	// t=1m0s received, receive count 2, new handle true
}
