package sqsq_test

import (
	"context"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// exampleIDs returns an id source for [sqsq.WithIDFunc] that yields
// "msg-1", "msg-2", …, so examples can print message ids.
func exampleIDs() func() string {
	n := 0
	return func() string {
		n++
		return fmt.Sprintf("msg-%d", n)
	}
}

// A message's life on a mock clock: sent, received and hidden, visible again
// when its visibility timeout ends, then deleted with its latest handle.
func Example() {
	ctx := context.Background()
	clk := clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithIDFunc(exampleIDs()))
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	if err != nil {
		panic(err)
	}

	if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "order-1"}); err != nil {
		panic(err)
	}
	first, _ := q.Receive(ctx, sqsq.ReceiveInput{})
	fmt.Println("received:", first[0].Body)

	none, _ := q.Receive(ctx, sqsq.ReceiveInput{})
	fmt.Println("while hidden:", len(none), "messages")

	clk.Add(30 * time.Second) // the default visibility timeout
	again, _ := q.Receive(ctx, sqsq.ReceiveInput{})
	fmt.Println("after 30s:", again[0].Body, "with a new handle:", again[0].ReceiptHandle != first[0].ReceiptHandle)

	if err := q.Delete(ctx, again[0].ReceiptHandle); err != nil {
		panic(err)
	}
	s, _ := q.Stats()
	fmt.Println("stored after delete:", s.Visible+s.InFlight+s.Delayed)
	// Output:
	// received: order-1
	// while hidden: 0 messages
	// after 30s: order-1 with a new handle: true
	// stored after delete: 0
}

// CreateQueue is idempotent: asking again with the same attributes returns
// the same queue, while a different value is an error.
func ExampleBroker_CreateQueue() {
	ctx := context.Background()
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))

	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{
		QueueName: "orders",
		Attributes: sqsq.QueueAttributes{
			VisibilityTimeout: sqsq.Some(45 * time.Second),
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(q.URL())
	fmt.Println(q.ARN())

	same, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{
		QueueName:  "orders",
		Attributes: sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(45 * time.Second)},
	})
	fmt.Println("same queue:", same == q)

	_, err = b.CreateQueue(ctx, sqsq.CreateQueueInput{
		QueueName:  "orders",
		Attributes: sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(60 * time.Second)},
	})
	fmt.Println(err)
	// Output:
	// https://sqs.us-east-1.sqsq.invalid/000000000000/orders
	// arn:aws:sqs:us-east-1:000000000000:orders
	// same queue: true
	// sqsq: QueueNameExists: A queue already exists with the same name and a different value for attribute VisibilityTimeout
}

// Send stores a message and returns its id and the MD5 of its body; a delay
// keeps it hidden until the clock passes it.
func ExampleQueue_Send() {
	ctx := context.Background()
	clk := clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithIDFunc(exampleIDs()))
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})

	res, err := q.Send(ctx, sqsq.SendInput{MessageBody: "order-1"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.MessageId, res.MD5OfMessageBody())

	_, err = q.Send(ctx, sqsq.SendInput{
		MessageBody:  "order-2",
		DelaySeconds: sqsq.Some(10 * time.Second),
	})
	if err != nil {
		panic(err)
	}
	s, _ := q.Stats()
	fmt.Printf("visible=%d delayed=%d\n", s.Visible, s.Delayed)

	clk.Add(10 * time.Second)
	s, _ = q.Stats()
	fmt.Printf("after 10s: visible=%d delayed=%d\n", s.Visible, s.Delayed)

	_, err = q.Send(ctx, sqsq.SendInput{MessageBody: ""})
	fmt.Println(err)
	// Output:
	// msg-1 6e7f85a9d0fe9b5dfb504c6f2991d744
	// visible=1 delayed=1
	// after 10s: visible=2 delayed=0
	// sqsq: MissingParameter: The request must contain the parameter MessageBody.
}

// Receive returns the oldest available messages, up to MaxNumberOfMessages,
// with the system attributes asked for.
func ExampleQueue_Receive() {
	ctx := context.Background()
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()), sqsq.WithIDFunc(exampleIDs()))
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	for _, body := range []string{"order-1", "order-2", "order-3"} {
		if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: body}); err != nil {
			panic(err)
		}
	}

	msgs, err := q.Receive(ctx, sqsq.ReceiveInput{
		MaxNumberOfMessages:         2,
		VisibilityTimeout:           sqsq.Some(time.Minute),
		MessageSystemAttributeNames: []string{sqsq.SysApproximateReceiveCount},
	})
	if err != nil {
		panic(err)
	}
	for _, m := range msgs {
		fmt.Println(m.MessageId, m.Body, "receive count", m.Attributes[sqsq.SysApproximateReceiveCount])
	}
	s, _ := q.Stats()
	fmt.Printf("visible=%d in flight=%d\n", s.Visible, s.InFlight)
	// Output:
	// msg-1 order-1 receive count 1
	// msg-2 order-2 receive count 1
	// visible=1 in flight=2
}

// Delete removes a message by its receipt handle. A stale handle, from a
// receive before the latest, succeeds without deleting anything, as on AWS;
// a string that is no handle at all is an error.
func ExampleQueue_Delete() {
	ctx := context.Background()
	clk := clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "order-1"}); err != nil {
		panic(err)
	}

	old, _ := q.Receive(ctx, sqsq.ReceiveInput{})
	clk.Add(30 * time.Second) // visibility timeout ends: received again
	latest, _ := q.Receive(ctx, sqsq.ReceiveInput{})

	fmt.Println("stale handle:", q.Delete(ctx, old[0].ReceiptHandle))
	s, _ := q.Stats()
	fmt.Println("still in flight:", s.InFlight)

	fmt.Println("latest handle:", q.Delete(ctx, latest[0].ReceiptHandle))
	s, _ = q.Stats()
	fmt.Println("still in flight:", s.InFlight)

	fmt.Println("not a handle:", q.Delete(ctx, "not-a-handle"))
	// Output:
	// stale handle: <nil>
	// still in flight: 1
	// latest handle: <nil>
	// still in flight: 0
	// not a handle: sqsq: ReceiptHandleIsInvalid: The input receipt handle "not-a-handle" is not a valid receipt handle.
}
