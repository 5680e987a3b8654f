package main

import (
	"strconv"
	"strings"
	"testing"
)

// fixture is a ledger of a few acknowledged and unknown calls on the
// queues of the driver, and the snapshot a correct server shows for it.
// Each test breaks the snapshot (or the ledger) one way.
func fixture() (*ledger, *snapshot) {
	l := newLedger()
	l.addQueue(qDLQ, "", false, false)
	l.addQueue(qSrc, qDLQ, false, false)
	l.addQueue(qStd, "", false, true)
	l.addQueue(qFIFO, "", true, true)
	l.initAttr(qStd, visibilityVT, "30")
	l.initAttr(qStd, "tag:"+tagKey, "")

	send := func(body, queue, group, id, seq string) {
		l.sending(body, queue, group)
		if id != "" {
			l.sent(body, id, seq)
		}
	}
	send("kept", qStd, "", "id-kept", "")
	send("deleted", qStd, "", "id-deleted", "")
	l.deleted("deleted", true, true)
	send("stale", qStd, "", "id-stale", "")
	l.deleted("stale", true, false) // answered after its window: may not have deleted
	send("lost-answer", qStd, "", "", "")
	send("dead", qSrc, "", "id-dead", "")
	send("dlq-deleted", qSrc, "", "id-dlq-deleted", "")
	l.deleted("dlq-deleted", true, true)
	send("moved", qSrc, "", "id-moved", "")
	send("f1", qFIFO, "g", "id-f1", "100")
	send("f2", qFIFO, "g", "id-f2", "101")
	send("f3", qFIFO, "g", "", "")
	send("f4", qFIFO, "g", "id-f4", "103")

	l.creatingQueue("crash-sc-1", map[string]string{visibilityVT: "10"})
	l.createdQueue("crash-sc-1", true)
	l.creatingQueue("crash-sc-2", map[string]string{visibilityVT: "10"})
	l.createdQueue("crash-sc-2", true)
	l.deletingQueue("crash-sc-2")
	l.deletedQueue("crash-sc-2", true)
	l.creatingQueue("crash-sc-3", nil)
	l.createdQueue("crash-sc-3", false)

	l.settingAttr(qStd, visibilityVT, "40")
	l.setAttr(qStd, visibilityVT, "40", true)
	l.settingAttr(qStd, visibilityVT, "50")
	l.setAttr(qStd, visibilityVT, "50", false) // unknown: 40 or 50
	l.settingAttr(qStd, "tag:"+tagKey, "v1")
	l.setAttr(qStd, "tag:"+tagKey, "v1", true)

	s := &snapshot{queues: map[string]*queueView{}}
	s.queues[qStd] = view(map[string]string{visibilityVT: "50", "tag:" + tagKey: "v1"},
		peeked{id: "id-kept", body: "kept"},
		peeked{id: "id-stale", body: "stale"},
		peeked{id: "id-lost-answer", body: "lost-answer"})
	s.queues[qSrc] = view(nil, peeked{id: "id-moved-2", body: "moved"})
	s.queues[qDLQ] = view(nil, peeked{id: "id-dead", body: "dead"})
	s.queues[qFIFO] = view(nil,
		peeked{id: "id-f1", body: "f1", group: "g", seq: "100"},
		peeked{id: "id-f2", body: "f2", group: "g", seq: "101"},
		peeked{id: "id-f3", body: "f3", group: "g", seq: "102"},
		peeked{id: "id-f4", body: "f4", group: "g", seq: "103"})
	s.queues["crash-sc-1"] = view(map[string]string{visibilityVT: "10"})
	s.queues["crash-sc-3"] = view(nil) // created, though the answer was lost
	return l, s
}

// view is a queue whose counts add up to its messages.
func view(attrs map[string]string, msgs ...peeked) *queueView {
	v := &queueView{attrs: map[string]string{}, msgs: msgs}
	for k, a := range attrs {
		v.attrs[k] = a
	}
	v.attrs["ApproximateNumberOfMessages"] = strconv.Itoa(len(msgs))
	v.attrs["ApproximateNumberOfMessagesNotVisible"] = "0"
	v.attrs["ApproximateNumberOfMessagesDelayed"] = "0"
	return v
}

func TestCheckClean(t *testing.T) {
	l, s := fixture()
	r := l.check(s)
	if len(r.violations) != 0 {
		t.Fatalf("violations in a correct snapshot: %v", r.violations)
	}
	// Acked and not deleted: kept, dead, moved, f1, f2, f4; acked deleted:
	// deleted and dlq-deleted; unknown: stale, lost-answer, f3.
	if r.ackedSends != 6 || r.unknowns != 3 {
		t.Errorf("ackedSends %d, unknowns %d; want 6, 3", r.ackedSends, r.unknowns)
	}
	if r.ackedDeletes != 2 || r.deadLettered != 1 || r.movedBack != 1 {
		t.Errorf("ackedDeletes %d, deadLettered %d, movedBack %d; want 2, 1, 1", r.ackedDeletes, r.deadLettered, r.movedBack)
	}
}

// wantOnly checks that the report has violations of kind only, n of them,
// each mentioning what.
func wantOnly(t *testing.T, r checkReport, kind string, n int, what string) {
	t.Helper()
	got := r.byKind()
	if got[kind] != n || len(r.violations) != n {
		t.Fatalf("want %d %q, got %v", n, kind, r.violations)
	}
	for _, v := range r.violations {
		if !strings.Contains(v.detail, what) {
			t.Errorf("%v does not mention %q", v, what)
		}
	}
}

func TestCheckLostAckedSend(t *testing.T) {
	l, s := fixture()
	fifo := s.queues[qFIFO]
	fifo.msgs = append(fifo.msgs[:1], fifo.msgs[2:]...)
	fifo.attrs["ApproximateNumberOfMessages"] = "3"
	wantOnly(t, l.check(s), kindLost, 1, `"f2"`)
}

func TestCheckResurrectedDelete(t *testing.T) {
	l, s := fixture()
	dlq := s.queues[qDLQ]
	dlq.msgs = append(dlq.msgs, peeked{id: "id-dlq-deleted", body: "dlq-deleted"})
	dlq.attrs["ApproximateNumberOfMessages"] = "2"
	wantOnly(t, l.check(s), kindResurrected, 1, "dlq-deleted")
}

func TestCheckResurrectedOnReceive(t *testing.T) {
	l, s := fixture()
	l.received(qStd, "deleted", "id-deleted")
	wantOnly(t, l.check(s), kindResurrected, 1, "ReceiveMessage")
}

func TestCheckDuplicateID(t *testing.T) {
	l, s := fixture()
	src := s.queues[qSrc]
	src.msgs[0].id = "id-dead" // the moved copy under the dead-lettered one's id
	wantOnly(t, l.check(s), kindDuplicateID, 1, "id-dead")
}

func TestCheckDuplicateBody(t *testing.T) {
	l, s := fixture()
	std := s.queues[qStd]
	std.msgs = append(std.msgs, peeked{id: "id-kept-again", body: "kept"})
	std.attrs["ApproximateNumberOfMessages"] = "4"
	wantOnly(t, l.check(s), kindDuplicateBody, 1, "kept")
}

func TestCheckFIFOOrder(t *testing.T) {
	l, s := fixture()
	// f4, sent after f3, stored before it.
	s.queues[qFIFO].msgs[2].seq = "104"
	s.queues[qFIFO].msgs[3].seq = "99"
	s.queues[qFIFO].msgs[3].id = "id-f4"
	r := l.check(s)
	// f4's sequence number is also not the one its send returned.
	if got := r.byKind(); got[kindFIFOOrder] != 1 || got[kindWrongID] != 1 || len(r.violations) != 2 {
		t.Fatalf("want one FIFO order and one wrong sequence number, got %v", r.violations)
	}
}

func TestCheckSequenceLength(t *testing.T) {
	if !seqLess("99", "100") || seqLess("100", "99") || seqLess("100", "100") {
		t.Fatal("sequence numbers compare as numbers")
	}
}

func TestCheckCountMismatch(t *testing.T) {
	l, s := fixture()
	s.queues[qDLQ].attrs["ApproximateNumberOfMessagesNotVisible"] = "1"
	wantOnly(t, l.check(s), kindCount, 1, qDLQ)
}

func TestCheckQueues(t *testing.T) {
	l, s := fixture()
	delete(s.queues, "crash-sc-1")
	s.queues["crash-sc-2"] = view(nil)
	s.queues["crash-sc-9"] = view(nil)
	r := l.check(s)
	got := r.byKind()
	if got[kindQueueMissing] != 1 || got[kindQueueDeleted] != 1 || got[kindQueueUnknown] != 1 || len(r.violations) != 3 {
		t.Fatalf("want sc-1 missing, sc-2 back and sc-9 unknown, got %v", r.violations)
	}
}

func TestCheckAttributes(t *testing.T) {
	for _, tc := range []struct {
		vt, tag string
		bad     int
	}{
		{"40", "v1", 0}, // the acknowledged value
		{"50", "v1", 0}, // a set of unknown outcome
		{"30", "v1", 1}, // the value before an acknowledged set
		{"40", "", 1},   // an acknowledged tag lost
	} {
		l, s := fixture()
		s.queues[qStd].attrs[visibilityVT] = tc.vt
		s.queues[qStd].attrs["tag:"+tagKey] = tc.tag
		if r := l.check(s); len(r.violations) != tc.bad || tc.bad > 0 && r.violations[0].kind != kindAttribute {
			t.Errorf("VisibilityTimeout %s, tag %q: want %d attribute violations, got %v", tc.vt, tc.tag, tc.bad, r.violations)
		}
	}
}

func TestCheckPhantomMisplacedWrongID(t *testing.T) {
	l, s := fixture()
	std := s.queues[qStd]
	std.msgs[0].id = "id-other"                                            // kept: not the id its send returned
	std.msgs = append(std.msgs, peeked{id: "id-x", body: "never"})         // never sent
	std.msgs = append(std.msgs, peeked{id: "id-moved-3", body: "dead"})    // and dead is in the DLQ too
	s.queues[qDLQ].msgs[0] = peeked{id: "id-f1-again", body: "moved-away"} // unknown body
	std.attrs["ApproximateNumberOfMessages"] = "5"
	r := l.check(s)
	got := r.byKind()
	if got[kindWrongID] != 1 || got[kindPhantom] != 2 || got[kindMisplaced] != 1 {
		t.Fatalf("want 1 wrong id, 2 never sent, 1 misplaced; got %v", r.violations)
	}
}

func TestLedgerDeleteOutcomes(t *testing.T) {
	l := newLedger()
	l.sending("a", qStd, "")
	l.sent("a", "id-a", "")
	if l.backlog(qStd) != 1 {
		t.Fatalf("backlog %d, want 1", l.backlog(qStd))
	}
	l.deleted("a", false, true) // failed: unknown
	if got := l.msgs["a"].del; got != unknown {
		t.Fatalf("failed delete: %v, want unknown", got)
	}
	l.deleted("a", true, false) // stale handle: still unknown
	if got := l.msgs["a"].del; got != unknown {
		t.Fatalf("stale delete: %v, want unknown", got)
	}
	l.deleted("a", true, true)
	if got := l.msgs["a"].del; got != acked || l.backlog(qStd) != 0 {
		t.Fatalf("current delete: %v, backlog %d; want acked, 0", got, l.backlog(qStd))
	}
	l.deleted("a", false, false) // a later failure does not undo it
	if got := l.msgs["a"].del; got != acked {
		t.Fatalf("after a later failed delete: %v, want acked", got)
	}
}

func TestLedgerFIFOOrder(t *testing.T) {
	l := newLedger()
	for i := range 3 {
		l.sending("m"+strconv.Itoa(i), qFIFO, "g")
	}
	l.sending("other", qFIFO, "h")
	if l.msgs["m2"].order != 2 || l.msgs["other"].order != 0 {
		t.Fatalf("orders: m2 %d, other %d; want 2, 0", l.msgs["m2"].order, l.msgs["other"].order)
	}
}

// TestResolve: after a check passes, no call is in flight, so each unknown
// outcome is settled as the state shows it, and later checks hold it to
// that.
func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after func(s *snapshot)
		kind  string
	}{
		{"an unknown send found stored is lost", func(s *snapshot) { drop(s, qStd, "lost-answer") }, kindLost},
		{"an unknown delete found undone is lost", func(s *snapshot) { drop(s, qStd, "stale") }, kindLost},
		{"an unknown send found not stored appears", func(s *snapshot) { add(s, qStd, peeked{id: "id-n", body: "not-stored"}) }, kindPhantom},
		{"an unknown delete found done is undone", func(s *snapshot) { add(s, qSrc, peeked{id: "id-gone", body: "gone"}) }, kindResurrected},
		{"a queue found not created appears", func(s *snapshot) { s.queues["crash-sc-4"] = view(nil) }, kindQueueUnknown},
		{"a queue found not deleted is gone", func(s *snapshot) { delete(s.queues, "crash-sc-5") }, kindQueueMissing},
		{"an unknown attribute set found applied is undone", func(s *snapshot) { s.queues[qStd].attrs[visibilityVT] = "40" }, kindAttribute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, s := fixture()
			l.sending("not-stored", qStd, "")
			l.sending("gone", qSrc, "")
			l.sent("gone", "id-gone", "")
			l.deleted("gone", true, false)
			l.creatingQueue("crash-sc-4", nil)
			l.creatingQueue("crash-sc-5", nil)
			l.createdQueue("crash-sc-5", true)
			l.deletingQueue("crash-sc-5")
			s.queues["crash-sc-5"] = view(nil)
			if r := l.check(s); len(r.violations) != 0 {
				t.Fatalf("first check: %v", r.violations)
			}
			l.resolve(s)
			if r := l.check(s); len(r.violations) != 0 || r.unknowns != 0 {
				t.Fatalf("the same state after resolve: %v, %d unknown", r.violations, r.unknowns)
			}
			tc.after(s)
			wantOnly(t, l.check(s), tc.kind, 1, "")
		})
	}
}

func TestResolveBacklog(t *testing.T) {
	l, s := fixture()
	l.resolve(s)
	// kept, stale, lost-answer; dead, moved (the DLQ's count as their source's); f1–f4.
	if l.backlog(qStd) != 3 || l.backlog(qSrc) != 2 || l.backlog(qFIFO) != 4 {
		t.Fatalf("backlogs %v, want std 3, src 2, fifo 4", l.live)
	}
	got := l.totals()
	if got.sendsStored != 2 || got.sendsNotStored != 0 || got.deletesNotDone != 1 {
		t.Fatalf("totals %+v: want 2 sends found stored, 1 delete found not done", got)
	}
}

// drop removes body from queue, counts included.
func drop(s *snapshot, queue, body string) {
	q := s.queues[queue]
	for i, m := range q.msgs {
		if m.body == body {
			q.msgs = append(q.msgs[:i], q.msgs[i+1:]...)
			break
		}
	}
	q.attrs["ApproximateNumberOfMessages"] = strconv.Itoa(len(q.msgs))
}

// add adds m to queue, counts included.
func add(s *snapshot, queue string, m peeked) {
	q := s.queues[queue]
	q.msgs = append(q.msgs, m)
	q.attrs["ApproximateNumberOfMessages"] = strconv.Itoa(len(q.msgs))
}
