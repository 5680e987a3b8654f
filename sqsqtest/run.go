package sqsqtest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
)

// run is one play of a scenario.
type run struct {
	s         *Scenario
	src       Source
	pol       *Policy
	sch       *sched
	fast      *fastClock // the clock outside a bubble; nil inside one
	start     time.Time
	startNano int64 // start.UnixNano(), for since
	b         *sqsq.Broker
	q, dlq    *sqsq.Queue
	client    *awssqs.Client // made on first use by SQS
	ctx       context.Context
	cancel    context.CancelFunc
	ledger    *Ledger
	rec       *Recorder
	slots     []*consumer // the current generation of each consumer
	all       []*consumer // every generation, for goroutines still ending
	calls     []*call     // parked kit calls, sorted (see sortCalls)
	early     []*call     // arrivals that ended a clock advance early

	*books
	inDLQ  []string            // labels in the DLQ, in order
	sentBy map[string][]string // queue → bodies the consumers sent
	concur []string            // labels handed out while another consumer had them
	dups   []string            // labels delivered again by a Duplicate fault, not yet logged
	sent   int
	tl     Timeline
	text   lineText // the bytes of tl's lines and of calls' texts
	// silent runs keep no timeline: a loop's run, replayed with one if it
	// fails (see Scenario.silentRun). lines counts the lines logged either
	// way, and emptyAt is the count after the last empty receive's line,
	// for settle.
	silent         bool
	lines, emptyAt int
	steps          int
	settling       bool
	settleSteps    int    // the actions the settle phase took
	version        uint64 // moves whenever the world may have changed

	seen   int       // the recorder's events process has applied
	agedAt time.Time // when process last read the oldest message's age

	// qStats and dStats are r.q's and r.dlq's counts as the kit last read
	// them. qEvents and dEvents count the broker's events that name r.q
	// and r.dlq, untracked the calls through the SDK-shaped client, which
	// may change a queue without one (a purge); with the clock they tell
	// when a queue may have changed (see stats). Atomic: a consumer's
	// goroutine counts them.
	qStats, dStats   statsMemo
	qEvents, dEvents atomic.Uint64
	untracked        atomic.Uint64
	qName, dName     string // r.q's and r.dlq's names, for Observe

	invocations int // a Lambda's invocations, for their request ids
}

func (r *run) Observe(e sqsq.Event) {
	if movesCounts(&e) {
		if eventNames(&e, r.qName) {
			r.qEvents.Add(1)
		}
		if r.dName != "" && eventNames(&e, r.dName) {
			r.dEvents.Add(1)
		}
	}
	r.rec.Observe(e)
}

// movesCounts reports whether e may change the counts the kit reads of a
// queue (see run.stats): not a visibility change that kept its message in
// flight (one that took hold is always of a message in flight), nor a
// delete that removed nothing. A heartbeat's extensions had the counts
// read again after each.
func movesCounts(e *sqsq.Event) bool {
	switch e.Kind {
	case sqsq.EventVisibilityChanged:
		return e.Applied && e.Timeout == 0
	case sqsq.EventDeleted:
		return e.Removed
	}
	return true
}

// eventNames reports whether e names the queue q in any of its parts: a queue
// of another account or region with that name counts too, which costs
// only a read.
func eventNames(e *sqsq.Event, q string) bool {
	return e.Queue == q || e.DeadLetterQueue == q || e.Destination == q
}

// fresh returns the events process has not applied yet.
func (r *run) fresh() []sqsq.Event { return r.rec.since(r.seen) }

// Run plays one schedule drawn from src and returns what happened. It is
// deterministic: the same draws give the same outcome. Inside a
// testing/synctest bubble it runs on the bubble's clock, so consumer code
// may also use time.Sleep, timers and goroutines of its own (see
// [Scenario.Test]).
func (s Scenario) Run(src Source) *Outcome { return s.play(src, false) }

// silentRun plays src as Run does, but silently (see run.silent): a
// loop's runs mostly pass, and their timelines, a fifth of a run, were
// never read. A run that fails is played again, with its timeline, from
// again, a source that draws what src drew. A consumer that does not
// fail the same way again is not deterministic: the silent outcome is
// returned then, with no timeline and the error saying so.
func (s Scenario) silentRun(src Source, again func() Source) *Outcome {
	o := s.play(src, true)
	if o.Err == nil {
		return o
	}
	o, _ = retell(func(src Source) *Outcome { return s.play(src, false) }, again(), o)
	return o
}

// play is Run, silent or not.
func (s Scenario) play(src Source, silent bool) *Outcome {
	defer func() {
		if p := haltedBy(src); p != nil {
			panic(p) // rapid's, from a draw: see rapidSource
		}
	}()
	s.defaults()
	bubble := s.spare.inBubble()
	r := &run{
		s: &s, src: src, sch: newSched(bubble), ledger: newLedger(), rec: NewRecorder(),
		books: s.spare.books(), sentBy: map[string][]string{},
	}
	defer s.spare.keep(r.books)
	r.ctx, r.cancel = context.WithCancel(context.Background())
	defer r.cancel()
	// Sized as the runs before: grown by doubling, the events and the
	// timeline were most of a run's garbage.
	r.rec.events = newEvents()
	r.silent, r.sch.silent = silent, silent
	if !silent { // a silent run writes only its calls' texts
		r.tl = make(Timeline, 0, sizeHint(&timelineHint))
		r.text.buf = make([]byte, 0, sizeHint(&textHint))
	}
	defer func() {
		noteSize(&eventsHint, len(r.rec.events), 1024)
		if !silent {
			noteSize(&timelineHint, len(r.tl), 1024)
			noteSize(&textHint, r.text.written, 16<<10)
		}
	}()
	r.pol = NewPolicy(src, s.Faults)
	if !bubble { // see runMutex; on again for whoever reads them after the run
		r.pol.mu.off, r.rec.mu.off = true, true
		defer func() { r.pol.mu.off, r.rec.mu.off = false, false }()
	}
	n := 0
	ids := func() string { n++; return messageID(n) }
	var clk clock.Clock
	if bubble {
		clk = clock.New() // the bubble's time
	} else {
		r.fast = newFastClock()
		clk = r.fast
	}
	r.start = clk.Now()
	r.startNano = r.start.UnixNano()
	r.b = sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithFaults(r.pol), sqsq.WithObserver(r), sqsq.WithIDFunc(ids))
	defer r.b.Close()
	if err := r.setup(); err != nil {
		return &Outcome{Err: err, Ledger: r.ledger, History: r.rec}
	}
	var settled bool
	if bubble {
		settled = r.play()
	} else {
		r.sch.drive(s.spare, func() { settled = r.play() })
	}
	out := &Outcome{Timeline: r.tl, Steps: r.steps, Ledger: r.ledger, History: r.rec, lines: r.lines}
	// A loop drops the outcomes of the runs that pass (see spares).
	defer func() {
		if out.Err != nil || s.spare == nil {
			out.Legend = r.legend()
		}
	}()
	if err := r.sch.failed(); err != nil {
		out.Err = err
		return out
	}
	if !settled {
		out.unsettled = r.unsettled()
	}
	res := r.result(settled)
	for _, inv := range s.Invariants {
		if err := inv.Check(res); err != nil {
			out.Err = fmt.Errorf("%s: %w", inv.Name, err)
			break
		}
	}
	return out
}

// messageID is the run's n-th MessageId, 00000000-0000-4000-8000-%012d,
// made without fmt: a run makes one for every send and redrive.
func messageID(n int) string {
	b := []byte("00000000-0000-4000-8000-000000000000")
	for i := len(b) - 1; n > 0 && b[i] != '-'; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b)
}

// play starts the consumers, plays the drawn steps, settles and ends the
// run; it reports whether the run settled. Outside a bubble sched.drive
// runs it, under a watchdog.
func (r *run) play() bool {
	for i := 0; i < r.s.Consumers; i++ {
		r.slots = append(r.slots, r.newConsumer(i, 1))
	}
	r.absorb()

	st, stepping := r.src.(stepper)
	for r.steps < r.s.Steps && r.sch.failed() == nil {
		acts := r.enabled(true)
		if len(acts) == 0 {
			break
		}
		var i int
		if stepping {
			if i = st.next(acts); i < 0 {
				break
			}
		} else {
			// Draw 0 ends the schedule (1 in 20 with a PRNG), so a shrinker's
			// trailing zeros cut the schedule short and settle does the rest.
			if r.src.Draw("go on", 20) == 0 {
				break
			}
			i = r.src.Draw("action", len(acts))
		}
		r.steps++
		r.do(acts[i], true)
	}
	if stepping {
		st.end()
	}
	r.pol.SetEnabled(false)
	r.settling = true
	r.log(settleText)
	settled := r.settle()
	r.finish()
	return settled
}

func (r *run) result(settled bool) *Result {
	res := &Result{Ledger: r.ledger, Bodies: r.s.Messages, Settled: settled, Queues: map[string]sqsq.Stats{},
		Sent: r.sentBy, Faults: r.s.Faults, FIFO: r.s.FIFO, Concurrent: r.concur}
	dead, left := map[string]bool{}, map[string]bool{}
	for _, e := range r.rec.since(0) {
		if e.Kind == sqsq.EventDeadLettered && e.MessageID != "" {
			dead[r.labelOfBody(e.Body)] = true
		}
	}
	for _, st := range r.stored {
		left[st[1]] = left[st[1]] || st[0] == r.q.Name() || r.dlq != nil && st[0] == r.dlq.Name()
	}
	res.Labels = make([]string, 0, len(r.s.Messages))
	res.Groups = make([]string, 0, len(r.s.Messages))
	for i, body := range r.s.Messages {
		l := label(i)
		res.Labels = append(res.Labels, l)
		res.Groups = append(res.Groups, r.s.GroupOf(body))
		if dead[l] {
			res.DeadLettered = append(res.DeadLettered, l)
		}
		if left[l] {
			res.Left = append(res.Left, l)
		}
	}
	res.Queue, _ = r.q.Stats()
	if r.dlq != nil {
		res.DLQ, _ = r.dlq.Stats()
	}
	for name, q := range r.queues {
		res.Queues[name], _ = q.Stats()
	}
	return res
}

func (r *run) setup() error {
	for i, body := range r.s.Messages {
		if _, dup := r.labels[body]; dup {
			return fmt.Errorf("sqsqtest: scenario messages must be distinct; %q repeats", body)
		}
		r.labels[body] = label(i)
	}
	if r.s.shapes() != 1 {
		return errors.New("sqsqtest: a scenario needs exactly one of Consumer, BatchConsumer, Loop and Lambda")
	}
	if r.s.Lambda != nil {
		if err := r.s.LambdaConfig.check(r.s.FIFO); err != nil {
			return err
		}
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
		r.dlq, r.dName = dlq, dlq.Name()
		r.queues[dlq.Name()] = dlq
		attrs.RedrivePolicy = sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: r.s.MaxReceiveCount})
	}
	q, err := r.b.CreateQueue(r.ctx, sqsq.CreateQueueInput{QueueName: name + suffix, Attributes: attrs})
	if err != nil {
		return err
	}
	r.q, r.qName = q, q.Name()
	r.queues[q.Name()] = q
	for _, extra := range r.s.Queues {
		in := sqsq.CreateQueueInput{QueueName: extra}
		if strings.HasSuffix(extra, ".fifo") {
			in.Attributes.FifoQueue = sqsq.Some(true)
		}
		xq, err := r.b.CreateQueue(r.ctx, in)
		if err != nil {
			return fmt.Errorf("sqsqtest: Scenario.Queues: %w", err)
		}
		r.queues[xq.Name()] = xq
	}
	return nil
}

// newConsumer makes generation gen of consumer slot i and starts it.
func (r *run) newConsumer(i, gen int) *consumer {
	c := &consumer{name: consumerName(i), slot: i, gen: gen}
	c.envOf = Env{r: r, c: c}
	c.env = &c.envOf
	// A generation's context ends with it: a crashed consumer's loop and
	// handlers see ctx.Done as well as ErrCrashed. Finish ends it with the
	// run; made from the background, not from r.ctx, it costs
	// r.ctx no list of children.
	c.ctx, c.cancel = context.WithCancel(context.Background())
	r.all = append(r.all, c)
	switch {
	case r.s.Consumer != nil:
		c.handler = r.s.Consumer(c.env)
	case r.s.BatchConsumer != nil:
		c.batchHandler = r.s.BatchConsumer(c.env)
	case r.s.Loop != nil:
		ctx := c.ctx
		r.sch.spawn(c, func() error { r.s.Loop(ctx, c.env); return nil })
	case r.s.Lambda != nil:
		c.lambda = r.s.Lambda(c.env)
	}
	return c
}

// The lengths of recent runs' event lists and timelines, and the bytes of
// their lines, for the capacity of the next run's: a hint, which never
// changes what a run does.
var eventsHint, timelineHint, textHint atomic.Int64

func sizeHint(h *atomic.Int64) int { return int(h.Load()) + 8 }

// noteSize moves the hint a quarter of the way to n, up to limit.
func noteSize(h *atomic.Int64, n, limit int) {
	n = min(n, limit)
	old := h.Load()
	h.Store(old + (int64(n)-old)/4)
}

// spareEvents holds the event lists of passed runs nobody kept (see
// Outcome.recycle): an event is large, and a run's list was a quarter of
// the garbage of a run.
var spareEvents sync.Pool

func newEvents() []sqsq.Event {
	if p, ok := spareEvents.Get().(*[]sqsq.Event); ok {
		return (*p)[:0]
	}
	return make([]sqsq.Event, 0, sizeHint(&eventsHint))
}

// recycle gives the run's event list back for another run. Only the kit's
// loops call it, on an outcome that passed and that they drop: its
// History is gone after it.
func (o *Outcome) recycle() {
	if o.History == nil {
		return
	}
	h := o.History
	o.History = nil
	h.mu.Lock()
	evs := h.events
	h.events, h.built = nil, 0 // a late event, if the broker sent one, goes elsewhere
	h.mu.Unlock()
	if cap(evs) > 4096 {
		return // a rare long run's: not worth holding
	}
	clear(evs)
	spareEvents.Put(&evs)
}

// consumerNames are the first slots' names, made once: every run names its
// consumers, and every crash a new generation.
var consumerNames = [...]string{"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"}

// consumerName is slot i's name: c1, c2, …
func consumerName(i int) string {
	if i < len(consumerNames) {
		return consumerNames[i]
	}
	return "c" + strconv.Itoa(i+1)
}

// The labels of a slot's crash and slowness draws, made once for the
// first slots: the kit draws them at nearly every step.
var crashLabels, slowLabels = slotLabels("crash "), slotLabels("slow ")

func slotLabels(prefix string) (out [len(consumerNames)]string) {
	for i := range out {
		out[i] = prefix + consumerNames[i]
	}
	return out
}

// slotLabel is prefix followed by c's name, from labels when it has it
// (the Lambda event source mapping has a slot but not its name).
func slotLabel(labels *[len(consumerNames)]string, prefix string, c *consumer) string {
	if c.slot < len(labels) && c.name == consumerNames[c.slot] {
		return labels[c.slot]
	}
	return prefix + c.name
}
