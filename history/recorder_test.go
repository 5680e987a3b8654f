package history

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/sqsq/sqsq"
)

// check verifies r's indexes against its histories: each history once in
// the recency list and in the index of each queue it joined; every handle
// remembered is one a kept entry handed out; the bounds hold.
func check(t *testing.T, r *Recorder) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.msgs) > r.cfg.maxMessages {
		t.Errorf("%d histories, more than %d", len(r.msgs), r.cfg.maxMessages)
	}
	n := 0
	for rec := r.recent.next; rec != &r.recent; rec = rec.next {
		n++
		if r.msgs[rec.id] != rec || rec.next.prev != rec {
			t.Fatalf("recency list: %s is not the history of its id, or badly linked", rec.id)
		}
		if len(rec.entries) > r.cfg.maxEntries || len(rec.entries) == 0 {
			t.Errorf("%s has %d entries, bound %d", rec.id, len(rec.entries), r.cfg.maxEntries)
		}
		for _, e := range rec.entries {
			if e.handsOut() && r.handles[e.handle] == nil {
				t.Errorf("%s: the handle %s its entry handed out is forgotten", rec.id, e.handle)
			}
		}
	}
	if n != len(r.msgs) {
		t.Errorf("recency list of %d, %d histories", n, len(r.msgs))
	}
	members := 0
	for k, q := range r.queues {
		if q.head == nil || q.key != k {
			t.Errorf("index of %v: empty or misfiled", k)
		}
		var prev *member
		for m := q.head; m != nil; m = m.next {
			members++
			if m.q != q || m.prev != prev || r.msgs[m.rec.id] != m.rec {
				t.Fatalf("index of %v: badly linked at %s", k, m.rec.id)
			}
			prev = m
		}
		if q.tail != prev {
			t.Errorf("index of %v: tail is not its last", k)
		}
	}
	want := 0
	for _, rec := range r.msgs {
		want += 1 + len(rec.more)
	}
	if members != want {
		t.Errorf("indexes hold %d places, the histories %d", members, want)
	}
	for h, rec := range r.handles {
		if r.msgs[rec.id] != rec {
			t.Fatalf("handle %s of a forgotten history %s", h, rec.id)
		}
		found := false
		for _, e := range rec.entries {
			found = found || e.handsOut() && e.handle == h
		}
		if !found {
			t.Errorf("handle %s of %s: no kept entry handed it out", h, rec.id)
		}
	}
}

// Observers are called from many queues at once, and readers read
// meanwhile: under -race, with bounds small enough that histories and
// entries are dropped all the time, the indexes stay whole.
func TestConcurrentObserve(t *testing.T) {
	t.Parallel()
	r := New(WithMaxMessages(50), WithMaxEntries(5))
	kinds := []sqsq.EventKind{sqsq.EventSent, sqsq.EventReceived, sqsq.EventReceiveLost, sqsq.EventVisibilityChanged,
		sqsq.EventDeleted, sqsq.EventDeadLettered, sqsq.EventRedriven}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for i := range 3000 {
				e := sqsq.Event{
					Kind: kinds[rng.IntN(len(kinds))], At: time.Unix(int64(i), 0), Account: "000000000000", Region: "us-east-1",
					Queue: fmt.Sprint("q", rng.IntN(3)), MessageID: fmt.Sprint("m", rng.IntN(80)), Body: "b",
					ReceiptHandle: fmt.Sprint("h", w, "-", i), DeadLetterQueue: "dlq", Destination: "q0",
					NewMessageID: fmt.Sprint("n", w, "-", i),
				}
				if e.Kind == sqsq.EventDeleted && rng.IntN(2) == 0 {
					e.MessageID, e.ReceiptHandle = "", fmt.Sprint("h", w, "-", rng.IntN(i+1)) // a handle handed out before, maybe
				}
				r.Observe(e)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 300 {
			r.Queue("000000000000", "us-east-1", fmt.Sprint("q", i%3))
			r.Message(fmt.Sprint("m", i%80))
			if i%100 == 0 {
				r.SetEnabled(i%200 == 0)
			}
		}
		r.SetEnabled(true)
	}()
	wg.Wait()
	check(t, r)
	r.Reset()
	check(t, r)
}

// An entry stays 56 bytes on 64-bit platforms: the package doc's memory
// figures count on it.
func TestEntrySize(t *testing.T) {
	t.Parallel()
	if unsafe.Sizeof(uintptr(0)) == 8 && unsafe.Sizeof(entry{}) != 56 {
		t.Errorf("an entry is %d bytes, want 56", unsafe.Sizeof(entry{}))
	}
}
