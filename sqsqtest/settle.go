package sqsqtest

import (
	"errors"
	"strings"
	"time"

	"github.com/sqsq/sqsq"
)

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
			if cl.note != "" {
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
