package sqsq_test

// Property test of FIFO queues (style guide §8, semantics §6): rapid draws
// schedules of sends (few groups, few deduplication ids, content-based
// deduplication on or off, DeduplicationScope queue or messageGroup),
// receives (1–10 messages, visibility 0, short or long, with or without a
// ReceiveRequestAttemptId), deletes and visibility changes with any handle
// ever issued (latest, stale, expired, of deleted messages), clock advances
// across the 5-minute windows, and the odd purge. Each action runs against a
// real Broker on a mock clock and against the naive model below, and every
// result is compared. On top of the exact comparison the test checks the
// FIFO guarantees directly on what the real queue returned:
//
//	(a) order: when a message is returned, every earlier message of its group
//	    is deleted or was returned before it in the same response;
//	(b) locking: a fresh receive never returns a message while an earlier
//	    message of its group is in flight;
//	(c) nothing lost: at the end the queue is drained, and the messages that
//	    were stored (sends not deduplicated) are exactly the ones deleted or
//	    purged.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"pgregory.net/rapid"

	"github.com/sqsq/sqsq"
)

// fifoPMsg is the model of one stored message.
type fifoPMsg struct {
	id, group, body, dedupID, seqNum string
	order                            int // position in send order
	gone                             bool
	purged                           bool
	inflight                         bool
	visibleAt                        time.Time // end of the visibility timeout, while in flight
	availSince                       time.Time // while available
	serial                           int       // receives so far; a handle names one
	receivedAt                       time.Time // start of the 12-hour budget
	touched                          int       // bumped by receives and visibility changes
}

// fifoPHandle is a receipt handle the real queue issued, with what it names.
type fifoPHandle struct {
	rh     string
	msg    *fifoPMsg
	serial int
}

// fifoPDedup is a remembered deduplication id and the message it names.
type fifoPDedup struct {
	expires time.Time
	msg     *fifoPMsg
}

// fifoPAttempt is what a receive with a ReceiveRequestAttemptId returned.
type fifoPAttempt struct {
	expires time.Time
	vis     time.Duration
	msgs    []*fifoPMsg
	serials []int
	touched []int
	out     []sqsq.Message // the real response, replayed as is
}

// fifoPModel is the naive model: slices and linear scans.
type fifoPModel struct {
	now        time.Time
	cbd        bool
	scopeGroup bool
	msgs       []*fifoPMsg // every stored message, in send order
	dedup      map[string]fifoPDedup
	attempts   map[string]*fifoPAttempt
	sent, dups int64
}

// tick brings the model to now: visibility timeouts that ended make their
// messages available as of the deadline; windows that ended are forgotten.
func (m *fifoPModel) tick() {
	for _, x := range m.msgs {
		if !x.gone && x.inflight && !x.visibleAt.After(m.now) {
			x.inflight = false
			x.availSince = x.visibleAt
		}
	}
	for k, e := range m.dedup {
		if !e.expires.After(m.now) {
			delete(m.dedup, k)
		}
	}
	for k, a := range m.attempts {
		if !a.expires.After(m.now) {
			delete(m.attempts, k)
		}
	}
}

func (m *fifoPModel) dedupKey(group, dedupID string) string {
	if m.scopeGroup {
		return group + "\x00" + dedupID
	}
	return dedupID
}

// groups returns the live messages of each group in send order, and the
// groups in the order of their first message.
func (m *fifoPModel) groups() (map[string][]*fifoPMsg, []string) {
	byGroup := map[string][]*fifoPMsg{}
	var names []string
	for _, x := range m.msgs {
		if x.gone {
			continue
		}
		if _, ok := byGroup[x.group]; !ok {
			names = append(names, x.group)
		}
		byGroup[x.group] = append(byGroup[x.group], x)
	}
	return byGroup, names
}

// selectFresh is §6.4's algorithm: groups whose head is available, ordered
// by the head's available-since time then its send order, each contributing
// its leading run of available messages.
func (m *fifoPModel) selectFresh(max int) []*fifoPMsg {
	byGroup, names := m.groups()
	var heads []string
	for _, g := range names {
		if !byGroup[g][0].inflight {
			heads = append(heads, g)
		}
	}
	sort.SliceStable(heads, func(i, j int) bool {
		a, b := byGroup[heads[i]][0], byGroup[heads[j]][0]
		if !a.availSince.Equal(b.availSince) {
			return a.availSince.Before(b.availSince)
		}
		return a.order < b.order
	})
	var out []*fifoPMsg
	for _, g := range heads {
		for _, x := range byGroup[g] {
			if len(out) == max || x.inflight {
				break
			}
			out = append(out, x)
		}
	}
	return out
}

// fifoPMachine runs one drawn schedule.
type fifoPMachine struct {
	ctx     context.Context
	clk     *clock.Mock
	q       *sqsq.Queue
	m       *fifoPModel
	handles []*fifoPHandle          // every handle issued, oldest first
	byRH    map[string]*fifoPHandle // the same, by handle
	byID    map[string]*fifoPMsg
	ids     map[string]bool // MessageIds of stored messages
	deleted map[string]bool // MessageIds removed by a delete
	steps   int
}

// fifoPropRounds is how many rounds of t.Repeat one schedule runs.
const fifoPropRounds = 4

// fifoPropSteps counts the actions checked, for the log.
var fifoPropSteps atomic.Int64

// sysNames are the system attributes every receive asks for.
func (s *fifoPMachine) sysNames() []string {
	return []string{sqsq.SysApproximateReceiveCount, sqsq.SysMessageGroupId, sqsq.SysSequenceNumber, sqsq.SysMessageDeduplicationId}
}

// fifoPCode returns the sqsq error code of err, "" for nil.
func fifoPCode(t *rapid.T, what string, err error) sqsq.Code {
	if err == nil {
		return ""
	}
	var e *sqsq.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: %T %v, want an *sqsq.Error", what, err, err)
	}
	return e.Code
}

var (
	fifoPGroups     = []string{"g1", "g2", "g3"}
	fifoPBodies     = []string{"b1", "b2", "b3", "b4", "b5"}
	fifoPDedupIDs   = []string{"", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8"}
	fifoPVis        = []time.Duration{-1, 0, 10 * time.Second, 30 * time.Second, 5 * time.Minute}
	fifoPCMV        = []time.Duration{0, 5 * time.Second, 30 * time.Second, time.Minute, 10 * time.Minute}
	fifoPAttemptIDs = []string{"", "", "", "r1", "r2"}
	fifoPAdvances   = []time.Duration{
		time.Millisecond, time.Second, 5 * time.Second, 10 * time.Second, 29 * time.Second, 30 * time.Second,
		time.Minute, 4*time.Minute + 59*time.Second, 5 * time.Minute, 5*time.Minute + time.Second, 11 * time.Minute,
	}
)

type fifoPSend struct{ group, body, dedupID string }

func (s *fifoPMachine) drawSend(t *rapid.T, label string) fifoPSend {
	return fifoPSend{
		group:   rapid.SampledFrom(fifoPGroups).Draw(t, label+"group"),
		body:    rapid.SampledFrom(fifoPBodies).Draw(t, label+"body"),
		dedupID: rapid.SampledFrom(fifoPDedupIDs).Draw(t, label+"dedup"),
	}
}

func (p fifoPSend) input() sqsq.SendInput {
	return sqsq.SendInput{MessageBody: p.body, MessageGroupId: p.group, MessageDeduplicationId: p.dedupID}
}

// applySend runs one validated send on the model and checks the real result.
func (s *fifoPMachine) applySend(t *rapid.T, p fifoPSend, res sqsq.SendResult) {
	m := s.m
	dedupID := p.dedupID
	if dedupID == "" {
		sum := sha256.Sum256([]byte(p.body))
		dedupID = hex.EncodeToString(sum[:])
	}
	key := m.dedupKey(p.group, dedupID)
	if e, ok := m.dedup[key]; ok {
		m.dups++
		if res.MessageId != e.msg.id || res.SequenceNumber != e.msg.seqNum {
			t.Fatalf("duplicate send %+v = (%s, %s), want the original's (%s, %s) (§6.5)",
				p, res.MessageId, res.SequenceNumber, e.msg.id, e.msg.seqNum)
		}
		return
	}
	if s.ids[res.MessageId] {
		t.Fatalf("send %+v returned the id %s of an earlier message, but nothing in the window matches", p, res.MessageId)
	}
	if n := len(m.msgs); n > 0 {
		if last := m.msgs[n-1].seqNum; len(res.SequenceNumber) != 20 || res.SequenceNumber <= last {
			t.Fatalf("SequenceNumber %s after %s: want 20 digits, increasing (§6.7)", res.SequenceNumber, last)
		}
	}
	x := &fifoPMsg{
		id: res.MessageId, group: p.group, body: p.body, dedupID: dedupID, seqNum: res.SequenceNumber,
		order: len(m.msgs), availSince: m.now,
	}
	m.msgs = append(m.msgs, x)
	m.dedup[key] = fifoPDedup{expires: m.now.Add(5 * time.Minute), msg: x}
	m.sent++
	s.ids[x.id] = true
	s.byID[x.id] = x
}

func (s *fifoPMachine) Send(t *rapid.T) {
	p := s.drawSend(t, "")
	res, err := s.q.Send(s.ctx, p.input())
	s.m.tick()
	if p.dedupID == "" && !s.m.cbd {
		if c := fifoPCode(t, "Send", err); c != sqsq.CodeInvalidParameterValue {
			t.Fatalf("Send %+v without a dedup id or CBD: code %q, want InvalidParameterValue", p, c)
		}
		return
	}
	if err != nil {
		t.Fatalf("Send %+v: %v", p, err)
	}
	s.applySend(t, p, res)
}

func (s *fifoPMachine) SendBatch(t *rapid.T) {
	n := rapid.IntRange(1, 4).Draw(t, "entries")
	var ps []fifoPSend
	var entries []sqsq.SendBatchEntry
	bad := false
	for i := 0; i < n; i++ {
		p := s.drawSend(t, fmt.Sprintf("e%d.", i))
		ps = append(ps, p)
		entries = append(entries, sqsq.SendBatchEntry{Id: fmt.Sprintf("e%d", i), SendInput: p.input()})
		bad = bad || (p.dedupID == "" && !s.m.cbd)
	}
	res, err := s.q.SendBatch(s.ctx, entries)
	s.m.tick()
	if bad {
		if c := fifoPCode(t, "SendBatch", err); c != sqsq.CodeInvalidParameterValue {
			t.Fatalf("SendBatch with an entry lacking a dedup id: code %q, want InvalidParameterValue for the whole call", c)
		}
		return
	}
	if err != nil || len(res.Failed) != 0 || len(res.Successful) != n {
		t.Fatalf("SendBatch: %+v, %v; want all %d entries sent", res, err, n)
	}
	for i, e := range res.Successful {
		if e.Id != entries[i].Id {
			t.Fatalf("SendBatch result %d is entry %s, want %s (request order)", i, e.Id, entries[i].Id)
		}
		s.applySend(t, ps[i], e.SendResult)
	}
}

func (s *fifoPMachine) Receive(t *rapid.T) {
	max := rapid.IntRange(1, 10).Draw(t, "max")
	vis := rapid.SampledFrom(fifoPVis).Draw(t, "vis")
	attempt := rapid.SampledFrom(fifoPAttemptIDs).Draw(t, "attempt")
	in := sqsq.ReceiveInput{
		MaxNumberOfMessages: max, WaitTimeSeconds: sqsq.Some(time.Duration(0)),
		ReceiveRequestAttemptId: attempt, MessageSystemAttributeNames: s.sysNames(),
	}
	if vis >= 0 {
		in.VisibilityTimeout = sqsq.Some(vis)
	} else {
		vis = 30 * time.Second // the queue's default
	}
	got, err := s.q.Receive(s.ctx, in)
	if err != nil {
		t.Fatalf("Receive: %v", err)
	}
	m := s.m
	m.tick()

	// A retry of a live attempt whose messages are untouched replays it.
	if a := m.attempts[attempt]; attempt != "" && a != nil {
		ok := true
		for i, x := range a.msgs {
			ok = ok && !x.gone && x.inflight && x.serial == a.serials[i] && x.touched == a.touched[i]
		}
		if ok {
			s.checkOrder(t, got)
			if d := diff(fifoPView(a.out), fifoPView(got)); d != "" {
				t.Fatalf("retry of attempt %s: want the same messages and handles (§6.8)\n%s", attempt, d)
			}
			for _, x := range a.msgs {
				x.visibleAt = m.now.Add(a.vis)
			}
			return
		}
		delete(m.attempts, attempt)
	}

	// (a) and (b) on the real response, against the state before it.
	s.checkOrder(t, got)
	for _, msg := range got {
		x := s.byID[msg.MessageId]
		for _, e := range m.msgs {
			if e.group == x.group && e.order < x.order && !e.gone && e.inflight {
				t.Fatalf("(b) %s returned while the earlier %s of group %s is in flight (§6.4)", x.body, e.body, x.group)
			}
		}
	}

	want := m.selectFresh(max)
	wantIDs := make([]string, len(want))
	for i, x := range want {
		wantIDs[i] = x.id + " " + x.body + "@" + x.group
	}
	gotIDs := make([]string, len(got))
	for i, msg := range got {
		if x := s.byID[msg.MessageId]; x != nil {
			gotIDs[i] = x.id + " " + x.body + "@" + x.group
		} else {
			gotIDs[i] = msg.MessageId + " (unknown)"
		}
	}
	if d := diff(wantIDs, gotIDs); d != "" {
		t.Fatalf("Receive(max %d, vis %v) returned other messages than §6.4 selects:\n%s", max, vis, d)
	}
	for i, x := range want {
		x.serial++
		x.touched++
		x.receivedAt = m.now
		if vis > 0 {
			x.inflight = true
			x.visibleAt = m.now.Add(vis)
		} else {
			x.availSince = m.now
		}
		msg := got[i]
		wantAttrs := map[string]string{
			sqsq.SysApproximateReceiveCount: fmt.Sprint(x.serial),
			sqsq.SysMessageGroupId:          x.group,
			sqsq.SysSequenceNumber:          x.seqNum,
			sqsq.SysMessageDeduplicationId:  x.dedupID,
		}
		if d := diff(wantAttrs, msg.Attributes); d != "" || msg.Body != x.body {
			t.Fatalf("message %s (body %q): system attributes\n%s", x.id, msg.Body, d)
		}
		if s.byRH[msg.ReceiptHandle] != nil {
			t.Fatalf("receive of %s returned a handle issued before", x.body)
		}
		h := &fifoPHandle{rh: msg.ReceiptHandle, msg: x, serial: x.serial}
		s.handles = append(s.handles, h)
		s.byRH[h.rh] = h
	}
	if attempt != "" && len(want) > 0 && vis > 0 {
		a := &fifoPAttempt{expires: m.now.Add(5 * time.Minute), vis: vis, out: got}
		for _, x := range want {
			a.msgs = append(a.msgs, x)
			a.serials = append(a.serials, x.serial)
			a.touched = append(a.touched, x.touched)
		}
		m.attempts[attempt] = a
	}
}

// checkOrder is property (a): within a response, a message's earlier live
// group-mates all come before it.
func (s *fifoPMachine) checkOrder(t *rapid.T, got []sqsq.Message) {
	pos := map[string]int{}
	for i, msg := range got {
		x := s.byID[msg.MessageId]
		if x == nil {
			t.Fatalf("Receive returned %s, never sent", msg.MessageId)
		}
		if _, dup := pos[x.id]; dup {
			t.Fatalf("Receive returned %s twice in one response (§6.9)", x.body)
		}
		pos[x.id] = i
		for _, e := range s.m.msgs {
			if e.group != x.group || e.order >= x.order || e.gone {
				continue
			}
			if j, ok := pos[e.id]; !ok || j >= i {
				t.Fatalf("(a) %s@%s returned but the earlier %s is neither deleted nor before it in the response (§6.3)", x.body, x.group, e.body)
			}
		}
	}
}

// fifoPView is what two responses must share to be the same.
func fifoPView(msgs []sqsq.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.MessageId+" "+m.ReceiptHandle)
	}
	return out
}

func (s *fifoPMachine) drawHandle(t *rapid.T) *fifoPHandle {
	if len(s.handles) == 0 {
		t.Skip("no handle issued yet")
	}
	// Mostly recent handles (the ones a consumer holds), sometimes old ones.
	n := len(s.handles)
	back := rapid.IntRange(0, min(n-1, 12)).Draw(t, "back")
	if rapid.IntRange(0, 3).Draw(t, "old") == 0 {
		back = rapid.IntRange(0, n-1).Draw(t, "oldBack")
	}
	return s.handles[n-1-back]
}

const (
	fifoPExpired = "The receipt handle has expired."
	fifoPNoMsg   = "Message does not exist or is not available for visibility timeout change."
)

// fifoPWantHandleErr compares err with the error the model expects: "" for
// success, else the Reason of an InvalidParameterValue on the handle.
func fifoPWantHandleErr(t *rapid.T, what string, h *fifoPHandle, err error, reason string) {
	if reason == "" {
		if err != nil {
			t.Fatalf("%s: %v, want success", what, err)
		}
		return
	}
	var e *sqsq.Error
	want := "Value " + h.rh + " for parameter ReceiptHandle is invalid. Reason: " + reason
	if !errors.As(err, &e) || e.Code != sqsq.CodeInvalidParameterValue || e.Message != want {
		t.Fatalf("%s: %v, want InvalidParameterValue %q", what, err, reason)
	}
}

func (s *fifoPMachine) Delete(t *rapid.T) {
	h := s.drawHandle(t)
	err := s.q.Delete(s.ctx, h.rh)
	s.m.tick()
	x := h.msg
	switch {
	case x.gone:
		fifoPWantHandleErr(t, "Delete of a message already gone", h, err, "")
	case h.serial < x.serial || !x.inflight:
		fifoPWantHandleErr(t, "Delete with a stale or expired handle", h, err, fifoPExpired)
	default:
		fifoPWantHandleErr(t, "Delete with the latest handle of a message in flight", h, err, "")
		x.gone, x.inflight = true, false
		s.deleted[x.id] = true
	}
}

func (s *fifoPMachine) ChangeVisibility(t *rapid.T) {
	h := s.drawHandle(t)
	timeout := rapid.SampledFrom(fifoPCMV).Draw(t, "timeout")
	err := s.q.ChangeVisibility(s.ctx, h.rh, timeout)
	m := s.m
	m.tick()
	x := h.msg
	switch {
	case x.gone:
		fifoPWantHandleErr(t, "ChangeVisibility of a message gone", h, err, fifoPNoMsg)
	case h.serial < x.serial || !x.inflight:
		fifoPWantHandleErr(t, "ChangeVisibility with a stale or expired handle", h, err, fifoPExpired)
	case m.now.Sub(x.receivedAt)+timeout > 12*time.Hour:
		if c := fifoPCode(t, "ChangeVisibility", err); c != sqsq.CodeInvalidParameterValue {
			t.Fatalf("ChangeVisibility past the 12-hour budget: %v", err)
		}
	default:
		fifoPWantHandleErr(t, fmt.Sprintf("ChangeVisibility(%v) with the latest handle", timeout), h, err, "")
		x.touched++
		if timeout == 0 {
			x.inflight = false
			x.availSince = m.now
		} else {
			x.visibleAt = m.now.Add(timeout)
		}
	}
}

func (s *fifoPMachine) Advance(t *rapid.T) {
	d := rapid.SampledFrom(fifoPAdvances).Draw(t, "d")
	s.clk.Add(d)
	s.m.now = s.m.now.Add(d)
	s.m.tick()
}

// Purge is drawn as often as the other actions but purges one time in ten,
// so queues get deep enough to be interesting.
func (s *fifoPMachine) Purge(t *rapid.T) {
	if rapid.IntRange(0, 9).Draw(t, "purge?") != 0 {
		return
	}
	if err := s.q.Purge(s.ctx); err != nil {
		t.Fatalf("Purge: %v", err)
	}
	m := s.m
	for _, x := range m.msgs {
		if !x.gone {
			x.gone, x.inflight, x.purged = true, false, true
		}
	}
	clear(m.dedup)
	clear(m.attempts)
}

// Check compares the counts after every action.
func (s *fifoPMachine) Check(t *rapid.T) {
	s.steps++
	st, err := s.q.Stats()
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	m := s.m
	m.tick()
	var want sqsq.Stats
	byGroup, names := m.groups()
	want.Groups = len(names)
	for _, g := range names {
		locked := false
		for _, x := range byGroup[g] {
			if x.inflight {
				want.InFlight++
				locked = true
			} else {
				want.Visible++
			}
		}
		if locked {
			want.LockedGroups++
		}
	}
	got := [7]int64{int64(st.Visible), int64(st.InFlight), int64(st.Delayed), int64(st.Groups), int64(st.LockedGroups), st.Sent, st.DuplicatesSuppressed}
	exp := [7]int64{int64(want.Visible), int64(want.InFlight), 0, int64(want.Groups), int64(want.LockedGroups), m.sent, m.dups}
	if got != exp {
		t.Fatalf("stats [visible inflight delayed groups locked sent duplicates] = %v, model %v", got, exp)
	}
}

// drain makes every message visible, then receives and deletes until the
// queue is empty, comparing each step with the model; then it checks (c).
func (s *fifoPMachine) drain(t *rapid.T) {
	s.clk.Add(time.Hour)
	s.m.now = s.m.now.Add(time.Hour)
	s.m.tick()
	for left := len(s.m.msgs) + 1; ; left-- {
		if left == 0 {
			t.Fatalf("drain did not empty the queue")
		}
		before := len(s.handles)
		got, err := s.q.Receive(s.ctx, sqsq.ReceiveInput{
			MaxNumberOfMessages: 10, WaitTimeSeconds: sqsq.Some(time.Duration(0)),
			VisibilityTimeout: sqsq.Some(30 * time.Second), MessageSystemAttributeNames: s.sysNames(),
		})
		if err != nil {
			t.Fatalf("drain receive: %v", err)
		}
		want := s.m.selectFresh(10)
		if len(got) != len(want) {
			t.Fatalf("drain receive returned %d messages, the model %d", len(got), len(want))
		}
		if len(got) == 0 {
			break
		}
		s.checkOrder(t, got)
		for i, x := range want {
			if got[i].MessageId != x.id {
				t.Fatalf("drain receive %d: %s, want %s", i, got[i].MessageId, x.id)
			}
			x.serial++
			x.inflight, x.visibleAt = true, s.m.now.Add(30*time.Second)
			h := &fifoPHandle{rh: got[i].ReceiptHandle, msg: x, serial: x.serial}
			s.handles = append(s.handles, h)
			s.byRH[h.rh] = h
		}
		for _, h := range s.handles[before:] {
			if err := s.q.Delete(s.ctx, h.rh); err != nil {
				t.Fatalf("drain delete: %v", err)
			}
			h.msg.gone, h.msg.inflight = true, false
			s.deleted[h.msg.id] = true
		}
		s.Check(t)
	}
	// (c): the stored messages are exactly the deleted and the purged ones.
	removed := map[string]bool{}
	for id := range s.deleted {
		removed[id] = true
	}
	for _, x := range s.m.msgs {
		if x.purged {
			if removed[x.id] {
				t.Fatalf("%s both deleted and purged", x.id)
			}
			removed[x.id] = true
		}
	}
	if d := diff(s.ids, removed); d != "" {
		t.Fatalf("(c) stored ids vs deleted+purged ids:\n%s", d)
	}
	st, err := s.q.Stats()
	if err != nil || st.Visible+st.InFlight+st.Delayed+st.Groups+st.LockedGroups != 0 {
		t.Fatalf("after the drain: %+v, %v; want an empty queue", st, err)
	}
}

func TestFIFOProperties(t *testing.T) {
	t.Parallel()
	fifoPropSteps.Store(0)
	rapid.Check(t, func(t *rapid.T) {
		cbd := rapid.Bool().Draw(t, "cbd")
		scopeGroup := rapid.Bool().Draw(t, "scopeGroup")
		clk := clock.NewMock()
		clk.Set(epoch)
		n := 0
		b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithPurgeInterval(0), sqsq.WithIDFunc(func() string {
			n++
			return fmt.Sprintf("m%04d", n)
		}))
		defer b.Close()
		ctx := context.Background()
		scope := "queue"
		if scopeGroup {
			scope = "messageGroup"
		}
		q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "prop.fifo", Attributes: sqsq.QueueAttributes{
			FifoQueue: sqsq.Some(true), ContentBasedDeduplication: sqsq.Some(cbd), DeduplicationScope: sqsq.Some(scope),
		}})
		if err != nil {
			t.Fatalf("CreateQueue: %v", err)
		}
		s := &fifoPMachine{
			ctx: ctx, clk: clk, q: q,
			m: &fifoPModel{
				now: clk.Now(), cbd: cbd, scopeGroup: scopeGroup,
				dedup: map[string]fifoPDedup{}, attempts: map[string]*fifoPAttempt{},
			},
			byRH: map[string]*fifoPHandle{}, byID: map[string]*fifoPMsg{},
			ids: map[string]bool{}, deleted: map[string]bool{},
		}
		actions := map[string]func(*rapid.T){
			"Send":             s.Send,
			"SendBatch":        s.SendBatch,
			"Receive":          s.Receive,
			"Delete":           s.Delete,
			"ChangeVisibility": s.ChangeVisibility,
			"Advance":          s.Advance,
			"Purge":            s.Purge,
			"":                 s.Check,
		}
		// Several rounds make schedules of about 120 actions (rapid's
		// default is 30): deep enough for long groups, replayed attempt ids
		// and several dedup windows in one schedule.
		for range fifoPropRounds {
			t.Repeat(actions)
		}
		s.drain(t)
		fifoPropSteps.Add(int64(s.steps))
	})
	t.Logf("%d steps checked", fifoPropSteps.Load())
}
