package sqsqtest

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// The engine runs a scenario's consumers as threads and serialises what
// they do to the world: every kit call (a delete, a commit, a receive, a
// sleep…) parks its thread and hands the scheduler a call; the scheduler
// waits until every thread of the run is parked or done (quiescent), draws
// which call goes next, and lets exactly that one run until it parks
// again. So a run is a pure function of its draws, however many threads
// the consumers start, as long as they meet only through the kit, channels
// and sync primitives.
//
// Inside a testing/synctest bubble ([Scenario.Test]) threads are
// goroutines, and quiescence is synctest.Wait, which sees every goroutine,
// those the handler starts included. Elsewhere they are coroutines that
// run one at a time, only while the scheduler resumes them (see thread.go),
// so the world is quiescent whenever the scheduler runs; a kit call from
// a goroutine the engine did not start fails the run with an error that
// says to use [Scenario.Test].

// ErrCrashed is what every kit call of a crashed consumer returns: the
// consumer died before the call (see [Scenario.Crash]), so the call
// changed nothing. Goroutines of a crashed consumer should return when
// they see it; the kit ends one that goes on calling regardless.
var ErrCrashed = errors.New("sqsqtest: the consumer crashed")

// call is a kit call waiting for its turn.
type call struct {
	c    *consumer
	text string // the step as the timeline names it: "delete(A)"
	// describe, if set, makes text once the call is parked (see
	// run.tell), from handle, span or in: names of messages come from the
	// run's bookkeeping, which only the scheduler may read while
	// goroutines run. A static function, not a closure, so that a call
	// allocates nothing for it.
	describe func(r *run, cl *call) string
	handle   string        // a receipt handle, for describe
	span     time.Duration // a visibility timeout, for describe
	in       any           // an SDK call's input, for describe
	prefix   string        // joined before text once the call is parked: "commit "
	suffix   string        // joined after text once the call is parked: "(A)"
	wake     time.Time     // not before this instant (zero: now)
	ready    func() bool
	// idleAt is the world version at which the thread's previous receive
	// came back empty: a receive is not worth drawing again until the world
	// changes (see run.version).
	idleAt  uint64
	receive bool
	draw    *drawRequest // a user draw, made by the scheduler when granted
	grant   chan bool    // in a bubble: true, go on; false, the consumer crashed
	t       *thread      // outside a bubble: the thread parked in the call
	seq     uint64
	end     *threadEnd // a thread's end, not a step
	// note is a line for the timeline from kit code that runs in a
	// consumer's goroutine outside a granted call (after a handler
	// returned): inside a bubble other goroutines may run then, so the
	// scheduler writes it, in a fixed order.
	note [3]string // its parts, joined by the scheduler
}

type drawRequest struct {
	label string
	n     int
	value int
}

type threadEnd struct {
	err   error
	panic string // a panic of the consumer's code, with its stack
	// cl hands the end to the scheduler: made with it, one allocation a
	// thread rather than two.
	cl call
}

// panicText is a recovered panic of a thread, with the stack it was
// recovered on.
func panicText(v any) string { return fmt.Sprintf("%v\n%s", v, debug.Stack()) }

// enabled reports whether the call may go at now.
func (cl *call) enabled(now time.Time, version uint64) bool {
	if cl.receive && cl.idleAt == version && cl.idleAt != 0 {
		return !cl.wake.IsZero() && !now.Before(cl.wake)
	}
	if cl.ready != nil && cl.ready() {
		return true
	}
	return cl.wake.IsZero() || !now.Before(cl.wake)
}

// sched is the scheduler side of the engine.
type sched struct {
	seq    atomic.Uint64
	bubble bool

	// arrived holds the calls handed to the scheduler since it last took
	// them; a slice under a lock rather than a channel, which would have to
	// be made large enough for any burst on every run. arrival pokes a
	// scheduler waiting for the bubble's clock (see run.advanceTo).
	arrMu   runMutex // off outside a bubble (see runMutex)
	arrived []*call
	arrival chan struct{}

	// Outside a bubble (thread.go): the thread running, resumed by the
	// scheduler; threads spawned but not started; threads whose fn has
	// ended, for the next spawn; the run's parks, read by another
	// goroutine, for drive's watchdog.
	cur   *thread
	fresh []*thread
	idle  []*thread
	parks atomic.Uint64

	// failure is a rule a consumer broke; it ends the run. Atomic: the
	// scheduler reads it every step, and the watchdog may set it.
	failure atomic.Pointer[error]

	// silent is the run's (see run.silent): note only counts its lines,
	// in untold, for absorb.
	silent bool
	untold atomic.Int64
}

// fencedCallLimit ends a crashed consumer's goroutine that keeps calling
// the kit after ErrCrashed: it would never return otherwise.
const fencedCallLimit = 10000

func newSched(bubble bool) *sched {
	s := &sched{bubble: bubble, arrival: make(chan struct{}, 1)}
	s.arrMu.off = !bubble
	return s
}

// push hands cl to the scheduler.
func (s *sched) push(cl *call) {
	s.arrMu.Lock()
	cl.seq = s.seq.Add(1)
	s.arrived = append(s.arrived, cl)
	s.arrMu.Unlock()
	if s.bubble {
		select {
		case s.arrival <- struct{}{}:
		default:
		}
	}
}

// take returns the calls that arrived since the last take, appended to
// got.
func (s *sched) take(got []*call) []*call {
	s.arrMu.Lock()
	got = append(got, s.arrived...)
	clear(s.arrived)
	s.arrived = s.arrived[:0]
	s.arrMu.Unlock()
	return got
}

func (s *sched) fail(err error) { s.failure.CompareAndSwap(nil, &err) }

func (s *sched) failed() error {
	if p := s.failure.Load(); p != nil {
		return *p
	}
	return nil
}

// spawn starts fn as a thread of consumer c: a goroutine in a bubble, a
// coroutine that the next quiesce starts elsewhere.
func (s *sched) spawn(c *consumer, fn func() error) {
	c.threads++
	end := &threadEnd{}
	end.cl = call{c: c, end: end}
	if s.bubble {
		go func() {
			defer func() {
				if v := recover(); v != nil {
					end.panic = panicText(v)
				}
				s.push(&end.cl)
			}()
			end.err = fn()
		}()
		return
	}
	s.fresh = append(s.fresh, s.thread(c, end, fn))
}

// newCall returns an empty call for a kit call of the running goroutine
// about to park. Outside a bubble that is the running thread's own: a
// thread parks in one call at a time, and once the scheduler has granted
// a call nothing holds it (take removes it from the parked calls first,
// and a step reads what it needs of its action before it plays it), so
// the thread may reuse it for its next. A call a step was a twentieth of
// a run's allocations.
func (s *sched) newCall() *call {
	if t := s.cur; !s.bubble && t != nil && t.cl == nil {
		t.own = call{}
		return &t.own
	}
	return &call{}
}

// note hands the scheduler a timeline line from a goroutine of c; it does
// not wait.
func (s *sched) note(c *consumer, text, more, last string) {
	if s.silent {
		s.untold.Add(1)
		return
	}
	s.push(&call{c: c, note: [3]string{text, more, last}})
}

// park is a kit call made by a goroutine of consumer c: it waits for its
// turn and reports whether to go on (false: c crashed, do nothing).
func (s *sched) park(cl *call) bool {
	c := cl.c
	if c.crashed.Load() {
		if c.fencedCalls.Add(1) > fencedCallLimit {
			if s.bubble {
				runtime.Goexit()
			}
			panic(errFenced)
		}
		return false
	}
	if s.bubble {
		cl.grant = make(chan bool, 1)
		s.push(cl)
		return <-cl.grant
	}
	s.parks.Add(1)
	t := s.cur
	if t == nil || t.cl != nil || !t.ownStack() {
		s.fail(fmt.Errorf("sqsqtest: %s called the kit (%s) from a goroutine the kit did not start; "+
			"run the scenario with Scenario.Test (testing/synctest, Go 1.25+), or start it with env.Go", c.name, cl.prefix+cl.text+cl.suffix))
		c.crashed.Store(true)
		return false
	}
	t.cl, cl.t = cl, t
	t.yield(struct{}{})
	return t.goOn
}

// grant lets a parked call go on, or tells it its consumer crashed; outside
// a bubble its thread runs until it parks again or ends.
func (s *sched) grant(cl *call, goOn bool) {
	if s.bubble {
		cl.grant <- goOn
		return
	}
	cl.t.goOn = goOn
	s.resume(cl.t)
}

// quiesce waits until every goroutine of the run is parked or ended, then
// appends to got what arrived since the last call, in arrival order.
// Outside a bubble it starts the threads spawned since, in order, each
// until it parks or ends; nothing else runs there.
func (s *sched) quiesce(got []*call) []*call {
	if s.bubble {
		bubbleWait()
	}
	for i := 0; i < len(s.fresh); i++ { // a thread may spawn more
		s.resume(s.fresh[i])
	}
	clear(s.fresh)
	s.fresh = s.fresh[:0]
	// Pushed under one lock, in order of seq: already sorted.
	return s.take(got)
}

// sortCalls orders parked calls so that a draw picks the same call
// whatever order goroutines that ran at once arrived in: by consumer, then
// by what the call is, then by arrival. A silent run's calls are told
// here only when their consumer has another call (see run.tell).
func (r *run) sortCalls(calls []*call) {
	if len(calls) < 2 { // most lists: nothing to sort
		return
	}
	slices.SortStableFunc(calls, func(a, b *call) int {
		if a.c.slot != b.c.slot {
			return cmp.Compare(a.c.slot, b.c.slot)
		}
		if a.c.gen != b.c.gen {
			return cmp.Compare(a.c.gen, b.c.gen)
		}
		if at, bt := r.tell(a), r.tell(b); at != bt {
			return strings.Compare(at, bt)
		}
		return cmp.Compare(a.seq, b.seq)
	})
}

// tell makes cl's text from its parts (describe, prefix, suffix), once:
// the scheduler does when cl is parked, or, in a silent run, when the
// text is first read. Either way the text is the same: what describe
// reads of the run's bookkeeping, a receipt handle's label, never changes
// once known, and a consumer gets a handle only after its receive is
// known.
func (r *run) tell(cl *call) string {
	if cl.describe != nil {
		cl.text, cl.describe = cl.describe(r, cl), nil
	}
	if cl.prefix != "" || cl.suffix != "" {
		cl.text, cl.prefix, cl.suffix = r.text.join(cl.prefix, cl.text, cl.suffix), "", ""
	}
	return cl.text
}
