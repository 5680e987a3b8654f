package sqsq

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

// A cursor with a sequence number the queue never issued is not one of its
// cursors, though it names the queue.
func TestPeekCursorBeyondLastSequence(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := NewBroker(WithClock(clock.NewMock()))
	defer b.Close()
	q, err := b.CreateQueue(ctx, CreateQueueInput{QueueName: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Send(ctx, SendInput{MessageBody: "a"}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		seq uint64
		ok  bool
	}{{0, true}, {1, true}, {2, false}} {
		_, err := q.Peek(ctx, PeekInput{Cursor: q.peekCursor(tt.seq)})
		if (err == nil) != tt.ok {
			t.Errorf("cursor at seq %d: %v, want ok=%v", tt.seq, err, tt.ok)
		}
	}
}

// checkSeqIndex fails unless q.bySeq holds every stored message once, in
// seq order, and at most the gone ones its compaction rule allows.
func checkSeqIndex(t *testing.T, q *Queue) {
	t.Helper()
	q.mu.Lock()
	defer q.mu.Unlock()
	stored := q.nAvail + q.nInflight + q.nDelayed
	live := 0
	var last uint64
	for i, m := range q.bySeq.all() {
		if i > 0 && m.seq <= last {
			t.Fatalf("index out of order at %d: seq %d after %d", i, m.seq, last)
		}
		last = m.seq
		if m.state != stateGone {
			live++
		}
	}
	if live != stored {
		t.Fatalf("index has %d live messages, the queue stores %d", live, stored)
	}
	if n := len(q.bySeq.all()); n > 2*stored+1024 {
		t.Fatalf("index has %d entries for %d messages", n, stored)
	}
	if q.bySeq.head > 1024 && q.bySeq.head > len(q.bySeq.all()) {
		t.Fatalf("index keeps a dropped head of %d before %d entries", q.bySeq.head, len(q.bySeq.all()))
	}
}

// The send-order index stays proportional to what is stored, whatever
// order messages leave in, and gives its storage back once emptied.
func TestSeqIndexStaysProportional(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := NewBroker(WithClock(clock.NewMock()))
	defer b.Close()
	q, err := b.CreateQueue(ctx, CreateQueueInput{QueueName: "q"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 20_000
	for i := 0; i < n; i++ {
		if _, err := q.Send(ctx, SendInput{MessageBody: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	var handles []string
	for {
		msgs, err := q.Receive(ctx, ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: Some(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			break
		}
		for _, m := range msgs {
			handles = append(handles, m.ReceiptHandle)
		}
	}
	// Delete in a random order, checking the index as it goes, then from
	// the head, the usual order.
	rng := rand.New(rand.NewPCG(3, 4))
	rng.Shuffle(len(handles)/2, func(i, j int) { handles[i], handles[j] = handles[j], handles[i] })
	for i, h := range handles {
		if err := q.Delete(ctx, h); err != nil {
			t.Fatal(err)
		}
		if i%997 == 0 {
			checkSeqIndex(t, q)
		}
	}
	checkSeqIndex(t, q)
	q.mu.Lock()
	c := cap(q.bySeq.s)
	q.mu.Unlock()
	if c > shrinkMinPeak {
		t.Errorf("emptied index keeps a capacity of %d", c)
	}
}
