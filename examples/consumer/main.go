// Command consumer runs an SQS worker written against a small interface of
// *sqs.Client methods (consumer.go) on sqsq, through the awssqs adapter, on
// a mock clock: a quick job, a slow job kept invisible by a visibility
// heartbeat, a failing job released and retried, and an idle long poll
// woken by a send. Each line carries the virtual time it happened at.
//
//	go run ./examples/consumer
//
// Nothing waits on the wall clock: the program moves the mock clock itself,
// each step after the consumer has reported the previous one, so it
// finishes at once and prints the same thing every run. In production the
// only change is the client: sqs.NewFromConfig(cfg) instead of
// awssqs.New(broker), and clock.New() for the heartbeat.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		os.Exit(1)
	}
}

// story prints lines stamped with the virtual time since the start. The
// consumer's lines come through a channel, and only run prints, so the
// output follows the order of events.
type story struct {
	w       io.Writer
	clk     *clock.Mock
	start   time.Time
	lines   chan string
	stopped chan error // the consumer's Run returned
}

func (s *story) stamp(format string, args ...any) string {
	return fmt.Sprintf("%-8s %s", "t="+s.clk.Now().Sub(s.start).String(), fmt.Sprintf(format, args...))
}

// say prints a line of the program's own.
func (s *story) say(format string, args ...any) { fmt.Fprintln(s.w, s.stamp(format, args...)) }

// logf is the consumer's Logf: it hands the line to run.
func (s *story) logf(format string, args ...any) { s.lines <- s.stamp("consumer: "+format, args...) }

// until prints the consumer's lines up to the first that contains each of
// substrs in turn. It fails if the consumer stops first.
func (s *story) until(substrs ...string) error {
	for _, substr := range substrs {
		for {
			select {
			case line := <-s.lines:
				fmt.Fprintln(s.w, line)
				if !strings.Contains(line, substr) {
					continue
				}
			case err := <-s.stopped:
				return fmt.Errorf("the consumer stopped before %q: %w", substr, err)
			}
			break
		}
	}
	return nil
}

// advance moves the mock clock and says so.
func (s *story) advance(d time.Duration) {
	s.clk.Add(d)
	s.say("... %v pass", d)
}

// jobs is the consumer's Handle: encoding takes 70 s of clock time, an
// upload fails on its first delivery, anything else is quick.
func jobs(clk clock.Clock, logf func(string, ...any)) func(context.Context, types.Message) error {
	return func(ctx context.Context, m types.Message) error {
		body := aws.ToString(m.Body)
		switch {
		case strings.HasPrefix(body, "encode"):
			done := clk.After(70 * time.Second)
			logf("working on %q: takes 70s, longer than the 30s visibility timeout", body)
			select {
			case <-done:
			case <-ctx.Done():
				return ctx.Err()
			}
		case strings.HasPrefix(body, "upload") && m.Attributes["ApproximateReceiveCount"] == "1":
			return errors.New("connection reset by peer")
		}
		logf("done with %q", body)
		return nil
	}
}

func run(w io.Writer) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := clock.NewMock()
	s := &story{w: w, clk: clk, start: clk.Now(), lines: make(chan string), stopped: make(chan error, 1)}

	n := 0 // pinned message ids, so the output is the same on every run
	b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithIDFunc(func() string {
		n++
		return fmt.Sprintf("msg-%d", n)
	}))
	defer b.Close()
	client := awssqs.New(b) // production: sqs.NewFromConfig(cfg)

	created, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"),
		Attributes: map[string]string{"VisibilityTimeout": "30"}})
	if err != nil {
		return err
	}
	url := aws.ToString(created.QueueUrl)
	s.say("created queue jobs (visibility timeout 30s)")
	send := func(body string) error {
		out, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)})
		if err == nil {
			s.say("sent %q as %s", body, aws.ToString(out.MessageId))
		}
		return err
	}
	for _, body := range []string{"resize photo.jpg", "encode video.mp4", "upload report.pdf"} {
		if err := send(body); err != nil {
			return err
		}
	}

	c := &Consumer{
		API: client, QueueURL: url, Clock: clk,
		Visibility: 30 * time.Second, Heartbeat: 20 * time.Second,
		Handle: jobs(clk, s.logf), Logf: s.logf,
	}
	go func() { s.stopped <- c.Run(ctx) }()
	q, err := b.GetQueue(ctx, url)
	if err != nil {
		return err
	}
	parked := func() error { // the consumer is waiting in a long poll
		if err := q.WaitForReceivers(ctx, 1); err != nil {
			return err
		}
		s.say("the consumer is long polling")
		return nil
	}

	if err := s.until("deleted msg-1", "working on"); err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		s.advance(20 * time.Second)
		if err := s.until("heartbeat"); err != nil {
			return err
		}
	}
	s.advance(10 * time.Second)
	if err := s.until("deleted msg-2", "releasing", "deleted msg-3"); err != nil {
		return err
	}
	if err := parked(); err != nil {
		return err
	}
	s.advance(20 * time.Second)
	if err := s.until("no message"); err != nil {
		return err
	}
	if err := parked(); err != nil {
		return err
	}
	if err := send("resize photo2.jpg"); err != nil {
		return err
	}
	if err := s.until("deleted msg-4"); err != nil {
		return err
	}
	if err := parked(); err != nil {
		return err
	}
	cancel()
	for {
		select {
		case line := <-s.lines:
			fmt.Fprintln(w, line)
		case err := <-s.stopped:
			s.say("stopped the consumer: %v", err)
			if !errors.Is(err, context.Canceled) {
				return err
			}
			return nil
		}
	}
}
