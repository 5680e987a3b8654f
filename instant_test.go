package sqsq_test

// Tests of the rule "an operation is judged at an instant read while it
// holds the lock that orders it against the changes it judges": the instants
// of the operations on one queue (or on the queue table) never run backwards
// in the order the operations take effect, so no rule sees a change that
// happens after its own instant.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// instantCalls is how many operations each goroutine of
// TestDisabledRulesUnderConcurrency makes.
const instantCalls = 20000

func TestDisabledRulesUnderConcurrency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		clock  string
		reason string
	}{
		{name: "real", clock: "real", reason: "the real clock moves between every two reads"},
		{name: "mock", clock: "mock", reason: "a goroutine advances the mock while the operations run"},
		{name: "ticking", clock: "ticking", reason: "every read of the clock is a nanosecond after the one before, " +
			"so an operation that reads the clock and then waits for a lock is always overtaken in time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var clk clock.Clock = clock.New()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var advancer sync.WaitGroup
			switch tt.clock {
			case "ticking":
				clk = newTickingClock()
			case "mock":
				mock := clock.NewMock()
				mock.Set(epoch)
				clk = mock
				advancer.Add(1)
				go func() { // the only goroutine that moves the mock, as it asks
					defer advancer.Done()
					for ctx.Err() == nil {
						mock.Add(time.Millisecond)
					}
				}()
			}
			counts := churn(t, sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithPurgeInterval(0), sqsq.WithRecreateDelay(0)))
			cancel()
			advancer.Wait()
			t.Logf("%s; calls by outcome: %v", tt.reason, counts)
			wantOnlySuccessOrGone(t, counts, "with WithPurgeInterval(0) and WithRecreateDelay(0) only success and "+
				"QueueDoesNotExist are possible: 0 disables the rule, and no call may be judged at an instant "+
				"before a change already made")
		})
	}
}

// TestInstantsAreMonotoneUnderConcurrency runs the churn on a clock that
// moves 1 ns at every read, with 1 ns rules. An operation that reads its
// instant under the lock it is ordered by always reads a later instant
// than every change made before it took that lock, so a 1 ns window has
// always passed; only a call judged at an instant read before it waited
// for the lock can be refused.
func TestInstantsAreMonotoneUnderConcurrency(t *testing.T) {
	t.Parallel()
	b := sqsq.NewBroker(sqsq.WithClock(newTickingClock()),
		sqsq.WithPurgeInterval(time.Nanosecond), sqsq.WithRecreateDelay(time.Nanosecond))
	counts := churn(t, b)
	t.Logf("calls by outcome: %v", counts)
	wantOnlySuccessOrGone(t, counts, "a 1 ns window always ends before the next operation's instant, "+
		"when instants are read under the lock that orders the operations")
}

// TestZeroDisablesTheRule: a window of 0 turns the rule off without
// comparing instants, so even a clock that moved backwards (as a mock does
// under concurrent Adds) cannot trigger it; with the default window it does.
func TestZeroDisablesTheRule(t *testing.T) {
	t.Parallel()
	purgeTwice := func(f *fixture) error {
		if err := f.q.Purge(f.ctx); err != nil {
			return err
		}
		f.clk.Set(epoch.Add(-time.Second))
		return f.q.Purge(f.ctx)
	}
	recreate := func(f *fixture) error {
		if err := f.q.DeleteQueue(f.ctx); err != nil {
			return err
		}
		f.clk.Set(epoch.Add(-time.Second))
		_, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "test-queue"})
		return err
	}
	tests := []struct {
		reason string
		opts   []sqsq.Option
		op     func(*fixture) error
		code   sqsq.Code
	}{
		{"WithPurgeInterval(0): a second purge is fine however the clock moved",
			[]sqsq.Option{sqsq.WithPurgeInterval(0)}, purgeTwice, ""},
		{"the default interval: a purge 1 s before the last one's instant is within 60 s of it",
			nil, purgeTwice, sqsq.CodePurgeQueueInProgress},
		{"WithRecreateDelay(0): the name is free however the clock moved",
			[]sqsq.Option{sqsq.WithRecreateDelay(0)}, recreate, ""},
		{"the default delay: a create 1 s before the delete's instant is within 60 s of it",
			nil, recreate, sqsq.CodeQueueDeletedRecently},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t, tt.opts...)
			wantErr(t, tt.op(f), tt.code, "", tt.reason)
		})
	}
}

// churn runs 4 goroutines that each make instantCalls calls, half of them
// Purge (of the queue the goroutine last saw), a quarter DeleteQueue and a
// quarter CreateQueue of one name; it returns how many calls had each
// outcome ("operation: code", "" for success) and closes b.
func churn(t *testing.T, b *sqsq.Broker) map[string]int {
	t.Helper()
	defer b.Close()
	ctx := context.Background()
	const name = "churn"
	first, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: name})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu     sync.Mutex
		counts = map[string]int{}
		wg     sync.WaitGroup
	)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[string]int{}
			q := first
			for i := 0; i < instantCalls; i++ {
				op, err := "", error(nil)
				switch (g + i) % 4 {
				case 0, 1:
					op = "Purge"
					if err = q.Purge(ctx); errors.Is(err, sqsq.ErrQueueDoesNotExist) {
						if latest, err := b.GetQueue(ctx, name); err == nil {
							q = latest
						}
					}
				case 2:
					op = "DeleteQueue"
					err = b.DeleteQueue(ctx, name)
				case 3:
					op = "CreateQueue"
					var created *sqsq.Queue
					if created, err = b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: name}); err == nil {
						q = created
					}
				}
				local[op+": "+code(err)]++
			}
			mu.Lock()
			for k, n := range local {
				counts[k] += n
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return counts
}

// wantOnlySuccessOrGone fails for every outcome of churn but success and
// QueueDoesNotExist (a Purge or DeleteQueue between a delete and the next
// create).
func wantOnlySuccessOrGone(t *testing.T, counts map[string]int, reason string) {
	t.Helper()
	for k, n := range counts {
		switch k {
		case "Purge: ", "Purge: " + string(sqsq.CodeQueueDoesNotExist),
			"DeleteQueue: ", "DeleteQueue: " + string(sqsq.CodeQueueDoesNotExist),
			"CreateQueue: ":
		default:
			t.Errorf("%d calls got %q\nreason: %s", n, k, reason)
		}
	}
}

// tickingClock is a clock whose every read is 1 ns after the one before. Its
// timers are a mock's that nothing advances.
type tickingClock struct {
	*clock.Mock
	now atomic.Int64
}

func newTickingClock() *tickingClock {
	c := &tickingClock{Mock: clock.NewMock()}
	c.now.Store(epoch.UnixNano())
	return c
}

func (c *tickingClock) Now() time.Time                  { return time.Unix(0, c.now.Add(1)) }
func (c *tickingClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c *tickingClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

// code is err's SQS code, "" for nil, or the error text for any other error.
func code(err error) string {
	if err == nil {
		return ""
	}
	var e *sqsq.Error
	if errors.As(err, &e) {
		return string(e.Code)
	}
	return fmt.Sprintf("not an *sqsq.Error: %v", err)
}
