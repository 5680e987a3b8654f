package sqsq

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

// lockCheckClock is a mock clock that, while held is set, checks at every
// read that the locks held names are held: the instant of an operation must
// be read under the lock that orders it against the changes it judges, or
// a change made after the read but before the lock is judged as if it were
// in the operation's future. Reads by syncTasks are exempt: it only bounds
// which move-task steps are due, and each step runs as of its own instant.
// The tests using it run on one goroutine, so a lock that cannot be taken
// is held by the reader.
type lockCheckClock struct {
	*clock.Mock
	mu       sync.Mutex
	held     func() bool // nil: no check
	reads    int         // checked reads
	unlocked []string    // the callers of the reads made without the locks
}

func (c *lockCheckClock) Now() time.Time {
	c.mu.Lock()
	held := c.held
	c.mu.Unlock()
	if held != nil && !onStack(".(*Broker).syncTasks") {
		ok := held()
		c.mu.Lock()
		c.reads++
		if !ok {
			c.unlocked = append(c.unlocked, callerOfNow())
		}
		c.mu.Unlock()
	}
	return c.Mock.Now()
}

func (c *lockCheckClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c *lockCheckClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

// check starts checking reads against held; it returns a func that stops
// and reports the checked reads and the callers of those made unlocked.
func (c *lockCheckClock) check(held func() bool) func() (int, []string) {
	c.mu.Lock()
	c.held, c.reads, c.unlocked = held, 0, nil
	c.mu.Unlock()
	return func() (int, []string) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.held = nil
		return c.reads, c.unlocked
	}
}

// allHeld reports whether every one of mus is locked.
func allHeld(mus ...*sync.Mutex) func() bool {
	return func() bool {
		for _, mu := range mus {
			if mu.TryLock() {
				mu.Unlock()
				return false
			}
		}
		return true
	}
}

// anyHeld reports whether one of mus is locked.
func anyHeld(mus ...*sync.Mutex) func() bool {
	return func() bool {
		for _, mu := range mus {
			if !mu.TryLock() {
				return true
			}
			mu.Unlock()
		}
		return false
	}
}

func onStack(suffix string) bool {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, suffix) {
			return true
		}
		if !more {
			return false
		}
	}
}

// callerOfNow names the function that read the clock.
func callerOfNow() string {
	pcs := make([]uintptr, 8)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if !strings.Contains(f.Function, "lockCheckClock") {
			return f.Function
		}
		if !more {
			return "?"
		}
	}
}

// instantFixture is a broker on a lockCheckClock with a plain queue, and a
// source queue whose dead-letter queue holds a message, with a move task
// running on it.
type instantFixture struct {
	ctx        context.Context
	clk        *lockCheckClock
	b          *Broker
	plain, src *Queue
	dlq        *Queue
	receipt    string // of a message of plain, in flight
	task       *moveTask
}

func setupInstant(t *testing.T) *instantFixture {
	t.Helper()
	ctx := context.Background()
	clk := &lockCheckClock{Mock: clock.NewMock()}
	clk.Set(time.Date(2024, time.March, 1, 12, 0, 0, 0, time.UTC))
	b := NewBroker(WithClock(clk))
	t.Cleanup(func() { _ = b.Close() })
	f := &instantFixture{ctx: ctx, clk: clk, b: b}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var err error
	f.plain, err = b.CreateQueue(ctx, CreateQueueInput{QueueName: "plain"})
	must(err)
	f.dlq, err = b.CreateQueue(ctx, CreateQueueInput{QueueName: "dlq"})
	must(err)
	f.src, err = b.CreateQueue(ctx, CreateQueueInput{QueueName: "src", Attributes: QueueAttributes{
		RedrivePolicy: Some(&RedrivePolicy{DeadLetterTargetArn: f.dlq.ARN(), MaxReceiveCount: 1})}})
	must(err)
	for _, q := range []*Queue{f.plain, f.plain, f.src, f.src} {
		_, err = q.Send(ctx, SendInput{MessageBody: "m"})
		must(err)
	}
	msgs, err := f.plain.Receive(ctx, ReceiveInput{})
	must(err)
	f.receipt = msgs[0].ReceiptHandle
	// Receive one src message twice, with visibility 0: the second receive
	// moves it to the dead-letter queue.
	for i := 0; i < 2; i++ {
		_, err = f.src.Receive(ctx, ReceiveInput{MaxNumberOfMessages: 1, VisibilityTimeout: Some(time.Duration(0))})
		must(err)
	}
	return f
}

func TestInstantIsReadUnderTheLock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// held are the locks that must be held at each read of the clock.
		held func(f *instantFixture) func() bool
		op   func(f *instantFixture) error
	}{
		{"Purge",
			func(f *instantFixture) func() bool { return allHeld(&f.plain.mu.Mutex) },
			func(f *instantFixture) error { return f.plain.Purge(f.ctx) }},
		{"Send",
			func(f *instantFixture) func() bool { return allHeld(&f.plain.mu.Mutex) },
			func(f *instantFixture) error { _, err := f.plain.Send(f.ctx, SendInput{MessageBody: "x"}); return err }},
		{"Receive",
			func(f *instantFixture) func() bool { return allHeld(&f.plain.mu.Mutex) },
			func(f *instantFixture) error { _, err := f.plain.Receive(f.ctx, ReceiveInput{}); return err }},
		{"Receive from a queue with a dead-letter queue",
			func(f *instantFixture) func() bool { return allHeld(&f.src.mu.Mutex, &f.dlq.mu.Mutex) },
			func(f *instantFixture) error { _, err := f.src.Receive(f.ctx, ReceiveInput{}); return err }},
		{"ChangeVisibility",
			func(f *instantFixture) func() bool { return allHeld(&f.plain.mu.Mutex) },
			func(f *instantFixture) error { return f.plain.ChangeVisibility(f.ctx, f.receipt, time.Minute) }},
		{"Delete",
			func(f *instantFixture) func() bool { return allHeld(&f.plain.mu.Mutex) },
			func(f *instantFixture) error { return f.plain.Delete(f.ctx, f.receipt) }},
		{"Stats",
			func(f *instantFixture) func() bool { return allHeld(&f.plain.mu.Mutex) },
			func(f *instantFixture) error { _, err := f.plain.Stats(); return err }},
		{"SetAttributes",
			func(f *instantFixture) func() bool { return allHeld(&f.plain.mu.Mutex) },
			func(f *instantFixture) error {
				return f.plain.SetAttributes(f.ctx, QueueAttributes{VisibilityTimeout: Some(time.Minute)})
			}},
		{"CreateQueue",
			func(f *instantFixture) func() bool { return allHeld(&f.b.mu.Mutex) },
			func(f *instantFixture) error {
				_, err := f.b.CreateQueue(f.ctx, CreateQueueInput{QueueName: "new"})
				return err
			}},
		{"DeleteQueue",
			func(f *instantFixture) func() bool { return allHeld(&f.b.mu.Mutex) },
			func(f *instantFixture) error { return f.b.DeleteQueue(f.ctx, f.plain.URL()) }},
		{"StartMoveTask",
			func(f *instantFixture) func() bool {
				return anyHeld(&f.dlq.mu.Mutex, &f.src.mu.Mutex, &f.plain.mu.Mutex)
			},
			func(f *instantFixture) error {
				_, err := f.b.StartMoveTask(f.ctx, StartMoveTaskInput{SourceArn: f.dlq.ARN()})
				return err
			}},
		{"CancelMoveTask",
			func(f *instantFixture) func() bool {
				f.b.w.mu.Lock()
				task := f.b.w.tasks.bySource[f.dlq.ARN()][0]
				f.b.w.mu.Unlock()
				return allHeld(&task.mu.Mutex)
			},
			func(f *instantFixture) error {
				f.b.w.mu.Lock()
				handle := f.b.w.tasks.bySource[f.dlq.ARN()][0].handle
				f.b.w.mu.Unlock()
				_, err := f.b.CancelMoveTask(f.ctx, handle)
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := setupInstant(t)
			if tt.name == "CancelMoveTask" {
				if _, err := f.b.StartMoveTask(f.ctx, StartMoveTaskInput{SourceArn: f.dlq.ARN()}); err != nil {
					t.Fatal(err)
				}
			}
			stop := f.clk.check(tt.held(f))
			err := tt.op(f)
			reads, unlocked := stop()
			if err != nil {
				t.Fatal(err)
			}
			if reads == 0 {
				t.Fatalf("%s read the clock only in syncTasks, or not at all; the check saw nothing", tt.name)
			}
			if len(unlocked) > 0 {
				t.Errorf("%s read the clock %d times, %d of them without the lock that orders it "+
					"against the changes it judges, in %v", tt.name, reads, len(unlocked), unlocked)
			}
		})
	}
}
