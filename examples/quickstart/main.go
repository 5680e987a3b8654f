// Command quickstart walks one queue through the awkward parts of SQS on a
// mock clock, printing each step with the virtual time it happened at:
// visibility timeouts, redelivery with a new receipt handle, a stale delete,
// a heartbeat, the 12-hour cap and a long poll woken by a send.
//
//	go run ./examples/quickstart
//
// Nothing waits on the wall clock: the program moves the mock clock itself,
// so it finishes at once, and its output is the same on every run.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// story prints lines stamped with the virtual time since the clock's start.
type story struct {
	w     io.Writer
	clk   *clock.Mock
	start time.Time
}

// section starts a part of the story with a blank line and a title.
func (s *story) section(title string) {
	fmt.Fprintf(s.w, "\n== %s\n", title)
}

func (s *story) say(format string, args ...any) {
	at := "t=" + s.clk.Now().Sub(s.start).String()
	fmt.Fprintf(s.w, "%-10s %s\n", at, fmt.Sprintf(format, args...))
}

// advance moves the mock clock and says so.
func (s *story) advance(d time.Duration) {
	s.clk.Add(d)
	s.say("... %v pass", d)
}

func run(w io.Writer) error {
	ctx := context.Background()
	clk := clock.NewMock()
	s := &story{w: w, clk: clk, start: clk.Now()}

	// Pin message ids so the output is the same on every run.
	n := 0
	b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithIDFunc(func() string {
		n++
		return fmt.Sprintf("msg-%d", n)
	}))
	defer b.Close()

	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{
		QueueName:  "orders",
		Attributes: sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(30 * time.Second)},
	})
	if err != nil {
		return err
	}
	s.say("created queue %s (visibility timeout 30s)", q.Name())

	if err := visibility(ctx, s, q); err != nil {
		return err
	}
	if err := heartbeat(ctx, s, q); err != nil {
		return err
	}
	if err := longPoll(ctx, s, q); err != nil {
		return err
	}
	return nil
}

// receiveCount asks for the attribute that counts deliveries.
var receiveCount = sqsq.ReceiveInput{MessageSystemAttributeNames: []string{sqsq.SysApproximateReceiveCount}}

// visibility: a received message is hidden, comes back when its visibility
// timeout ends with a new receipt handle, and a delete with the old handle
// succeeds without deleting it.
func visibility(ctx context.Context, s *story, q *sqsq.Queue) error {
	s.section("visibility timeout and redelivery")
	res, err := q.Send(ctx, sqsq.SendInput{MessageBody: "order-1"})
	if err != nil {
		return err
	}
	s.say("sent %q as %s", "order-1", res.MessageId)

	first, err := q.Receive(ctx, receiveCount)
	if err != nil {
		return err
	}
	m := first[0]
	s.say("received %q (receive count %s): hidden for 30s", m.Body, m.Attributes[sqsq.SysApproximateReceiveCount])

	s.advance(10 * time.Second)
	none, err := q.Receive(ctx, receiveCount)
	if err != nil {
		return err
	}
	s.say("receive got %d messages: %q is still in flight", len(none), m.Body)

	s.advance(20 * time.Second)
	again, err := q.Receive(ctx, receiveCount)
	if err != nil {
		return err
	}
	m2 := again[0]
	s.say("redelivered %q (receive count %s), new receipt handle: %v",
		m2.Body, m2.Attributes[sqsq.SysApproximateReceiveCount], m2.ReceiptHandle != m.ReceiptHandle)

	if err := q.Delete(ctx, m.ReceiptHandle); err != nil {
		return err
	}
	st, err := q.Stats()
	if err != nil {
		return err
	}
	s.say("delete with the first (stale) handle: ok, but %d message still in flight", st.InFlight)

	if err := q.Delete(ctx, m2.ReceiptHandle); err != nil {
		return err
	}
	st, err = q.Stats()
	if err != nil {
		return err
	}
	s.say("delete with the latest handle: ok, %d messages stored", st.Visible+st.InFlight+st.Delayed)
	return nil
}

// heartbeat: a worker extends visibility while it works, then deletes; a
// second message shows the 12-hour cap, which extensions never reset.
func heartbeat(ctx context.Context, s *story, q *sqsq.Queue) error {
	s.section("heartbeat and the 12-hour cap")
	if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "order-2"}); err != nil {
		return err
	}
	s.say("sent %q", "order-2")
	msgs, err := q.Receive(ctx, sqsq.ReceiveInput{})
	if err != nil {
		return err
	}
	h := msgs[0].ReceiptHandle
	s.say("received %q: work takes 70s, longer than the 30s timeout", msgs[0].Body)
	for i := 0; i < 3; i++ {
		s.advance(20 * time.Second)
		if err := q.ChangeVisibility(ctx, h, 30*time.Second); err != nil {
			return err
		}
		s.say("heartbeat: visible again 30s from now")
	}
	s.advance(10 * time.Second)
	if err := q.Delete(ctx, h); err != nil {
		return err
	}
	st, err := q.Stats()
	if err != nil {
		return err
	}
	s.say("work done, deleted: %d messages stored, %d redelivered so far", st.Visible+st.InFlight+st.Delayed, st.Redelivered)

	if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "order-3"}); err != nil {
		return err
	}
	s.say("sent %q", "order-3")
	msgs, err = q.Receive(ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(6 * time.Hour)})
	if err != nil {
		return err
	}
	h = msgs[0].ReceiptHandle
	s.say("received %q, hidden for 6h: a job that runs for hours", msgs[0].Body)
	s.advance(5 * time.Hour)
	if err := q.ChangeVisibility(ctx, h, 6*time.Hour); err != nil {
		return err
	}
	s.say("heartbeat: hidden 6h more, until 11h after the receive")
	s.advance(5 * time.Hour)
	err = q.ChangeVisibility(ctx, h, 6*time.Hour)
	if err == nil {
		return fmt.Errorf("an extension past the 12-hour cap succeeded")
	}
	s.say("heartbeat of 6h refused, it would end 16h after the receive: %v", err)
	if err := q.ChangeVisibility(ctx, h, 2*time.Hour); err != nil {
		return err
	}
	s.say("heartbeat of 2h: ok, it ends exactly 12h after the receive")
	if err := q.Delete(ctx, h); err != nil {
		return err
	}
	s.say("deleted %q", msgs[0].Body)
	return nil
}

// longPoll: a receive with a wait parks until a send wakes it. The program
// waits until the receiver is parked before it moves the clock, and reads
// the result from a channel.
func longPoll(ctx context.Context, s *story, q *sqsq.Queue) error {
	s.section("long poll")
	type result struct {
		msgs []sqsq.Message
		err  error
	}
	done := make(chan result, 1)
	go func() {
		msgs, err := q.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		done <- result{msgs, err}
	}()
	if err := q.WaitForReceivers(ctx, 1); err != nil {
		return err
	}
	s.say("a receive waiting up to 20s is parked (%d parked receiver)", q.ParkedReceivers())

	s.advance(5 * time.Second)
	s.say("still parked: %d parked receiver", q.ParkedReceivers())

	if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "order-4"}); err != nil {
		return err
	}
	s.say("sent %q", "order-4")
	r := <-done
	if r.err != nil {
		return r.err
	}
	if len(r.msgs) != 1 {
		return fmt.Errorf("long poll returned %d messages, want 1", len(r.msgs))
	}
	s.say("the long poll woke with %q", r.msgs[0].Body)
	return q.Delete(ctx, r.msgs[0].ReceiptHandle)
}
