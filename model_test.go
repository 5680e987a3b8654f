package sqsq_test

// Model-based test of a standard queue (style guide §8): rapid drives random
// sequences of operations against a real Broker on a mock clock and against
// the deliberately naive model below (slices of structs, linear scans), and
// compares every result after every step.
//
// The model follows docs/sqs-semantics.md: §1.2 message states, §3.7 purge,
// §3.8–3.14 the message operations, §4 visibility and receipt handles,
// §5.1–5.4 delays, retention, short polls and system attributes, §2.1 queue
// attributes. Time is evaluated lazily: before every operation messages past
// retention expire (in any state), then delayed and in-flight messages whose
// time has come become available as of that time.
//
// Where the spec leaves a choice open, the model follows sqsq's choice:
// an empty body in a SendBatch entry fails that entry with MissingParameter
// (as SendMessage does); ChangeVisibility checks the timeout's range before
// the handle; a purge exactly 60 s after the last one is allowed.
//
// Four profiles share the machine: short mixed sequences (which shrink
// best), long ones, deep queues over days, and bulk runs that pile up
// thousands of messages and expire them together, to drive the real queue's
// indexes through growth, compaction and shrinking. Flood and Churn are
// macro steps (many sends; receive-then-delete loops) made of ordinary
// calls, each compared like any other.

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/benbjohnson/clock"
	"pgregory.net/rapid"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/testsize"
)

// ---------------------------------------------------------------------------
// The reference model.

type mState int

const (
	mAvailable mState = iota + 1
	mInflight
	mDelayed
	mGone
)

func (s mState) String() string {
	switch s {
	case mAvailable:
		return "available"
	case mInflight:
		return "in flight"
	case mDelayed:
		return "delayed"
	case mGone:
		return "gone"
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// mMsg is one message of the model. Times are clock nanoseconds.
type mMsg struct {
	seq         int // send order in the queue
	id, body    string
	group       string
	state       mState
	enqueuedAt  int64 // retention counts from here
	sentMs      int64 // SentTimestamp
	visibleAt   int64 // end of the delay or visibility timeout (delayed, in flight)
	availSince  int64 // orders available messages (with seq)
	receives    int   // ApproximateReceiveCount
	serial      int   // number of the latest receive; names the latest handle
	receivedAt  int64 // time of the latest receive (start of the 12 h budget)
	firstRecvMs int64 // ApproximateFirstReceiveTimestamp, valid once receives > 0
	latestRH    string

	// Where the message went once gone (model_redrive_test.go follows every
	// message sent to its one place): fateDeleted, fateExpired or
	// fatePurged here; the redrive model adds its own. next is the message's
	// next incarnation after a move to a dead-letter queue or a redrive.
	fate      string
	next      *mMsg
	dlqSource string // DeadLetterQueueSourceArn (redrive model)
}

// Fates of gone messages.
const (
	fateDeleted = "deleted"
	fateExpired = "expired"
	fatePurged  = "purged"
)

const (
	twelveHours   = 12 * time.Hour
	purgeInterval = 60 * time.Second
	idFormat      = "msg-%06d"
)

type model struct {
	now     int64
	msgs    []*mMsg // stored messages (never gone), in send order
	lastSeq int
	lastID  int // the id counter the broker's IDFunc shares

	visibility, delay, retention, wait time.Duration
	maxSize                            int // MaximumMessageSize, bytes
	limit                              int

	purged   bool
	purgedAt int64

	staleDeleteRemoves bool // WithStaleDeleteRemoves
	strictNotInflight  bool // WithStrictNotInflight

	c sqsq.Counters
}

// tick applies time: retention first (any state), then delay and visibility
// ends, each message becoming available as of its own deadline.
func (m *model) tick() {
	for _, x := range m.msgs {
		if x.enqueuedAt+int64(m.retention) <= m.now {
			x.state, x.fate = mGone, fateExpired
			m.c.Expired++
		}
	}
	m.prune()
	for _, x := range m.msgs {
		if (x.state == mDelayed || x.state == mInflight) && x.visibleAt <= m.now {
			if x.state == mInflight {
				m.c.VisibilityExpirations++
			}
			x.state = mAvailable
			x.availSince = x.visibleAt
		}
	}
}

// prune forgets gone messages (handles keep pointing at them).
func (m *model) prune() {
	if m.count(mGone) == 0 {
		return
	}
	keep := m.msgs[:0]
	for _, x := range m.msgs {
		if x.state != mGone {
			keep = append(keep, x)
		}
	}
	clear(m.msgs[len(keep):])
	m.msgs = keep
}

func (m *model) count(s mState) int {
	n := 0
	for _, x := range m.msgs {
		if x.state == s {
			n++
		}
	}
	return n
}

func wholeSeconds(d time.Duration) bool { return d%time.Second == 0 }

func modelBodyOK(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		ok := r == 0x9 || r == 0xA || r == 0xD || (r >= 0x20 && r <= 0xD7FF) ||
			(r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
		if !ok {
			return false
		}
	}
	return true
}

type sendReq struct {
	body  string
	delay sqsq.Optional[time.Duration]
	group string
}

// send is SendMessage (and one SendMessageBatch entry): the new message's id,
// or the error code.
func (m *model) send(r sendReq) (string, sqsq.Code) {
	if r.body == "" {
		return "", sqsq.CodeMissingParameter
	}
	if len(r.body) > m.maxSize {
		return "", sqsq.CodeInvalidParameterValue
	}
	if !modelBodyOK(r.body) {
		return "", sqsq.CodeInvalidMessageContents
	}
	if d, ok := r.delay.Get(); ok && (d < 0 || d > 900*time.Second || !wholeSeconds(d)) {
		return "", sqsq.CodeInvalidParameterValue
	}
	m.lastID++
	m.lastSeq++
	x := &mMsg{
		seq:        m.lastSeq,
		id:         fmt.Sprintf(idFormat, m.lastID),
		body:       r.body,
		group:      r.group,
		enqueuedAt: m.now,
		sentMs:     m.now / int64(time.Millisecond),
	}
	if delay := r.delay.Or(m.delay); delay > 0 {
		x.state = mDelayed
		x.visibleAt = m.now + int64(delay)
	} else {
		x.state = mAvailable
		x.availSince = m.now
	}
	m.msgs = append(m.msgs, x)
	m.c.Sent++
	return x.id, ""
}

// receive is a short-poll ReceiveMessage.
func (m *model) receive(max int, vis sqsq.Optional[time.Duration]) ([]*mMsg, sqsq.Code) {
	if max == 0 {
		max = 1
	}
	if max < 1 || max > 10 {
		return nil, sqsq.CodeInvalidParameterValue
	}
	if v, ok := vis.Get(); ok && (v < 0 || v > twelveHours || !wholeSeconds(v)) {
		return nil, sqsq.CodeInvalidParameterValue
	}
	m.c.ReceiveCalls++
	inflight := m.count(mInflight)
	if inflight >= m.limit {
		m.c.EmptyReceives++
		return nil, sqsq.CodeOverLimit
	}
	// Pick the longest-available message, n times, by linear scans.
	n := min(max, m.limit-inflight)
	var got []*mMsg
	picked := func(x *mMsg) bool {
		for _, y := range got {
			if y == x {
				return true
			}
		}
		return false
	}
	for len(got) < n {
		var next *mMsg
		for _, x := range m.msgs {
			if x.state != mAvailable || picked(x) {
				continue
			}
			if next == nil || x.availSince < next.availSince ||
				(x.availSince == next.availSince && x.seq < next.seq) {
				next = x
			}
		}
		if next == nil {
			break
		}
		got = append(got, next)
	}
	v := vis.Or(m.visibility)
	for _, x := range got {
		x.serial++
		x.receives++
		if x.receives == 1 {
			x.firstRecvMs = m.now / int64(time.Millisecond)
		} else {
			m.c.Redelivered++
		}
		x.receivedAt = m.now
		if v > 0 {
			x.state = mInflight
			x.visibleAt = m.now + int64(v)
		} else {
			x.availSince = m.now
		}
		m.c.Received++
	}
	if len(got) == 0 {
		m.c.EmptyReceives++
	}
	return got, ""
}

type hKind int

const (
	hEmpty   hKind = iota // ""
	hInvalid              // garbage, corrupted, or another queue's handle
	hReal                 // a handle this queue returned
)

// hRef is a receipt handle as the test drew it.
type hRef struct {
	kind   hKind
	rh     string
	msg    *mMsg // hReal only
	serial int   // hReal only: which receive returned it
	label  string
}

func (h hRef) String() string {
	if h.kind == hReal {
		return fmt.Sprintf("%s(%s #%d, now %s #%d)", h.label, h.msg.id, h.serial, h.msg.state, h.msg.serial)
	}
	return fmt.Sprintf("%s(%q)", h.label, h.rh)
}

// delete is DeleteMessage (and one DeleteMessageBatch entry).
func (m *model) delete(h hRef) sqsq.Code {
	switch h.kind {
	case hEmpty:
		return sqsq.CodeMissingParameter
	case hInvalid:
		return sqsq.CodeReceiptHandleIsInvalid
	}
	x := h.msg
	m.c.DeleteRequests++
	switch {
	case x.state == mGone:
		return ""
	case h.serial < x.serial:
		m.c.StaleHandleDeletes++
		if !m.staleDeleteRemoves {
			return ""
		}
	}
	x.state, x.fate = mGone, fateDeleted
	m.c.Deleted++
	m.prune()
	return ""
}

// changeVisibilityEntry is one ChangeMessageVisibilityBatch entry: the single
// call, except that a message that is gone fails with ReceiptHandleIsInvalid.
func (m *model) changeVisibilityEntry(h hRef, timeout time.Duration) sqsq.Code {
	code := m.changeVisibility(h, timeout)
	validTimeout := timeout >= 0 && timeout <= twelveHours && wholeSeconds(timeout)
	if code == sqsq.CodeInvalidParameterValue && validTimeout && h.kind == hReal && h.msg.state == mGone {
		return sqsq.CodeReceiptHandleIsInvalid
	}
	return code
}

// changeVisibility is ChangeMessageVisibility.
func (m *model) changeVisibility(h hRef, timeout time.Duration) sqsq.Code {
	if timeout < 0 || timeout > twelveHours || !wholeSeconds(timeout) {
		return sqsq.CodeInvalidParameterValue
	}
	switch h.kind {
	case hEmpty:
		return sqsq.CodeMissingParameter
	case hInvalid:
		return sqsq.CodeReceiptHandleIsInvalid
	}
	x := h.msg
	switch {
	case x.state == mGone:
		return sqsq.CodeInvalidParameterValue
	case x.state != mInflight && m.strictNotInflight:
		return sqsq.CodeMessageNotInflight
	case x.state != mInflight:
		return "" // available again: success, nothing changes
	case time.Duration(m.now-x.receivedAt)+timeout > twelveHours:
		return sqsq.CodeInvalidParameterValue
	}
	m.c.VisibilityChanges++
	if timeout == 0 {
		x.state = mAvailable
		x.availSince = m.now
	} else {
		x.visibleAt = m.now + int64(timeout)
	}
	return ""
}

func (m *model) purge() sqsq.Code {
	if m.purged && m.now-m.purgedAt < int64(purgeInterval) {
		return sqsq.CodePurgeQueueInProgress
	}
	m.purged, m.purgedAt = true, m.now
	for _, x := range m.msgs {
		x.state, x.fate = mGone, fatePurged
		m.c.Purged++
	}
	m.prune()
	return ""
}

type attrReq struct {
	visibility, delay, retention, wait sqsq.Optional[time.Duration]
	maxSize                            sqsq.Optional[int]
}

func (a attrReq) String() string {
	var parts []string
	show := func(name string, o sqsq.Optional[time.Duration]) {
		if v, ok := o.Get(); ok {
			parts = append(parts, name+"="+v.String())
		}
	}
	show("VisibilityTimeout", a.visibility)
	show("DelaySeconds", a.delay)
	show("MessageRetentionPeriod", a.retention)
	show("ReceiveMessageWaitTimeSeconds", a.wait)
	if v, ok := a.maxSize.Get(); ok {
		parts = append(parts, "MaximumMessageSize="+strconv.Itoa(v))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

func inRange(o sqsq.Optional[time.Duration], lo, hi time.Duration) bool {
	v, ok := o.Get()
	return !ok || (v >= lo && v <= hi && wholeSeconds(v))
}

func (m *model) setAttributes(a attrReq) sqsq.Code {
	if !inRange(a.visibility, 0, twelveHours) || !inRange(a.delay, 0, 900*time.Second) ||
		!inRange(a.retention, 60*time.Second, 14*24*time.Hour) || !inRange(a.wait, 0, 20*time.Second) {
		return sqsq.CodeInvalidAttributeValue
	}
	if v, ok := a.maxSize.Get(); ok && (v < 1024 || v > 1048576) {
		return sqsq.CodeInvalidAttributeValue
	}
	m.maxSize = a.maxSize.Or(m.maxSize)
	m.visibility = a.visibility.Or(m.visibility)
	m.delay = a.delay.Or(m.delay)
	m.retention = a.retention.Or(m.retention)
	m.wait = a.wait.Or(m.wait)
	m.tick() // a shorter retention expires old messages at once
	return ""
}

// events lists the upcoming instants at which something changes by itself,
// so ClockAdvance can land on (and next to) them.
func (m *model) events() []int64 {
	var ev []int64
	add := func(at int64) {
		if at > m.now {
			ev = append(ev, at)
		}
	}
	for _, x := range m.msgs {
		add(x.enqueuedAt + int64(m.retention))
		if x.state == mDelayed || x.state == mInflight {
			add(x.visibleAt)
		}
		if x.state == mInflight {
			add(x.receivedAt + int64(twelveHours))
		}
	}
	if m.purged {
		add(m.purgedAt + int64(purgeInterval))
	}
	sort.Slice(ev, func(i, j int) bool { return ev[i] < ev[j] })
	return ev
}

// ---------------------------------------------------------------------------
// The state machine: real broker and model side by side.

type modelMachine struct {
	ctx   context.Context
	clk   *clock.Mock
	q     *sqsq.Queue
	m     *model
	steps int64

	bulk bool

	handles []hRef          // every handle a receive returned
	seen    map[string]bool // the same, for the uniqueness check
	foreign string          // a live handle of another queue of the broker
}

// desc describes an operation for failure messages; it is formatted only
// when a comparison fails.
type desc func() string

func (d desc) String() string { return d() }

func describe(format string, args ...any) desc {
	return func() string { return fmt.Sprintf(format, args...) }
}

func codeOf(t *rapid.T, what fmt.Stringer, err error) sqsq.Code {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *sqsq.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v (%T) is not a *sqsq.Error", what, err, err)
	}
	return e.Code
}

func wantCode(t *rapid.T, what fmt.Stringer, err error, want sqsq.Code) {
	t.Helper()
	if got := codeOf(t, what, err); got != want {
		t.Fatalf("%s: error code %q (%v), model says %q", what, got, err, want)
	}
}

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// ---- draws

var bodyPieces = []string{
	"a", "b", "hello", "0123456789", " ", "\t", "\n", "\r", "{\"k\":1}", "&quot;",
	"é", "日本", "\u00a0", "\ud7ff", "\ue000", "\ufffd", "\U00010000", "\U0010ffff", "🙂",
}

var badBodyPieces = []string{"\x00", "\x08", "\x1f", "\x13", "\ufffe", "\uffff", "\xff", "\xc3"}

func drawBody(t *rapid.T, label string) string {
	switch k := rapid.IntRange(0, 19).Draw(t, label+"Kind"); {
	case k == 0:
		return ""
	case k == 1:
		parts := rapid.SliceOfN(rapid.SampledFrom(bodyPieces), 0, 10).Draw(t, label+"Prefix")
		bad := rapid.SampledFrom(badBodyPieces).Draw(t, label+"Bad")
		return strings.Join(parts, "") + bad
	case k < 5:
		return strings.Join(rapid.SliceOfN(rapid.SampledFrom(bodyPieces), 1, 12).Draw(t, label+"Pieces"), "")
	case k == 5:
		// Around the MaximumMessageSize values SetAttributes draws; the
		// limit counts bytes, so "é" counts twice.
		n := rapid.SampledFrom([]int{1023, 1024, 1025, 2047, 2048, 2049}).Draw(t, label+"Bytes")
		if rapid.Bool().Draw(t, label+"TwoByte") {
			return strings.Repeat("é", n/2) + strings.Repeat("x", n%2)
		}
		return strings.Repeat("s", n)
	default:
		return "body-" + strconv.Itoa(rapid.IntRange(0, 999).Draw(t, label+"N"))
	}
}

func drawDelay(t *rapid.T, label string) sqsq.Optional[time.Duration] {
	switch k := rapid.IntRange(0, 19).Draw(t, label+"Kind"); {
	case k < 10:
		return sqsq.Optional[time.Duration]{}
	case k < 13:
		return sqsq.Some(time.Duration(0))
	case k < 18:
		s := rapid.SampledFrom([]int{1, 2, 5, 30, 60, 899, 900}).Draw(t, label+"Secs")
		return sqsq.Some(time.Duration(s) * time.Second)
	default:
		return sqsq.Some(rapid.SampledFrom([]time.Duration{
			-time.Second, 901 * time.Second, 1500 * time.Millisecond, time.Nanosecond,
		}).Draw(t, label+"Bad"))
	}
}

func (s *modelMachine) drawSend(t *rapid.T, label string) sendReq {
	r := sendReq{body: drawBody(t, label+"Body"), delay: drawDelay(t, label+"Delay")}
	if rapid.IntRange(0, 9).Draw(t, label+"Grouped") == 0 {
		r.group = "g-" + strconv.Itoa(rapid.IntRange(1, 3).Draw(t, label+"Group"))
	}
	return r
}

// drawHandle picks a receipt handle: mostly the latest handle of a stored
// message, then any handle ever returned (stale, or of a gone message), and
// now and then an empty, garbage, corrupted or foreign one.
func (s *modelMachine) drawHandle(t *rapid.T, label string) hRef {
	k := rapid.IntRange(0, 99).Draw(t, label+"Kind")
	if k < 45 {
		var received []*mMsg
		for _, x := range s.m.msgs {
			if x.serial > 0 {
				received = append(received, x)
			}
		}
		if len(received) > 0 {
			x := received[rapid.IntRange(0, len(received)-1).Draw(t, label+"Latest")]
			return hRef{kind: hReal, rh: x.latestRH, msg: x, serial: x.serial, label: "latest"}
		}
		k = 45
	}
	if k < 80 && len(s.handles) > 0 {
		lo := 0
		if n := len(s.handles); n > 32 && rapid.Bool().Draw(t, label+"Recent") {
			lo = n - 32
		}
		h := s.handles[rapid.IntRange(lo, len(s.handles)-1).Draw(t, label+"Any")]
		h.label = "earlier"
		return h
	}
	switch {
	case k < 85:
		return hRef{kind: hEmpty, label: "empty"}
	case k < 95 || len(s.handles) == 0:
		rh := rapid.SampledFrom([]string{
			"INVALID", "AQEB", "not a handle", s.foreign, s.foreign, strings.Repeat("A", len(s.foreign)),
			"AQEB" + strings.Repeat("A", len(s.foreign)-4),
		}).Draw(t, label+"Garbage")
		return hRef{kind: hInvalid, rh: rh, label: "invalid"}
	default:
		h := s.handles[rapid.IntRange(0, len(s.handles)-1).Draw(t, label+"Corrupt")]
		// Change any one character: a handle has one spelling (no unused
		// bits in the last character) and a keyed tag over its fields.
		i := rapid.IntRange(0, len(h.rh)-1).Draw(t, label+"At")
		c := byte('A')
		if h.rh[i] == 'A' {
			c = 'B'
		}
		return hRef{kind: hInvalid, rh: h.rh[:i] + string(c) + h.rh[i+1:], label: "corrupted"}
	}
}

func (s *modelMachine) drawCMVTimeout(t *rapid.T, h hRef, label string) time.Duration {
	switch k := rapid.IntRange(0, 9).Draw(t, label+"Kind"); k {
	case 0, 1:
		return 0
	case 2, 3:
		return time.Duration(rapid.IntRange(1, 120).Draw(t, label+"Secs")) * time.Second
	case 4:
		return time.Duration(rapid.IntRange(0, 43200).Draw(t, label+"Secs")) * time.Second
	case 5, 6:
		// Right at the 12-hour budget of the message's current receive.
		delta := rapid.IntRange(-1, 1).Draw(t, label+"Delta")
		if h.kind != hReal || h.msg.state != mInflight {
			return time.Duration(43200+delta) * time.Second
		}
		left := (twelveHours - time.Duration(s.m.now-h.msg.receivedAt)) / time.Second
		return (left + time.Duration(delta)) * time.Second
	case 7:
		return 43200 * time.Second
	case 8:
		return rapid.SampledFrom([]time.Duration{
			43201 * time.Second, -time.Second, 1500 * time.Millisecond, twelveHours + time.Nanosecond,
		}).Draw(t, label+"Bad")
	default:
		return time.Duration(rapid.IntRange(1, 10).Draw(t, label+"Secs")) * time.Second
	}
}

// drawBatchIDs returns n entry Ids, now and then with an invalid or a
// repeated one.
func drawBatchIDs(t *rapid.T, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "e" + strconv.Itoa(i)
	}
	if n == 0 {
		return ids
	}
	switch rapid.IntRange(0, 19).Draw(t, "idTrouble") {
	case 0:
		i := rapid.IntRange(0, n-1).Draw(t, "badIdAt")
		ids[i] = rapid.SampledFrom([]string{"", "bad id", "a.b", "ä", strings.Repeat("x", 81)}).Draw(t, "badId")
	case 1:
		if n > 1 {
			i := rapid.IntRange(1, n-1).Draw(t, "dupIdAt")
			ids[i] = ids[rapid.IntRange(0, i-1).Draw(t, "dupOf")]
		}
	case 2:
		ids[rapid.IntRange(0, n-1).Draw(t, "longIdAt")] = strings.Repeat("Z", 80)
	case 3:
		ids[rapid.IntRange(0, n-1).Draw(t, "oddIdAt")] = "A-b_9"
	}
	return ids
}

func (s *modelMachine) drawBatchSize(t *rapid.T) int {
	switch k := rapid.IntRange(0, 39).Draw(t, "batchSizeKind"); {
	case k == 0:
		return 0
	case k == 1:
		return 11
	case s.bulk && k > 20:
		return 10
	default:
		return rapid.IntRange(1, 10).Draw(t, "batchSize")
	}
}

func validEntryID(id string) bool {
	if len(id) < 1 || len(id) > 80 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// batchCode is the request-level verdict on a batch's entry Ids.
func batchCode(ids []string) sqsq.Code {
	if len(ids) == 0 {
		return sqsq.CodeEmptyBatchRequest
	}
	if len(ids) > 10 {
		return sqsq.CodeTooManyEntriesInBatchRequest
	}
	for _, id := range ids {
		if !validEntryID(id) {
			return sqsq.CodeInvalidBatchEntryID
		}
	}
	for i := range ids {
		for j := 0; j < i; j++ {
			if ids[i] == ids[j] {
				return sqsq.CodeBatchEntryIdsNotDistinct
			}
		}
	}
	return ""
}

type entryResult struct {
	id, messageID string
	code          sqsq.Code
}

func compareEntries(t *rapid.T, what fmt.Stringer, part string, got, want []entryResult) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s %s: got %d entries %v, model says %d %v", what, part, len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s %s: entry %d is %+v, model says %+v (all: got %v, want %v)", what, part, i, got[i], want[i], got, want)
		}
	}
}

// ---- actions

func (s *modelMachine) Send(t *rapid.T) {
	r := s.drawSend(t, "")
	res, err := s.q.Send(s.ctx, sqsq.SendInput{MessageBody: r.body, DelaySeconds: r.delay, MessageGroupId: r.group})
	s.m.tick()
	id, code := s.m.send(r)
	what := describe("Send(%q, delay %v)", r.body, r.delay)
	wantCode(t, what, err, code)
	if code != "" {
		return
	}
	if res.MessageId != id {
		t.Fatalf("%s: MessageId %q, model says %q", what, res.MessageId, id)
	}
	if got, want := res.MD5OfMessageBody(), md5hex(r.body); got != want {
		t.Fatalf("%s: MD5OfMessageBody %s, want %s", what, got, want)
	}
}

func (s *modelMachine) SendBatch(t *rapid.T) {
	if rapid.IntRange(0, 49).Draw(t, "huge") == 25 {
		// Ten entries of about 100 KiB: in total right at, or just past,
		// the 1,048,576 bytes a batch may carry.
		per := rapid.SampledFrom([]int{104857, 104858}).Draw(t, "entryBytes")
		ids := make([]string, 10)
		reqs := make([]sendReq, 10)
		for i := range reqs {
			ids[i] = "h" + strconv.Itoa(i)
			reqs[i] = sendReq{body: strings.Repeat(strconv.Itoa(i), per)}
		}
		s.sendBatch(t, ids, reqs)
		return
	}
	ids := drawBatchIDs(t, s.drawBatchSize(t))
	reqs := make([]sendReq, len(ids))
	for i := range reqs {
		reqs[i] = s.drawSend(t, "entry")
	}
	s.sendBatch(t, ids, reqs)
}

// Flood sends up to 200 valid messages in full batches.
func (s *modelMachine) Flood(t *rapid.T) {
	calls := rapid.IntRange(1, 20).Draw(t, "calls")
	var delay sqsq.Optional[time.Duration]
	if rapid.IntRange(0, 3).Draw(t, "delayed") == 0 {
		delay = sqsq.Some(time.Duration(rapid.IntRange(0, 900).Draw(t, "delaySecs")) * time.Second)
	}
	ids := make([]string, 10)
	reqs := make([]sendReq, 10)
	for c := 0; c < calls; c++ {
		for i := range reqs {
			ids[i] = "f" + strconv.Itoa(i)
			reqs[i] = sendReq{body: fmt.Sprintf("flood-%d-%d", c, i), delay: delay}
		}
		s.sendBatch(t, ids, reqs)
	}
}

func (s *modelMachine) sendBatch(t *rapid.T, ids []string, reqs []sendReq) {
	entries := make([]sqsq.SendBatchEntry, len(ids))
	for i, r := range reqs {
		entries[i] = sqsq.SendBatchEntry{Id: ids[i], SendInput: sqsq.SendInput{
			MessageBody: r.body, DelaySeconds: r.delay, MessageGroupId: r.group,
		}}
	}
	res, err := s.q.SendBatch(s.ctx, entries)
	s.m.tick()
	what := describe("SendBatch(ids %q)", ids)
	total := 0
	for _, r := range reqs {
		total += len(r.body)
	}
	code := batchCode(ids)
	if code == "" && total > 1048576 {
		code = sqsq.CodeBatchRequestTooLong
	}
	if code != "" {
		wantCode(t, what, err, code)
		return
	}
	wantCode(t, what, err, "")
	var wantOK, wantFailed, gotOK, gotFailed []entryResult
	bodies := map[string]string{}
	for i, r := range reqs {
		bodies[ids[i]] = r.body
		id, code := s.m.send(r)
		if code != "" {
			wantFailed = append(wantFailed, entryResult{id: ids[i], code: code})
		} else {
			wantOK = append(wantOK, entryResult{id: ids[i], messageID: id})
		}
	}
	for _, e := range res.Successful {
		gotOK = append(gotOK, entryResult{id: e.Id, messageID: e.MessageId})
		if want := md5hex(bodies[e.Id]); e.MD5OfMessageBody() != want {
			t.Fatalf("%s: MD5OfMessageBody of entry %s is %s, want %s", what, e.Id, e.MD5OfMessageBody(), want)
		}
	}
	for _, e := range res.Failed {
		gotFailed = append(gotFailed, entryResult{id: e.Id, code: e.Err.Code})
	}
	compareEntries(t, what, "Successful", gotOK, wantOK)
	compareEntries(t, what, "Failed", gotFailed, wantFailed)
}

var sysAttrChoices = [][]string{
	nil,
	{sqsq.SysAll},
	{sqsq.SysApproximateReceiveCount, sqsq.SysSentTimestamp, sqsq.SysApproximateFirstReceiveTimestamp},
	{sqsq.SysApproximateReceiveCount},
	{sqsq.SysApproximateFirstReceiveTimestamp, sqsq.SysMessageGroupId},
	{sqsq.SysSequenceNumber},
}

// wantAttributes builds the system attributes the model expects.
func wantAttributes(x *mMsg, names []string) map[string]string {
	want := func(name string) bool {
		for _, n := range names {
			if n == name || n == sqsq.SysAll {
				return true
			}
		}
		return false
	}
	out := map[string]string{}
	if want(sqsq.SysSenderId) {
		out[sqsq.SysSenderId] = "000000000000"
	}
	if want(sqsq.SysSentTimestamp) {
		out[sqsq.SysSentTimestamp] = strconv.FormatInt(x.sentMs, 10)
	}
	if want(sqsq.SysApproximateReceiveCount) {
		out[sqsq.SysApproximateReceiveCount] = strconv.Itoa(x.receives)
	}
	if want(sqsq.SysApproximateFirstReceiveTimestamp) {
		out[sqsq.SysApproximateFirstReceiveTimestamp] = strconv.FormatInt(x.firstRecvMs, 10)
	}
	if want(sqsq.SysMessageGroupId) && x.group != "" {
		out[sqsq.SysMessageGroupId] = x.group
	}
	return out
}

func drawVisibility(t *rapid.T) sqsq.Optional[time.Duration] {
	switch k := rapid.IntRange(0, 19).Draw(t, "visKind"); {
	case k < 6:
		return sqsq.Optional[time.Duration]{}
	case k < 9:
		return sqsq.Some(time.Duration(0))
	case k < 12:
		return sqsq.Some(time.Duration(rapid.SampledFrom([]int{1, 2, 30, 60}).Draw(t, "visSecs")) * time.Second)
	case k < 19:
		return sqsq.Some(time.Duration(rapid.IntRange(0, 43200).Draw(t, "visSecs")) * time.Second)
	default:
		return sqsq.Some(rapid.SampledFrom([]time.Duration{
			43201 * time.Second, -time.Second, 500 * time.Millisecond,
		}).Draw(t, "visBad"))
	}
}

func (s *modelMachine) Receive(t *rapid.T) {
	max := rapid.IntRange(1, 10).Draw(t, "max")
	if k := rapid.IntRange(0, 29).Draw(t, "maxOdd"); k == 0 {
		max = rapid.SampledFrom([]int{0, -1, 11}).Draw(t, "maxBad")
	}
	vis := drawVisibility(t)
	names := rapid.SampledFrom(sysAttrChoices).Draw(t, "attrs")
	// A short poll: WaitTimeSeconds 0, or unset while the queue's
	// ReceiveMessageWaitTimeSeconds is 0.
	wait := sqsq.Some(time.Duration(0))
	if s.m.wait == 0 && rapid.Bool().Draw(t, "waitUnset") {
		wait = sqsq.Optional[time.Duration]{}
	}
	s.receive(t, max, vis, wait, names)
}

// Churn receives and deletes what it got, again and again.
func (s *modelMachine) Churn(t *rapid.T) {
	rounds := rapid.IntRange(1, 20).Draw(t, "rounds")
	vis := drawVisibility(t)
	for r := 0; r < rounds; r++ {
		got := s.receive(t, 10, vis, sqsq.Some(time.Duration(0)), nil)
		if len(got) == 0 {
			continue
		}
		ids := make([]string, len(got))
		hs := make([]hRef, len(got))
		for i, x := range got {
			ids[i] = "c" + strconv.Itoa(i)
			hs[i] = hRef{kind: hReal, rh: x.latestRH, msg: x, serial: x.serial, label: "latest"}
		}
		s.deleteBatch(t, ids, hs)
	}
}

// receive runs one short-poll receive on both sides, compares the results
// and records the handles. It returns the model's messages.
func (s *modelMachine) receive(t *rapid.T, max int, vis, wait sqsq.Optional[time.Duration], names []string) []*mMsg {
	got, err := s.q.Receive(s.ctx, sqsq.ReceiveInput{
		MaxNumberOfMessages:         max,
		VisibilityTimeout:           vis,
		WaitTimeSeconds:             wait,
		MessageSystemAttributeNames: names,
	})
	s.m.tick()
	want, code := s.m.receive(max, vis)
	what := describe("Receive(max %d, vis %v, wait %v, attrs %q)", max, vis, wait, names)
	wantCode(t, what, err, code)
	if code != "" {
		return nil
	}
	if len(got) != len(want) {
		gotIDs := make([]string, len(got))
		for i, g := range got {
			gotIDs[i] = g.MessageId
		}
		wantIDs := make([]string, len(want))
		for i, w := range want {
			wantIDs[i] = w.id
		}
		t.Fatalf("%s: got %d messages %q, model says %d %q", what, len(got), gotIDs, len(want), wantIDs)
	}
	for i, g := range got {
		x := want[i]
		if g.MessageId != x.id || g.Body != x.body {
			t.Fatalf("%s: message %d is %s %q, model says %s %q", what, i, g.MessageId, g.Body, x.id, x.body)
		}
		if g.MD5OfBody() != md5hex(x.body) {
			t.Fatalf("%s: MD5OfBody of %s is %s, want %s", what, x.id, g.MD5OfBody(), md5hex(x.body))
		}
		if wa := wantAttributes(x, names); !maps.Equal(g.Attributes, wa) {
			t.Fatalf("%s: attributes of %s are %v, model says %v", what, x.id, g.Attributes, wa)
		}
		if g.ReceiptHandle == "" || len(g.ReceiptHandle) > 1024 || s.seen[g.ReceiptHandle] {
			t.Fatalf("%s: receipt handle %q of %s is empty, too long, or was issued before", what, g.ReceiptHandle, x.id)
		}
		s.seen[g.ReceiptHandle] = true
		x.latestRH = g.ReceiptHandle
		s.handles = append(s.handles, hRef{kind: hReal, rh: g.ReceiptHandle, msg: x, serial: x.serial})
	}
	return want
}

func (s *modelMachine) Delete(t *rapid.T) {
	h := s.drawHandle(t, "handle")
	err := s.q.Delete(s.ctx, h.rh)
	s.m.tick()
	wantCode(t, describe("Delete(%v)", h), err, s.m.delete(h))
}

func (s *modelMachine) DeleteBatch(t *rapid.T) {
	ids := drawBatchIDs(t, s.drawBatchSize(t))
	hs := make([]hRef, len(ids))
	for i := range hs {
		hs[i] = s.drawHandle(t, "handle")
	}
	s.deleteBatch(t, ids, hs)
}

func (s *modelMachine) deleteBatch(t *rapid.T, ids []string, hs []hRef) {
	entries := make([]sqsq.DeleteBatchEntry, len(ids))
	for i, h := range hs {
		entries[i] = sqsq.DeleteBatchEntry{Id: ids[i], ReceiptHandle: h.rh}
	}
	what := describe("DeleteBatch(ids %q, handles %v)", ids, hs)
	res, err := s.q.DeleteBatch(s.ctx, entries)
	s.m.tick()
	if code := batchCode(ids); code != "" {
		wantCode(t, what, err, code)
		return
	}
	wantCode(t, what, err, "")
	var want []sqsq.Code
	for _, h := range hs {
		want = append(want, s.m.delete(h))
	}
	compareBatch(t, what, ids, want, res)
}

// compareBatch checks a BatchResult against per-entry model codes.
func compareBatch(t *rapid.T, what fmt.Stringer, ids []string, want []sqsq.Code, res sqsq.BatchResult) {
	t.Helper()
	var wantOK, gotOK, wantFailed, gotFailed []entryResult
	for i, c := range want {
		if c == "" {
			wantOK = append(wantOK, entryResult{id: ids[i]})
		} else {
			wantFailed = append(wantFailed, entryResult{id: ids[i], code: c})
		}
	}
	for _, id := range res.Successful {
		gotOK = append(gotOK, entryResult{id: id})
	}
	for _, e := range res.Failed {
		gotFailed = append(gotFailed, entryResult{id: e.Id, code: e.Err.Code})
	}
	compareEntries(t, what, "Successful", gotOK, wantOK)
	compareEntries(t, what, "Failed", gotFailed, wantFailed)
}

func (s *modelMachine) ChangeVisibility(t *rapid.T) {
	h := s.drawHandle(t, "handle")
	timeout := s.drawCMVTimeout(t, h, "timeout")
	what := describe("ChangeVisibility(%v, %v)", h, timeout)
	err := s.q.ChangeVisibility(s.ctx, h.rh, timeout)
	s.m.tick()
	wantCode(t, what, err, s.m.changeVisibility(h, timeout))
}

func (s *modelMachine) ChangeVisibilityBatch(t *rapid.T) {
	ids := drawBatchIDs(t, s.drawBatchSize(t))
	entries := make([]sqsq.ChangeVisibilityBatchEntry, len(ids))
	hs := make([]hRef, len(ids))
	for i := range entries {
		hs[i] = s.drawHandle(t, "handle")
		entries[i] = sqsq.ChangeVisibilityBatchEntry{
			Id: ids[i], ReceiptHandle: hs[i].rh, VisibilityTimeout: s.drawCMVTimeout(t, hs[i], "timeout"),
		}
	}
	what := describe("ChangeVisibilityBatch(%+v, handles %v)", entries, hs)
	res, err := s.q.ChangeVisibilityBatch(s.ctx, entries)
	s.m.tick()
	if code := batchCode(ids); code != "" {
		wantCode(t, what, err, code)
		return
	}
	wantCode(t, what, err, "")
	var want []sqsq.Code
	for i, h := range hs {
		want = append(want, s.m.changeVisibilityEntry(h, entries[i].VisibilityTimeout))
	}
	compareBatch(t, what, ids, want, res)
}

func (s *modelMachine) Purge(t *rapid.T) {
	err := s.q.Purge(s.ctx)
	s.m.tick()
	wantCode(t, describe("Purge"), err, s.m.purge())
}

func drawAttr(t *rapid.T, label string, valid []int, invalid []time.Duration) sqsq.Optional[time.Duration] {
	switch k := rapid.IntRange(0, 9).Draw(t, label+"Kind"); {
	case k < 5:
		return sqsq.Optional[time.Duration]{}
	case k < 9:
		return sqsq.Some(time.Duration(rapid.SampledFrom(valid).Draw(t, label+"Secs")) * time.Second)
	default:
		return sqsq.Some(rapid.SampledFrom(invalid).Draw(t, label+"Bad"))
	}
}

func (s *modelMachine) SetAttributes(t *rapid.T) {
	a := attrReq{
		visibility: drawAttr(t, "visibility", []int{0, 1, 5, 30, 60, 600, 43199, 43200},
			[]time.Duration{-time.Second, 43201 * time.Second, 1500 * time.Millisecond}),
		delay: drawAttr(t, "delay", []int{0, 0, 1, 5, 60, 900},
			[]time.Duration{-time.Second, 901 * time.Second, 1500 * time.Millisecond}),
		retention: drawAttr(t, "retention", []int{60, 61, 120, 600, 3600, 86400, 345600, 1209600},
			[]time.Duration{59 * time.Second, 1209601 * time.Second, 0, 90500 * time.Millisecond}),
		wait: drawAttr(t, "wait", []int{0, 1, 20},
			[]time.Duration{21 * time.Second, -time.Second}),
	}
	switch k := rapid.IntRange(0, 9).Draw(t, "maxSizeKind"); {
	case k < 6:
	case k < 9:
		a.maxSize = sqsq.Some(rapid.SampledFrom([]int{1024, 2048, 1048576}).Draw(t, "maxSize"))
	default:
		a.maxSize = sqsq.Some(rapid.SampledFrom([]int{1023, 1048577, 0}).Draw(t, "maxSizeBad"))
	}
	err := s.q.SetAttributes(s.ctx, sqsq.QueueAttributes{
		VisibilityTimeout:             a.visibility,
		DelaySeconds:                  a.delay,
		MessageRetentionPeriod:        a.retention,
		ReceiveMessageWaitTimeSeconds: a.wait,
		MaximumMessageSize:            a.maxSize,
	})
	s.m.tick()
	wantCode(t, describe("SetAttributes(%v)", a), err, s.m.setAttributes(a))
}

func (s *modelMachine) GetAttributes(t *rapid.T) {
	names := []string{
		sqsq.AttrApproximateNumberOfMessages, sqsq.AttrApproximateNumberOfMessagesNotVisible,
		sqsq.AttrApproximateNumberOfMessagesDelayed, sqsq.AttrVisibilityTimeout, sqsq.AttrDelaySeconds,
		sqsq.AttrMessageRetentionPeriod, sqsq.AttrReceiveMessageWaitTimeSeconds, sqsq.AttrMaximumMessageSize,
	}
	got, err := s.q.GetAttributes(s.ctx, names...)
	s.m.tick()
	wantCode(t, describe("GetAttributes"), err, "")
	secs := func(d time.Duration) string { return strconv.FormatInt(int64(d/time.Second), 10) }
	want := map[string]string{
		sqsq.AttrApproximateNumberOfMessages:           strconv.Itoa(s.m.count(mAvailable)),
		sqsq.AttrApproximateNumberOfMessagesNotVisible: strconv.Itoa(s.m.count(mInflight)),
		sqsq.AttrApproximateNumberOfMessagesDelayed:    strconv.Itoa(s.m.count(mDelayed)),
		sqsq.AttrVisibilityTimeout:                     secs(s.m.visibility),
		sqsq.AttrDelaySeconds:                          secs(s.m.delay),
		sqsq.AttrMessageRetentionPeriod:                secs(s.m.retention),
		sqsq.AttrReceiveMessageWaitTimeSeconds:         secs(s.m.wait),
		sqsq.AttrMaximumMessageSize:                    strconv.Itoa(s.m.maxSize),
	}
	if !maps.Equal(got, want) {
		t.Fatalf("GetAttributes: got %v, model says %v", got, want)
	}
}

// ClockAdvance moves the clock: by nothing, a second, a little, about a
// visibility timeout, onto or just next to the next instant something
// changes by itself, or by hours.
func (s *modelMachine) ClockAdvance(t *rapid.T) {
	var d time.Duration
	kinds := 11
	if s.bulk {
		kinds = 6 // up to a minute, or to the next event
		// Once the queue is deep, often expire half of it or all of it:
		// that drains the real queue's indexes past their compaction and
		// shrink thresholds (1,024 entries).
		if len(s.m.msgs) > 1100 && rapid.Bool().Draw(t, "drain") {
			kinds = 12
		}
	}
	switch k := rapid.IntRange(0, kinds).Draw(t, "advanceKind"); k {
	case 0:
	case 1:
		d = time.Second
	case 2:
		d = time.Duration(rapid.IntRange(1, 10).Draw(t, "secs")) * time.Second
	case 3:
		d = rapid.SampledFrom([]time.Duration{
			29 * time.Second, 30 * time.Second, 31 * time.Second,
			30*time.Second - time.Nanosecond, 30*time.Second + time.Nanosecond, 60 * time.Second,
		}).Draw(t, "aroundVisibility")
	case 4, 5, 6:
		ev := s.m.events()
		if len(ev) == 0 {
			d = time.Second
			break
		}
		at := ev[rapid.IntRange(0, min(len(ev), 4)-1).Draw(t, "event")]
		off := rapid.SampledFrom([]time.Duration{
			-time.Second, -time.Nanosecond, 0, 0, time.Nanosecond, time.Second,
		}).Draw(t, "offset")
		d = max(time.Duration(at-s.m.now)+off, 0)
	case 7:
		d = time.Duration(rapid.IntRange(1, 120000).Draw(t, "millis")) * time.Millisecond
	case 8, 9:
		d = time.Duration(rapid.IntRange(60, 6*3600).Draw(t, "secs")) * time.Second
	case 10:
		d = time.Duration(rapid.IntRange(1, 12*3600).Draw(t, "secs")) * time.Second
	case 11:
		d = rapid.SampledFrom([]time.Duration{
			twelveHours - time.Second, twelveHours, twelveHours + time.Second, 24 * time.Hour, 4 * 24 * time.Hour,
		}).Draw(t, "long")
	default:
		r := s.m.retention
		d = rapid.SampledFrom([]time.Duration{r / 2, r - time.Nanosecond, r, r + time.Second}).Draw(t, "retention")
	}
	if d > 0 {
		modelAdvances.Add(1)
		s.clk.Add(d)
	}
	s.m.now += int64(d)
	if got := s.clk.Now().UnixNano(); got != s.m.now {
		t.Fatalf("ClockAdvance(%v): mock clock at %d, model at %d", d, got, s.m.now)
	}
}

// Check runs after every action: the real counts and ages equal the model's,
// and every stored message is in exactly one state.
func (s *modelMachine) Check(t *rapid.T) {
	st, err := s.q.Stats()
	wantCode(t, describe("Stats"), err, "")
	s.m.tick()
	checkStats(t, "Stats", st, s.m)
	if got, want := modelCounters(st.Counters), modelCounters(s.m.c); got != want {
		t.Fatalf("Stats: counters\n got %+v\nwant %+v", got, want)
	}
}

// checkStats compares a queue's real counts and ages, st, with the model's
// (ticked to now), and checks that every stored model message is in exactly
// one state. what names the queue in failures. (No t.Helper: it walks the
// stack, and this runs after every step.)
func checkStats(t *rapid.T, what string, st sqsq.Stats, m *model) {
	var visible, inflight, delayed int
	var oldestAvail, oldest int64 = -1, -1
	for _, x := range m.msgs {
		switch x.state {
		case mAvailable:
			visible++
			if oldestAvail < 0 || x.availSince < oldestAvail {
				oldestAvail = x.availSince
			}
		case mInflight:
			inflight++
		case mDelayed:
			delayed++
		default:
			t.Fatalf("model: stored message %s is %v", x.id, x.state)
		}
		if oldest < 0 || x.enqueuedAt < oldest {
			oldest = x.enqueuedAt
		}
	}
	if visible+inflight+delayed != len(m.msgs) {
		t.Fatalf("model: %d+%d+%d messages by state, %d stored", visible, inflight, delayed, len(m.msgs))
	}
	if st.Visible != visible || st.InFlight != inflight || st.Delayed != delayed {
		t.Fatalf("%s: visible/in flight/delayed %d/%d/%d, model says %d/%d/%d", what,
			st.Visible, st.InFlight, st.Delayed, visible, inflight, delayed)
	}
	if st.Visible+st.InFlight+st.Delayed != len(m.msgs) {
		t.Fatalf("%s: %d messages by state, model stores %d", what, st.Visible+st.InFlight+st.Delayed, len(m.msgs))
	}
	var wantAvailAge, wantAge time.Duration
	if oldestAvail >= 0 {
		wantAvailAge = time.Duration(m.now - oldestAvail)
	}
	if oldest >= 0 {
		wantAge = time.Duration(m.now - oldest)
	}
	if st.OldestAvailableAge != wantAvailAge || st.OldestAge != wantAge {
		t.Fatalf("%s: OldestAvailableAge %v, OldestAge %v; model says %v, %v", what,
			st.OldestAvailableAge, st.OldestAge, wantAvailAge, wantAge)
	}
}

// counterSet is the part of [sqsq.Counters] the model keeps. (The
// dead-letter and redrive counters are compared by model_redrive_test.go.)
type counterSet struct {
	Sent, Received, Deleted, DeleteRequests, ReceiveCalls, EmptyReceives int64
	LongPolls, LongPollWakeups, Redelivered, VisibilityExpirations       int64
	VisibilityChanges, StaleHandleDeletes, Expired, Purged               int64
	DuplicatesSuppressed, ExpiredHandleRejections                        int64 // FIFO: stay 0
}

func modelCounters(c sqsq.Counters) counterSet {
	return counterSet{
		c.Sent, c.Received, c.Deleted, c.DeleteRequests, c.ReceiveCalls, c.EmptyReceives,
		c.LongPolls, c.LongPollWakeups, c.Redelivered, c.VisibilityExpirations,
		c.VisibilityChanges, c.StaleHandleDeletes, c.Expired, c.Purged,
		c.DuplicatesSuppressed, c.ExpiredHandleRejections,
	}
}

// ---------------------------------------------------------------------------
// Driving it.

// modelProfile shapes a run: how often each action is drawn, how long the
// sequences are and which retention periods the queue starts with.
type modelProfile struct {
	name string
	// rounds is t.Repeat calls per check; each runs about -rapid.steps
	// actions. The quick suite keeps every check (each draws a new queue
	// configuration) and shortens the sequences; SQSQ_LONG=1 gives the
	// full length.
	rounds int
	// weights registers each action under that many keys. Roughly only:
	// rapid draws keys in sorted order with a bias to the first ones (so
	// ChangeVisibility and Churn come up more often than their weight says).
	weights    map[string]int
	retentions []int
	// bulk favours full batches and small clock steps, so thousands of
	// messages pile up and expire together.
	bulk bool
}

var modelProfiles = []modelProfile{
	{
		// Short sequences of everything: what rapid shrinks best.
		name: "mixed", rounds: 1,
		weights: map[string]int{
			"Send": 3, "SendBatch": 2, "Receive": 4, "Delete": 1, "DeleteBatch": 2,
			"ChangeVisibility": 1, "ChangeVisibilityBatch": 1, "Purge": 1,
			"SetAttributes": 1, "GetAttributes": 1, "ClockAdvance": 1,
		},
		retentions: []int{60, 300, 3600, 345600, 1209600},
	},
	{
		// Long sequences of everything, through many expiries and purges.
		name: "long", rounds: testsize.Scale(5, 25),
		weights: map[string]int{
			"Send": 3, "SendBatch": 2, "Receive": 4, "Delete": 1, "DeleteBatch": 2,
			"ChangeVisibility": 1, "ChangeVisibilityBatch": 1, "Purge": 1,
			"SetAttributes": 1, "GetAttributes": 1, "ClockAdvance": 1, "Churn": 1,
		},
		retentions: []int{60, 300, 3600, 345600, 1209600},
	},
	{
		// Deeper queues over days: no purges, long retention, many batches.
		name: "deep", rounds: testsize.Scale(2, 6),
		weights: map[string]int{
			"Send": 1, "SendBatch": 4, "Receive": 4, "Delete": 1, "DeleteBatch": 3,
			"ChangeVisibility": 1, "ChangeVisibilityBatch": 2, "GetAttributes": 1, "ClockAdvance": 1,
			"Flood": 1, "Churn": 1,
		},
		retentions: []int{345600, 1209600},
	},
	{
		// Thousands of messages sent within minutes: the real queue's
		// indexes grow, pile up stale entries, compact and shrink.
		name: "bulk", rounds: testsize.Scale(3, 8), bulk: true,
		weights: map[string]int{
			"Send": 1, "SendBatch": 3, "Receive": 2, "Delete": 1, "DeleteBatch": 1,
			"ChangeVisibility": 1, "ChangeVisibilityBatch": 1, "GetAttributes": 1, "ClockAdvance": 1,
			"Flood": 1, "Churn": 1,
		},
		retentions: []int{600, 3600},
	},
}

// modelSteps counts the actions run by TestModel, over all checks.
var modelSteps atomic.Int64

// modelAdvances counts the clock advances among them (each sleeps 1 ms of
// wall time inside clock.Mock.Add).
var modelAdvances atomic.Int64

func (p modelProfile) run(t *rapid.T) {
	limit := rapid.IntRange(3, 50).Draw(t, "inFlightLimit")
	// The lenient defaults mostly; now and then the stricter options.
	staleRemoves := rapid.IntRange(0, 4).Draw(t, "staleDeleteRemoves") == 4
	strict := rapid.IntRange(0, 4).Draw(t, "strictNotInflight") == 4
	clk := clock.NewMock()
	n := 0
	b := sqsq.NewBroker(
		sqsq.WithClock(clk),
		sqsq.WithInFlightLimit(limit),
		sqsq.WithIDFunc(func() string { n++; return fmt.Sprintf(idFormat, n) }),
		sqsq.WithStaleDeleteRemoves(staleRemoves),
		sqsq.WithStrictNotInflight(strict),
	)
	defer b.Close()
	ctx := context.Background()

	// A live handle of another queue: it must be invalid for ours.
	other, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "other"})
	if err != nil {
		t.Fatalf("CreateQueue(other): %v", err)
	}
	if _, err := other.Send(ctx, sqsq.SendInput{MessageBody: "x"}); err != nil {
		t.Fatalf("Send(other): %v", err)
	}
	om, err := other.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(time.Duration(0))})
	if err != nil || len(om) != 1 {
		t.Fatalf("Receive(other): %v, %d messages", err, len(om))
	}

	m := &model{
		now:     clk.Now().UnixNano(),
		lastID:  n,
		limit:   limit,
		maxSize: 1048576,

		staleDeleteRemoves: staleRemoves,
		strictNotInflight:  strict,
		visibility:         time.Duration(rapid.SampledFrom([]int{0, 1, 30, 30, 60, 43200}).Draw(t, "visibility")) * time.Second,
		delay:              time.Duration(rapid.SampledFrom([]int{0, 0, 0, 1, 10, 900}).Draw(t, "delay")) * time.Second,
		retention:          time.Duration(rapid.SampledFrom(p.retentions).Draw(t, "retention")) * time.Second,
	}
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "model", Attributes: sqsq.QueueAttributes{
		VisibilityTimeout:      sqsq.Some(m.visibility),
		DelaySeconds:           sqsq.Some(m.delay),
		MessageRetentionPeriod: sqsq.Some(m.retention),
	}})
	if err != nil {
		t.Fatalf("CreateQueue(model): %v", err)
	}
	s := &modelMachine{
		ctx: ctx, clk: clk, q: q, m: m, bulk: p.bulk,
		seen: map[string]bool{}, foreign: om[0].ReceiptHandle,
	}
	defer func() { modelSteps.Add(s.steps) }()

	byName := map[string]func(*rapid.T){
		"Send": s.Send, "SendBatch": s.SendBatch, "Receive": s.Receive,
		"Delete": s.Delete, "DeleteBatch": s.DeleteBatch,
		"ChangeVisibility": s.ChangeVisibility, "ChangeVisibilityBatch": s.ChangeVisibilityBatch,
		"Purge": s.Purge, "SetAttributes": s.SetAttributes, "GetAttributes": s.GetAttributes,
		"ClockAdvance": s.ClockAdvance, "Flood": s.Flood, "Churn": s.Churn,
	}
	actions := map[string]func(*rapid.T){"": s.Check}
	for name, w := range p.weights {
		f := byName[name]
		if f == nil {
			panic("no action " + name)
		}
		counted := func(t *rapid.T) { f(t); s.steps++ }
		for i := 0; i < w; i++ {
			key := name
			if i > 0 {
				key += "#" + strconv.Itoa(i+1)
			}
			actions[key] = counted
		}
	}
	for i := 0; i < p.rounds; i++ {
		t.Repeat(actions)
	}
}

// TestModel compares a real standard queue with the model over random
// operation sequences. Scale it with -rapid.checks and -rapid.steps; -short
// cuts both (rapid divides checks by 5 and steps by 2); SQSQ_LONG=1 runs
// the long sequences at full length (see modelProfile.rounds).
func TestModel(t *testing.T) {
	t.Parallel()
	start, advances := modelSteps.Load(), modelAdvances.Load()
	for _, p := range modelProfiles {
		before := modelSteps.Load()
		t.Run(p.name, rapid.MakeCheck(p.run))
		t.Logf("%s: %d steps", p.name, modelSteps.Load()-before)
	}
	t.Logf("model steps in total: %d (%d clock advances)", modelSteps.Load()-start, modelAdvances.Load()-advances)
}
