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
// The service code (consumer.go) knows nothing of the kit. Its usual
// heartbeat is a goroutine on a time.Ticker; the kit runs that only inside
// a testing/synctest bubble (Scenario.Test), so main_test.go and
// synctest_test.go check it there. This program, which has no *testing.T,
// checks the same worker written with a sliced heartbeat — work 10 s,
// extend, repeat — on the kit's clock.
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

// JobTime is how long the work a message asks for takes.
const JobTime = 90 * time.Second

// Handle is one version of the worker, given the message's lease and the
// consumer's kit environment to adapt the service code to.
type Handle func(ctx context.Context, env *sqsqtest.Env, l Lease) error

// Sliced versions take the consumer's env as their Worker: Work(d) lets d
// of the run's clock pass.
func workVersion(work func(ctx context.Context, w Worker, l Lease, job time.Duration) error, job time.Duration) Handle {
	return func(ctx context.Context, env *sqsqtest.Env, l Lease) error { return work(ctx, env, l, job) }
}

// Scenario is the test: two jobs, two consumers, a 30-second visibility
// timeout, every fault but duplicate delivery at 5 %, a 10 % crash chance
// at each step. The invariants: no job handled by two consumers at once,
// and none lost.
func Scenario(handle Handle) sqsqtest.Scenario {
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
			api, url := env.SQS(), env.QueueURL()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				return handle(ctx, env, Lease{API: api, QueueURL: url, ReceiptHandle: m.ReceiptHandle})
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.NoConcurrentProcessing(), sqsqtest.NothingLeft()},
	}
}

// The versions the program checks.
var (
	NoHeartbeatVersion = workVersion(NoHeartbeatWork, JobTime)
	HeartbeatVersion   = workVersion(Sliced(10*time.Second, 30*time.Second), JobTime)
)

// Cap runs one 13-hour job on a queue with a 30-minute visibility timeout,
// with a heartbeat every 10 minutes, on a lucky schedule (no faults),
// and returns the timeline entry where the 12-hour cap stopped it, and the
// real time the run took.
func Cap() (string, time.Duration) {
	s := Scenario(workVersion(Sliced(10*time.Minute, 30*time.Minute), 13*time.Hour))
	s.Messages, s.Consumers, s.Visibility, s.Steps, s.SettleSteps = []string{"reindex"}, 1, 30*time.Minute, 1, 300
	s.Faults, s.Crash, s.Invariants = nil, 0, nil
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

// find searches a version's schedules, seeds 1…runs. The tests share one
// search per version between this program's output and their own checks
// (exampletest.Shared).
var find = func(_ string, s sqsqtest.Scenario, runs int) sqsqtest.Finding { return s.Find(1, runs) }

// runs is how many schedules the program tries on each consumer; its
// golden test tries as many with SQSQ_LONG=1, so both print the same.
const runs = 1000

func run(w io.Writer, runs int) {
	for _, v := range []struct {
		name   string
		handle Handle
	}{{"no heartbeat", NoHeartbeatVersion}, {"heartbeat (work 10 s, extend to 30 s)", HeartbeatVersion}} {
		f := find(v.name, Scenario(v.handle), runs)
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
