package durable

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/state"
)

// Writing each change (#21, "acknowledged means durable"). A broker made
// with [Store.Journal] reports every change of its endpoint's state, under
// the lock of the change, before the call that made it answers (package
// sqsq's journal.go). The Store queues them; after [Store.Attach] a
// goroutine, the committer, appends all that are queued to the log as one
// frame (wal.go) and starts again with what came in meanwhile: concurrent
// calls share a commit (group commit), and a commit costs one write and
// one fdatasync whatever it holds. [Store.Sync] waits for the commit that
// covers every report made before it; sqshttp's WithCommit calls it before
// each answer, so a 200 means on disk.
//
// The counters below count reports: a Group is one.

// committer is a Store's queue of changes and the goroutine that writes
// them.
type committer struct {
	s     *Store
	every time.Duration // wait between commits (CommitEvery); 0: none
	// compactEvery is how often to look at the free space (compact.go).
	compactEvery time.Duration

	mu        sync.Mutex
	pending   []state.Change
	reported  uint64        // reports so far
	durable   uint64        // reports on disk
	attempted uint64        // reports the last commit tried to write
	attempts  uint64        // commits tried
	err       error         // why the last commit failed; nil after a success
	done      chan struct{} // closed, and replaced, at the end of each commit
	wake      chan struct{} // a change to write (buffered, 1)
	started   bool          // Attach ran
	closing   bool          // Close ran: report nothing more
	b         *sqsq.Broker  // for the clock, and to save the whole state again
	stopped   chan struct{} // the goroutine ended
	// Group commit's gathering (gather): Syncs that waited so far, their
	// count when the last batch was taken, and how many came from that
	// take to the end of its commit; arrived is told of each new one
	// (buffered, 1).
	arrivals, takenAt, target uint64
	arrived                   chan struct{}
}

func newCommitter(s *Store) *committer {
	return &committer{s: s, every: s.opts.commitEvery, compactEvery: compactEvery, done: make(chan struct{}), wake: make(chan struct{}, 1), arrived: make(chan struct{}, 1)}
}

// CommitEvery makes the Store write the changes it is told of at most
// once every d, rather than as soon as the previous commit ends. Calls
// then wait up to d longer in [Store.Sync]; a program that does not wait
// for Sync (cmd/sqsq -data-sync D) may lose the last d of changes to a
// crash, but commits less often.
func CommitEvery(d time.Duration) Option {
	return optionFunc(func(o *options) { o.commitEvery = max(d, 0) })
}

// Journal returns the option that makes a broker's endpoint report its
// changes to s: give it to [sqsq.NewBroker] or [Restore], then call
// [Store.Attach] with the broker. One Store keeps one endpoint.
func (s *Store) Journal() sqsq.Option {
	return state.Journal(s.c.report).(sqsq.Option)
}

// report queues one change. It runs under the broker's locks, so it only
// appends.
func (c *committer) report(ch state.Change) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	if ch.Kind == state.Group { // one report: no commit can take half of it
		c.pending = append(c.pending, ch.Changes...)
	} else {
		c.pending = append(c.pending, ch)
	}
	c.reported++
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Attach starts writing the changes of b, a broker made with
// [Store.Journal], to s. If s holds no state yet, Attach first saves the
// whole of b; if b was restored from s, what s holds is b's state already.
// Changes reported before Attach are written by its first commit.
func (s *Store) Attach(b *sqsq.Broker) error {
	c := s.c
	c.mu.Lock()
	if c.started || c.closing {
		c.mu.Unlock()
		return errors.New("durable: Attach called twice, or after Close")
	}
	c.started, c.b = true, b
	c.mu.Unlock()

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return ErrClosed
	}
	empty, err := s.isEmpty()
	if err != nil {
		return err
	}
	if empty {
		w, err := state.Export(b)
		if err != nil {
			return fmt.Errorf("durable: %w", err)
		}
		if err := s.save(w); err != nil {
			return err
		}
	}
	if err := s.shape.read(s); err != nil {
		return damaged(s.path, err)
	}
	stopped := make(chan struct{})
	c.mu.Lock() // Sync and stop read stopped under c.mu
	c.stopped = stopped
	c.mu.Unlock()
	go c.run(stopped)
	return nil
}

// Sync waits until every change reported before it is on disk, and
// returns nil; or the error of a commit, begun after Sync was called, that
// failed to write them (a later commit tries again), [ErrClosed], or ctx's
// error. Before [Store.Attach] nothing is written, and Sync waits.
func (s *Store) Sync(ctx context.Context) error {
	c := s.c
	c.mu.Lock()
	want, start := c.reported, c.attempts
	if c.durable < want {
		c.arrivals++
		select {
		case c.arrived <- struct{}{}:
		default:
		}
	}
	for c.durable < want {
		// A failure of before the call is old news: the disk may have
		// room now, and the retry may succeed.
		if c.err != nil && c.attempted >= want && c.attempts > start+1 {
			err := c.err
			c.mu.Unlock()
			return err
		}
		if c.closing && c.stopped == nil {
			c.mu.Unlock()
			return ErrClosed
		}
		done := c.done
		c.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
		c.mu.Lock()
	}
	c.mu.Unlock()
	return nil
}

// Checkpoint commits now, even if there is no change to write, and waits
// for it as [Store.Sync] does: the file then holds the clock's instant as
// of the call. A virtual clock moved forward changes no record, and would
// otherwise resume, after a crash, from the instant of the last change.
func (s *Store) Checkpoint(ctx context.Context) error {
	s.c.report(state.Change{}) // no record: a commit, stamped with the clock
	return s.Sync(ctx)
}

// A commit waits up to maxGather for the callers of the last one, and
// gives up sooner when none has come for gatherGap (see gather).
const (
	maxGather = 6 * time.Millisecond
	gatherGap = 2 * time.Millisecond
)

// run is the committer goroutine: it commits while there are changes, and
// ends when Close has asked it to and nothing is left.
func (c *committer) run(stopped chan struct{}) {
	defer close(stopped)
	retry := time.Duration(0)
	lastLook := time.Now()
	look := func() { // at the log and the free space, now and then (compact.go)
		lastLook = time.Now()
		if err := c.s.idleWork(c.b); err != nil {
			c.s.log("durable: " + err.Error())
		}
	}
	idle := time.NewTimer(time.Hour)
	defer idle.Stop()
	for {
		c.mu.Lock()
		lookDue := true // once per idle spell: a server left alone shrinks too
		for len(c.pending) == 0 && !c.closing {
			c.mu.Unlock()
			idle.Reset(max(c.compactEvery, time.Millisecond))
			select {
			case <-c.wake:
			case <-idle.C:
				if lookDue {
					look()
					lookDue = false
				}
			}
			c.mu.Lock()
		}
		if len(c.pending) == 0 { // closing, and all written
			c.mu.Unlock()
			return
		}
		c.gather()
		batch, upTo, closing := c.pending, c.reported, c.closing
		prevTake := c.takenAt
		c.takenAt = c.arrivals
		c.pending = make([]state.Change, 0, len(batch)) // the log keeps batch until its checkpoint
		c.mu.Unlock()

		err := c.s.logCommit(batch, c.b)
		c.mu.Lock()
		c.attempted = upTo
		c.attempts++
		if err != nil {
			// Nothing of the batch is on disk: write it again, with what
			// came since, at the next commit.
			c.pending = append(batch, c.pending...)
			c.err = fmt.Errorf("durable: writing to %s: %w", c.s.path, err)
		} else {
			c.durable, c.err = upTo, nil
		}
		c.target = c.arrivals - prevTake // the callers served, and those come meanwhile
		close(c.done)
		c.done = make(chan struct{})
		c.mu.Unlock()

		switch {
		case err != nil && closing:
			c.s.log("durable: the last changes could not be written: " + err.Error())
			return
		case err != nil:
			// A full disk does not empty itself at once: back off, up to
			// a second, rather than fail every call in a tight loop.
			retry = min(max(2*retry, 10*time.Millisecond), time.Second)
			c.sleep(retry)
		default:
			retry = 0
			if time.Since(lastLook) >= c.compactEvery {
				look()
			}
			if c.every > 0 {
				c.sleep(c.every)
			}
		}
	}
}

// gather waits until as many Syncs have come since the last batch was
// taken as came for the last commit and during it: a commit costs the
// same (one fdatasync, some 0.1 ms of CPU on the project's machine) for
// one call or for twenty, and callers in a loop come back one by one, so
// committing at the first would give each its own commit. It waits at
// most maxGather, and stops once gatherGap passes with no new caller:
// those that were to come are not coming, and the waiting ones should
// not pay for them. Sixteen workers on the project's two cores come back
// within 3 to 5 ms, and fill a commit then (BenchmarkCommit and the HTTP
// load test, sqshttp/load_test.go). A first caller waits for nothing; a
// caller alone after a busy spell waits gatherGap once, and its commit
// then expects one caller (TestGroupCommit). Caller holds c.mu; gather
// may release it meanwhile.
func (c *committer) gather() {
	if c.arrivals-c.takenAt >= c.target || c.closing {
		return
	}
	t := time.NewTimer(maxGather)
	defer t.Stop()
	gap := time.NewTimer(gatherGap)
	defer gap.Stop()
	for c.arrivals-c.takenAt < c.target && !c.closing {
		c.mu.Unlock()
		select {
		case <-c.arrived:
			gap.Reset(gatherGap)
		case <-t.C:
			c.mu.Lock()
			return
		case <-gap.C:
			c.mu.Lock()
			return
		}
		c.mu.Lock()
	}
}

// sleep waits d, or until Close.
func (c *committer) sleep(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			return
		case <-c.wake:
			c.mu.Lock()
			closing := c.closing
			c.mu.Unlock()
			if closing {
				return
			}
		}
	}
}

// stop makes the committer write what is queued and end, and waits for
// it. Changes reported after are dropped: the broker outlives the Store.
func (c *committer) stop() {
	c.mu.Lock()
	c.closing = true
	stopped := c.stopped
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	if stopped != nil {
		<-stopped
	}
	c.mu.Lock()
	c.stopped = nil
	close(c.done) // wake Syncs: they return ErrClosed, or nil if written
	c.done = make(chan struct{})
	c.mu.Unlock()
}
