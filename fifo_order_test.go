package sqsq_test

// Black-box tests of FIFO queues: ordering and group locking
// (docs/sqs-semantics.md §6.3–6.4, §4.4), the in-flight limit (§4.6), group
// stats (§2.2) and MessageGroupId on standard queues (§3.8 step 8). The FIFO
// helpers are in fifo_helpers_test.go; the shared ones (setup, fixture,
// wantErr, diff, bodies, stats) in broker_test.go.

import (
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

// TestFIFOOrdering covers §6.3–6.4 and §4.4: order within a group, group
// locking, and which group goes first.
func TestFIFOOrdering(t *testing.T) {
	t.Parallel()

	t.Run("one receive returns as much of one group as it can, in order, then other groups", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		for _, s := range [][2]string{{"g1", "g1-m1"}, {"g2", "g2-m1"}, {"g1", "g1-m2"}, {"g1", "g1-m3"}} {
			f.fifoSend(t, s[0], s[1])
		}
		got := bodies(f.fifoRecv(t, 10, -1))
		if d := diff([]string{"g1-m1", "g1-m2", "g1-m3", "g2-m1"}, got); d != "" {
			t.Errorf("§6.4 example:\n%s", d)
		}
	})

	t.Run("after the head's group-mates are deleted, a group whose head was sent earlier goes first", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		for _, s := range [][2]string{{"g1", "g1-m1"}, {"g2", "g2-m1"}, {"g1", "g1-m2"}, {"g1", "g1-m3"}} {
			f.fifoSend(t, s[0], s[1])
		}
		first := f.fifoRecv(t, 2, -1)
		if d := diff([]string{"g1-m1", "g1-m2"}, bodies(first)); d != "" {
			t.Fatalf("first receive of 2:\n%s", d)
		}
		f.fifoDeleteAll(t, first)
		// g1's head is now g1-m3 (sent 4th); g2's head g2-m1 was sent 2nd.
		// Both have been available since the sends: the earlier head wins.
		if d := diff([]string{"g2-m1"}, bodies(f.fifoRecv(t, 1, -1))); d != "" {
			t.Errorf("§6.4 example, second part:\n%s", d)
		}
		if d := diff([]string{"g1-m3"}, bodies(f.fifoRecv(t, 1, -1))); d != "" {
			t.Errorf("then g1:\n%s", d)
		}
	})

	t.Run("a group is locked while an earlier message is in flight", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		f.fifoSend(t, "g", "b")
		a := f.fifoRecv(t, 1, -1)
		if d := diff([]string{"a"}, bodies(a)); d != "" {
			t.Fatalf("first receive:\n%s", d)
		}
		if got := f.fifoRecv(t, 10, -1); len(got) != 0 {
			t.Fatalf("received %v while a is in flight; b must wait (§6.4)", bodies(got))
		}
		if s := stats(t, f.q); s.Visible != 1 || s.InFlight != 1 || s.LockedGroups != 1 || s.Groups != 1 {
			t.Errorf("stats %+v: want b counted visible though its group is locked (§2.2), 1 locked group of 1", s)
		}
		f.clk.Add(29 * time.Second)
		if got := f.fifoRecv(t, 10, -1); len(got) != 0 {
			t.Fatalf("received %v 29 s into a's 30 s visibility", bodies(got))
		}
		f.fifoDelete(t, a[0].ReceiptHandle)
		if d := diff([]string{"b"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("after deleting a the lock is released (§6.4):\n%s", d)
		}
	})

	t.Run("a hot group blocks only itself", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "hot", "hot-1")
		f.fifoSend(t, "hot", "hot-2")
		head := f.fifoRecv(t, 1, time.Hour) // a slow worker holds the head
		if d := diff([]string{"hot-1"}, bodies(head)); d != "" {
			t.Fatalf("head:\n%s", d)
		}
		for round := 1; round <= 5; round++ {
			a := "a-" + string(rune('0'+round))
			b := "b-" + string(rune('0'+round))
			f.fifoSend(t, "cool-a", a)
			f.fifoSend(t, "cool-b", b)
			got := f.fifoRecv(t, 10, -1)
			if d := diff([]string{a, b}, bodies(got)); d != "" {
				t.Fatalf("round %d: other groups keep flowing (§6.9):\n%s", round, d)
			}
			f.fifoDeleteAll(t, got)
			f.clk.Add(time.Minute)
		}
		if s := stats(t, f.q); s.Visible != 1 || s.InFlight != 1 || s.LockedGroups != 1 || s.Groups != 1 {
			t.Errorf("stats %+v: want only hot-2 waiting behind hot-1", s)
		}
		f.fifoDelete(t, head[0].ReceiptHandle)
		if d := diff([]string{"hot-2"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("after the slow head is deleted:\n%s", d)
		}
	})

	t.Run("a receive with visibility 0 does not lock the group", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		f.fifoSend(t, "g", "b")
		if d := diff([]string{"a"}, bodies(f.fifoRecv(t, 1, 0))); d != "" {
			t.Fatalf("visibility-0 receive:\n%s", d)
		}
		if s := stats(t, f.q); s.Visible != 2 || s.InFlight != 0 || s.LockedGroups != 0 {
			t.Errorf("stats %+v: want both visible and no locked group (§6.4)", s)
		}
		if d := diff([]string{"a", "b"}, bodies(f.fifoRecv(t, 10, 0))); d != "" {
			t.Errorf("the group is still receivable from its head:\n%s", d)
		}
		msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 1, MessageSystemAttributeNames: []string{sqsq.SysApproximateReceiveCount}})
		if len(msgs) != 1 || msgs[0].Body != "a" || msgs[0].Attributes[sqsq.SysApproximateReceiveCount] != "3" {
			t.Errorf("third receive = %+v, want a with ApproximateReceiveCount 3", msgs)
		}
	})

	t.Run("a message extended in the middle of a batch blocks itself and later ones, earlier ones are redelivered", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		for _, b := range []string{"m1", "m2", "m3"} {
			f.fifoSend(t, "g", b)
		}
		batch := f.fifoRecv(t, 10, 30*time.Second)
		if d := diff([]string{"m1", "m2", "m3"}, bodies(batch)); d != "" {
			t.Fatalf("batch:\n%s", d)
		}
		f.clk.Add(10 * time.Second)
		if err := f.q.ChangeVisibility(f.ctx, batch[1].ReceiptHandle, 120*time.Second); err != nil {
			t.Fatalf("ChangeVisibility(m2): %v", err)
		}
		f.clk.Add(20 * time.Second) // m1 and m3 time out; m2 is hidden until +130 s
		again := f.fifoRecv(t, 10, 30*time.Second)
		if d := diff([]string{"m1"}, bodies(again)); d != "" {
			t.Fatalf("only the prefix before the extended message comes back (§6.4):\n%s", d)
		}
		f.fifoDelete(t, again[0].ReceiptHandle)
		if got := f.fifoRecv(t, 10, -1); len(got) != 0 {
			t.Fatalf("received %v: m3 must wait behind the extended m2 (§4.4)", bodies(got))
		}
		if s := stats(t, f.q); s.Visible != 1 || s.InFlight != 1 {
			t.Errorf("stats %+v: want m3 visible (but blocked) and m2 in flight", s)
		}
		f.clk.Add(100 * time.Second) // +130 s: m2's extension ends
		if d := diff([]string{"m2", "m3"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("when m2 is visible again, m2 and m3 come in order:\n%s", d)
		}
	})

	t.Run("a drained group takes new messages normally", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		f.fifoDeleteAll(t, f.fifoRecv(t, 10, -1))
		if s := stats(t, f.q); s.Groups != 0 || s.LockedGroups != 0 {
			t.Fatalf("stats %+v after draining: want no groups", s)
		}
		f.fifoSend(t, "g", "b")
		if d := diff([]string{"b"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("after a group is drained new messages are delivered (§6.4):\n%s", d)
		}
	})

	t.Run("sending to a locked group does not unlock it", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		a := f.fifoRecv(t, 10, -1)
		f.fifoSend(t, "g", "b")
		f.fifoSend(t, "g", "c")
		if got := f.fifoRecv(t, 10, -1); len(got) != 0 {
			t.Fatalf("received %v: new sends do not unlock a group (§6.4)", bodies(got))
		}
		if s := stats(t, f.q); s.LockedGroups != 1 || s.Visible != 2 {
			t.Errorf("stats %+v: want 1 locked group and 2 visible", s)
		}
		f.fifoDelete(t, a[0].ReceiptHandle)
		if d := diff([]string{"b", "c"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("after the delete:\n%s", d)
		}
	})

	t.Run("redelivery after a timeout keeps the order", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		for _, b := range []string{"m0", "m1", "m2"} {
			f.fifoSend(t, "g", b)
		}
		f.fifoRecv(t, 10, -1)
		f.clk.Add(30 * time.Second)
		msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, MessageSystemAttributeNames: []string{sqsq.SysApproximateReceiveCount}})
		if d := diff([]string{"m0", "m1", "m2"}, bodies(msgs)); d != "" {
			t.Fatalf("redelivery (§6.3):\n%s", d)
		}
		for _, m := range msgs {
			if c := m.Attributes[sqsq.SysApproximateReceiveCount]; c != "2" {
				t.Errorf("%s: ApproximateReceiveCount %s, want 2", m.Body, c)
			}
		}
	})

	t.Run("groups are served by when their head became available", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g1", "g1-a")
		f.fifoRecv(t, 1, 30*time.Second) // g1-a visible again at +30 s
		f.clk.Add(20 * time.Second)
		f.fifoSend(t, "g2", "g2-b") // never received, available since +20 s
		f.clk.Add(20 * time.Second)
		f.fifoSend(t, "g3", "g3-c") // available since +40 s
		var got []string
		for i := 0; i < 3; i++ {
			got = append(got, bodies(f.fifoRecv(t, 1, -1))...)
		}
		if d := diff([]string{"g2-b", "g1-a", "g3-c"}, got); d != "" {
			t.Errorf("a never-received group sent before the timeout beats the timed-out group, one sent after it does not (§6.4 step 3):\n%s", d)
		}
	})

	t.Run("a batch send is enqueued in request order", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		var entries []sqsq.SendBatchEntry
		for _, b := range []string{"e1", "e2", "e3", "e4"} {
			entries = append(entries, sqsq.SendBatchEntry{Id: b, SendInput: sqsq.SendInput{MessageBody: b, MessageGroupId: "g", MessageDeduplicationId: b}})
		}
		if _, err := f.q.SendBatch(f.ctx, entries); err != nil {
			t.Fatalf("SendBatch: %v", err)
		}
		if d := diff([]string{"e1", "e2", "e3", "e4"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("§6.3:\n%s", d)
		}
	})

	t.Run("ChangeVisibility 0 on the head releases the lock at once", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		f.fifoSend(t, "g", "b")
		a := f.fifoRecv(t, 1, -1)
		if err := f.q.ChangeVisibility(f.ctx, a[0].ReceiptHandle, 0); err != nil {
			t.Fatalf("ChangeVisibility: %v", err)
		}
		if d := diff([]string{"a", "b"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("after CMV 0 (§6.4):\n%s", d)
		}
	})
}

func TestFIFOInFlightLimit(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{}, sqsq.WithInFlightLimit(2))
	for i, g := range []string{"g1", "g2", "g3", "g4"} {
		f.fifoSend(t, g, "m"+string(rune('1'+i)))
	}
	got := f.fifoRecv(t, 10, -1)
	if d := diff([]string{"m1", "m2"}, bodies(got)); d != "" {
		t.Errorf("at a limit of 2 a receive returns 2 (§4.6):\n%s", d)
	}
	for _, wait := range []time.Duration{0, time.Second} {
		done := make(chan []sqsq.Message, 1)
		errc := make(chan error, 1)
		go func() {
			msgs, err := f.q.Receive(f.ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, WaitTimeSeconds: sqsq.Some(wait)})
			done <- msgs
			errc <- err
		}()
		if wait > 0 {
			if err := f.q.WaitForReceivers(f.ctx, 1); err != nil {
				t.Fatal(err)
			}
			f.clk.Add(wait)
		}
		if msgs, err := <-done, <-errc; err != nil || len(msgs) != 0 {
			t.Errorf("wait %v at the limit: %v, %v; want no messages and no error, never OverLimit on FIFO (§4.6)", wait, bodies(msgs), err)
		}
	}
	f.fifoDelete(t, got[0].ReceiptHandle)
	if d := diff([]string{"m3"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
		t.Errorf("one slot free:\n%s", d)
	}
}

func TestFIFOStatsGroups(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{})
	for _, s := range [][2]string{{"g1", "a1"}, {"g1", "a2"}, {"g2", "b1"}, {"g2", "b2"}, {"g3", "c1"}, {"g3", "c2"}} {
		f.fifoSend(t, s[0], s[1])
	}
	check := func(step string, groups, locked int) {
		t.Helper()
		if s := stats(t, f.q); s.Groups != groups || s.LockedGroups != locked {
			t.Errorf("%s: Groups=%d LockedGroups=%d, want %d, %d", step, s.Groups, s.LockedGroups, groups, locked)
		}
	}
	check("after the sends", 3, 0)
	a := f.fifoRecv(t, 1, -1)
	b := f.fifoRecv(t, 1, -1)
	if d := diff([]string{"a1", "b1"}, bodies(append(a, b...))); d != "" {
		t.Fatalf("one from each of two groups:\n%s", d)
	}
	check("one message in flight in each of two groups", 3, 2)
	attrs, err := f.q.GetAttributes(f.ctx, sqsq.AttrApproximateNumberOfMessages, sqsq.AttrApproximateNumberOfMessagesNotVisible)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{sqsq.AttrApproximateNumberOfMessages: "4", sqsq.AttrApproximateNumberOfMessagesNotVisible: "2"}
	if d := diff(want, attrs); d != "" {
		t.Errorf("§2.2 example: 6 messages in 3 groups, one received from each of 2 groups:\n%s", d)
	}
	f.fifoDelete(t, a[0].ReceiptHandle)
	check("g1's head deleted", 3, 1)
	f.clk.Add(30 * time.Second)
	check("g2's head visible again", 3, 0)
	f.fifoDeleteAll(t, f.fifoRecv(t, 10, -1))
	check("all deleted", 0, 0)
}

func TestFIFOMessageGroupIdOnStandardQueue(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, s := range [][2]string{{"g1", "a"}, {"g1", "b"}, {"g2", "c"}} {
		f.sendInput(t, f.q, sqsq.SendInput{MessageBody: s[1], MessageGroupId: s[0]})
	}
	var got []string
	for i := 0; i < 3; i++ {
		m := f.receiveOne(t, f.q, sqsq.ReceiveInput{MessageSystemAttributeNames: []string{sqsq.SysMessageGroupId}})
		got = append(got, m.Body+"@"+m.Attributes[sqsq.SysMessageGroupId])
	}
	if d := diff([]string{"a@g1", "b@g1", "c@g2"}, got); d != "" {
		t.Errorf("a standard queue does not lock groups; MessageGroupId comes back as a system attribute (§3.8 step 8):\n%s", d)
	}
	if s := stats(t, f.q); s.Groups != 0 || s.LockedGroups != 0 || s.InFlight != 3 {
		t.Errorf("stats %+v: standard queues keep no groups", s)
	}
	_, err := f.q.Send(f.ctx, sqsq.SendInput{MessageBody: "d", MessageGroupId: "g1", MessageDeduplicationId: "d"})
	wantErr(t, err, sqsq.CodeInvalidParameterValue, "",
		"MessageDeduplicationId stays FIFO-only even though MessageGroupId is allowed (§3.8 step 8)")
}
