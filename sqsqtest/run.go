package sqsqtest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
)

// run is one play of a scenario.
type run struct {
	s      *Scenario
	src    Source
	pol    *Policy
	sch    *sched
	fast   *fastClock // the clock outside a bubble; nil inside one
	start  time.Time
	b      *sqsq.Broker
	q, dlq *sqsq.Queue
	queues map[string]*sqsq.Queue
	client *awssqs.Client // made on first use by SQS
	ctx    context.Context
	cancel context.CancelFunc
	ledger *Ledger
	rec    *Recorder
	slots  []*consumer // the current generation of each consumer
	all    []*consumer // every generation, for goroutines still ending
	calls  []*call     // parked kit calls, sorted (see sortCalls)
	early  []*call     // arrivals that ended a clock advance early

	labels    map[string]string    // body → label
	handles   map[string]string    // receipt handle → label
	deadlines map[string]time.Time // MessageId → end of its visibility
	delays    map[string]time.Time // MessageId → end of its delay
	idLabel   map[string]string    // MessageId → label
	ids       map[string][]string  // label → its MessageIds
	inDLQ     []string             // labels in the DLQ, in order
	sentBy    map[string][]string  // queue → bodies the consumers sent
	stored    map[string][2]string // MessageId → {queue, label} of a message still stored
	concur    []string             // labels handed out while another consumer had them
	dups      []string             // labels delivered again by a Duplicate fault, not yet logged
	sent      int
	tl        Timeline
	steps     int
	settling  bool
	version   uint64 // moves whenever the world may have changed

	evMu   sync.Mutex
	events []sqsq.Event

	invocations int // a Lambda's invocations, for their request ids
}

func (r *run) Observe(e sqsq.Event) {
	r.rec.Observe(e)
	r.evMu.Lock()
	r.events = append(r.events, e)
	r.evMu.Unlock()
}

// Run plays one schedule drawn from src and returns what happened. It is
// deterministic: the same draws give the same outcome. Inside a
// testing/synctest bubble it runs on the bubble's clock, so consumer code
// may also use time.Sleep, timers and goroutines of its own (see
// [Scenario.Test]).
func (s Scenario) Run(src Source) *Outcome {
	defer func() {
		if p := haltedBy(src); p != nil {
			panic(p) // rapid's, from a draw: see rapidSource
		}
	}()
	s.defaults()
	bubble := inBubble()
	r := &run{
		s: &s, src: src, sch: newSched(bubble), ledger: newLedger(), rec: NewRecorder(),
		labels: map[string]string{}, handles: map[string]string{}, deadlines: map[string]time.Time{},
		delays: map[string]time.Time{}, idLabel: map[string]string{}, ids: map[string][]string{},
		sentBy: map[string][]string{}, queues: map[string]*sqsq.Queue{}, stored: map[string][2]string{},
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	defer r.cancel()
	r.pol = NewPolicy(src, s.Faults)
	n := 0
	ids := func() string { n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }
	var clk clock.Clock
	if bubble {
		clk = clock.New() // the bubble's time
	} else {
		r.fast = newFastClock()
		clk = r.fast
	}
	r.start = clk.Now()
	r.b = sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithFaults(r.pol), sqsq.WithObserver(r), sqsq.WithIDFunc(ids))
	defer r.b.Close()
	if err := r.setup(); err != nil {
		return &Outcome{Err: err, Ledger: r.ledger, History: r.rec}
	}
	for i := 0; i < s.Consumers; i++ {
		r.slots = append(r.slots, r.newConsumer(i, 1))
	}
	r.absorb()

	for r.steps < s.Steps && r.sch.failed() == nil {
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
	r.settling = true
	r.log(settleText)
	settled := r.settle()
	r.finish()
	out := &Outcome{Timeline: r.tl, Steps: r.steps, Ledger: r.ledger, History: r.rec, Legend: r.legend()}
	if err := r.sch.failed(); err != nil {
		out.Err = err
		return out
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

func (r *run) result(settled bool) *Result {
	res := &Result{Ledger: r.ledger, Bodies: r.s.Messages, Settled: settled, Queues: map[string]sqsq.Stats{},
		Sent: r.sentBy, Faults: r.s.Faults, FIFO: r.s.FIFO, Concurrent: r.concur}
	dead, left := map[string]bool{}, map[string]bool{}
	for _, id := range r.rec.MessageIDs() {
		for _, rec := range r.rec.History(id) {
			dead[r.idLabel[id]] = dead[r.idLabel[id]] || rec.Kind == "moved to DLQ"
		}
	}
	for _, st := range r.stored {
		left[st[1]] = left[st[1]] || st[0] == r.q.Name() || r.dlq != nil && st[0] == r.dlq.Name()
	}
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
		r.dlq = dlq
		r.queues[dlq.Name()] = dlq
		attrs.RedrivePolicy = sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: r.s.MaxReceiveCount})
	}
	q, err := r.b.CreateQueue(r.ctx, sqsq.CreateQueueInput{QueueName: name + suffix, Attributes: attrs})
	if err != nil {
		return err
	}
	r.q = q
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
	c := &consumer{name: "c" + strconv.Itoa(i+1), slot: i, gen: gen}
	c.env = &Env{r: r, c: c}
	// A generation's context ends with it: a crashed consumer's loop and
	// handlers see ctx.Done as well as ErrCrashed.
	c.ctx, c.cancel = context.WithCancel(r.ctx)
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

func (r *run) now() time.Time {
	if r.fast != nil {
		return r.fast.Now()
	}
	return time.Now()
}

func (r *run) since() time.Duration { return r.now().Sub(r.start) }

func (r *run) log(text string) { r.tl = append(r.tl, Entry{At: r.since(), Text: text}) }

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

// faultNotes names the faults injected since the last line, for the line
// of the call they hit: " [duplicate delivery of B, delete failed]".
func (r *run) faultNotes() string {
	var notes []string
	for _, in := range r.pol.takeNew() {
		note := in.Fault.String()
		if in.Fault == Duplicate && len(r.dups) > 0 {
			note += " of " + r.dups[0]
			r.dups = r.dups[1:]
		}
		notes = append(notes, note)
	}
	r.dups = nil
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

// labelOfBody names a body: its scenario label, or the body itself (a
// message the consumers sent), shortened.
func (r *run) labelOfBody(body string) string {
	if l, ok := r.labels[body]; ok {
		return l
	}
	if len(body) > 24 {
		body = body[:21] + "..."
	}
	return strconv.Quote(body)
}

// process applies the observer's events to the run's bookkeeping.
func (r *run) process() {
	r.evMu.Lock()
	evs := r.events
	r.events = nil
	r.evMu.Unlock()
	if len(evs) > 0 {
		r.version++
	}
	for _, e := range evs {
		l := r.labelOfBody(e.Body)
		if e.MessageID != "" {
			if _, seen := r.idLabel[e.MessageID]; !seen {
				r.ids[l] = append(r.ids[l], e.MessageID)
			}
			r.idLabel[e.MessageID] = l
		}
		switch e.Kind {
		case sqsq.EventSent:
			r.stored[e.MessageID] = [2]string{e.Queue, l}
			if e.Delay > 0 {
				r.delays[e.MessageID] = e.At.Add(e.Delay)
			}
		case sqsq.EventReceived:
			r.handles[e.ReceiptHandle] = l
			if e.Duplicate {
				r.dups = append(r.dups, l)
			}
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
				delete(r.stored, e.MessageID)
			}
		case sqsq.EventRedriven:
			delete(r.stored, e.MessageID)
			r.stored[e.NewMessageID] = [2]string{e.Destination, l}
		case sqsq.EventDeadLettered:
			r.stored[e.MessageID] = [2]string{e.DeadLetterQueue, l}
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

// legend names every scenario message: A = order-1 (MessageIds).
func (r *run) legend() []string {
	var out []string
	for i, body := range r.s.Messages {
		l := label(i)
		text := l + " = " + strconv.Quote(body)
		if ids := r.ids[l]; len(ids) > 0 {
			text += " (" + strings.Join(shortIDs(ids), ", then ") + ")"
		}
		out = append(out, text)
	}
	return out
}

// shortIDs drops the run's common MessageId prefix.
func shortIDs(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "…" + strings.TrimLeft(strings.TrimPrefix(id, "00000000-0000-4000-8000-"), "0")
	}
	return out
}

func joinLegend(l []string) string { return strings.Join(l, "; ") }

// action kinds.
const (
	actSend = iota
	actReceive
	actCall
	actAdvance
	actGap
	actRedrive
	actWait
)

type action struct {
	kind int
	c    *consumer
	cl   *call
}

// enabled lists the actions possible now, in a fixed order (so draw 0 is
// the lucky, boring choice: send, then the first consumer).
func (r *run) enabled(drawn bool) []action {
	var acts []action
	if r.sent < len(r.s.Messages) {
		acts = append(acts, action{kind: actSend})
	}
	st, _ := r.q.Stats()
	now := r.now()
	if r.s.Loop == nil {
		for _, c := range r.slots {
			if !c.busy && (st.Visible > 0 || drawn && st.InFlight > 0 && r.s.Faults[Duplicate] > 0) {
				acts = append(acts, action{kind: actReceive, c: c})
			}
		}
	}
	awake := false
	for _, cl := range r.calls {
		if cl.enabled(now, r.version) {
			// A receive that has messages to take is awake too: a long
			// poll answers as soon as messages are there, not at its end.
			awake = awake || !cl.receive || !cl.wake.IsZero() && now.Before(cl.wake)
			acts = append(acts, action{kind: actCall, cl: cl})
		}
	}
	if awake {
		return acts
	}
	if _, ok := r.nextInstant(); ok {
		acts = append(acts, action{kind: actAdvance})
	} else if r.sch.bubble && r.blocked() {
		acts = append(acts, action{kind: actWait})
	}
	if drawn && r.s.MaxGap > 0 {
		acts = append(acts, action{kind: actGap})
	}
	if r.dlq != nil && (r.s.Redrive || !drawn) {
		if ds, _ := r.dlq.Stats(); ds.Visible > 0 && !r.moving() {
			acts = append(acts, action{kind: actRedrive})
		}
	}
	return acts
}

// blocked reports whether some consumer has a goroutine running that is
// neither parked in the kit nor ended: inside a bubble, one waiting on a
// timer or channel of its own.
func (r *run) blocked() bool {
	parked := map[*consumer]int{}
	for _, cl := range r.calls {
		parked[cl.c]++
	}
	for _, c := range r.slots {
		if c.threads > parked[c] {
			return true
		}
	}
	return false
}

// nextInstant is the earliest future instant the kit knows something is
// due: a visibility deadline, the end of a delay, a parked call's wake.
func (r *run) nextInstant() (time.Time, bool) {
	now := r.now()
	var next time.Time
	consider := func(t time.Time) {
		if t.After(now) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, d := range r.deadlines {
		consider(d)
	}
	for _, d := range r.delays {
		consider(d)
	}
	for _, cl := range r.calls {
		if !cl.wake.IsZero() {
			consider(cl.wake)
		}
	}
	return next, !next.IsZero()
}

// earliestWake is the earliest wake of a parked call after now: idle time
// never skips past a sleeping consumer.
func (r *run) earliestWake() (time.Time, bool) {
	now := r.now()
	var next time.Time
	for _, cl := range r.calls {
		if cl.wake.After(now) && !cl.receive && (next.IsZero() || cl.wake.Before(next)) {
			next = cl.wake
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
	case actGap:
		ladder := durationLadder(r.s.MaxGap)[1:]
		gap := ladder[r.src.Draw("idle time", len(ladder))]
		to := r.now().Add(gap)
		if w, ok := r.earliestWake(); ok && w.Before(to) {
			to = w
		}
		r.logf("idle for %v", to.Sub(r.now()))
		r.advanceTo(to)
	case actWait:
		r.advanceTo(r.now().Add(max(r.s.MaxGap, 12*time.Hour)))
	case actRedrive:
		r.redrive()
	case actReceive:
		r.receive(a.c)
	case actCall:
		r.take(a.cl, drawn)
	}
	r.absorb()
}

// take lets a parked call go on, unless a crash is drawn before it.
func (r *run) take(cl *call, drawn bool) {
	r.calls = removeCall(r.calls, cl)
	c := cl.c
	if drawn && c.gen == r.slots[c.slot].gen && chance(r.src, "crash "+c.name, r.s.Crash) {
		r.logf("%s crashed before %s", c.name, cl.text)
		r.crash(c, cl)
		return
	}
	if cl.draw != nil && !r.settling { // the settle phase is lucky: draws give 0
		cl.draw.value = r.src.Draw(cl.draw.label, cl.draw.n)
		if cl.draw.value != 0 {
			r.logf("%s drew %s: %d", c.name, cl.draw.label, cl.draw.value)
		}
	}
	r.sch.grant(cl, true)
}

// crash kills a consumer generation: cl and its other parked calls fail
// with ErrCrashed, and so will every later call of its goroutines; a new
// generation takes the slot.
func (r *run) crash(c *consumer, cl *call) {
	c.crashed.Store(true)
	c.cancel()
	r.sch.grant(cl, false)
	var keep []*call
	for _, o := range r.calls {
		if o.c == c {
			r.sch.grant(o, false)
		} else {
			keep = append(keep, o)
		}
	}
	r.calls = keep
	r.slots[c.slot] = r.newConsumer(c.slot, c.gen+1)
}

func removeCall(calls []*call, cl *call) []*call {
	for i, o := range calls {
		if o == cl {
			return append(calls[:i:i], calls[i+1:]...)
		}
	}
	return calls
}

// absorb waits until every goroutine is parked or done, then takes in
// what arrived: new parked calls (with a slowness drawn for each) and
// ended goroutines.
func (r *run) absorb() {
	got := append(r.early, r.sch.quiesce()...)
	r.early = nil
	var fresh []*call
	for _, cl := range got {
		if cl.end != nil {
			r.ended(cl)
			continue
		}
		if cl.c.crashed.Load() {
			r.sch.grant(cl, false) // parked just before its consumer crashed
			continue
		}
		if cl.describe != nil {
			cl.text = cl.describe()
		}
		fresh = append(fresh, cl)
	}
	sortCalls(fresh)
	for _, cl := range fresh {
		if cl.receive {
			cl.idleAt = cl.c.lastEmpty.Load()
		}
		if !r.settling && r.s.Slowness > 0 && cl.draw == nil && !cl.c.kitThread() {
			ladder := durationLadder(r.s.Slowness)
			if d := ladder[r.src.Draw("slow "+cl.c.name, len(ladder))]; d > 0 {
				base := r.now()
				if cl.wake.After(base) {
					base = cl.wake
				}
				cl.wake = base.Add(d)
				r.logf("%s is slow: %v before %s", cl.c.name, d, cl.text)
			}
		}
		r.calls = append(r.calls, cl)
	}
	sortCalls(r.calls)
	r.process()
}

// ended accounts for a goroutine of the engine that returned.
func (r *run) ended(cl *call) {
	c := cl.c
	c.threads--
	if cl.end.panic != "" && !c.crashed.Load() {
		r.sch.fail(fmt.Errorf("sqsqtest: %s panicked: %s", c.name, cl.end.panic))
	}
	if c.threads == 0 && c.busy {
		c.busy = false
		c.inHand = nil
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

// advanceTo moves the clock to t; inside a bubble, a consumer goroutine
// woken on the way (by a timer of its own) stops it there.
func (r *run) advanceTo(t time.Time) {
	if r.fast != nil {
		r.fast.set(t)
	} else if d := t.Sub(time.Now()); d > 0 {
		timer := time.NewTimer(d)
		select {
		case <-timer.C:
		case cl := <-r.sch.arrivals:
			timer.Stop()
			r.early = append(r.early, cl)
		}
	}
	r.version++
	now := r.now()
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
	for id, d := range r.delays {
		if !d.After(now) {
			delete(r.delays, id)
		}
	}
	sort.Slice(due, func(i, j int) bool {
		if !due[i].at.Equal(due[j].at) {
			return due[i].at.Before(due[j].at)
		}
		return due[i].l < due[j].l
	})
	for _, d := range due {
		r.tl = append(r.tl, Entry{At: d.at.Sub(r.start), Text: "visibility expired(" + d.l + ")"})
	}
	r.process()
}

// moving reports whether a move task (a consumer's) runs on the DLQ: the
// kit waits for it rather than start its own, which would fail.
func (r *run) moving() bool {
	tasks, _ := r.b.ListMoveTasks(r.ctx, r.dlq.ARN(), sqsq.Optional[int]{})
	for _, t := range tasks {
		if t.Status == sqsq.MoveTaskRunning {
			return true
		}
	}
	return false
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
	r.advanceTo(r.now().Add(time.Duration(ds.Visible)*2*time.Millisecond + time.Millisecond))
}

// receive is a receive by the kit for a consumer of a kit-owned shape; the
// messages it gets go to the consumer's handler in a goroutine of its own.
func (r *run) receive(c *consumer) {
	if r.s.Lambda != nil {
		r.lambdaReceive(c) // the event source mapping's poll
		return
	}
	msgs, err := r.q.Receive(r.ctx, sqsq.ReceiveInput{
		MaxNumberOfMessages:         r.s.Batch,
		WaitTimeSeconds:             sqsq.Some(time.Duration(0)),
		MessageSystemAttributeNames: []string{sqsq.SysAll},
		MessageAttributeNames:       []string{"All"},
	})
	r.evMu.Lock()
	var got []string
	for _, e := range r.events {
		if e.Kind == sqsq.EventReceived {
			got = append(got, r.labelOfBody(e.Body))
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
	batch := make([]Msg, len(msgs))
	var ls []string
	for i, m := range msgs {
		batch[i] = r.msg(m)
		ls = append(ls, batch[i].Label)
	}
	r.logf("receive(%s) by %s%s", strings.Join(ls, ","), c.name, notes)
	for _, m := range batch {
		r.ledger.Deliveries[m.Label]++
		for _, o := range r.slots {
			if o != c && o.busy && contains(o.inHand, m.Label) {
				r.ledger.Concurrent++
				r.concur = append(r.concur, m.Label)
				r.logf("%s handles %s while %s still does", c.name, m.Label, o.name)
			}
		}
	}
	c.busy, c.inHand = true, ls
	ctx := c.ctx
	if c.batchHandler != nil {
		r.sch.spawn(c, func() error { return c.batchHandler(ctx, batch) })
		return
	}
	r.sch.spawn(c, func() error { return r.handleEach(ctx, c, batch) })
}

// handleEach calls a per-message handler on each message of a batch in
// order. On a FIFO queue a failure stops the message's group for the rest
// of the batch, as an ordered consumer must: those messages stay in flight
// and come back after the failed one.
func (r *run) handleEach(ctx context.Context, c *consumer, batch []Msg) error {
	stopped := map[string]string{}
	for i := range batch {
		m := batch[i]
		if first, ok := stopped[m.GroupId]; ok && r.s.FIFO {
			r.logf("%s leaves %s in flight: group %s stopped at %s", c.name, m.Label, m.GroupId, first)
			continue
		}
		c.current.Store(&m)
		err := c.handler(ctx, m)
		c.current.Store(nil)
		if c.crashed.Load() {
			return ErrCrashed
		}
		if err != nil {
			r.logf("%s failed on %s: %v", c.name, m.Label, err)
			stopped[m.GroupId] = m.Label
			continue
		}
		r.logf("%s done with %s", c.name, m.Label)
	}
	return nil
}

// msg turns a received message into a Msg.
func (r *run) msg(m sqsq.Message) Msg {
	rc, _ := strconv.Atoi(m.Attributes[sqsq.SysApproximateReceiveCount])
	out := Msg{MessageId: m.MessageId, ReceiptHandle: m.ReceiptHandle, Body: m.Body, ReceiveCount: rc,
		Label: r.labelOfBody(m.Body), Attributes: m.Attributes, MessageAttributes: m.MessageAttributes,
		GroupId: m.Attributes[sqsq.SysMessageGroupId], DeduplicationId: m.Attributes[sqsq.SysMessageDeduplicationId],
		SequenceNumber: m.Attributes[sqsq.SysSequenceNumber]}
	if ms, err := strconv.ParseInt(m.Attributes[sqsq.SysSentTimestamp], 10, 64); err == nil {
		out.SentAt = time.UnixMilli(ms)
	}
	if ms, err := strconv.ParseInt(m.Attributes[sqsq.SysApproximateFirstReceiveTimestamp], 10, 64); err == nil {
		out.FirstReceivedAt = time.UnixMilli(ms)
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// settle runs the world to quiescence without faults, crashes or
// slowness: parked calls first, then sends, then receives by idle
// consumers (skipped after an empty one until something else happens,
// since a FIFO queue's visible messages may be locked), then clock
// advances and redrives. It reports whether it got there.
func (r *run) settle() bool {
	stuck := false
	for i := 0; i < r.s.SettleSteps && r.sch.failed() == nil; i++ {
		if r.quiet() {
			break
		}
		var pick *action
		for _, pass := range []func(a action) bool{
			func(a action) bool { return a.kind == actCall && !a.cl.receive },
			func(a action) bool { return a.kind == actSend },
			func(a action) bool { return (a.kind == actReceive || a.kind == actCall) && !stuck },
			// A redrive before the clock moves: parked long polls always
			// have a deadline to advance to.
			func(a action) bool { return a.kind == actRedrive },
			func(a action) bool { return a.kind == actAdvance || a.kind == actWait },
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
		receive := pick.kind == actReceive || pick.kind == actCall && pick.cl.receive
		stuck = receive && len(r.tl) == before+1 && strings.HasSuffix(r.tl[before].Text, ": empty")
	}
	return r.quiet()
}

// quiet reports that the consumed queues are empty, every message sent
// and no consumer busy: what is left parked are idle receives.
func (r *run) quiet() bool {
	if r.sent < len(r.s.Messages) {
		return false
	}
	for _, q := range []*sqsq.Queue{r.q, r.dlq} {
		if q == nil {
			continue
		}
		if st, _ := q.Stats(); st.Visible+st.InFlight+st.Delayed > 0 {
			return false
		}
	}
	for _, c := range r.slots {
		if c.busy {
			return false
		}
	}
	for _, cl := range r.calls {
		if !cl.receive {
			return false
		}
	}
	return true
}

// finish ends the run: the context ends, every consumer is fenced, and
// the engine's goroutines are waited for.
func (r *run) finish() {
	r.cancel()
	for _, c := range r.all {
		c.crashed.Store(true)
	}
	for _, cl := range r.calls {
		r.sch.grant(cl, false)
	}
	r.calls = nil
	for i := 0; r.live() > 0; i++ {
		if i == 100 || r.sch.failed() != nil {
			r.sch.fail(errors.New("sqsqtest: a consumer goroutine did not return after the run ended (ctx done, every kit call failing)"))
			return
		}
		got := append(r.early, r.sch.quiesce()...)
		r.early = nil
		for _, cl := range got {
			if cl.end != nil {
				r.ended(cl)
			} else {
				r.sch.grant(cl, false)
			}
		}
		if len(got) == 0 && r.sch.bubble {
			r.advanceTo(r.now().Add(time.Hour)) // goroutines asleep on timers of their own
		}
	}
}

// live counts the engine's goroutines not yet ended, every generation.
func (r *run) live() int {
	n := 0
	for _, c := range r.all {
		n += c.threads
	}
	return n
}
