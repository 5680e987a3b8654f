package sqsqtest

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// settle runs the world to quiescence without faults, crashes or
// slowness: parked calls first, then sends, then receives by idle
// consumers (skipped after an empty one until something else happens,
// since a FIFO queue's visible messages may be locked), then clock
// advances and redrives. It reports whether it got there.
func (r *run) settle() bool {
	stuck := false
	r.settleSteps = 0
	for ; r.settleSteps < r.s.SettleSteps && r.sch.failed() == nil; r.settleSteps++ {
		if r.quiet() {
			break
		}
		var pick action
		found := false
		acts := r.enabled(false)
		for _, pass := range [...]func(a action) bool{
			func(a action) bool { return a.kind == actCall && !a.cl.receive },
			func(a action) bool { return a.kind == actSend },
			func(a action) bool { return (a.kind == actReceive || a.kind == actCall) && !stuck },
			// A redrive before the clock moves: parked long polls always
			// have a deadline to advance to.
			func(a action) bool { return a.kind == actRedrive },
			func(a action) bool { return a.kind == actAdvance || a.kind == actWait },
		} {
			for _, a := range acts {
				if pass(a) {
					pick, found = a, true
					break
				}
			}
			if found {
				break
			}
		}
		if !found {
			break
		}
		before := r.lines
		// Read before do: a granted call is its thread's to reuse (see newCall).
		receive := pick.kind == actReceive || pick.kind == actCall && pick.cl.receive
		r.do(pick, false)
		// Stuck after a receive whose one line said it was empty.
		stuck = receive && r.lines == before+1 && r.emptyAt == r.lines
		if r.s.spare.byText() && !r.silent {
			stuck = receive && len(r.tl) == before+1 && strings.HasSuffix(r.tl[before].Text, ": empty")
		}
	}
	return r.quiet()
}

// maxBlockers bounds the messages and consumers [run.unsettled] names.
const maxBlockers = 3

// unsettled says that the run did not settle, and why: the messages still
// stored, with how often each was received, then the consumers still
// busy, "the run did not settle in 400 steps: A was received 14 times and
// never deleted".
func (r *run) unsettled() string {
	var why []string
	if unsent := len(r.s.Messages) - r.sent; unsent > 0 {
		why = append(why, fmt.Sprintf("%d of the messages never sent", unsent))
	}
	where := map[string]string{} // label → the queue it is stored in
	for _, st := range r.stored {
		if st[0] == r.q.Name() && where[st[1]] == "" {
			where[st[1]] = "queue"
		} else if r.dlq != nil && st[0] == r.dlq.Name() {
			where[st[1]] = "DLQ"
		}
	}
	for i := range r.s.Messages {
		l := label(i)
		if where[l] == "" {
			continue
		}
		received := 0
		for _, id := range r.ids[l] {
			for _, rec := range r.rec.History(id) {
				if rec.Kind == "received" {
					received++
				}
			}
		}
		text := l + " was never received"
		switch {
		case received == 1:
			text = l + " was received once and never deleted"
		case received > 1:
			text = fmt.Sprintf("%s was received %d times and never deleted", l, received)
		}
		if where[l] == "DLQ" {
			text += " (in the DLQ)"
		}
		why = append(why, text)
	}
	for _, c := range r.slots {
		if c.busy {
			why = append(why, c.name+" was still busy")
		}
	}
	for _, cl := range r.calls {
		if !cl.receive && cl.c != nil {
			why = append(why, fmt.Sprintf("%s was still waiting in %s", cl.c.name, r.tell(cl)))
		}
	}
	if len(why) > maxBlockers {
		why = append(why[:maxBlockers], fmt.Sprintf("and %d more", len(why)-maxBlockers))
	}
	head := fmt.Sprintf("the run did not settle in %d steps", r.settleSteps)
	if r.settleSteps < r.s.SettleSteps {
		head = fmt.Sprintf("the run did not settle: it stopped after %d steps with nothing it could do", r.settleSteps)
	}
	if len(why) == 0 {
		return head
	}
	return head + ": " + strings.Join(why, "; ")
}

// quiet reports that the consumed queues are empty, every message sent
// and no consumer busy: what is left parked are idle receives.
func (r *run) quiet() bool {
	if r.sent < len(r.s.Messages) {
		return false
	}
	// The bookkeeping first: a busy consumer is most steps' answer, and
	// the queues' counts cost a read.
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
	if st := r.stats(r.q, &r.qStats, &r.qEvents); st.stored() > 0 {
		return false
	}
	if r.dlq != nil {
		if st := r.stats(r.dlq, &r.dStats, &r.dEvents); st.stored() > 0 {
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
		if c.cancel != nil { // a Lambda mapping's thread has none
			c.cancel()
		}
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
		got := r.sch.quiesce(r.early)
		r.early = nil
		for _, cl := range got {
			if cl.note[0] != "" {
				continue // the run is over
			}
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
