package sqsqtest

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sqsq/sqsq"
)

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
	acts := r.acts[:0] // reused: a caller is done with the last list when it asks again
	defer func() { r.acts = acts[:0] }()
	if r.sent < len(r.s.Messages) {
		acts = append(acts, action{kind: actSend})
	}
	now := r.now()
	if r.s.Loop == nil { // a loop receives for itself
		st := r.stats(r.q, &r.qStats, &r.qEvents)
		for _, c := range r.slots {
			if !c.busy && (st.visible > 0 || drawn && st.inFlight > 0 && r.s.Faults[Duplicate] > 0) {
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
		if ds := r.stats(r.dlq, &r.dStats, &r.dEvents); ds.visible > 0 && !r.moving() {
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
	for _, due := range [...]*dueTimes{&r.deadlines, &r.delays} {
		if first, ok := due.earliest(); !ok {
			continue
		} else if first.After(now) {
			consider(first) // the earliest is to come: the rest are later
			continue
		}
		for _, d := range due.m { // some are past (in a bubble, time moves on its own)
			consider(d)
		}
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
	if drawn && c.gen == r.slots[c.slot].gen && chance(r.src, slotLabel(&crashLabels, "crash ", c), r.s.Crash) {
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

// removeCall removes cl from calls, in place: nothing else holds the
// list of parked calls.
func removeCall(calls []*call, cl *call) []*call {
	for i, o := range calls {
		if o == cl {
			copy(calls[i:], calls[i+1:])
			calls[len(calls)-1] = nil
			return calls[:len(calls)-1]
		}
	}
	return calls
}

// absorb waits until every goroutine is parked or done, then takes in
// what arrived: new parked calls (with a slowness drawn for each) and
// ended goroutines.
func (r *run) absorb() {
	got := r.sch.quiesce(append(r.arrived[:0], r.early...))
	r.early = r.early[:0]
	defer func() { clear(got); r.arrived = got[:0] }()
	var fresh, notes []*call
	for _, cl := range got {
		if cl.note[0] != "" {
			notes = append(notes, cl)
			continue
		}
		if cl.end != nil {
			r.ended(cl)
			continue
		}
		if cl.c.crashed.Load() {
			r.sch.grant(cl, false) // parked just before its consumer crashed
			continue
		}
		if !r.silent {
			r.tell(cl)
		}
		fresh = append(fresh, cl)
	}
	r.sortCalls(notes)
	for _, cl := range notes {
		r.log(cl.note[:]...)
	}
	r.lines += int(r.sch.untold.Swap(0))
	r.sortCalls(fresh)
	for _, cl := range fresh {
		if cl.receive {
			cl.idleAt = cl.c.lastEmpty.Load()
		}
		if !r.settling && r.s.Slowness > 0 && cl.draw == nil && !cl.c.kitThread() {
			ladder := durationLadder(r.s.Slowness)
			if d := ladder[r.src.Draw(slotLabel(&slowLabels, "slow ", cl.c), len(ladder))]; d > 0 {
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
	r.sortCalls(r.calls)
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
	if err != nil {
		r.log("send(", r.labels[body], "): ", errText(err))
	} else {
		r.log("send(", r.labels[body], ")")
	}
	r.process()
}

// advanceTo moves the clock to t; inside a bubble, a consumer goroutine
// woken on the way (by a timer of its own) stops it there.
func (r *run) advanceTo(t time.Time) {
	if r.fast != nil {
		r.fast.set(t)
	} else if d := t.Sub(time.Now()); d > 0 {
		timer := time.NewTimer(d)
	wait:
		for {
			select {
			case <-timer.C:
				break wait
			case <-r.sch.arrival:
				// A poke may be left from arrivals already taken.
				if r.early = r.sch.take(r.early); len(r.early) > 0 {
					timer.Stop()
					break wait
				}
			}
		}
	}
	r.version++
	now := r.now()
	type exp struct {
		at time.Time
		l  string
	}
	var due []exp
	r.deadlines.removeDue(now, func(id string, at time.Time) { due = append(due, exp{at, r.idLabel[id]}) })
	r.delays.removeDue(now, func(string, time.Time) {})
	if len(due) > 1 { // sort.Slice of none or one still allocates
		sort.Slice(due, func(i, j int) bool {
			if !due[i].at.Equal(due[j].at) {
				return due[i].at.Before(due[j].at)
			}
			return due[i].l < due[j].l
		})
	}
	for _, d := range due {
		if !r.skip() {
			r.logAt(d.at.Sub(r.start), "visibility expired(", d.l, ")")
		}
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
