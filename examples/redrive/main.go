// Command redrive shows a dead-letter queue at work on a mock clock: a
// consumer that fails on malformed orders leaves them in the queue until
// their maxReceiveCount is used up and SQS moves them to the dead-letter
// queue; once the consumer is fixed, a message move task redrives them back
// at one message per second of clock time, each as a new message.
//
//	go run ./examples/redrive
//
// Nothing waits on the wall clock: the program moves the mock clock itself,
// so it finishes at once, and its output is the same on every run.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "redrive:", err)
		os.Exit(1)
	}
}

// story prints lines stamped with the virtual time since the clock's start.
type story struct {
	w     io.Writer
	clk   *clock.Mock
	start time.Time
}

func (s *story) section(title string) {
	fmt.Fprintf(s.w, "\n== %s\n", title)
}

// say prints a line stamped with the clock's now.
func (s *story) say(format string, args ...any) {
	s.sayAt(s.clk.Now(), format, args...)
}

// sayAt prints a line stamped with the instant at.
func (s *story) sayAt(at time.Time, format string, args ...any) {
	stamp := "t=" + at.Sub(s.start).String()
	fmt.Fprintf(s.w, "%-10s %s\n", stamp, fmt.Sprintf(format, args...))
}

// note prints an unstamped line.
func (s *story) note(format string, args ...any) {
	fmt.Fprintf(s.w, "%-10s %s\n", "", fmt.Sprintf(format, args...))
}

func (s *story) advance(d time.Duration) {
	s.clk.Add(d)
	s.say("... %v pass", d)
}

const (
	visibility      = 10 * time.Second
	maxReceiveCount = 3
)

func run(w io.Writer) error {
	ctx := context.Background()
	clk := clock.NewMock()
	s := &story{w: w, clk: clk, start: clk.Now()}

	// Pin ids so the output is the same on every run. A move task calls the
	// id source from its own goroutine, hence the atomic counter.
	var n atomic.Int64
	b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithIDFunc(func() string {
		return "msg-" + strconv.FormatInt(n.Add(1), 10)
	}))
	defer b.Close() // stops the goroutine of a move task still running

	dlq, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{
		QueueName: "orders-dlq",
		// Longer than the source's retention, as AWS recommends: a standard
		// message keeps its original enqueue time in the DLQ.
		Attributes: sqsq.QueueAttributes{MessageRetentionPeriod: sqsq.Some(14 * 24 * time.Hour)},
	})
	if err != nil {
		return err
	}
	orders, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{
		QueueName: "orders",
		Attributes: sqsq.QueueAttributes{
			VisibilityTimeout: sqsq.Some(visibility),
			RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
				DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: maxReceiveCount,
			}),
		},
	})
	if err != nil {
		return err
	}
	s.say("created %s and %s (visibility timeout %v, to the DLQ after %d receives)",
		dlq.Name(), orders.Name(), visibility, maxReceiveCount)

	if err := poison(ctx, s, orders, dlq); err != nil {
		return err
	}
	return redrive(ctx, s, b, orders, dlq)
}

// receiveCount asks for the attribute that counts deliveries.
var receiveCount = sqsq.ReceiveInput{
	MaxNumberOfMessages:         10,
	MessageSystemAttributeNames: []string{sqsq.SysApproximateReceiveCount, sqsq.SysSentTimestamp},
}

// consumerV1 fails on malformed orders and leaves them in the queue.
func consumerV1(body string) bool { return !strings.Contains(body, "malformed") }

// poison: the broken consumer polls every visibility timeout until the
// malformed orders are moved to the DLQ.
func poison(ctx context.Context, s *story, orders, dlq *sqsq.Queue) error {
	s.section("a consumer that fails on malformed orders")
	bodies := []string{"order-1", "order-2 malformed", "order-3", "order-4 malformed", "order-5 malformed"}
	for _, body := range bodies {
		if _, err := orders.Send(ctx, sqsq.SendInput{MessageBody: body}); err != nil {
			return err
		}
	}
	s.say("sent %d orders, 3 of them malformed", len(bodies))
	for poll := 1; ; poll++ {
		msgs, err := orders.Receive(ctx, receiveCount)
		if err != nil {
			return err
		}
		if len(msgs) == 0 {
			st, err := orders.Stats()
			if err != nil {
				return err
			}
			s.say("poll %d got nothing: the receive moved %d messages to %s instead", poll, st.MovedToDLQ, dlq.Name())
			break
		}
		var ok, failed []string
		for _, m := range msgs {
			label := fmt.Sprintf("%q (#%s)", m.Body, m.Attributes[sqsq.SysApproximateReceiveCount])
			if !consumerV1(m.Body) {
				failed = append(failed, label)
				continue
			}
			if err := orders.Delete(ctx, m.ReceiptHandle); err != nil {
				return err
			}
			ok = append(ok, label)
		}
		if len(ok) > 0 {
			s.say("poll %d: processed and deleted %s", poll, strings.Join(ok, ", "))
		}
		s.say("poll %d: failed on %s", poll, strings.Join(failed, ", "))
		s.advance(visibility)
	}

	st, err := dlq.Stats()
	if err != nil {
		return err
	}
	sources, err := dlq.ListDeadLetterSourceQueues(ctx, sqsq.ListDeadLetterSourceQueuesInput{})
	if err != nil {
		return err
	}
	names := make([]string, len(sources.QueueURLs))
	for i, u := range sources.QueueURLs {
		names[i] = u[strings.LastIndex(u, "/")+1:]
	}
	s.say("%s holds %d messages (dead-lettered %d, sent 0: a move is not a send); its sources: %v",
		dlq.Name(), st.Visible, st.DeadLettered, names)
	return nil
}

// redrive: the consumer is fixed and a move task takes the messages back
// to the queue they came from at 1 message per second.
func redrive(ctx context.Context, s *story, b *sqsq.Broker, orders, dlq *sqsq.Queue) error {
	s.section("the consumer is fixed: redrive at 1 message/s")
	s.advance(time.Minute)
	if _, err := b.StartMoveTask(ctx, sqsq.StartMoveTaskInput{
		SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1),
	}); err != nil {
		return err
	}
	task, err := newestTask(ctx, b, dlq)
	if err != nil {
		return err
	}
	s.say("started a move task: %s, %d messages to move, back to their source", task.Status, task.ApproximateNumberOfMessagesToMove)

	// Move the clock a second at a time until the task is done. The task
	// moves its first message at once and then one per second.
	for task.Status == sqsq.MoveTaskRunning {
		s.clk.Add(time.Second)
		if task, err = newestTask(ctx, b, dlq); err != nil {
			return err
		}
	}
	// The consumer, fixed, drains the queue. Each redriven message is new:
	// new id, receive count from 1, sent at the instant the task moved it.
	msgs, err := orders.Receive(ctx, receiveCount)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		ms, err := strconv.ParseInt(m.Attributes[sqsq.SysSentTimestamp], 10, 64)
		if err != nil {
			return err
		}
		s.sayAt(time.UnixMilli(ms), "redriven %q as new message %s", m.Body, m.MessageId)
	}
	s.note("the task is %s: %d of %d moved, one per second of clock time",
		task.Status, task.ApproximateNumberOfMessagesMoved, task.ApproximateNumberOfMessagesToMove)
	for _, m := range msgs {
		if err := orders.Delete(ctx, m.ReceiptHandle); err != nil {
			return err
		}
		s.note("consumer v2 processed %q (receive count %s) and deleted it", m.Body, m.Attributes[sqsq.SysApproximateReceiveCount])
	}
	ss, err := orders.Stats()
	if err != nil {
		return err
	}
	ds, err := dlq.Stats()
	if err != nil {
		return err
	}
	s.note("%s: sent %d, moved to the DLQ %d, redriven in %d, %d stored", orders.Name(),
		ss.Sent, ss.MovedToDLQ, ss.RedrivenIn, ss.Visible+ss.InFlight+ss.Delayed)
	s.note("%s: dead-lettered %d, redriven out %d, %d stored", dlq.Name(),
		ds.DeadLettered, ds.RedrivenOut, ds.Visible+ds.InFlight+ds.Delayed)
	return nil
}

func newestTask(ctx context.Context, b *sqsq.Broker, dlq *sqsq.Queue) (sqsq.MoveTask, error) {
	tasks, err := b.ListMoveTasks(ctx, dlq.ARN(), sqsq.Optional[int]{})
	if err != nil {
		return sqsq.MoveTask{}, err
	}
	if len(tasks) == 0 {
		return sqsq.MoveTask{}, fmt.Errorf("no move task on %s", dlq.Name())
	}
	return tasks[0], nil
}
