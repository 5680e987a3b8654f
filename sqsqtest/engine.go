package sqsqtest

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The engine runs a scenario's consumers as goroutines ("threads") and
// serialises what they do to the world: every kit call (a delete, a commit,
// a receive, a sleep…) parks its goroutine and hands the scheduler a call;
// the scheduler waits until every goroutine of the run is parked or done
// (quiescent), draws which call goes next, and lets exactly that one run
// until it parks again. So a run is a pure function of its draws, however
// many goroutines the consumers start, as long as they meet only through
// the kit, channels and sync primitives.
//
// Quiescence has two detectors. Inside a testing/synctest bubble
// ([Scenario.Test]) it is synctest.Wait, which sees every goroutine, those
// the handler starts included. Elsewhere the engine counts the goroutines
// it started itself (the consumers' main goroutines and those of
// [Env.Go]); a kit call from any other goroutine fails the run with an
// error that says to use [Scenario.Test].

// ErrCrashed is what every kit call of a crashed consumer returns: the
// consumer died before the call (see [Scenario.Crash]), so the call
// changed nothing. Goroutines of a crashed consumer should return when
// they see it; the kit ends one that goes on calling regardless.
var ErrCrashed = errors.New("sqsqtest: the consumer crashed")

// call is a kit call waiting for its turn.
type call struct {
	c    *consumer
	text string // the step as the timeline names it: "delete(A)"
	// describe, if set, makes text once the call is parked: names of
	// messages come from the run's bookkeeping, which only the scheduler
	// may read while goroutines run.
	describe func() string
	wake     time.Time // not before this instant (zero: now)
	ready    func() bool
	// idleAt is the world version at which the thread's previous receive
	// came back empty: a receive is not worth drawing again until the world
	// changes (see run.version).
	idleAt  uint64
	receive bool
	draw    *drawRequest // a user draw, made by the scheduler when granted
	grant   chan bool    // true: go on; false: the consumer crashed
	seq     uint64
	end     *threadEnd // a thread's end, not a step
	// note is a line for the timeline from kit code that runs in a
	// consumer's goroutine outside a granted call (after a handler
	// returned): inside a bubble other goroutines may run then, so the
	// scheduler writes it, in a fixed order.
	note string
}

type drawRequest struct {
	label string
	n     int
	value int
}

type threadEnd struct {
	err   error
	panic string // a panic of the consumer's code, with its stack
}

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
	arrMu   sync.Mutex
	arrived []*call
	arrival chan struct{}

	// Plain mode: goroutines of the engine running (neither parked nor
	// ended), and a poke when that count falls.
	running atomic.Int64
	changed chan struct{}
	checks  atomic.Uint64 // parks so far, for the goroutine check
	watch   *time.Timer   // waitParked's watchdog, made on first need

	mu      sync.Mutex
	failure error // a rule a consumer broke; ends the run
}

// watchdog bounds how long plain-mode quiescence waits in real time: a
// consumer goroutine blocked outside the kit never parks.
const watchdog = 30 * time.Second

// fencedCallLimit ends a crashed consumer's goroutine that keeps calling
// the kit after ErrCrashed: it would never return otherwise.
const fencedCallLimit = 10000

func newSched(bubble bool) *sched {
	return &sched{bubble: bubble, changed: make(chan struct{}, 1), arrival: make(chan struct{}, 1)}
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

func (s *sched) fail(err error) {
	s.mu.Lock()
	if s.failure == nil {
		s.failure = err
	}
	s.mu.Unlock()
}

func (s *sched) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failure
}

// spawn starts fn as a thread of consumer c.
func (s *sched) spawn(c *consumer, fn func() error) {
	c.threads++
	s.running.Add(1)
	go func() {
		threadRootOnce.Do(setThreadRoot)
		end := &threadEnd{}
		defer func() {
			if v := recover(); v != nil {
				end.panic = fmt.Sprintf("%v\n%s", v, debug.Stack())
			}
			s.arrive(&call{c: c, end: end})
		}()
		end.err = fn()
	}()
}

// arrive hands cl to the scheduler.
func (s *sched) arrive(cl *call) {
	s.push(cl)
	if !s.bubble && s.running.Add(-1) == 0 {
		select {
		case s.changed <- struct{}{}:
		default:
		}
	}
}

// note hands the scheduler a timeline line from a goroutine of c; it does
// not wait.
func (s *sched) note(c *consumer, text string) {
	s.push(&call{c: c, note: text})
}

// park is a kit call made by a goroutine of consumer c: it waits for its
// turn and reports whether to go on (false: c crashed, do nothing).
func (s *sched) park(cl *call) bool {
	c := cl.c
	if c.crashed.Load() {
		if c.fencedCalls.Add(1) > fencedCallLimit {
			runtime.Goexit()
		}
		return false
	}
	// Walking the stack to its root costs a microsecond or so, so one
	// call in eight is checked, and the first ones of every run: a
	// consumer that calls from its own goroutines does so on many calls,
	// and is caught within a run or two.
	if n := s.checks.Add(1); !s.bubble && (n <= 4 || n%8 == 0) {
		if !kitGoroutine() {
			s.fail(fmt.Errorf("sqsqtest: %s called the kit (%s) from a goroutine the kit did not start; "+
				"run the scenario with Scenario.Test (testing/synctest, Go 1.25+), or start it with env.Go", c.name, cl.text))
			c.crashed.Store(true)
			return false
		}
	}
	if s.bubble {
		// A bubble's goroutines may only wait durably on its own
		// channels, so none come from the pool.
		cl.grant = make(chan bool, 1)
		s.arrive(cl)
		return <-cl.grant
	}
	cl.grant = grants.Get().(chan bool)
	s.arrive(cl)
	goOn := <-cl.grant
	grants.Put(cl.grant) // empty again: a call is granted once
	return goOn
}

// grants recycles, outside bubbles, the channels parked calls wait on: one
// per kit call otherwise.
var grants = sync.Pool{New: func() any { return make(chan bool, 1) }}

// grant lets a parked call go on, or tells it its consumer crashed.
func (s *sched) grant(cl *call, goOn bool) {
	s.running.Add(1)
	cl.grant <- goOn
}

// quiesce waits until every goroutine of the run is parked or ended, then
// appends to got what arrived since the last call, in arrival order.
func (s *sched) quiesce(got []*call) []*call {
	if s.bubble {
		bubbleWait()
	} else if s.running.Load() > 0 {
		s.waitParked()
	}
	// Pushed under one lock, in order of seq: already sorted.
	return s.take(got)
}

// waitParked waits, outside a bubble, until the engine's goroutines are
// all parked or ended; a watchdog in real time fails the run if one never
// gets there.
func (s *sched) waitParked() {
	armed := false
	for s.running.Load() > 0 {
		select {
		case <-s.changed:
			continue
		default:
		}
		if !armed {
			// One timer per run, re-armed per wait: a wait per step
			// would otherwise make (and collect) a timer per step.
			if s.watch == nil {
				s.watch = time.NewTimer(watchdog)
			} else {
				s.watch.Reset(watchdog)
			}
			armed = true
		}
		select {
		case <-s.changed:
		case <-s.watch.C:
			s.fail(fmt.Errorf("sqsqtest: a consumer goroutine neither called the kit nor returned for %v of real time: "+
				"it is blocked outside the kit (a channel, a lock, a WaitGroup, a goroutine it started) or loops; "+
				"goroutines a handler starts need Scenario.Test (testing/synctest)", watchdog))
			return
		}
	}
}

// sortCalls orders parked calls so that a draw picks the same call
// whatever order goroutines that ran at once arrived in: by consumer, then
// by what the call is, then by arrival.
func sortCalls(calls []*call) {
	slices.SortStableFunc(calls, func(a, b *call) int {
		if a.c.slot != b.c.slot {
			return cmp.Compare(a.c.slot, b.c.slot)
		}
		if a.c.gen != b.c.gen {
			return cmp.Compare(a.c.gen, b.c.gen)
		}
		if a.text != b.text {
			return strings.Compare(a.text, b.text)
		}
		return cmp.Compare(a.seq, b.seq)
	})
}

// threadRoot is the entry of the function at the root of every goroutine
// the engine starts (spawn's), set by the first one.
var (
	threadRootOnce sync.Once
	threadRoot     atomic.Uintptr // read by goroutines that need not have set it
)

func setThreadRoot() { threadRoot.Store(rootFunc()) }

// kitGoroutine reports whether the calling goroutine is one the engine
// started: the function at the root of its stack is spawn's. Reading a
// goroutine's id instead takes a formatted stack trace, several times
// dearer.
func kitGoroutine() bool { return rootFunc() == threadRoot.Load() }

// rootFunc is the entry of the function the calling goroutine started
// with: the frame below runtime.goexit, at the bottom of the stack.
func rootFunc() uintptr {
	var buf [64]uintptr
	pcs := buf[:runtime.Callers(1, buf[:])]
	for len(pcs) == cap(pcs) { // a deep stack: walk it again, whole
		more := make([]uintptr, 4*cap(pcs))
		pcs = more[:runtime.Callers(1, more)]
	}
	if len(pcs) < 2 {
		return 0
	}
	f := runtime.FuncForPC(pcs[len(pcs)-2] - 1)
	if f == nil {
		return 0
	}
	return f.Entry()
}
