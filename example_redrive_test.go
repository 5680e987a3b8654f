package sqsq_test

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// Poison messages land in the dead-letter queue after maxReceiveCount
// deliveries; a move task then redrives them, as new messages, at one
// message per second of mock-clock time.
func ExampleBroker_StartMoveTask() {
	ctx := context.Background()
	clk := clock.NewMock()
	var n atomic.Int64 // the move task calls the id source from its own goroutine
	b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithIDFunc(func() string {
		return "id-" + strconv.FormatInt(n.Add(1), 10)
	}))
	defer b.Close() // also stops the goroutine of any running move task

	dlq, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders-dlq"})
	if err != nil {
		panic(err)
	}
	orders, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{
		QueueName: "orders",
		Attributes: sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
			DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 2,
		})},
	})
	if err != nil {
		panic(err)
	}
	for _, body := range []string{"bad-1", "bad-2", "bad-3"} {
		if _, err := orders.Send(ctx, sqsq.SendInput{MessageBody: body}); err != nil {
			panic(err)
		}
	}

	// A consumer that fails on every message: it never deletes, so each
	// message comes back when its 30 s visibility timeout ends. The third
	// receive moves them to the DLQ instead of returning them.
	for i := 1; i <= 3; i++ {
		msgs, _ := orders.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
		fmt.Printf("receive %d: %d messages\n", i, len(msgs))
		clk.Add(30 * time.Second)
	}
	s, _ := dlq.Stats()
	fmt.Println("in the DLQ:", s.Visible)

	// The consumer is fixed: move the messages back to their source.
	start := clk.Now()
	if _, err := b.StartMoveTask(ctx, sqsq.StartMoveTaskInput{
		SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1),
	}); err != nil {
		panic(err)
	}
	tasks, _ := b.ListMoveTasks(ctx, dlq.ARN(), sqsq.Optional[int]{})
	fmt.Println("task:", tasks[0].Status, "to move:", tasks[0].ApproximateNumberOfMessagesToMove)
	for tasks[0].Status == sqsq.MoveTaskRunning {
		clk.Add(time.Second) // the task moves one message per second of clock time
		tasks, _ = b.ListMoveTasks(ctx, dlq.ARN(), sqsq.Optional[int]{})
	}
	fmt.Println("task:", tasks[0].Status, "moved:", tasks[0].ApproximateNumberOfMessagesMoved)

	// Each redriven message is new: new id, receive count from zero, and
	// sent at the instant the task moved it.
	msgs, _ := orders.Receive(ctx, sqsq.ReceiveInput{
		MaxNumberOfMessages:         10,
		MessageSystemAttributeNames: []string{sqsq.SysSentTimestamp, sqsq.SysApproximateReceiveCount},
	})
	for _, m := range msgs {
		ms, _ := strconv.ParseInt(m.Attributes[sqsq.SysSentTimestamp], 10, 64)
		fmt.Printf("%s: new id %s, receive count %s, redriven at start+%v\n",
			m.Body, m.MessageId, m.Attributes[sqsq.SysApproximateReceiveCount], time.UnixMilli(ms).Sub(start))
	}
	// Output:
	// receive 1: 3 messages
	// receive 2: 3 messages
	// receive 3: 0 messages
	// in the DLQ: 3
	// task: RUNNING to move: 3
	// task: COMPLETED moved: 3
	// bad-1: new id id-5, receive count 1, redriven at start+0s
	// bad-2: new id id-6, receive count 1, redriven at start+1s
	// bad-3: new id id-7, receive count 1, redriven at start+2s
}
