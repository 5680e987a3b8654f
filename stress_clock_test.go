package sqsq_test

// A stress test of the rule "a mock or virtual clock must never hang the
// broker". Under concurrency a benbjohnson/clock mock fires a timer early,
// late or a second time after a Reset, and a blocking send on a timer
// channel nobody reads then happens under the mock's own lock: every later
// Now() blocks for good. sqsq must not depend on a clock firing each timer
// exactly once. This test runs many receivers, senders, clock advancers,
// move-task starts (each start re-arms the parked receivers) and readers of
// stats at once for a bounded wall time, with a watchdog that turns a hang
// into a failure with a goroutine dump, and then checks that no message was
// lost or delivered twice.
//
// By default each variant runs for stressDefault (1 s in the quick suite, 3 s
// with SQSQ_LONG=1). For a local soak set SQSQ_STRESS to a duration:
//
//	SQSQ_STRESS=10m go test -race -run TestStressClock/mock -timeout 15m .

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/testsize"
)

const (
	stressStall     = 10 * time.Second       // no progress (or a blocked Now) for this long is a hang
	stressReceivers = 8                      // goroutines looping on 1 s long polls
	stressSenders   = 2                      // goroutines sending
	stressBacklog   = 8                      // undelayed messages sent and not yet deleted, at most
	stressAdd       = 500 * time.Millisecond // each mock advance
)

// stressDefault is the run time of each variant in a normal go test: the
// quick suite samples the interleavings, SQSQ_LONG=1 runs three times as
// long.
var stressDefault = time.Duration(testsize.Scale(1, 3)) * time.Second

// stressDuration is how long each variant runs: SQSQ_STRESS if set.
func stressDuration(t *testing.T) time.Duration {
	t.Helper()
	s := os.Getenv("SQSQ_STRESS")
	if s == "" {
		return stressDefault
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		t.Fatalf("SQSQ_STRESS=%q: want a positive duration such as 10m", s)
	}
	return d
}

func TestStressClock(t *testing.T) {
	t.Parallel()
	d := stressDuration(t)
	tests := []struct {
		name      string
		advancers int // goroutines calling clk.Add in a loop; 0: the real clock
		reason    string
	}{
		{name: "mock", advancers: 1,
			reason: "one goroutine advances the mock, as the mock asks; move-task starts re-arm parked receivers between and during advances"},
		{name: "mock_concurrent_adds", advancers: 2,
			reason: "two goroutines call Add at once, the mock's documented misuse: it loses time, can go backwards and fires timers early or twice"},
		{name: "real", advancers: 0,
			reason: "the real clock, the default of NewBroker() and cmd/sqsq"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			t.Logf("%s for %v", tt.reason, d)
			r := setupStress(t, tt.advancers)
			r.run(t, d)
		})
	}
}

// stressRun is the per-variant bundle.
type stressRun struct {
	ctx    context.Context // ends the workers
	stop   context.CancelFunc
	clk    clock.Clock
	mock   *clock.Mock // nil on the real clock
	adders int
	b      *sqsq.Broker
	src    *sqsq.Queue // the queue everyone works on; its RedrivePolicy targets dlq
	dlq    *sqsq.Queue // stays empty; move tasks start on it in a loop

	ticks  chan struct{} // rung without blocking at each advance (mock) or every few ms (real)
	tokens chan struct{} // one per undelayed message sent and not yet deleted

	workers []*stressWorker
	wg      sync.WaitGroup

	mu       sync.Mutex
	finished bool      // the test is returning: goroutines must not report any more
	recv     [][]uint8 // [sender][n]: how many times body "s<sender>-<n>" was received
	unknown  []string  // received bodies nobody sent
	starts   int       // StartMoveTask calls that started a task
}

// stressWorker is one goroutine of the run; progress counts its completed
// steps, for the watchdog.
type stressWorker struct {
	name     string
	progress atomic.Int64
	done     atomic.Bool
}

// setupStress builds a broker on a mock clock (advancers > 0) or the real
// clock, with a dead-letter queue and a source queue redriving to it. A
// message is in flight only from its receive to its delete, microseconds
// and a few mock advances, and waits for a receiver about as briefly; so
// with a visibility timeout of 12 h (86,400 advances) and a retention of 14
// days, a message is received twice or dropped only if sqsq is wrong.
func setupStress(t *testing.T, advancers int) *stressRun {
	t.Helper()
	r := &stressRun{
		adders: advancers,
		ticks:  make(chan struct{}, 1),
		tokens: make(chan struct{}, stressBacklog),
		recv:   make([][]uint8, stressSenders),
	}
	var opts []sqsq.Option
	if advancers > 0 {
		r.mock = clock.NewMock()
		r.mock.Set(epoch)
		opts = append(opts, sqsq.WithClock(r.mock))
	}
	r.b = sqsq.NewBroker(opts...)
	t.Cleanup(func() { _ = r.b.Close() })
	r.clk = r.b.Clock()
	r.ctx, r.stop = context.WithCancel(context.Background())
	t.Cleanup(r.stop)

	var err error
	ctx := context.Background()
	r.dlq, err = r.b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "stress-dlq"})
	if err != nil {
		t.Fatalf("CreateQueue(dlq): %v", err)
	}
	r.src, err = r.b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "stress-src", Attributes: sqsq.QueueAttributes{
		VisibilityTimeout:      sqsq.Some(12 * time.Hour),
		MessageRetentionPeriod: sqsq.Some(14 * 24 * time.Hour),
		RedrivePolicy:          sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: r.dlq.ARN(), MaxReceiveCount: 5}),
	}})
	if err != nil {
		t.Fatalf("CreateQueue(src): %v", err)
	}
	return r
}

// errorf reports a failure from any goroutine and stops the run. Once the
// test is returning it only drops the report: a goroutine the test gave up
// on must not log after the test has completed.
func (r *stressRun) errorf(t *testing.T, format string, args ...any) {
	r.mu.Lock()
	if !r.finished {
		t.Errorf(format, args...)
	}
	r.mu.Unlock()
	r.stop()
}

// goroutine starts a worker named name.
func (r *stressRun) goroutine(name string, f func(w *stressWorker)) {
	w := &stressWorker{name: name}
	r.workers = append(r.workers, w)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer w.done.Store(true)
		f(w)
	}()
}

// run starts every worker and the watchdog, lets them work for d of wall
// time (less if something fails), stops them and checks the queues.
func (r *stressRun) run(t *testing.T, d time.Duration) {
	sent := make([]int64, stressSenders)
	for i := range stressReceivers {
		r.goroutine(fmt.Sprintf("receiver %d", i), func(w *stressWorker) { r.receiver(t, w, i) })
	}
	for i := range stressSenders {
		r.goroutine(fmt.Sprintf("sender %d", i), func(w *stressWorker) { sent[i] = r.sender(t, w, i) })
	}
	for i := range r.adders {
		r.goroutine(fmt.Sprintf("advancer %d", i), func(w *stressWorker) { r.advancer(w) })
	}
	r.goroutine("move-task starter", func(w *stressWorker) { r.mover(t, w) })
	r.goroutine("stats reader", func(w *stressWorker) { r.reader(t, w) })
	if r.mock == nil {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			realTicks(r.ctx, r.ticks)
		}()
	}
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		r.watch(t)
	}()

	start := time.Now()
	wall := time.NewTimer(d)
	select {
	case <-wall.C:
	case <-r.ctx.Done(): // a failure stopped the run
	}
	wall.Stop()
	r.stop()
	<-watchDone
	allDone := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(allDone)
	}()
	stuck := time.NewTimer(stressStall)
	defer stuck.Stop()
	select {
	case <-allDone:
	case <-stuck.C:
		r.mu.Lock()
		r.finished = true
		r.mu.Unlock()
		var running []string
		for _, w := range r.workers {
			if !w.done.Load() {
				running = append(running, w.name)
			}
		}
		clockBlocked := make(chan struct{})
		go func() {
			r.clk.Now()
			close(clockBlocked)
		}()
		nowHangs := "returns"
		select {
		case <-clockBlocked:
		case <-time.After(time.Second):
			nowHangs = "blocks"
		}
		stacks := "(dumped above)"
		if !t.Failed() {
			stacks = allStacks()
		}
		t.Fatalf("sqsq or its clock hangs: %s still running %v after the run stopped; clk.Now() %s; goroutines:\n%s",
			strings.Join(running, ", "), stressStall, nowHangs, stacks)
	}
	r.mu.Lock()
	r.finished = true
	r.mu.Unlock()
	if t.Failed() {
		return
	}
	r.check(t, time.Since(start), sent)
}

// receiver loops on 1 s long polls and deletes what it gets.
func (r *stressRun) receiver(t *testing.T, w *stressWorker, i int) {
	in := sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(time.Second), MaxNumberOfMessages: 1 + i%3}
	for {
		msgs, err := r.src.Receive(r.ctx, in)
		if err != nil {
			if r.ctx.Err() == nil {
				r.errorf(t, "%s: Receive: %v", w.name, err)
			}
			return
		}
		for _, m := range msgs {
			token := r.received(m.Body)
			// Not r.ctx: every message received is deleted, so nothing is
			// left in flight when the run stops.
			if err := r.src.Delete(context.Background(), m.ReceiptHandle); err != nil {
				r.errorf(t, "%s: Delete(%s): %v", w.name, m.Body, err)
				return
			}
			if !token {
				continue
			}
			select {
			case <-r.tokens:
			default:
				r.errorf(t, "%s: deleted %s, one message more than were sent", w.name, m.Body)
				return
			}
		}
		w.progress.Add(1)
	}
}

// received counts a receive of body and reports whether its sender took a
// token for it.
func (r *stressRun) received(body string) (token bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, n, ok := parseStressBody(body)
	if !ok || s >= len(r.recv) || n >= len(r.recv[s]) {
		r.unknown = append(r.unknown, body)
		return false
	}
	if r.recv[s][n] < 255 {
		r.recv[s][n]++
	}
	return !stressDelayed(n)
}

// stressDelayed reports whether the n-th message of a sender is sent with a
// 1 s delay (a deadline on the receivers' timers). Delayed messages take no
// token: they would throttle the senders to 8 messages per second of clock
// time.
func stressDelayed(n int) bool { return n%5 == 4 }

func parseStressBody(body string) (sender, n int, ok bool) {
	a, b, ok := strings.Cut(strings.TrimPrefix(body, "s"), "-")
	if !ok {
		return 0, 0, false
	}
	sender, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	return sender, n, err1 == nil && err2 == nil && sender >= 0 && n >= 0
}

// sender sends "s<i>-<n>" for n = 0, 1, …, every fifth one with a 1 s
// delay. It sends an undelayed message only while fewer than stressBacklog
// of those are undeleted, so that receivers park often. It returns how many
// sends succeeded.
func (r *stressRun) sender(t *testing.T, w *stressWorker, i int) int64 {
	var sent int64
	for n := 0; ; n++ {
		delayed := stressDelayed(n)
		if !delayed {
			select {
			case r.tokens <- struct{}{}:
			case <-r.ctx.Done():
				return sent
			}
		}
		r.mu.Lock()
		r.recv[i] = append(r.recv[i], 0) // before the send: a receiver may get it first
		r.mu.Unlock()
		in := sqsq.SendInput{MessageBody: fmt.Sprintf("s%d-%d", i, n)}
		if delayed {
			in.DelaySeconds = sqsq.Some(time.Second)
		}
		if _, err := r.src.Send(r.ctx, in); err != nil {
			r.mu.Lock()
			r.recv[i] = r.recv[i][:n]
			r.mu.Unlock()
			if !delayed {
				<-r.tokens
			}
			if r.ctx.Err() == nil {
				r.errorf(t, "%s: Send: %v", w.name, err)
			}
			return sent
		}
		sent++
		w.progress.Add(1)
	}
}

// advancer moves the mock clock in a loop.
func (r *stressRun) advancer(w *stressWorker) {
	for r.ctx.Err() == nil {
		r.mock.Add(stressAdd)
		w.progress.Add(1)
		select {
		case r.ticks <- struct{}{}:
		default:
		}
	}
}

// mover starts a move task on the empty dead-letter queue at every tick; a
// start that finds the last task still running fails, which is expected.
// Each start re-arms the parked receivers for the task's first step.
func (r *stressRun) mover(t *testing.T, w *stressWorker) {
	for {
		select {
		case <-r.ticks:
		case <-r.ctx.Done():
			return
		}
		_, err := r.b.StartMoveTask(r.ctx, sqsq.StartMoveTaskInput{SourceArn: r.dlq.ARN()})
		var e *sqsq.Error
		switch {
		case err == nil:
			r.mu.Lock()
			r.starts++
			r.mu.Unlock()
		case errors.As(err, &e) && e.Code == sqsq.CodeInvalidParameterValue && strings.Contains(e.Message, "already a task running"):
		default:
			r.errorf(t, "%s: StartMoveTask: %v", w.name, err)
			return
		}
		w.progress.Add(1)
	}
}

// reader reads both queues' stats in a loop, and the move tasks now and then.
func (r *stressRun) reader(t *testing.T, w *stressWorker) {
	for i := 0; r.ctx.Err() == nil; i++ {
		for _, q := range []*sqsq.Queue{r.src, r.dlq} {
			if _, err := q.Stats(); err != nil {
				r.errorf(t, "%s: Stats(%s): %v", w.name, q.Name(), err)
				return
			}
		}
		if i%16 == 0 {
			if _, err := r.b.ListMoveTasks(r.ctx, r.dlq.ARN(), sqsq.Some(10)); err != nil {
				r.errorf(t, "%s: ListMoveTasks: %v", w.name, err)
				return
			}
		}
		w.progress.Add(1)
	}
}

// watch fails the run, with every goroutine's stack, when a worker makes no
// progress for stressStall or a call to clk.Now() does not return within
// stressStall: the symptoms of a hung clock or broker. It returns when the
// run stops.
func (r *stressRun) watch(t *testing.T) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	last := make([]int64, len(r.workers))
	since := make([]time.Time, len(r.workers))
	for i := range since {
		since[i] = time.Now()
	}
	probe := make(chan struct{}, 1)
	probing := false
	var probeStart time.Time
	for {
		select {
		case <-tick.C:
		case <-r.ctx.Done():
			return
		}
		now := time.Now()
		for i, w := range r.workers {
			if p := w.progress.Load(); p != last[i] {
				last[i], since[i] = p, now
			} else if now.Sub(since[i]) >= stressStall {
				r.errorf(t, "%s made no progress for %v: sqsq or its clock hangs; goroutines:\n%s", w.name, stressStall, allStacks())
				return
			}
		}
		select {
		case <-probe:
			probing = false
		default:
		}
		if !probing {
			probing, probeStart = true, now
			go func() {
				r.clk.Now()
				probe <- struct{}{}
			}()
		} else if now.Sub(probeStart) >= stressStall {
			r.errorf(t, "clk.Now() has not returned for %v: the clock hangs; goroutines:\n%s", stressStall, allStacks())
			return
		}
	}
}

// allStacks is a dump of every goroutine.
func allStacks() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// check verifies conservation once every worker has returned: each message
// sent was received (and then deleted) exactly once or is still stored, and
// the queues' counters agree.
func (r *stressRun) check(t *testing.T, took time.Duration, sent []int64) {
	src, dlq := stats(t, r.src), stats(t, r.dlq)
	var nSent, nRecv, tokens int64
	twice := 0
	for s := range r.recv {
		if int64(len(r.recv[s])) != sent[s] {
			t.Errorf("sender %d: %d bodies recorded, %d sends succeeded", s, len(r.recv[s]), sent[s])
		}
		nSent += sent[s]
		for n, c := range r.recv[s] {
			nRecv += int64(min(c, 1))
			if c == 0 && !stressDelayed(n) {
				tokens++
			}
			if c > 1 {
				if twice++; twice <= 10 {
					t.Errorf("s%d-%d received %d times, want once (12 h visibility)", s, n, c)
				}
			}
		}
	}
	if twice > 10 {
		t.Errorf("… %d messages received more than once in all", twice)
	}
	if len(r.unknown) > 0 {
		t.Errorf("received %d bodies nobody sent, such as %q", len(r.unknown), r.unknown[0])
	}
	stored := int64(src.Visible + src.InFlight + src.Delayed + dlq.Visible + dlq.InFlight + dlq.Delayed)
	if got := nRecv + stored; got != nSent {
		t.Errorf("received %d + still stored %d = %d, want the %d sent (src %+v, dlq %+v)", nRecv, stored, got, nSent, src, dlq)
	}
	if src.InFlight != 0 {
		t.Errorf("%d messages in flight, want 0: every received message was deleted", src.InFlight)
	}
	for _, c := range []struct {
		name      string
		got, want int64
		reason    string
	}{
		{"src Sent", src.Sent, nSent, "every successful send counted"},
		{"src Received", src.Received, nRecv, "each message received once"},
		{"src Deleted", src.Deleted, nRecv, "each received message deleted once, with its only handle"},
		{"src Expired", src.Expired, 0, "no message waits 14 days for a receiver"},
		{"src MovedToDLQ", src.MovedToDLQ, 0, "no message is received 5 times"},
		{"dlq stored", int64(dlq.Visible + dlq.InFlight + dlq.Delayed), 0, "the dead-letter queue stays empty"},
		{"tokens held", int64(len(r.tokens)), tokens, "one token per undelayed message sent and not received"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d\nreason: %s", c.name, c.got, c.want, c.reason)
		}
	}
	_ = r.b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), stressStall)
	defer cancel()
	if err := r.b.WaitIdle(ctx); err != nil {
		t.Errorf("WaitIdle after Close: %v", err)
	}
	var clockMoved time.Duration
	if r.mock != nil {
		clockMoved = r.mock.Now().Sub(epoch)
	}
	t.Logf("%v: sent %d, received and deleted %d, left %d; %d long polls, %d wakeups; %d move tasks started; mock clock moved %v",
		took.Round(time.Millisecond), nSent, nRecv, stored, src.LongPolls, src.LongPollWakeups, r.starts, clockMoved)
}
