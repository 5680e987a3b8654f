package sqsqtest

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
)

// Handler is a consumer's message handler, written as ordinary code: it
// gets a received message, performs its effects through [Env.Commit] and
// deletes the message (or extends its visibility) through [Env.Queue] or
// [Env.SQS]. A non-nil error leaves the message in flight, to come back
// when its visibility timeout ends.
type Handler func(ctx context.Context, m Msg) error

// Msg is a message handed to a [Handler].
type Msg struct {
	MessageId     string
	ReceiptHandle string
	Body          string
	ReceiveCount  int // ApproximateReceiveCount
	// Label names the scenario message (A, B, …); it survives the new
	// MessageId a redrive gives.
	Label string
}

// Scenario describes a consumer test: a queue, the messages to send, the
// consumers, the faults and crashes that may happen, and the invariants
// that must hold at the end. [Scenario.Run] plays one schedule drawn from a
// [Source]; [Scenario.Check] (rapid), [Scenario.Seeds] (PRNG) and
// [Scenario.Find] (search and shrink) play many.
//
// A run draws up to Steps actions (and may draw an early end), each among
// those enabled: send the next
// message; step a consumer (an idle one short-polls the queue, a busy one
// resumes its handler to its next effect, delete, visibility change or
// work); advance the clock to the next visibility deadline or end of work;
// redrive the dead-letter queue. At each step of a busy consumer a crash may
// be drawn, which kills it right there: before its effect, between effect
// and delete, after the delete. Consumers are interleaved one step at a time
// in the drawn order, on one goroutine at a time, so a run is a pure
// function of its draws.
//
// Time passes only in clock advances, and only while no busy consumer is
// awake: handler code takes no time except [Env.Work], which the clock never
// skips past. After the drawn steps the run settles: faults and crashes
// stop, unsent messages are sent, the dead-letter queue is redriven and
// consumers run until every message is gone (or a bound is hit). Then the
// invariants are checked.
type Scenario struct {
	// Messages are the bodies to send, distinct; they are labelled A, B, …
	Messages []string
	// Consumers is the number of concurrent consumers (default 2).
	Consumers int
	// Consumer builds one consumer's handler; it is called once per consumer
	// per run, with that consumer's [Env].
	Consumer func(env *Env) Handler
	// Invariants are checked after the run settles.
	Invariants []Invariant

	// Visibility is the queue's visibility timeout (default 30 s).
	Visibility time.Duration
	// MaxReceiveCount > 0 gives the queue a dead-letter queue with that
	// redrive policy.
	MaxReceiveCount int
	// Redrive lets the schedule redrive the dead-letter queue (a move task,
	// which gives each message a new MessageId) before the run settles.
	Redrive bool
	// Batch is MaxNumberOfMessages per receive (default 1).
	Batch int
	// FIFO makes the queues FIFO queues; GroupOf gives a body's message
	// group (default: one group).
	FIFO    bool
	GroupOf func(body string) string

	// Faults are the fault rates of the queue's [Policy].
	Faults Rates
	// Crash is the percent chance of a crash at each step of a busy consumer.
	Crash int
	// Steps bounds the drawn actions of one run (default 40).
	Steps int
	// SettleSteps bounds the actions of the settle phase (default
	// 50·(messages+1)·(MaxReceiveCount+2)); a run that has not settled by
	// then ends with Result.Settled false.
	SettleSteps int
}

// Invariant is a named property checked at the end of every run.
type Invariant struct {
	Name  string
	Check func(r *Result) error
}

// Result is what invariants see at the end of a run.
type Result struct {
	Ledger *Ledger
	// Labels and Bodies of the scenario's messages, in order.
	Labels, Bodies []string
	// Queue and DLQ are the final stats (DLQ is zero without one).
	Queue, DLQ sqsq.Stats
	// Settled reports that the run ended with no message stored and no
	// consumer busy.
	Settled bool
}

// EffectOnce holds when every message's effect, named by keyOf(body), was
// committed exactly once: "every order charged exactly once".
func EffectOnce(keyOf func(body string) string) Invariant {
	return Invariant{Name: "every message's effect committed exactly once", Check: func(r *Result) error {
		for i, body := range r.Bodies {
			if n := r.Ledger.Effects[keyOf(body)]; n != 1 {
				return fmt.Errorf("%s (%s) committed %d times", r.Labels[i], keyOf(body), n)
			}
		}
		return nil
	}}
}

// NoneLost holds when the run settled with every message deleted: none left
// behind in the queue or its dead-letter queue.
func NoneLost() Invariant {
	return Invariant{Name: "no message lost", Check: func(r *Result) error {
		if !r.Settled {
			return fmt.Errorf("did not settle: %d visible, %d in flight, %d in the DLQ",
				r.Queue.Visible, r.Queue.InFlight, r.DLQ.Visible+r.DLQ.InFlight)
		}
		return nil
	}}
}

// NoConcurrentDelivery holds when no message was handed to a consumer while
// another live consumer was still handling it.
func NoConcurrentDelivery() Invariant {
	return Invariant{Name: "no message handled by two consumers at once", Check: func(r *Result) error {
		if r.Ledger.Concurrent > 0 {
			return fmt.Errorf("%d concurrent deliveries", r.Ledger.Concurrent)
		}
		return nil
	}}
}

// Outcome is the result of one run.
type Outcome struct {
	// Err is the first invariant that failed, nil if all held.
	Err error
	// Timeline is everything that happened, in order.
	Timeline Timeline
	// Steps is the number of drawn actions (the settle phase not counted).
	Steps  int
	Ledger *Ledger
	// History has every message's history, by MessageId.
	History *Recorder
}

func (o *Outcome) String() string {
	if o.Err == nil {
		return fmt.Sprintf("passed after %d steps:\n%v", o.Steps, o.Timeline)
	}
	return fmt.Sprintf("invariant failed: %v\nschedule (%d steps):\n%v", o.Err, o.Steps, o.Timeline)
}

const maxPrinted = 40

// Entry is one line of a [Timeline].
type Entry struct {
	At   time.Duration // since the run started
	Text string
}

// Timeline is a run's events in order, printed as
// "t=0s receive(A) by c1 → t=30s visibility expired(A) → …", one per line,
// the first 40 of them.
type Timeline []Entry

func (tl Timeline) String() string {
	var b strings.Builder
	for i, e := range tl {
		if i == maxPrinted {
			fmt.Fprintf(&b, "\n→ … %d more", len(tl)-i)
			break
		}
		if i > 0 {
			b.WriteString("\n→ ")
		} else {
			b.WriteString("  ")
		}
		fmt.Fprintf(&b, "t=%v %s", e.At, e.Text)
	}
	return b.String()
}

// Env is one consumer's view of a run: the queue, the ledger and the clock.
// Each of its operations is a step of the schedule: the consumer pauses
// there, other consumers and the clock may move, and it may crash there.
type Env struct {
	r *run
	c *consumer
}

// Name is the consumer's name: c1, c2, …
func (e *Env) Name() string { return e.c.name }

// Now is the run's clock.
func (e *Env) Now() time.Time { return e.r.clk.Now() }

// Queue returns the queue under test, with the methods of *sqsq.Queue a
// consumer calls; each call is a step.
func (e *Env) Queue() *Queue { return &Queue{e} }

// QueueURL returns the queue's URL, for [Env.SQS].
func (e *Env) QueueURL() string { return e.r.q.URL() }

// Commit runs fn as one transaction on the run's [Ledger]: it is a step
// (the consumer may crash before it), then fn runs and its writes, effects
// and suppressions commit atomically unless it returns an error. what names
// the transaction in the timeline.
func (e *Env) Commit(what string, fn func(tx *Tx) error) error {
	e.pause("commit " + what)
	tx := &Tx{l: e.r.ledger}
	if err := fn(tx); err != nil {
		e.r.logf("%s %s(%s) rolled back: %v", e.c.name, what, e.c.msg.Label, err)
		return err
	}
	tx.apply()
	var notes []string
	for _, k := range tx.effects {
		notes = append(notes, k)
	}
	for _, k := range tx.suppressed {
		notes = append(notes, "duplicate "+k+" suppressed")
	}
	text := fmt.Sprintf("%s %s(%s)", e.c.name, what, e.c.msg.Label)
	if len(notes) > 0 {
		text += ": " + strings.Join(notes, ", ")
	}
	e.r.log(text)
	return nil
}

// Work models d of processing: the consumer sleeps until the clock has
// moved d on. The clock never jumps past the end of a consumer's work, so a
// heartbeat written as "Work(10s); extend" runs on time.
func (e *Env) Work(d time.Duration) {
	start := e.r.clk.Now()
	e.c.wake = start.Add(d)
	e.pause("work")
	e.c.wake = time.Time{}
	e.r.logf("%s worked %v on %s", e.c.name, d, e.c.msg.Label)
}

type crash struct{}

// pause is a step: it hands control back to the scheduler and returns when
// the consumer is stepped again; it does not return if the consumer crashed.
func (e *Env) pause(what string) {
	e.c.at = what
	if !e.c.yield(what) {
		panic(crash{})
	}
}

// Queue is the queue under test as a handler sees it; its methods have the
// signatures of [sqsq.Queue]'s, so consumer code written against an
// interface of them takes it unchanged.
type Queue struct{ e *Env }

// Delete deletes a message ([sqsq.Queue.Delete]) as one step.
func (q *Queue) Delete(ctx context.Context, receiptHandle string) error {
	q.e.pause("delete")
	err := q.e.r.q.Delete(ctx, receiptHandle)
	q.e.r.logCall(q.e.c, "delete("+q.e.r.labelOf(receiptHandle)+")", err)
	return err
}

// ChangeVisibility changes a message's visibility
// ([sqsq.Queue.ChangeVisibility]) as one step.
func (q *Queue) ChangeVisibility(ctx context.Context, receiptHandle string, timeout time.Duration) error {
	q.e.pause("change visibility")
	err := q.e.r.q.ChangeVisibility(ctx, receiptHandle, timeout)
	q.e.r.logCall(q.e.c, fmt.Sprintf("extend(%s, %v)", q.e.r.labelOf(receiptHandle), timeout), err)
	return err
}

type consumer struct {
	name    string
	env     *Env
	handler Handler
	busy    bool
	msg     Msg
	batch   []Msg
	next    func() (string, bool)
	stop    func()
	yield   func(string) bool
	at      string    // the step the handler is paused before
	wake    time.Time // end of the current Work; zero when awake
	err     error
}

// run is one play of a scenario.
type run struct {
	s      *Scenario
	src    Source
	pol    *Policy
	clk    *fastClock
	b      *sqsq.Broker
	q, dlq *sqsq.Queue
	client *awssqs.Client // made on first use by SQS
	ctx    context.Context
	ledger *Ledger
	rec    *Recorder
	cs     []*consumer

	labels    map[string]string    // body → label
	handles   map[string]string    // receipt handle → label
	deadlines map[string]time.Time // MessageId → end of its visibility
	idLabel   map[string]string    // MessageId → label
	inDLQ     []string             // labels in the DLQ, in order
	sent      int
	tl        Timeline
	steps     int

	evMu   sync.Mutex
	events []sqsq.Event
}

func (r *run) Observe(e sqsq.Event) {
	r.rec.Observe(e)
	r.evMu.Lock()
	r.events = append(r.events, e)
	r.evMu.Unlock()
}

// Run plays one schedule drawn from src and returns what happened. It is
// deterministic: the same draws give the same outcome.
func (s Scenario) Run(src Source) *Outcome {
	s.defaults()
	r := &run{
		s: &s, src: src, clk: newFastClock(), ctx: context.Background(), ledger: newLedger(), rec: NewRecorder(),
		labels: map[string]string{}, handles: map[string]string{}, deadlines: map[string]time.Time{}, idLabel: map[string]string{},
	}
	r.pol = NewPolicy(src, s.Faults)
	n := 0
	ids := func() string { n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }
	r.b = sqsq.NewBroker(sqsq.WithClock(r.clk), sqsq.WithFaults(r.pol), sqsq.WithObserver(r), sqsq.WithIDFunc(ids))
	defer r.b.Close()
	if err := r.setup(); err != nil {
		return &Outcome{Err: err, Ledger: r.ledger, History: r.rec}
	}
	for i := 0; i < s.Consumers; i++ {
		c := &consumer{name: "c" + strconv.Itoa(i+1)}
		c.env = &Env{r: r, c: c}
		c.handler = s.Consumer(c.env)
		r.cs = append(r.cs, c)
	}
	defer r.stopAll()

	for r.steps < s.Steps {
		acts := r.enabled(true)
		// Draw 0 ends the schedule (1 in 20 with a PRNG), so a shrinker's
		// trailing zeros cut the schedule short and settle does the rest.
		if len(acts) == 0 || r.src.Draw("go on", 20) == 0 {
			break
		}
		a := acts[r.src.Draw("action", len(acts))]
		r.steps++
		r.do(a, true)
	}
	r.pol.SetEnabled(false)
	r.log("settle: faults and crashes off")
	settled := r.settle()
	res := &Result{Ledger: r.ledger, Bodies: s.Messages, Settled: settled}
	for i := range s.Messages {
		res.Labels = append(res.Labels, label(i))
	}
	res.Queue, _ = r.q.Stats()
	if r.dlq != nil {
		res.DLQ, _ = r.dlq.Stats()
	}
	out := &Outcome{Timeline: r.tl, Steps: r.steps, Ledger: r.ledger, History: r.rec}
	for _, inv := range s.Invariants {
		if err := inv.Check(res); err != nil {
			out.Err = fmt.Errorf("%s: %w", inv.Name, err)
			break
		}
	}
	return out
}

func (s *Scenario) defaults() {
	if s.Consumers <= 0 {
		s.Consumers = 2
	}
	if s.Visibility <= 0 {
		s.Visibility = 30 * time.Second
	}
	if s.Batch <= 0 {
		s.Batch = 1
	}
	if s.Steps <= 0 {
		s.Steps = 40
	}
	if s.SettleSteps <= 0 {
		s.SettleSteps = 50 * (len(s.Messages) + 1) * (s.MaxReceiveCount + 2)
	}
	if s.GroupOf == nil {
		s.GroupOf = func(string) string { return "g" }
	}
}

func label(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return "M" + strconv.Itoa(i)
}

func (r *run) setup() error {
	for i, body := range r.s.Messages {
		if _, dup := r.labels[body]; dup {
			return fmt.Errorf("sqsqtest: scenario messages must be distinct; %q repeats", body)
		}
		r.labels[body] = label(i)
	}
	if r.s.Consumer == nil {
		return errors.New("sqsqtest: scenario has no Consumer")
	}
	name := "queue"
	attrs := sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(r.s.Visibility)}
	suffix := ""
	if r.s.FIFO {
		suffix = ".fifo"
		attrs.FifoQueue = sqsq.Some(true)
	}
	if r.s.MaxReceiveCount > 0 {
		dattrs := sqsq.QueueAttributes{}
		if r.s.FIFO {
			dattrs.FifoQueue = sqsq.Some(true)
		}
		dlq, err := r.b.CreateQueue(r.ctx, sqsq.CreateQueueInput{QueueName: name + "-dlq" + suffix, Attributes: dattrs})
		if err != nil {
			return err
		}
		r.dlq = dlq
		attrs.RedrivePolicy = sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: r.s.MaxReceiveCount})
	}
	q, err := r.b.CreateQueue(r.ctx, sqsq.CreateQueueInput{QueueName: name + suffix, Attributes: attrs})
	r.q = q
	return err
}

func (r *run) now() time.Duration { return r.clk.Now().Sub(Epoch) }

func (r *run) log(text string) { r.tl = append(r.tl, Entry{At: r.now(), Text: text}) }

func (r *run) logf(format string, args ...any) { r.log(fmt.Sprintf(format, args...)) }

// logCall logs a consumer's call with its outcome and any injected fault.
func (r *run) logCall(c *consumer, call string, err error) {
	r.evMu.Lock()
	stale := false
	for _, e := range r.events {
		stale = stale || e.Kind == sqsq.EventDeleted && e.Applied && !e.Removed
	}
	r.evMu.Unlock()
	r.process()
	text := c.name + " " + call
	if err != nil {
		text += ": " + errText(err)
	}
	if stale {
		text += " (stale handle: nothing deleted)"
	}
	r.log(text + r.faultNotes())
}

func errText(err error) string {
	if e, ok := awssqs.CoreError(err); ok {
		return string(e.Code)
	}
	var e *sqsq.Error
	if errors.As(err, &e) {
		return string(e.Code)
	}
	return err.Error()
}

func (r *run) faultNotes() string {
	var notes []string
	for _, in := range r.pol.takeNew() {
		notes = append(notes, in.Fault.String())
	}
	if len(notes) == 0 {
		return ""
	}
	return " [" + strings.Join(notes, ", ") + "]"
}

func (r *run) labelOf(handle string) string {
	if l, ok := r.handles[handle]; ok {
		return l
	}
	return "?"
}

// process applies the observer's events to the run's bookkeeping.
func (r *run) process() {
	r.evMu.Lock()
	evs := r.events
	r.events = nil
	r.evMu.Unlock()
	for _, e := range evs {
		l := r.labels[e.Body]
		if e.MessageID != "" {
			r.idLabel[e.MessageID] = l
		}
		switch e.Kind {
		case sqsq.EventReceived:
			r.handles[e.ReceiptHandle] = l
			if e.Timeout > 0 {
				r.deadlines[e.MessageID] = e.At.Add(e.Timeout)
			} else {
				delete(r.deadlines, e.MessageID)
			}
		case sqsq.EventVisibilityChanged:
			if _, tracked := r.deadlines[e.MessageID]; tracked && e.Applied {
				if e.Timeout > 0 {
					r.deadlines[e.MessageID] = e.At.Add(e.Timeout)
				} else {
					delete(r.deadlines, e.MessageID)
					r.logf("%s visible again", l)
				}
			}
		case sqsq.EventDeleted:
			if e.Removed {
				delete(r.deadlines, e.MessageID)
			}
		case sqsq.EventDeadLettered:
			delete(r.deadlines, e.MessageID)
			r.ledger.MovedToDLQ++
			r.inDLQ = append(r.inDLQ, l)
			r.logf("%s moved to DLQ after %d receives", l, e.ReceiveCount)
		}
	}
	if s, err := r.q.Stats(); err == nil && s.OldestAge > r.ledger.OldestAge {
		r.ledger.OldestAge = s.OldestAge
	}
}

// action kinds.
const (
	actSend = iota
	actStep
	actAdvance
	actRedrive
)

type action struct {
	kind int
	c    *consumer
}

// enabled lists the actions possible now, in a fixed order (so draw 0 is
// the lucky, boring choice: send, then the first consumer).
func (r *run) enabled(drawn bool) []action {
	var acts []action
	if r.sent < len(r.s.Messages) {
		acts = append(acts, action{kind: actSend})
	}
	st, _ := r.q.Stats()
	now := r.clk.Now()
	awake := false
	for _, c := range r.cs {
		switch {
		case c.busy && !c.wake.After(now):
			awake = true
			acts = append(acts, action{kind: actStep, c: c})
		case !c.busy && (st.Visible > 0 || drawn && st.InFlight > 0 && r.s.Faults[Duplicate] > 0):
			acts = append(acts, action{kind: actStep, c: c})
		}
	}
	if awake {
		return acts
	}
	if _, ok := r.nextInstant(); ok {
		acts = append(acts, action{kind: actAdvance})
	}
	if r.dlq != nil && (r.s.Redrive || !drawn) {
		if ds, _ := r.dlq.Stats(); ds.Visible > 0 {
			acts = append(acts, action{kind: actRedrive})
		}
	}
	return acts
}

// nextInstant is the earliest future visibility deadline or end of work.
func (r *run) nextInstant() (time.Time, bool) {
	now := r.clk.Now()
	var next time.Time
	for _, d := range r.deadlines {
		if d.After(now) && (next.IsZero() || d.Before(next)) {
			next = d
		}
	}
	for _, c := range r.cs {
		if c.busy && c.wake.After(now) && (next.IsZero() || c.wake.Before(next)) {
			next = c.wake
		}
	}
	return next, !next.IsZero()
}

func (r *run) do(a action, drawn bool) {
	switch a.kind {
	case actSend:
		r.send()
	case actAdvance:
		next, _ := r.nextInstant()
		r.advanceTo(next)
	case actRedrive:
		r.redrive()
	case actStep:
		c := a.c
		if !c.busy {
			r.receive(c)
			return
		}
		if drawn && chance(r.src, "crash "+c.name, r.s.Crash) {
			r.logf("%s crashed before %s(%s)", c.name, c.at, c.msg.Label)
			r.kill(c)
			return
		}
		r.resume(c)
	}
}

func (r *run) send() {
	body := r.s.Messages[r.sent]
	in := sqsq.SendInput{MessageBody: body}
	if r.s.FIFO {
		in.MessageGroupId = r.s.GroupOf(body)
		in.MessageDeduplicationId = r.labels[body]
	}
	r.sent++
	_, err := r.q.Send(r.ctx, in)
	text := "send(" + r.labels[body] + ")"
	if err != nil {
		text += ": " + errText(err)
	}
	r.log(text)
	r.process()
}

func (r *run) advanceTo(t time.Time) {
	r.clk.set(t)
	now := r.clk.Now()
	type exp struct {
		at time.Time
		l  string
	}
	var due []exp
	for id, d := range r.deadlines {
		if !d.After(now) {
			due = append(due, exp{d, r.idLabel[id]})
			delete(r.deadlines, id)
		}
	}
	sort.Slice(due, func(i, j int) bool {
		if !due[i].at.Equal(due[j].at) {
			return due[i].at.Before(due[j].at)
		}
		return due[i].l < due[j].l
	})
	for _, d := range due {
		r.tl = append(r.tl, Entry{At: d.at.Sub(Epoch), Text: "visibility expired(" + d.l + ")"})
	}
	r.process()
}

// redrive moves the DLQ's messages back to the queue with a move task,
// which gives each a new MessageId, and runs the task to its end.
func (r *run) redrive() {
	ds, _ := r.dlq.Stats()
	_, err := r.b.StartMoveTask(r.ctx, sqsq.StartMoveTaskInput{SourceArn: r.dlq.ARN()})
	if err != nil {
		r.logf("redrive: %s", errText(err))
		return
	}
	labels := r.inDLQ
	r.inDLQ = nil
	r.ledger.Redriven += ds.Visible
	r.logf("redrive(%s) from DLQ: new MessageIds", strings.Join(labels, ","))
	// 500 messages per second: the n-th moves (n-1)·2 ms after the start.
	r.advanceTo(r.clk.Now().Add(time.Duration(ds.Visible)*2*time.Millisecond + time.Millisecond))
}

func (r *run) receive(c *consumer) {
	msgs, err := r.q.Receive(r.ctx, sqsq.ReceiveInput{
		MaxNumberOfMessages:         r.s.Batch,
		WaitTimeSeconds:             sqsq.Some(time.Duration(0)),
		MessageSystemAttributeNames: []string{sqsq.SysApproximateReceiveCount},
	})
	r.evMu.Lock()
	var got, dups []string
	for _, e := range r.events {
		if e.Kind == sqsq.EventReceived {
			got = append(got, r.labels[e.Body])
			if e.Duplicate {
				dups = append(dups, r.labels[e.Body])
			}
		}
	}
	r.evMu.Unlock()
	r.process()
	notes := r.faultNotes()
	switch {
	case err != nil && len(got) > 0:
		r.logf("receive(%s) by %s: %s, response lost%s", strings.Join(got, ","), c.name, errText(err), notes)
		return
	case err != nil:
		r.logf("receive by %s: %s%s", c.name, errText(err), notes)
		return
	case len(msgs) == 0:
		r.logf("receive by %s: empty%s", c.name, notes)
		return
	}
	var ls []string
	for _, m := range msgs {
		ls = append(ls, r.labels[m.Body])
	}
	r.logf("receive(%s) by %s%s", strings.Join(ls, ","), c.name, notes)
	for _, m := range msgs {
		rc, _ := strconv.Atoi(m.Attributes[sqsq.SysApproximateReceiveCount])
		c.batch = append(c.batch, Msg{MessageId: m.MessageId, ReceiptHandle: m.ReceiptHandle, Body: m.Body, ReceiveCount: rc, Label: r.labels[m.Body]})
	}
	r.startNext(c)
}

// startNext starts the handler on the consumer's next message, if any, and
// runs it to its first step.
func (r *run) startNext(c *consumer) {
	if len(c.batch) == 0 {
		return
	}
	m := c.batch[0]
	c.batch = c.batch[1:]
	r.ledger.Deliveries[m.Label]++
	for _, o := range r.cs {
		if o != c && o.busy && o.msg.Label == m.Label {
			r.ledger.Concurrent++
			r.logf("%s handles %s while %s still does", c.name, m.Label, o.name)
		}
	}
	c.busy, c.msg, c.err, c.wake = true, m, nil, time.Time{}
	c.next, c.stop = iter.Pull(func(yield func(string) bool) {
		c.yield = yield
		defer func() {
			if v := recover(); v != nil {
				if _, ok := v.(crash); !ok {
					panic(v)
				}
			}
		}()
		c.err = c.handler(r.ctx, m)
	})
	r.resume(c)
}

// resume runs a busy consumer's handler to its next step or its end.
func (r *run) resume(c *consumer) {
	if _, ok := c.next(); ok {
		return
	}
	c.stop()
	c.busy = false
	if c.err != nil {
		r.logf("%s failed on %s: %v", c.name, c.msg.Label, c.err)
	} else {
		r.logf("%s done with %s", c.name, c.msg.Label)
	}
	r.startNext(c)
}

// kill crashes a busy consumer: its handler stops where it is paused and
// the rest of its batch is forgotten (those messages stay in flight).
func (r *run) kill(c *consumer) {
	c.stop()
	c.busy, c.batch, c.wake = false, nil, time.Time{}
}

func (r *run) stopAll() {
	for _, c := range r.cs {
		if c.busy {
			r.kill(c)
		}
	}
}

// settle runs the world to quiescence without faults or crashes: busy
// consumers first, then sends, then receives by idle consumers (skipped
// after an empty one until something else happens, since a FIFO queue's
// visible messages may be locked), then clock advances and redrives. It
// reports whether it got there.
func (r *run) settle() bool {
	stuck := false
	for i := 0; i < r.s.SettleSteps; i++ {
		var pick *action
		for _, pass := range []func(a action) bool{
			func(a action) bool { return a.kind == actStep && a.c.busy },
			func(a action) bool { return a.kind == actSend },
			func(a action) bool { return a.kind == actStep && !stuck },
			func(a action) bool { return a.kind == actAdvance || a.kind == actRedrive },
		} {
			for _, a := range r.enabled(false) {
				if pass(a) {
					pick = &a
					break
				}
			}
			if pick != nil {
				break
			}
		}
		if pick == nil {
			break
		}
		before := len(r.tl)
		r.do(*pick, false)
		stuck = pick.kind == actStep && !pick.c.busy && len(r.tl) == before+1 &&
			strings.HasSuffix(r.tl[before].Text, ": empty")
	}
	st, _ := r.q.Stats()
	ok := st.Visible+st.InFlight+st.Delayed == 0
	if r.dlq != nil {
		ds, _ := r.dlq.Stats()
		ok = ok && ds.Visible+ds.InFlight+ds.Delayed == 0
	}
	for _, c := range r.cs {
		ok = ok && !c.busy
	}
	return ok
}
