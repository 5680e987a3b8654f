package sqsqtest

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/sqsq/sqsq"
)

// Msg is a message handed to a [Handler] or [BatchHandler]: what the SDK
// returns for it, with its system attributes as fields.
type Msg struct {
	MessageId     string
	ReceiptHandle string
	Body          string
	ReceiveCount  int // ApproximateReceiveCount
	// Label names the scenario message (A, B, …); it survives the new
	// MessageId a redrive gives.
	Label string
	// GroupId, DeduplicationId and SequenceNumber are a FIFO message's.
	GroupId, DeduplicationId, SequenceNumber string
	SentAt, FirstReceivedAt                  time.Time
	// Attributes are the message's system attributes (SentTimestamp…), and
	// MessageAttributes those the sender set.
	Attributes        map[string]string
	MessageAttributes map[string]sqsq.MessageAttribute
}

// consumer is one generation of one consumer slot: a crash ends a
// generation and the next one takes the slot.
type consumer struct {
	name      string // c1, c2, …
	slot, gen int
	env       *Env
	envOf     Env // env points here: one allocation, not two

	crashed     atomic.Bool
	fencedCalls atomic.Int64
	ctx         context.Context // ends when the generation crashes or the run ends
	cancel      context.CancelFunc

	// Scheduler side.
	threads      int // goroutines of the engine still running
	busy         bool
	handler      Handler
	batchHandler BatchHandler
	lambda       LambdaHandler
	inHand       []string // labels being handled (kit-owned shapes)
	// The labels of its last receive and, for a per-message consumer, the
	// batch, reused by its next receive (which comes only once it is no
	// longer busy), and the thread function that handles the batch, made
	// once.
	batch      []Msg
	labels     []string
	handleEach func() error

	// Thread side: the message the per-message handler is on (nil for
	// batch and loop consumers, whose goroutines may be on several).
	current atomic.Pointer[Msg]
	// lastEmpty is the world version at which a receive of this consumer
	// came back empty.
	lastEmpty atomic.Uint64
}

// Env is one consumer's view of a run: its queues, the ledger and the
// clock. Each of its operations is a kit call, a step of the schedule: the
// consumer pauses there, other consumers and the clock may move, and it
// may crash there. Its methods may be called from any goroutine of the
// consumer (see the package documentation).
type Env struct {
	r *run
	c *consumer
}

// Name is the consumer's name: c1, c2, …
func (e *Env) Name() string { return e.c.name }

// Now is the run's clock.
func (e *Env) Now() time.Time { return e.r.now() }

// Queue returns the source queue, with the methods of *sqsq.Queue a
// consumer calls; each call is a step.
func (e *Env) Queue() *Queue { return &Queue{e: e, q: e.r.q} }

// QueueURL returns the source queue's URL, for [Env.SQS].
func (e *Env) QueueURL() string { return e.r.q.URL() }

// URL returns the URL of the scenario's queue of that name ([Scenario.Queues],
// or the source queue's or its dead-letter queue's), "" if there is none.
func (e *Env) URL(name string) string {
	if q := e.r.queues[name]; q != nil {
		return q.URL()
	}
	return ""
}

// Commit runs fn as one transaction on the run's [Ledger]: it is a step
// (the consumer may crash before it), then fn runs and its writes, effects
// and suppressions commit atomically unless it returns an error. what
// names the transaction in the timeline; when goroutines of one consumer
// commit at once, give each a distinct what (say, with the order id), so
// that the schedule tells them apart.
func (e *Env) Commit(what string, fn func(tx *Tx) error) error {
	on := e.on()
	cl := e.r.sch.newCall()
	// The scheduler joins the text (see absorb).
	cl.c, cl.prefix, cl.text, cl.suffix = e.c, "commit ", what, on
	if !e.r.sch.park(cl) {
		return ErrCrashed
	}
	tx := &Tx{l: e.r.ledger}
	if err := fn(tx); err != nil {
		e.r.logf("%s %s%s rolled back: %v", e.c.name, what, on, err)
		return err
	}
	tx.apply(e.r.now(), e.c.name)
	var room [16]string // most commits' parts, on the stack
	parts := append(room[:0], e.c.name, " ", what, on)
	sep := ": "
	for _, k := range tx.effects {
		parts = append(parts, sep, k)
		sep = ", "
	}
	for _, k := range tx.suppressed {
		parts = append(parts, sep, "duplicate ", k, " suppressed")
		sep = ", "
	}
	e.r.log(parts...)
	return nil
}

// on is "(A)" when the consumer is on one message, else "".
func (e *Env) on() string {
	if m := e.c.current.Load(); m != nil {
		return inParens(m.Label)
	}
	return ""
}

// inParens is "(" + l + ")", without building it for the labels A to Z
// (the kit builds it at nearly every step).
func inParens(l string) string {
	if len(l) == 1 && l[0] >= 'A' && l[0] <= 'Z' {
		return parenLabels[l[0]-'A']
	}
	return "(" + l + ")"
}

var parenLabels = func() (out [26]string) {
	for i := range out {
		out[i] = "(" + label(i) + ")"
	}
	return out
}()

// Work models d of processing: the consumer sleeps until the clock has
// moved d on. The clock never jumps past the end of a consumer's work, so a
// heartbeat written as "Work(10s); extend" runs on time.
func (e *Env) Work(d time.Duration) {
	if e.step("work", e.r.now().Add(d)) {
		on, l := "", ""
		if m := e.c.current.Load(); m != nil {
			on, l = " on ", m.Label
		}
		n, unit := durationText(d)
		e.r.log(e.c.name, " worked ", n, unit, on, l)
	}
}

// WorkBetween models processing that takes between lo and hi, drawn by the
// schedule (and shrunk towards lo).
func (e *Env) WorkBetween(lo, hi time.Duration) {
	d := lo + e.DrawDuration("work time", hi-lo)
	e.Work(d)
}

// Sleep is time.Sleep on the run's clock: the consumer's goroutine waits
// until the clock has moved d on, which the clock never skips past.
func (e *Env) Sleep(d time.Duration) {
	e.step("sleep", e.r.now().Add(d))
}

// Draw lets the schedule choose among n outcomes of the consumer's own
// (say, whether a downstream call fails): 0 is the lucky one, and rapid
// shrinks towards it. It is a step.
func (e *Env) Draw(label string, n int) int {
	req := &drawRequest{label: label, n: n}
	cl := e.r.sch.newCall()
	cl.c, cl.prefix, cl.text, cl.draw = e.c, "draw ", label, req
	if !e.r.sch.park(cl) {
		return 0
	}
	return req.value
}

// DrawDuration draws a duration in [0, max], from a ladder of round values
// (1 ms, 10 ms, 100 ms, 1 s, 5 s, 30 s, 1 m, 5 m, 30 m, 1 h, 6 h, 1 d, 4 d)
// below max, and max; 0 is the lucky draw.
func (e *Env) DrawDuration(label string, max time.Duration) time.Duration {
	ladder := durationLadder(max)
	return ladder[e.Draw(label, len(ladder))]
}

// Go starts fn in a goroutine of the consumer that the kit counts. Inside
// [Scenario.Test] a plain go statement does as well; elsewhere only
// goroutines started by the kit may call it, and fn starts once the
// calling goroutine has parked at its next kit call (or returned): the
// kit runs its goroutines one at a time there.
func (e *Env) Go(fn func()) {
	// Starting a goroutine is a step too, so that the scheduler counts it
	// before it runs.
	if !e.r.sch.park(&call{c: e.c, text: "go"}) {
		return
	}
	e.r.sch.spawn(e.c, func() error { fn(); return nil })
}

// step parks the consumer's goroutine until the schedule lets it go on,
// not before wake; false means the consumer crashed.
func (e *Env) step(what string, wake time.Time) bool {
	cl := e.r.sch.newCall()
	// The scheduler joins the text (see absorb): a goroutine that is not
	// granted may not write the run's line text.
	cl.c, cl.text, cl.suffix, cl.wake = e.c, what, e.on(), wake
	return e.r.sch.park(cl)
}

// describeDelete and describeExtend name a delete and a visibility change
// of a message by its handle.
func describeDelete(r *run, cl *call) string { return r.deleteText(cl.handle) }

func describeExtend(r *run, cl *call) string {
	n, unit := durationText(cl.span)
	return r.extendText(cl.handle, n, unit)
}

// deleteText and extendText are the timeline's "delete(A)" and
// "extend(A, 30s)", for both the kit's Queue and its SDK-shaped client.
func (r *run) deleteText(handle string) string {
	return r.text.join("delete(", r.labelOf(handle), ")")
}

func (r *run) extendText(handle, n, unit string) string {
	return r.text.join("extend(", r.labelOf(handle), ", ", n, unit, ")")
}

// durationText is d.String() in two parts, without building a string for
// whole seconds under a minute (most of the kit's durations): "30", "s".
func durationText(d time.Duration) (string, string) {
	if d%time.Second == 0 && d >= 0 && d < time.Minute {
		return strconv.Itoa(int(d / time.Second)), "s"
	}
	return d.String(), ""
}

// durationLadder is 0, the round values below max, and max.
func durationLadder(max time.Duration) []time.Duration {
	out := []time.Duration{0}
	for _, d := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond, time.Second,
		5 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute, 30 * time.Minute, time.Hour, 6 * time.Hour,
		24 * time.Hour, 4 * 24 * time.Hour} {
		if d < max {
			out = append(out, d)
		}
	}
	if max > 0 {
		out = append(out, max)
	}
	return out
}

// Queue is a queue as a consumer's code sees it; its methods have the
// signatures of [sqsq.Queue]'s, so consumer code written against an
// interface of them takes it unchanged. Each call is a step.
type Queue struct {
	e *Env
	q *sqsq.Queue
}

// Delete deletes a message ([sqsq.Queue.Delete]) as one step.
func (q *Queue) Delete(ctx context.Context, receiptHandle string) error {
	cl := q.e.r.sch.newCall()
	cl.c, cl.handle, cl.describe = q.e.c, receiptHandle, describeDelete
	if !q.e.r.sch.park(cl) {
		return ErrCrashed
	}
	err := q.q.Delete(ctx, receiptHandle)
	q.e.r.logCall(q.e.c, cl.text, err)
	return err
}

// ChangeVisibility changes a message's visibility
// ([sqsq.Queue.ChangeVisibility]) as one step.
func (q *Queue) ChangeVisibility(ctx context.Context, receiptHandle string, timeout time.Duration) error {
	cl := q.e.r.sch.newCall()
	cl.c, cl.handle, cl.span, cl.describe = q.e.c, receiptHandle, timeout, describeExtend
	if !q.e.r.sch.park(cl) {
		return ErrCrashed
	}
	err := q.q.ChangeVisibility(ctx, receiptHandle, timeout)
	q.e.r.logCall(q.e.c, cl.text, err)
	return err
}
