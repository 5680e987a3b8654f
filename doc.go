// Package sqsq is Amazon SQS in your Go process: queues that behave like
// SQS down to the awkward parts, on a clock your test controls.
//
// # Queues on a mock clock
//
// A [Broker] holds the queues of one account and region (others of the same
// endpoint come from [Broker.Scope]). Give it a
// *clock.Mock from github.com/benbjohnson/clock and every delay, visibility
// timeout, retention period and long poll follows that clock, so a test of a
// 12-hour visibility cap runs in microseconds:
//
//	clk := clock.NewMock()
//	b := sqsq.NewBroker(sqsq.WithClock(clk))
//	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
//	q.Send(ctx, sqsq.SendInput{MessageBody: "order-1"})
//	msgs, _ := q.Receive(ctx, sqsq.ReceiveInput{})  // hidden for 30 s
//	clk.Add(30 * time.Second)                        // visible again
//	again, _ := q.Receive(ctx, sqsq.ReceiveInput{})  // a new receipt handle
//	q.Delete(ctx, msgs[0].ReceiptHandle)             // stale: succeeds, deletes nothing
//	q.Delete(ctx, again[0].ReceiptHandle)            // deletes
//
// # Unset is not zero
//
// SQS gives zero a meaning: a receive with VisibilityTimeout 0 leaves the
// message visible, a send with DelaySeconds 0 overrides the queue's delay.
// Such fields are [Optional] values; leave them unset for the queue default
// or write [Some](0*time.Second).
//
// # Long polls and a mock clock
//
// A receive with a wait time parks until a message is available or the wait
// ends on the clock. A mock clock's Add only fires timers that exist, so a
// test must know the receiver has parked before it moves the clock:
// [Queue.WaitForReceivers] blocks until n receivers have armed their timers.
//
//	done := make(chan []sqsq.Message)
//	go func() {
//		msgs, _ := q.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
//		done <- msgs
//	}()
//	q.WaitForReceivers(ctx, 1)
//	clk.Add(20 * time.Second)
//	msgs := <-done // empty: the wait ended
//
// Move a mock from one goroutine: the archived mock's Add loses time when
// called from several at once. sqsq never needs a mock to fire a timer
// exactly once.
//
// # The real clock and testing/synctest
//
// NewBroker without [WithClock] runs on the real clock: a long poll parks
// on one timer, costs no CPU while parked and wakes within microseconds of
// a send. Inside a testing/synctest bubble (Go 1.25+) the same default
// broker runs on the bubble's fake time, so time.Sleep moves the queues and
// synctest.Wait returns once every receiver is parked:
//
//	synctest.Test(t, func(t *testing.T) {
//		b := sqsq.NewBroker() // created inside the bubble
//		defer b.Close()
//		q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
//		q.Send(ctx, sqsq.SendInput{MessageBody: "order-1"})
//		q.Receive(ctx, sqsq.ReceiveInput{}) // hidden for 30 s
//		time.Sleep(30 * time.Second)        // instant; visible again
//	})
//
// # FIFO queues
//
// A queue named "….fifo" created with FifoQueue: Some(true) keeps each
// message group in send order and locks a group while one of its messages is
// in flight; other groups keep flowing. Sends within 5 minutes of clock time
// with the same MessageDeduplicationId (or, with ContentBasedDeduplication,
// the same body) succeed without storing anything and answer with the
// original message's id and SequenceNumber.
//
// # Dead-letter queues and move tasks
//
// A RedrivePolicy moves a message to its dead-letter queue on the receive
// after its last allowed delivery. [Broker.StartMoveTask] moves messages back
// at a rate, on the clock: nothing moves until the clock does, and each
// message becomes a new message in its own source queue.
//
//	dlq, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders-dlq"})
//	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders",
//		Attributes: sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
//			DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 3})}})
//	h, _ := b.StartMoveTask(ctx, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(),
//		MaxNumberOfMessagesPerSecond: sqsq.Some(10)})
//	clk.Add(time.Second) // about 10 messages are back in "orders"
//
// # Accounts and regions
//
// [Broker.Scope] returns the broker of another account or region of the
// same endpoint: its own queues, URLs and ARNs, on the same clock. Queues
// reach each other across accounts by ARN and URL, so a dead-letter queue of
// another account works once its byQueue RedriveAllowPolicy lists the
// source, and a move task takes the messages back:
//
//	partner := b.Scope("111111111111", "us-east-1")
//	dlq, _ := partner.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "dlq",
//		Attributes: sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{
//			RedrivePermission: sqsq.RedriveByQueue,
//			SourceQueueArns:   []string{"arn:aws:sqs:us-east-1:000000000000:orders"}})}})
//
// # Errors
//
// Every failure SQS would report is an [*Error] carrying the SQS error code.
// Match it with errors.Is against the sentinels ([ErrQueueDoesNotExist],
// [ErrReceiptHandleIsInvalid], …) or read its Code. Bad input never changes
// state.
//
// # Performance
//
// Nothing runs in the background, not even move tasks: each operation first
// brings its queues, and the move tasks that move messages into or out of
// them, up to the clock's now; of other tasks' backlog it carries out at
// most 1,000 steps. Every operation is O(1) amortized or O(log n) in queue
// depth; the README has the benchmark numbers.
package sqsq
