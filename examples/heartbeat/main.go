// Command heartbeat shows the sqsqtest kit checking a long job that must
// extend its message's visibility while it works.
//
// A job takes 90 s; the queue hides a received message for 30 s. Without a
// heartbeat the message comes back at 30 s and a second consumer starts the
// same job while the first is still at it: the kit finds that concurrent
// duplicate. With a heartbeat — extend the visibility to 30 s every 10 s,
// and give up the job if an extension fails, because then the lease is in
// doubt — no schedule of crashes, lost responses, failed calls, throttling
// and clock advances makes two consumers work on one job at once. (No
// heartbeat stops an injected duplicate delivery, which standard queues are
// allowed to make; that fault is left out.)
//
// Finally a 13-hour job shows SQS's 12-hour cap: the visibility of one
// receive cannot be extended past 12 hours after it, and the run reaches
// that in virtual time, in well under a millisecond of real time.
//
// Run it with
//
//	go run ./examples/heartbeat
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sqsq/sqsq/sqsqtest"
)

// Lease is the part of a queue a worker uses: *sqsq.Queue and the kit's
// view of the queue under test both have these methods.
type Lease interface {
	Delete(ctx context.Context, receiptHandle string) error
	ChangeVisibility(ctx context.Context, receiptHandle string, timeout time.Duration) error
}

// Worker models the job's time: Work(d) returns after d of processing.
type Worker interface {
	Work(d time.Duration)
}

// Job is the work a message asks for.
const Job = 90 * time.Second

// NoHeartbeat works the whole job, then deletes the message.
func NoHeartbeat(ctx context.Context, w Worker, q Lease, handle string, job time.Duration) error {
	w.Work(job)
	return q.Delete(ctx, handle)
}

// Heartbeat works in 10-second slices and after each extends the message's
// visibility to 30 s from now. If an extension fails it stops: the message
// may already be visible to others.
func Heartbeat(ctx context.Context, w Worker, q Lease, handle string, job time.Duration) error {
	return HeartbeatEvery(10*time.Second, 30*time.Second)(ctx, w, q, handle, job)
}

// HeartbeatEvery returns a consumer that works in slices and extends the
// visibility to extend after each one.
func HeartbeatEvery(slice, extend time.Duration) Consumer {
	return func(ctx context.Context, w Worker, q Lease, handle string, job time.Duration) error {
		for done := time.Duration(0); done < job; done += slice {
			w.Work(min(slice, job-done))
			if done+slice >= job {
				break
			}
			if err := q.ChangeVisibility(ctx, handle, extend); err != nil {
				return fmt.Errorf("lease lost, giving up: %w", err)
			}
		}
		return q.Delete(ctx, handle)
	}
}

// Consumer is the signature both versions share.
type Consumer func(ctx context.Context, w Worker, q Lease, handle string, job time.Duration) error

// Scenario is the test: two jobs, two consumers, a 30-second visibility
// timeout, every fault but duplicate delivery at 5 %, a 10 % crash chance
// at each step. The invariants: no job handled by two consumers at once,
// and none lost.
func Scenario(consume Consumer, job time.Duration) sqsqtest.Scenario {
	faults := sqsqtest.AllFaults(5)
	delete(faults, sqsqtest.Duplicate)
	return sqsqtest.Scenario{
		Messages:   []string{"render-1", "render-2"},
		Consumers:  2,
		Visibility: 30 * time.Second,
		Faults:     faults,
		Crash:      10,
		Steps:      60,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				return consume(ctx, env, q, m.ReceiptHandle, job)
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.NoConcurrentDelivery(), sqsqtest.NoneLost()},
	}
}

// Cap runs one 13-hour job on a queue with a 30-minute visibility timeout,
// with a heartbeat every 10 minutes, on a lucky schedule (no faults),
// and returns the timeline entry where the 12-hour cap stopped it, and the
// real time the run took.
func Cap() (string, time.Duration) {
	s := sqsqtest.Scenario{
		Messages:    []string{"reindex"},
		Consumers:   1,
		Visibility:  30 * time.Minute,
		Steps:       1,
		SettleSteps: 300,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				return HeartbeatEvery(10*time.Minute, 30*time.Minute)(ctx, env, q, m.ReceiptHandle, 13*time.Hour)
			}
		},
	}
	start := time.Now()
	o := s.Run(sqsqtest.Lucky())
	took := time.Since(start)
	for _, e := range o.Timeline {
		if strings.Contains(e.Text, "InvalidParameterValue") {
			return fmt.Sprintf("t=%v %s", e.At, e.Text), took
		}
	}
	return "cap not reached", took
}

// runs is how many schedules the program tries on each consumer; its
// golden test tries as many, so both print the same.
const runs = 2000

func run(w io.Writer, runs int) {
	for _, v := range []struct {
		name    string
		consume Consumer
	}{{"no heartbeat", NoHeartbeat}, {"heartbeat", Heartbeat}} {
		f := Scenario(v.consume, Job).Find(1, runs)
		if f.Runs == 0 {
			fmt.Fprintf(w, "%s: passed %d schedules\n\n", v.name, runs)
			continue
		}
		fmt.Fprintf(w, "%s: caught after %d runs (seed %d), shrunk from %d to %d steps\n%v\n\n",
			v.name, f.Runs, f.Seed, f.First.Steps, f.Shrunk.Steps, f.Shrunk)
	}
	entry, _ := Cap()
	fmt.Fprintf(w, "13-hour job with a heartbeat: %s\n", entry)
}

func main() {
	run(os.Stdout, runs)
	_, took := Cap()
	fmt.Printf("(the 13 virtual hours took %v of real time)\n", took)
}
