// Command fifo shows a hot message group on a FIFO queue, on a mock clock:
// one customer's first order is slow to process, so its worker keeps the
// message in flight with heartbeats. That customer's later orders wait
// behind it, in order, while the other customers' orders keep flowing.
//
//	go run ./examples/fifo
//
// Nothing waits on the wall clock: the program moves the mock clock itself,
// so it finishes at once, and its output is the same on every run.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fifo:", err)
		os.Exit(1)
	}
}

// timeline prints lines stamped with the virtual time since the start.
type timeline struct {
	w     io.Writer
	clk   *clock.Mock
	start time.Time
}

func (l *timeline) say(format string, args ...any) {
	at := "t=" + l.clk.Now().Sub(l.start).String()
	fmt.Fprintf(l.w, "%-7s %s\n", at, fmt.Sprintf(format, args...))
}

// demo is the queue and the actors that use it.
type demo struct {
	ctx context.Context
	l   *timeline
	q   *sqsq.Queue
}

// send enqueues an order for a customer; the customer is the message group,
// so each customer's orders are processed in the order they were placed.
func (d *demo) send(customer, order string) error {
	_, err := d.q.Send(d.ctx, sqsq.SendInput{
		MessageBody:            order,
		MessageGroupId:         customer,
		MessageDeduplicationId: order,
	})
	return err
}

// fastWorker receives up to two orders, processes them at once and deletes
// them, then reports what is left: orders waiting (visible, though alice's
// are blocked) and how long the oldest has waited.
func (d *demo) fastWorker() error {
	msgs, err := d.q.Receive(d.ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 2})
	if err != nil {
		return err
	}
	var got []string
	for _, m := range msgs {
		if err := d.q.Delete(d.ctx, m.ReceiptHandle); err != nil {
			return err
		}
		got = append(got, m.Body)
	}
	s, err := d.q.Stats()
	if err != nil {
		return err
	}
	done := "nothing"
	if len(got) > 0 {
		done = strings.Join(got, ", ")
	}
	d.l.say("fast worker: %-18s | waiting %d (oldest %v), in flight %d, locked groups %d",
		done, s.Visible, s.OldestAvailableAge, s.InFlight, s.LockedGroups)
	return nil
}

func run(w io.Writer) error {
	ctx := context.Background()
	clk := clock.NewMock()
	l := &timeline{w: w, clk: clk, start: clk.Now()}

	b := sqsq.NewBroker(sqsq.WithClock(clk))
	defer b.Close()
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{
		QueueName: "orders.fifo",
		Attributes: sqsq.QueueAttributes{
			FifoQueue:         sqsq.Some(true),
			VisibilityTimeout: sqsq.Some(30 * time.Second),
		},
	})
	if err != nil {
		return err
	}
	d := &demo{ctx: ctx, l: l, q: q}
	l.say("created %s (visibility timeout 30s); customers are message groups", q.Name())

	for _, o := range [][2]string{
		{"alice", "alice-1"}, {"alice", "alice-2"}, {"alice", "alice-3"},
		{"bob", "bob-1"}, {"bob", "bob-2"}, {"carol", "carol-1"}, {"carol", "carol-2"},
	} {
		if err := d.send(o[0], o[1]); err != nil {
			return err
		}
	}
	l.say("sent alice-1..3, bob-1..2, carol-1..2")

	// The slow worker takes alice's first order: a 90-second job, three
	// times the visibility timeout, kept in flight by heartbeats.
	slow, err := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 1})
	if err != nil {
		return err
	}
	head := slow[0]
	l.say("slow worker: took %s, a 90s job; heartbeats every 20s keep it in flight", head.Body)

	for tick := 0; tick <= 100; tick += 10 {
		if tick > 0 {
			clk.Add(10 * time.Second)
		}
		switch tick {
		case 20:
			if err := d.send("bob", "bob-3"); err != nil {
				return err
			}
			l.say("producer: sent bob-3")
		case 30:
			if err := d.send("alice", "alice-4"); err != nil {
				return err
			}
			l.say("producer: sent alice-4 (a send to a locked group does not unlock it)")
		case 50:
			if err := d.send("carol", "carol-3"); err != nil {
				return err
			}
			l.say("producer: sent carol-3")
		}
		if tick > 0 && tick < 90 && tick%20 == 0 {
			if err := q.ChangeVisibility(ctx, head.ReceiptHandle, 30*time.Second); err != nil {
				return err
			}
			l.say("slow worker: heartbeat, %s hidden 30s more", head.Body)
		}
		if tick == 90 {
			if err := q.Delete(ctx, head.ReceiptHandle); err != nil {
				return err
			}
			l.say("slow worker: finished %s and deleted it: alice is unlocked", head.Body)
		}
		if err := d.fastWorker(); err != nil {
			return err
		}
	}

	s, err := q.Stats()
	if err != nil {
		return err
	}
	l.say("done: %d stored, %d received, %d redelivered", s.Visible+s.InFlight+s.Delayed, s.Received, s.Redelivered)
	return nil
}
