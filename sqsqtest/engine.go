package sqsqtest

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
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
	arrivals chan *call
	seq      atomic.Uint64
	bubble   bool

	// Plain mode: goroutines of the engine running (neither parked nor
	// ended), and a poke when that count falls.
	running atomic.Int64
	changed chan struct{}
	checks  atomic.Uint64 // parks so far, for the goroutine check
	goids   sync.Map      // goroutine id → *consumer, of the engine's goroutines

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
	return &sched{arrivals: make(chan *call, 1<<12), bubble: bubble, changed: make(chan struct{}, 1)}
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
		if !s.bubble {
			id := goid()
			s.goids.Store(id, c)
			defer s.goids.Delete(id)
		}
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
	cl.seq = s.seq.Add(1)
	s.arrivals <- cl
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
	cl := &call{c: c, note: text}
	cl.seq = s.seq.Add(1)
	s.arrivals <- cl
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
	// Reading a goroutine's id costs a stack trace (half a run's time), so
	// one call in eight is checked, and the first ones of every run: a
	// consumer that calls from its own goroutines does so on many calls,
	// and is caught within a run or two.
	if n := s.checks.Add(1); !s.bubble && (n <= 4 || n%8 == 0) {
		if owner, ok := s.goids.Load(goid()); !ok || owner != c {
			s.fail(fmt.Errorf("sqsqtest: %s called the kit (%s) from a goroutine the kit did not start; "+
				"run the scenario with Scenario.Test (testing/synctest, Go 1.25+), or start it with env.Go", c.name, cl.text))
			c.crashed.Store(true)
			return false
		}
	}
	cl.grant = make(chan bool, 1)
	s.arrive(cl)
	return <-cl.grant
}

// grant lets a parked call go on, or tells it its consumer crashed.
func (s *sched) grant(cl *call, goOn bool) {
	s.running.Add(1)
	cl.grant <- goOn
}

// quiesce waits until every goroutine of the run is parked or ended, then
// returns what arrived since the last call, in arrival order.
func (s *sched) quiesce() []*call {
	if s.bubble {
		bubbleWait()
	} else if s.running.Load() > 0 {
		s.waitParked()
	}
	var got []*call
	for {
		select {
		case cl := <-s.arrivals:
			got = append(got, cl)
		default:
			sort.Slice(got, func(i, j int) bool { return got[i].seq < got[j].seq })
			return got
		}
	}
}

// waitParked waits, outside a bubble, until the engine's goroutines are
// all parked or ended; a watchdog in real time fails the run if one never
// gets there.
func (s *sched) waitParked() {
	var watch *time.Timer
	for s.running.Load() > 0 {
		select {
		case <-s.changed:
			continue
		default:
		}
		if watch == nil {
			watch = time.NewTimer(watchdog)
			defer watch.Stop()
		}
		select {
		case <-s.changed:
		case <-watch.C:
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
	sort.SliceStable(calls, func(i, j int) bool {
		a, b := calls[i], calls[j]
		if a.c.slot != b.c.slot {
			return a.c.slot < b.c.slot
		}
		if a.c.gen != b.c.gen {
			return a.c.gen < b.c.gen
		}
		if a.text != b.text {
			return a.text < b.text
		}
		return a.seq < b.seq
	})
}

// goid is the current goroutine's id, read from its stack header
// ("goroutine 42 [running]:").
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}
