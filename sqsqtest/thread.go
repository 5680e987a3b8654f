package sqsqtest

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// thread is one of the engine's threads outside a bubble: a coroutine
// (iter.Pull) that runs only while the scheduler has resumed it, on the
// scheduler's goroutine's OS thread. A kit call yields; the scheduler
// resumes it with the answer. So a step costs two coroutine switches and
// wakes no goroutine. The engine's threads were goroutines woken through
// channels, for which the Go runtime starts an idle OS thread on a
// multi-core machine with a futex call, at 5-15 µs on a virtual machine:
// most of a run's time.
type thread struct {
	c      *consumer
	fn     func() error
	end    *threadEnd // how fn ended
	next   func() (struct{}, bool)
	stop   func()
	yield  func(struct{}) bool
	cl     *call // the call it parked in, nil while it runs
	own    call  // the call it parks in next (see sched.newCall)
	goOn   bool  // the answer to cl
	idle   bool  // fn has ended: the thread waits for another
	exited bool  // fn called runtime.Goexit: the thread is done for
	// lo and hi bound the stack addresses of its calls that ownStack
	// walked and found to be its own; 0 before the first.
	lo, hi uintptr
}

// resume runs t until it parks again or ends, and hands the scheduler
// what it did. An ended thread waits for the next spawn of the run: a
// coroutine made afresh for every receive, and its stack grown, cost more
// than a step.
func (s *sched) resume(t *thread) {
	prev := s.cur
	s.cur = t
	t.cl = nil
	t.next()
	s.cur = prev
	switch {
	case t.exited:
		// Let its Goexit finish on a goroutine of its own: resumed here,
		// the coroutine would pass the Goexit on to this goroutine.
		go t.next()
		s.push(&t.end.cl)
	case t.idle:
		s.push(&t.end.cl)
		t.c, t.fn, t.end = nil, nil, nil
		s.idle = append(s.idle, t)
	default:
		s.push(t.cl)
	}
}

// errFenced ends, outside a bubble, the thread of a crashed consumer
// that keeps calling the kit (see fencedCallLimit).
var errFenced = errors.New("sqsqtest: fenced")

// thread returns a thread that will run fn for consumer c when first
// resumed, reporting how it ended in end: an idle one of the run's, or a
// new one.
func (s *sched) thread(c *consumer, end *threadEnd, fn func() error) *thread {
	var t *thread
	if n := len(s.idle); n > 0 {
		t = s.idle[n-1]
		s.idle = s.idle[:n-1]
	} else {
		t = &thread{}
		t.next, t.stop = iter.Pull(t.body)
	}
	t.c, t.fn, t.end, t.idle = c, fn, end, false
	return t
}

// body is the coroutine of a thread: it runs one fn after another until
// the scheduler stops it.
func (t *thread) body(yield func(struct{}) bool) {
	threadRootOnce.Do(setThreadRoot)
	growStack()
	t.yield = yield
	for {
		t.run()
		t.idle = true
		if !yield(struct{}{}) {
			return
		}
	}
}

// run runs the thread's fn, recovering its panic.
func (t *thread) run() {
	returned := false
	defer func() {
		if v := recover(); v != nil {
			if v != errFenced {
				t.end.panic = panicText(v)
			}
		} else if !returned {
			// runtime.Goexit, which the coroutine would pass on to the
			// goroutine that resumed it: hand back as ended (see resume).
			t.exited = true
			t.yield(struct{}{})
		}
	}()
	t.end.err = t.fn()
	returned = true
}

// stopThreads ends idle threads: their bodies return.
func stopThreads(ts []*thread) {
	for _, t := range ts {
		t.stop()
	}
}

// watchdog is how long, outside a bubble, a run waits in real time for a
// kit call before it says that a thread is blocked outside the kit (see
// sched.drive); a variable for its test.
var watchdog = 30 * time.Second

// watchdogOut is where the watchdog says so; a variable for its test.
var watchdogOut io.Writer = os.Stderr

// drive runs play outside a bubble, on the calling goroutine, with a
// watchdog: a thread blocked outside the kit never yields, and the
// scheduler waits in its resume for as long. Handing play to a goroutine
// of its own, which could be given up, cost a futex wake-up a run, as
// much time as the rest of a run. So after watchdog of real time with no
// kit call the run fails and the watchdog says why on standard error: the
// test goes on if the thread ever returns, and hangs until go test's
// -timeout if not.
func (s *sched) drive(spare *spares, play func()) {
	if spare != nil { // the run's idle threads are the loop's, and go back to it
		s.idle, spare.idle = spare.idle, nil
		defer func() { spare.idle, s.idle = s.idle, nil }()
	} else {
		defer func() { stopThreads(s.idle) }()
	}
	wait, out := watchdog, watchdogOut
	seen := s.parks.Load()
	var (
		mu    sync.Mutex // watch is set after the timer starts
		watch *time.Timer
	)
	bark := func() {
		if n := s.parks.Load(); n != seen {
			seen = n
			mu.Lock()
			watch.Reset(wait)
			mu.Unlock()
			return
		}
		err := fmt.Errorf("sqsqtest: a consumer goroutine neither called the kit nor returned for %v of real time: "+
			"it is blocked outside the kit (a channel, a lock, a WaitGroup, a goroutine it started, a real timer) or loops; "+
			"goroutines a handler starts need Scenario.Test (testing/synctest)", wait)
		// Failed before it is said: whoever reads the message (its test)
		// may let the thread return at once, and the run must fail then.
		s.fail(err)
		fmt.Fprintf(out, "%v\nThe run fails if it ever returns; until then the test waits (go test -timeout ends it).\n", err)
	}
	mu.Lock()
	watch = time.AfterFunc(wait, bark)
	mu.Unlock()
	defer func() {
		mu.Lock()
		watch.Stop()
		mu.Unlock()
	}()
	play()
}

// ownStack reports whether the caller, a kit call that found t running,
// runs on t's goroutine and not on one the consumer started itself.
// Walking the stack to its root (kitGoroutine) costs a microsecond or so,
// as much as the rest of a step: it had been done on a run's first call
// and one in 32 of the others. Instead t keeps the span of stack addresses
// of the calls it walked and found its own, and a call within that span
// needs no walk: no other live goroutine's stack overlaps t's. A call
// outside it is walked; if it is t's, the span widens, or starts afresh
// where the stack has moved (Go copies a goroutine's stack to grow or
// shrink it). So every call is checked, and walks are rare. A foreign
// call slips through only from a stack that lies where t's stack was
// before it moved, or between its old and new place; it then makes t's
// own next call a second one (see park), or its end a panic of
// iter.Pull's, and the run fails either way.
func (t *thread) ownStack() bool {
	var here byte
	sp := uintptr(unsafe.Pointer(&here))
	if t.lo <= sp && sp <= t.hi {
		return true
	}
	if !kitGoroutine() {
		return false
	}
	const near = 16 << 10 // a call's depth varies by less while the stack stays put
	if t.lo == 0 || sp+near < t.lo || sp > t.hi+near {
		t.lo, t.hi = sp, sp
	} else {
		t.lo, t.hi = min(t.lo, sp), max(t.hi, sp)
	}
	return true
}

// threadRoot is the entry of the function at the root of every thread
// outside a bubble (spawn's coroutine body), set by the first one.
var (
	threadRootOnce sync.Once
	threadRoot     atomic.Uintptr // read by goroutines that need not have set it
)

func setThreadRoot() { threadRoot.Store(rootFunc()) }

// kitGoroutine reports whether the calling goroutine is a thread of the
// engine: the function at the root of its stack is spawn's coroutine body.
// Reading a goroutine's id instead takes a formatted stack trace, several
// times dearer.
func kitGoroutine() bool { return rootFunc() == threadRoot.Load() }

// rootFunc is the entry of the function a coroutine's goroutine runs: the
// frame above iter.Pull's and runtime.corostart, at the bottom of the
// stack above runtime.goexit.
func rootFunc() uintptr {
	var buf [64]uintptr
	pcs := buf[:runtime.Callers(1, buf[:])]
	for len(pcs) == cap(pcs) { // a deep stack: walk it again, whole
		more := make([]uintptr, 4*cap(pcs))
		pcs = more[:runtime.Callers(1, more)]
	}
	if len(pcs) < 4 {
		return 0
	}
	f := runtime.FuncForPC(pcs[len(pcs)-4] - 1)
	if f == nil {
		return 0
	}
	return f.Entry()
}

// growStack grows the calling goroutine's stack to 16 KiB while it holds
// few frames, so cheaply: a thread's stack otherwise grew as its handler
// called into the broker, 2 KiB at a time, a copy frame by frame each
// time (a tenth of a run's time).
//
//go:noinline
func growStack() {
	var pad [12 << 10]byte
	touch(&pad)
}

//go:noinline
func touch(p *[12 << 10]byte) { p[0]++ }
