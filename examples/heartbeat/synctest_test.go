//go:build go1.25

package main

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sqsq/sqsq/sqsqtest"
)

// The heartbeat as services usually write it — a goroutine on a
// time.Ticker beside the job — needs a testing/synctest bubble: the kit
// then sees every goroutine the handler starts, and the bubble's clock is
// the run's, so the ticker ticks in virtual time.

func init() {
	inBubble = func(t *testing.T, f func()) {
		var stop any
		synctest.Test(t, func(*testing.T) {
			defer func() { stop = recover() }() // rapid's, from a draw: it goes on outside
			f()
		})
		if stop != nil {
			panic(stop)
		}
	}
	bubbleBugs = []version{
		{"no heartbeat (job on the bubble's clock)", Scenario(tickerVersion(NoHeartbeat, JobTime))},
		{"ticker every 30 s, extend to 30 s", Scenario(tickerVersion(Ticker(30*time.Second, 30*time.Second), JobTime))},
		{"ticker going on after a failed extension", Scenario(tickerVersion(TickerGoingOn(10*time.Second, 30*time.Second), JobTime))},
	}
	bubbleTwins = []version{
		{"ticker every 10 s, extend to 30 s", Scenario(tickerVersion(Ticker(10*time.Second, 30*time.Second), JobTime))},
	}
}

// tickerVersion hands the worker a job that takes d of the bubble's clock
// (or ends with ctx).
func tickerVersion(work func(ctx context.Context, l Lease, job Job) error, d time.Duration) Handle {
	job := func(ctx context.Context) error {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return func(ctx context.Context, _ *sqsqtest.Env, l Lease) error { return work(ctx, l, job) }
}

// A ticker every 10 s that extends to 30 s keeps every job with one
// consumer, under rapid-drawn schedules in a bubble.
func TestTickerHeartbeatPasses(t *testing.T) {
	t.Parallel()
	Scenario(tickerVersion(Ticker(10*time.Second, 30*time.Second), JobTime)).Test(t)
}

// The same job without the heartbeat goroutine, with a ticker as slow as
// the visibility timeout (its first tick races the message's return), and
// with a ticker that lets the job go on after a failed extension (two
// throttled extensions in a row, and the message is back), are caught.
func TestTickerBugsAreCaught(t *testing.T) {
	t.Parallel()
	for _, v := range []struct {
		name     string
		handle   Handle
		maxSteps int
	}{
		{"NoHeartbeat", tickerVersion(NoHeartbeat, JobTime), maxShrunkSteps},
		{"TickerAsSlowAsTheTimeout", tickerVersion(Ticker(30*time.Second, 30*time.Second), JobTime), maxShrunkSteps},
		{"TickerGoingOnAfterAFailure", tickerVersion(TickerGoingOn(10*time.Second, 30*time.Second), JobTime), 12},
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				f := Scenario(v.handle).Find(1, 1000)
				if f.Runs == 0 {
					t.Fatal("the concurrent duplicate was not found in 1000 runs")
				}
				if f.Shrunk.Steps > v.maxSteps {
					t.Errorf("shrunk schedule has %d steps, want ≤ %d:\n%v", f.Shrunk.Steps, v.maxSteps, f.Shrunk)
				}
				if !strings.Contains(f.Shrunk.Timeline.String(), "still does") {
					t.Errorf("no concurrent handling in the timeline:\n%v", f.Shrunk)
				}
			})
		})
	}
}
