package sqsq_test

import (
	"context"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// A FIFO queue delivers each message group in send order and holds a group
// back while one of its messages is in flight; other groups keep flowing.
func ExampleQueue_Send_fifo() {
	ctx := context.Background()
	n := 0
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()), sqsq.WithIDFunc(func() string {
		n++
		return fmt.Sprintf("msg-%d", n)
	}))
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{
		QueueName: "orders.fifo",
		Attributes: sqsq.QueueAttributes{
			FifoQueue:                 sqsq.Some(true),
			ContentBasedDeduplication: sqsq.Some(true), // no dedup id needed: the body's hash is one
		},
	})
	if err != nil {
		panic(err)
	}

	for _, s := range []struct{ group, body string }{
		{"alice", "alice-1"}, {"bob", "bob-1"}, {"alice", "alice-2"}, {"alice", "alice-3"},
	} {
		res, err := q.Send(ctx, sqsq.SendInput{MessageBody: s.body, MessageGroupId: s.group})
		if err != nil {
			panic(err)
		}
		fmt.Printf("sent %s as %s, SequenceNumber %s\n", s.body, res.MessageId, res.SequenceNumber)
	}

	receive := func(max int) []sqsq.Message {
		msgs, err := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: max})
		if err != nil {
			panic(err)
		}
		fmt.Print("receive:")
		for _, m := range msgs {
			fmt.Print(" ", m.Body)
		}
		fmt.Println()
		return msgs
	}

	first := receive(2) // as much of one group as fits, in order
	receive(10)         // alice is locked while alice-1 and alice-2 are in flight
	for _, m := range first {
		if err := q.Delete(ctx, m.ReceiptHandle); err != nil {
			panic(err)
		}
	}
	receive(10) // deleting them unlocks alice
	// Output:
	// sent alice-1 as msg-1, SequenceNumber 10000000000000000001
	// sent bob-1 as msg-2, SequenceNumber 10000000000000000002
	// sent alice-2 as msg-3, SequenceNumber 10000000000000000003
	// sent alice-3 as msg-4, SequenceNumber 10000000000000000004
	// receive: alice-1 alice-2
	// receive: bob-1
	// receive: alice-3
}

// A producer that retries a send with the same MessageDeduplicationId within
// five minutes gets the original message's id back, and only one message is
// stored; after the five minutes the same id makes a new message.
func ExampleQueue_Send_deduplication() {
	ctx := context.Background()
	clk := clock.NewMock()
	n := 0
	b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithIDFunc(func() string {
		n++
		return fmt.Sprintf("msg-%d", n)
	}))
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{
		QueueName:  "payments.fifo",
		Attributes: sqsq.QueueAttributes{FifoQueue: sqsq.Some(true)},
	})
	if err != nil {
		panic(err)
	}
	send := func() {
		res, err := q.Send(ctx, sqsq.SendInput{
			MessageBody:            `{"payment":42,"amount":"9.99"}`,
			MessageGroupId:         "account-7",
			MessageDeduplicationId: "payment-42",
		})
		if err != nil {
			panic(err)
		}
		s, _ := q.Stats()
		fmt.Printf("sent: id %s, stored %d, duplicates suppressed %d\n", res.MessageId, s.Visible, s.DuplicatesSuppressed)
	}

	send()
	clk.Add(4 * time.Minute) // the producer timed out and retries
	send()
	clk.Add(time.Minute) // five minutes after the first send
	send()
	// Output:
	// sent: id msg-1, stored 1, duplicates suppressed 0
	// sent: id msg-1, stored 1, duplicates suppressed 1
	// sent: id msg-2, stored 2, duplicates suppressed 1
}
