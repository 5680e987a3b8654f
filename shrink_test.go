package sqsq

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"strconv"
	"testing"
	"time"
	"weak"

	"github.com/benbjohnson/clock"
)

// sameMap reports whether a and b are the same map (not a rebuilt copy).
func sameMap[K comparable, V any](a, b map[K]V) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func TestShrinkMapRebuildsAtAQuarterOfThePeak(t *testing.T) {
	t.Parallel()
	m, peak := map[int]int{}, mapPeak(0)
	for i := 0; i < 4096; i++ {
		m[i] = i
		peak.grew(len(m))
	}
	orig := m
	for i := 0; i < 3071; i++ { // down to 1,025: above a quarter
		delete(m, i)
		m = shrinkMap(m, &peak)
	}
	if !sameMap(m, orig) || peak != 4096 {
		t.Fatalf("rebuilt above a quarter of the peak (peak now %d)", peak)
	}
	delete(m, 3071)
	m = shrinkMap(m, &peak)
	if sameMap(m, orig) || peak != 1024 || len(m) != 1024 {
		t.Fatalf("at a quarter of the peak: rebuilt %v, peak %d, len %d; want a rebuild, 1024, 1024", !sameMap(m, orig), peak, len(m))
	}
	for i := 3072; i < 4096; i++ {
		if m[i] != i {
			t.Fatalf("m[%d] = %d after the rebuild, want %d", i, m[i], i)
		}
	}

	// A map whose size holds steady is never copied, however busy.
	steady := m
	for i := 4096; i < 100_000; i++ {
		m[i] = i
		peak.grew(len(m))
		delete(m, i-1024)
		m = shrinkMap(m, &peak)
	}
	if !sameMap(m, steady) {
		t.Fatal("a map of steady size was rebuilt")
	}

	// Small maps are left alone: a queue hovering near empty would
	// otherwise reallocate over and over.
	small, sp := map[int]int{}, mapPeak(0)
	for i := 0; i < shrinkMinPeak-1; i++ {
		small[i] = i
		sp.grew(len(small))
	}
	smallOrig := small
	clear(small)
	if small = shrinkMap(small, &sp); !sameMap(small, smallOrig) {
		t.Fatal("a map below shrinkMinPeak was rebuilt")
	}
}

func TestExpiringMapStaysBoundedOnAStandingClock(t *testing.T) {
	t.Parallel()
	var x expiringMap[int]
	const now = 0
	// The same key put and deleted over and over at one instant (a receive
	// attempt id retried after its messages changed): the expiry queue must
	// not keep one entry per put.
	for i := 0; i < 100_000; i++ {
		x.put("k", i, now+10)
		x.delete("k")
	}
	if x.len() != 0 || x.order.Len() > 1024 {
		t.Fatalf("after 100,000 put/delete: %d entries, %d in the expiry queue; want 0 and at most 1024", x.len(), x.order.Len())
	}
	// limit keeps the entries that end last.
	for i := 0; i < 5000; i++ {
		x.put(strconv.Itoa(i), i, now+10+int64(i))
	}
	x.limit(1000)
	if x.len() != 1000 {
		t.Fatalf("len after limit(1000) = %d", x.len())
	}
	for _, k := range []int{0, 3999} {
		if _, ok := x.get(strconv.Itoa(k)); ok {
			t.Errorf("entry %d kept, want it forgotten", k)
		}
	}
	for _, k := range []int{4000, 4999} {
		if v, ok := x.get(strconv.Itoa(k)); !ok || v != k {
			t.Errorf("entry %d = %d, %v; want it kept", k, v, ok)
		}
	}
	if x.peak > 1000 || x.order.Len() > 2*1000+1024 {
		t.Errorf("after limit: peak %d, expiry queue %d; want the storage given back", x.peak, x.order.Len())
	}
	x.expire(now + 10 + 5000)
	if x.len() != 0 || x.order.Len() != 0 {
		t.Errorf("after every expiry: %d entries, %d in the expiry queue; want none", x.len(), x.order.Len())
	}
}

// TestFIFOLoadGivesIndexesBack checks, inside the queue, what
// TestMemoryReturnsAfterFIFOLoad measures on the heap: after a load of
// 20,000 single-message groups is drained and the windows pass, every map
// and slice that grew with the load is back to a small size.
func TestFIFOLoadGivesIndexesBack(t *testing.T) {
	t.Parallel()
	const n = 20_000
	ctx := context.Background()
	clk := clock.NewMock()
	b := NewBroker(WithClock(clk))
	q, err := b.CreateQueue(ctx, CreateQueueInput{QueueName: "load.fifo", Attributes: QueueAttributes{FifoQueue: Some(true)}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		s := strconv.Itoa(i)
		if _, err := q.Send(ctx, SendInput{MessageBody: "m-" + s, MessageGroupId: "g-" + s, MessageDeduplicationId: "d-" + s}); err != nil {
			t.Fatal(err)
		}
	}
	q.mu.Lock()
	if q.f.groupsPeak != n || q.f.dedup.byID.len() != n || len(q.slots) != n {
		t.Fatalf("loaded: groups peak %d, dedup ids %d, slots %d; want %d each", q.f.groupsPeak, q.f.dedup.byID.len(), len(q.slots), n)
	}
	q.mu.Unlock()
	for left, k := n, 0; left > 0; k++ {
		msgs, err := q.Receive(ctx, ReceiveInput{MaxNumberOfMessages: 10, ReceiveRequestAttemptId: "a-" + strconv.Itoa(k)})
		if err != nil || len(msgs) == 0 {
			t.Fatalf("receive with %d left: %d messages, %v", left, len(msgs), err)
		}
		for _, m := range msgs {
			if err := q.Delete(ctx, m.ReceiptHandle); err != nil {
				t.Fatal(err)
			}
		}
		left -= len(msgs)
	}

	q.mu.Lock()
	// Drained: the groups and slots are given back at once.
	if len(q.f.groups) != 0 || q.f.groupsPeak >= shrinkMinPeak {
		t.Errorf("drained: %d groups, peak %d; want 0 and the map rebuilt", len(q.f.groups), q.f.groupsPeak)
	}
	if q.slots != nil || q.free != nil {
		t.Errorf("drained: slots %d (cap %d), free %d (cap %d); want both released", len(q.slots), cap(q.slots), len(q.free), cap(q.free))
	}
	// The ids are remembered for their windows, and not for longer.
	if q.f.dedup.byID.len() != n || q.f.attempts.len() != n/10 {
		t.Errorf("drained: %d dedup ids, %d attempt ids; want %d and %d until the windows end", q.f.dedup.byID.len(), q.f.attempts.len(), n, n/10)
	}
	q.mu.Unlock()

	clk.Add(5*time.Minute + time.Second)
	if _, err := q.Stats(); err != nil { // brings the queue up to the clock
		t.Fatal(err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, x := range []struct {
		name     string
		len      int
		peak     mapPeak
		orderLen int
	}{
		{"dedup ids", q.f.dedup.byID.len(), q.f.dedup.byID.peak, q.f.dedup.byID.order.Len()},
		{"dedup pairs", q.f.dedup.byPair.len(), q.f.dedup.byPair.peak, q.f.dedup.byPair.order.Len()},
		{"attempt ids", q.f.attempts.len(), q.f.attempts.peak, q.f.attempts.order.Len()},
	} {
		if x.len != 0 || x.peak >= shrinkMinPeak || x.orderLen != 0 {
			t.Errorf("%s after the window: %d, peak %d, %d in the expiry queue; want 0, the map rebuilt, 0", x.name, x.len, x.peak, x.orderLen)
		}
	}
	for _, x := range []struct {
		name string
		len  int
	}{
		{"byEnqueue", q.byEnqueue.Len()}, {"avail", q.avail.Len()}, {"pending", q.pending.Len()}, {"availGroups", q.f.availGroups.Len()},
	} {
		if x.len > 2048 { // stale entries wait for a compaction, which keeps at most this many
			t.Errorf("%s holds %d entries after the load, want at most 2048", x.name, x.len)
		}
	}
}

// TestAttemptDoesNotHoldItsMessages: the record of a receive attempt names
// its messages without keeping them alive, so a deleted message is
// collected though its attempt id is remembered for five minutes.
func TestAttemptDoesNotHoldItsMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewMock()
	b := NewBroker(WithClock(clk))
	q, err := b.CreateQueue(ctx, CreateQueueInput{QueueName: "attempt.fifo", Attributes: QueueAttributes{FifoQueue: Some(true), ContentBasedDeduplication: Some(true)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Send(ctx, SendInput{MessageBody: "hello", MessageGroupId: "g"}); err != nil {
		t.Fatal(err)
	}
	msgs, err := q.Receive(ctx, ReceiveInput{ReceiveRequestAttemptId: "a", VisibilityTimeout: Some(30 * time.Second)})
	if err != nil || len(msgs) != 1 {
		t.Fatalf("receive: %d messages, %v", len(msgs), err)
	}
	wp := weak.Make(msgs[0].m)
	handle := msgs[0].ReceiptHandle
	msgs = nil
	if err := q.Delete(ctx, handle); err != nil {
		t.Fatal(err)
	}
	clk.Add(time.Minute) // past the visibility timeout: its index entry goes; the attempt stays
	if _, err := q.Stats(); err != nil {
		t.Fatal(err)
	}
	q.mu.Lock()
	_, remembered := q.f.attempts.get("a")
	q.mu.Unlock()
	if !remembered {
		t.Fatal("the attempt id was forgotten within its window")
	}
	runtime.GC()
	if wp.Value() != nil {
		t.Error("a deleted message is still reachable while its attempt id is remembered")
	}
	runtime.KeepAlive(q)
}

// TestAttemptIDsAreBoundedOnAStandingClock: a queue remembers at most
// maxAttempts attempt ids; on a clock that never moves the oldest go first.
func TestAttemptIDsAreBoundedOnAStandingClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := NewBroker(WithClock(clock.NewMock()))
	q, err := b.CreateQueue(ctx, CreateQueueInput{QueueName: "attempts.fifo", Attributes: QueueAttributes{FifoQueue: Some(true), ContentBasedDeduplication: Some(true)}})
	if err != nil {
		t.Fatal(err)
	}
	const n = maxAttempts + 1
	handles := make([]string, n)
	for i := 0; i < n; i++ {
		s := strconv.Itoa(i)
		if _, err := q.Send(ctx, SendInput{MessageBody: s, MessageGroupId: "g-" + s}); err != nil {
			t.Fatal(err)
		}
		msgs, err := q.Receive(ctx, ReceiveInput{ReceiveRequestAttemptId: "a-" + s})
		if err != nil || len(msgs) != 1 {
			t.Fatalf("receive %d: %d messages, %v", i, len(msgs), err)
		}
		handles[i] = msgs[0].ReceiptHandle
	}
	q.mu.Lock()
	remembered := q.f.attempts.len()
	q.mu.Unlock()
	if remembered != maxAttempts {
		t.Fatalf("%d attempt ids remembered, want %d", remembered, maxAttempts)
	}
	// The newest is replayed; the oldest was forgotten, so its retry is a
	// fresh receive, which finds every group locked.
	msgs, err := q.Receive(ctx, ReceiveInput{ReceiveRequestAttemptId: "a-" + strconv.Itoa(n-1)})
	if err != nil || len(msgs) != 1 || msgs[0].ReceiptHandle != handles[n-1] {
		t.Errorf("retry of the newest attempt: %d messages, %v; want its message and handle again", len(msgs), err)
	}
	msgs, err = q.Receive(ctx, ReceiveInput{ReceiveRequestAttemptId: "a-0"})
	if err != nil || len(msgs) != 0 {
		t.Errorf("retry of the oldest attempt: %d messages, %v; want a fresh, empty receive", len(msgs), err)
	}
}

// TestDeletedNamesExpireAndAreBounded: a deleted queue's name is remembered
// for the recreate delay and then forgotten; on a clock that never moves,
// at most maxDeletedNames are remembered, the oldest forgotten first.
func TestDeletedNamesExpireAndAreBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	createDelete := func(t *testing.T, b *Broker, name string) {
		t.Helper()
		q, err := b.CreateQueue(ctx, CreateQueueInput{QueueName: name})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.DeleteQueue(ctx); err != nil {
			t.Fatal(err)
		}
	}
	remembered := func(b *Broker) (int, mapPeak) {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.deleted.len(), b.deleted.peak
	}

	t.Run("expire", func(t *testing.T) {
		t.Parallel()
		clk := clock.NewMock()
		b := NewBroker(WithClock(clk))
		for i := 0; i < 2000; i++ {
			createDelete(t, b, "q-"+strconv.Itoa(i))
		}
		if n, _ := remembered(b); n != 2000 {
			t.Fatalf("%d names remembered, want 2000", n)
		}
		clk.Add(time.Minute)
		if _, err := b.CreateQueue(ctx, CreateQueueInput{QueueName: "q-0"}); err != nil {
			t.Fatalf("create after the delay: %v", err)
		}
		if n, peak := remembered(b); n != 0 || peak >= shrinkMinPeak {
			t.Errorf("after the delay: %d names remembered, peak %d; want 0 and the map rebuilt", n, peak)
		}
		b.mu.Lock()
		queues, qpeak := len(b.queues), b.queuesPeak
		b.mu.Unlock()
		if queues != 1 || qpeak >= shrinkMinPeak {
			t.Errorf("queues map: %d queues, peak %d; want 1 and the map rebuilt", queues, qpeak)
		}
	})

	t.Run("standing clock", func(t *testing.T) {
		t.Parallel()
		b := NewBroker(WithClock(clock.NewMock()))
		const n = maxDeletedNames + 1
		for i := 0; i < n; i++ {
			createDelete(t, b, "q-"+strconv.Itoa(i))
		}
		if got, _ := remembered(b); got != maxDeletedNames {
			t.Fatalf("%d names remembered, want %d", got, maxDeletedNames)
		}
		if _, err := b.CreateQueue(ctx, CreateQueueInput{QueueName: "q-0"}); err != nil {
			t.Errorf("create of the oldest name, forgotten: %v", err)
		}
		_, err := b.CreateQueue(ctx, CreateQueueInput{QueueName: "q-" + strconv.Itoa(n-1)})
		if !errors.Is(err, ErrQueueDeletedRecently) {
			t.Errorf("create of the newest name: %v, want QueueDeletedRecently", err)
		}
	})

	t.Run("rule off", func(t *testing.T) {
		t.Parallel()
		b := NewBroker(WithClock(clock.NewMock()), WithRecreateDelay(0))
		createDelete(t, b, "q")
		if n, _ := remembered(b); n != 0 {
			t.Errorf("%d names remembered with the rule off, want 0", n)
		}
	})
}
