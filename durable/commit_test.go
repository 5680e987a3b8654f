package durable

import (
	"context"
	"strings"
	"testing"
	"time"

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
