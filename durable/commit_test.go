package durable

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/sqsq/sqsq"
)

// The file shrinks back while the server runs once the messages are gone:
// 2,000 messages of 1 KiB take a few MB, and after they are deleted a
// commit compacts the file to a few pages.
func TestCompactWhileServing(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	s.c.compactEvery = 0 // look after every commit
	b := attached(t, s)
	ctx := context.Background()
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q"})
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("x", 1024)
	for range 2000 {
		if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: body}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, s) // which writes the log into the file first
	full := s.fileSize()
	if err := q.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := s.Checkpoint(ctx); err != nil {
			t.Fatal(err)
		}
		s.mu.Lock()
		size := s.fileSize()
		s.mu.Unlock()
		if size < full/10 {
			t.Logf("2,000 messages of 1 KiB: %d bytes; purged, compacted while serving: %d bytes", full, size)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the file is %d bytes 10 s after a purge; it held 2,000 messages in %d", size, full)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	w := mustLoad(t, s2)
	if n := len(w.Scopes[0].Queues[0].Messages); n != 0 || w.Scopes[0].Queues[0].Name != "q" {
		t.Fatalf("after the compaction and a restart: queue %q with %d messages; want q, empty", w.Scopes[0].Queues[0].Name, n)
	}
}

// Concurrent calls share a commit (group commit): sixteen calls that
// wait in Sync before the committer starts are all written by its first
// commit. A caller alone afterwards gets its own commit, and the next
// commit then waits for one caller, not sixteen.
func TestGroupCommit(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()), s.Journal())
	defer b.Close()
	ctx := context.Background()
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q"})
	if err != nil {
		t.Fatal(err)
	}
	const callers = 16
	errs := make(chan error, callers)
	for i := range callers {
		go func() {
			if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: strings.Repeat("x", i+1)}); err != nil {
				errs <- err
				return
			}
			errs <- s.Sync(ctx) // waits: nothing is written before Attach
		}()
	}
	for { // every caller waits in Sync
		s.c.mu.Lock()
		n := s.c.arrivals
		s.c.mu.Unlock()
		if n == callers {
			break
		}
		runtime.Gosched() // the callers are goroutines running now, not waiting on a clock
	}
	if err := s.Attach(b); err != nil {
		t.Fatal(err)
	}
	for range callers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	commits := func() (uint64, uint64) {
		s.c.mu.Lock()
		defer s.c.mu.Unlock()
		return s.c.attempts, s.c.target
	}
	if n, target := commits(); n != 1 || target != callers {
		t.Fatalf("%d calls waiting made %d commits, the next waiting for %d callers; want 1 commit, then %d", callers, n, target, callers)
	}
	if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "alone"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n, target := commits(); n != 2 || target != 1 {
		t.Fatalf("a caller alone: %d commits, the next waiting for %d callers; want 2, then 1", n, target)
	}
}
