package sqsq_test

// Tests of Queue.Peek: what it reports in every state, its filters, its
// cursor, its errors, and that it changes nothing (see also
// peek_property_test.go, which compares a peeked queue with a twin that was
// not peeked).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

// peekAll follows the cursors of Peek with in from in.Cursor to the end and
// returns every message, failing the test on error.
func peekAll(t *testing.T, q *sqsq.Queue, in sqsq.PeekInput) []sqsq.PeekedMessage {
	t.Helper()
	var all []sqsq.PeekedMessage
	for {
		out, err := q.Peek(context.Background(), in)
		if err != nil {
			t.Fatalf("Peek(%+v): %v", in, err)
		}
		all = append(all, out.Messages...)
		if out.NextCursor == "" {
			return all
		}
		in.Cursor = out.NextCursor
	}
}

// peekLine describes p on one line, its times relative to epoch: the body,
// the state, Until, the receive count and the first receive.
func peekLine(p sqsq.PeekedMessage) string {
	s := p.Body + " " + string(p.State)
	if !p.Until.IsZero() {
		s += " until=" + p.Until.Sub(epoch).String()
	}
	s += " rc=" + strconv.Itoa(p.ReceiveCount)
	if !p.FirstReceivedAt.IsZero() {
		s += " first=" + p.FirstReceivedAt.Sub(epoch.Truncate(time.Millisecond)).String()
	}
	return s
}

func peekLines(ps []sqsq.PeekedMessage) []string {
	var out []string
	for _, p := range ps {
		out = append(out, peekLine(p))
	}
	return out
}

func peekBodies(ps []sqsq.PeekedMessage) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Body)
	}
	return out
}

// wantPeek fails unless peeking all of q gives want, line by line (see
// peekLine).
func wantPeek(t *testing.T, q *sqsq.Queue, want []string, reason string) {
	t.Helper()
	if d := diff(want, peekLines(peekAll(t, q, sqsq.PeekInput{}))); d != "" {
		t.Errorf("Peek:\n%s\nreason: %s", d, reason)
	}
}

// peekSnapshot is everything Peek must leave as it was: Stats (counters
// included), every attribute and the parked receivers. The clock does not
// move between two snapshots.
type peekSnapshot struct {
	Stats  sqsq.Stats
	Attrs  map[string]string
	Parked int
}

func (f *fixture) peekSnap(t *testing.T, q *sqsq.Queue) peekSnapshot {
	t.Helper()
	return peekSnapshot{Stats: stats(t, q), Attrs: f.allAttrs(t, q), Parked: q.ParkedReceivers()}
}

func TestPeekStandardStates(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "a")
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "b", DelaySeconds: sqsq.Some(60 * time.Second)})
	f.send(t, f.q, "c")
	f.clk.Add(5 * time.Second)
	if got := bodies(f.receive(t, f.q, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(30 * time.Second)})); diff([]string{"a"}, got) != "" {
		t.Fatalf("received %v, want [a]", got)
	}
	wantPeek(t, f.q, []string{
		"a inflight until=35s rc=1 first=5s",
		"b delayed until=1m0s rc=0",
		"c available rc=0",
	}, "in flight and delayed messages report when they become visible; the order is the send order")

	f.clk.Add(60 * time.Second)
	wantPeek(t, f.q, []string{
		"a available rc=1 first=5s",
		"b available rc=0",
		"c available rc=0",
	}, "Peek sees the queue as of the clock's now: the timeout and the delay ended")
}

func TestPeekFields(t *testing.T) {
	t.Parallel()
	f := setup(t)
	attrs := map[string]sqsq.MessageAttribute{
		"color": {DataType: "String", StringValue: "blue"},
		"blob":  {DataType: "Binary", BinaryValue: []byte{1, 2, 3}},
	}
	sent := f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "hello", MessageAttributes: attrs, MessageGroupId: "tenant-1"})
	got := peekAll(t, f.q, sqsq.PeekInput{})
	want := []sqsq.PeekedMessage{{
		MessageId:         sent.MessageId,
		Body:              "hello",
		BodySize:          5,
		MessageAttributes: attrs,
		State:             sqsq.StateAvailable,
		SentAt:            epoch.Truncate(time.Millisecond),
		GroupId:           "tenant-1",
	}}
	if d := diff(want, got); d != "" {
		t.Fatalf("Peek:\n%s", d)
	}
	got[0].MessageAttributes["blob"].BinaryValue[0] = 9
	got[0].MessageAttributes["color"] = sqsq.MessageAttribute{DataType: "String", StringValue: "red"}
	m := f.receiveOne(t, f.q, sqsq.ReceiveInput{MessageAttributeNames: []string{"All"}})
	if d := diff(attrs, m.MessageAttributes); d != "" {
		t.Errorf("changing what Peek returned changed the stored message:\n%s", d)
	}
}

func TestPeekFIFOStates(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{})
	s1 := f.fifoSend(t, "g1", "m1")
	f.fifoSend(t, "g1", "m2")
	f.fifoSend(t, "g1", "m3")
	f.fifoSend(t, "g2", "n1")
	f.fifoRecv(t, 1, 30*time.Second)
	wantPeek(t, f.q, []string{
		"m1 inflight until=30s rc=1 first=0s",
		"m2 held rc=0",
		"m3 held rc=0",
		"n1 available rc=0",
	}, "the messages after a group's message in flight are held")

	got := peekAll(t, f.q, sqsq.PeekInput{Limit: 1})[0]
	if got.GroupId != "g1" || got.DeduplicationId != "m1" || got.SequenceNumber != s1.SequenceNumber || got.MessageId != s1.MessageId {
		t.Errorf("FIFO fields: group %q dedup %q seq %q id %q, want g1 m1 %s %s",
			got.GroupId, got.DeduplicationId, got.SequenceNumber, got.MessageId, s1.SequenceNumber, s1.MessageId)
	}
	if got := bodies(f.fifoRecv(t, 10, 30*time.Second)); diff([]string{"n1"}, got) != "" {
		t.Errorf("a receive returned %v, want [n1]: held messages are not receivable, available ones are", got)
	}
}

// An extended message blocks what follows it even when the earlier ones
// are visible again (semantics §6.4): they are available, the rest held.
func TestPeekFIFOHeldBehindExtendedMessage(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{})
	for _, b := range []string{"x1", "x2", "x3"} {
		f.fifoSend(t, "g", b)
	}
	got := f.fifoRecv(t, 2, 30*time.Second)
	if err := f.q.ChangeVisibility(f.ctx, got[1].ReceiptHandle, 300*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := f.q.ChangeVisibility(f.ctx, got[0].ReceiptHandle, 0); err != nil {
		t.Fatal(err)
	}
	wantPeek(t, f.q, []string{
		"x1 available rc=1 first=0s",
		"x2 inflight until=5m0s rc=1 first=0s",
		"x3 held rc=0",
	}, "x1 is visible again ahead of x2; x3 is behind x2")
	if got := bodies(f.fifoRecv(t, 10, 30*time.Second)); diff([]string{"x1"}, got) != "" {
		t.Errorf("a receive returned %v, want [x1]", got)
	}
}

func TestPeekDeadLetterSource(t *testing.T) {
	t.Parallel()
	f := setup(t)
	dlq := f.create(t, "dlq", sqsq.QueueAttributes{})
	src := f.create(t, "src", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
		DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1,
	})})
	sent := f.send(t, src, "poison")
	f.receive(t, src, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Duration(0))})
	if got := f.receive(t, src, sqsq.ReceiveInput{}); len(got) != 0 {
		t.Fatalf("second receive returned %v, want the message moved to the DLQ", bodies(got))
	}
	got := peekAll(t, dlq, sqsq.PeekInput{})
	if len(got) != 1 || got[0].MessageId != sent.MessageId || got[0].DeadLetterSourceArn != src.ARN() || got[0].ReceiveCount != 1 {
		t.Fatalf("DLQ holds %+v, want %s from %s with receive count 1", got, sent.MessageId, src.ARN())
	}
	if got := peekAll(t, src, sqsq.PeekInput{}); len(got) != 0 {
		t.Errorf("source still holds %v", peekLines(got))
	}
}

// A message dead-lettered into a FIFO queue is stored without delay, so it
// can be visible behind a delayed message of its group, which a receive
// waits for: held too.
func TestPeekFIFOHeldBehindDelayedMessage(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{})
	dlq := f.create(t, "dlq.fifo", sqsq.QueueAttributes{FifoQueue: sqsq.Some(true), DelaySeconds: sqsq.Some(60 * time.Second)})
	src := f.create(t, "src.fifo", sqsq.QueueAttributes{FifoQueue: sqsq.Some(true), RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
		DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1,
	})})
	f.sendInput(t, dlq, sqsq.SendInput{MessageBody: "direct", MessageGroupId: "g", MessageDeduplicationId: "d"})
	f.sendInput(t, src, sqsq.SendInput{MessageBody: "dead", MessageGroupId: "g", MessageDeduplicationId: "d"})
	f.receive(t, src, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Duration(0))})
	f.receive(t, src, sqsq.ReceiveInput{})
	wantPeek(t, dlq, []string{
		"direct delayed until=1m0s rc=0",
		"dead held rc=1 first=0s",
	}, "the dead letter waits for the delayed message ahead of it in its group")
	if got := f.receive(t, dlq, sqsq.ReceiveInput{}); len(got) != 0 {
		t.Errorf("a receive returned %v, want nothing: the group's head is delayed", bodies(got))
	}
	f.clk.Add(time.Minute)
	wantPeek(t, dlq, []string{
		"direct available rc=0",
		"dead available rc=1 first=0s",
	}, "the delay ended")
}

func TestPeekBodyPrefix(t *testing.T) {
	t.Parallel()
	const body = "aé日🙂z" // runes of 1, 2, 3, 4 and 1 bytes: 11 bytes
	tests := []struct {
		prefix    int
		want      string
		truncated bool
	}{
		{0, body, false},
		{1, "a", true},
		{2, "a", true}, // é would be cut
		{3, "aé", true},
		{5, "aé", true},
		{6, "aé日", true},
		{9, "aé日", true},
		{10, "aé日🙂", true},
		{11, body, false},
		{100, body, false},
	}
	f := setup(t)
	f.send(t, f.q, body)
	f.send(t, f.q, "日本")
	for _, tt := range tests {
		got := peekAll(t, f.q, sqsq.PeekInput{BodyPrefix: tt.prefix})
		p := got[0]
		if p.Body != tt.want || p.BodyTruncated != tt.truncated || p.BodySize != len(body) {
			t.Errorf("BodyPrefix %d: body %q truncated %v size %d, want %q %v %d",
				tt.prefix, p.Body, p.BodyTruncated, p.BodySize, tt.want, tt.truncated, len(body))
		}
	}
	if p := peekAll(t, f.q, sqsq.PeekInput{BodyPrefix: 2})[1]; p.Body != "" || !p.BodyTruncated || p.BodySize != 6 {
		t.Errorf("a prefix shorter than the first rune: %q %v %d, want \"\" true 6", p.Body, p.BodyTruncated, p.BodySize)
	}
}

func TestPeekFilters(t *testing.T) {
	t.Parallel()
	// The standard queue, in send order: a0..a3 available, d0 d1 delayed,
	// i0 i1 in flight, interleaved; groups x and y on some.
	f := setup(t)
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "i0", MessageGroupId: "x"})
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "a0", MessageGroupId: "x"})
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "d0", MessageGroupId: "y", DelaySeconds: sqsq.Some(time.Minute)})
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "a1", MessageGroupId: "y"})
	f.send(t, f.q, "a2")
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "d1", DelaySeconds: sqsq.Some(time.Minute)})
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "i1", MessageGroupId: "x"})
	f.send(t, f.q, "a3")
	// Receives take the oldest available first: i0 alone, then all the
	// others, of which all but i1 are made visible again.
	f.receive(t, f.q, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(30 * time.Second)})
	got := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(30 * time.Second)})
	if d := diff([]string{"a0", "a1", "a2", "i1", "a3"}, bodies(got)); d != "" {
		t.Fatalf("setup receive: %s", d)
	}
	for _, m := range got {
		if m.Body != "i1" {
			if err := f.q.ChangeVisibility(f.ctx, m.ReceiptHandle, 0); err != nil {
				t.Fatal(err)
			}
		}
	}

	fq := setupFIFO(t, sqsq.QueueAttributes{})
	fq.fifoSend(t, "g1", "g1-1")
	fq.fifoSend(t, "g2", "g2-1")
	fq.fifoSend(t, "g1", "g1-2")
	fq.fifoSend(t, "g2", "g2-2")
	fq.fifoSend(t, "g1", "g1-3")
	fq.fifoRecv(t, 1, 30*time.Second) // g1-1 in flight, g1-2 and g1-3 held

	tests := []struct {
		reason string
		fifo   bool
		in     sqsq.PeekInput
		want   []string
	}{
		{"no filter: every message in send order", false, sqsq.PeekInput{},
			[]string{"i0", "a0", "d0", "a1", "a2", "d1", "i1", "a3"}},
		{"available only", false, sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateAvailable}},
			[]string{"a0", "a1", "a2", "a3"}},
		{"delayed only", false, sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateDelayed}},
			[]string{"d0", "d1"}},
		{"in flight only", false, sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateInFlight}},
			[]string{"i0", "i1"}},
		{"two states", false, sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateDelayed, sqsq.StateInFlight}},
			[]string{"i0", "d0", "d1", "i1"}},
		{"a state repeated counts once", false, sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateDelayed, sqsq.StateDelayed}},
			[]string{"d0", "d1"}},
		{"held: none on a standard queue", false, sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateHeld}},
			nil},
		{"a standard queue's group id filters too", false, sqsq.PeekInput{GroupId: "x"},
			[]string{"i0", "a0", "i1"}},
		{"group and state", false, sqsq.PeekInput{GroupId: "y", States: []sqsq.MessageState{sqsq.StateAvailable}},
			[]string{"a1"}},
		{"a group nobody sent to", false, sqsq.PeekInput{GroupId: "z"}, nil},
		{"FIFO: every message", true, sqsq.PeekInput{},
			[]string{"g1-1", "g2-1", "g1-2", "g2-2", "g1-3"}},
		{"FIFO: one group", true, sqsq.PeekInput{GroupId: "g1"},
			[]string{"g1-1", "g1-2", "g1-3"}},
		{"FIFO: held", true, sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateHeld}},
			[]string{"g1-2", "g1-3"}},
		{"FIFO: available", true, sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateAvailable}},
			[]string{"g2-1", "g2-2"}},
		{"FIFO: a group and a state", true, sqsq.PeekInput{GroupId: "g1", States: []sqsq.MessageState{sqsq.StateInFlight}},
			[]string{"g1-1"}},
		{"FIFO: a group that does not exist", true, sqsq.PeekInput{GroupId: "nope"}, nil},
	}
	for _, tt := range tests {
		q := f.q
		if tt.fifo {
			q = fq.q
		}
		if d := diff(tt.want, peekBodies(peekAll(t, q, tt.in))); d != "" {
			t.Errorf("%+v:\n%s\nreason: %s", tt.in, d, tt.reason)
		}
		// The filters apply before the limit: pages of one give the same.
		in := tt.in
		in.Limit = 1
		var pages []string
		for {
			out, err := q.Peek(f.ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Messages) != 1 && out.NextCursor != "" {
				t.Errorf("%+v: a page of %d messages with a cursor; the filter applies before the limit", in, len(out.Messages))
			}
			pages = append(pages, peekBodies(out.Messages)...)
			if out.NextCursor == "" {
				break
			}
			in.Cursor = out.NextCursor
		}
		if d := diff(tt.want, pages); d != "" {
			t.Errorf("%+v in pages of 1:\n%s\nreason: %s", tt.in, d, tt.reason)
		}
	}
}

// The last page ends with NextCursor "": a full page that happens to end
// the queue says so.
func TestPeekLastPageHasNoCursor(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for i := 0; i < 4; i++ {
		f.send(t, f.q, strconv.Itoa(i))
	}
	for _, tt := range []struct{ limit, pages int }{{1, 4}, {2, 2}, {3, 2}, {4, 1}, {5, 1}} {
		in := sqsq.PeekInput{Limit: tt.limit}
		pages := 0
		for {
			out, err := f.q.Peek(f.ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if out.NextCursor == "" {
				break
			}
			in.Cursor = out.NextCursor
		}
		if pages != tt.pages {
			t.Errorf("limit %d: %d pages, want %d", tt.limit, pages, tt.pages)
		}
	}
	out, err := f.q.Peek(f.ctx, sqsq.PeekInput{})
	if err != nil || len(out.Messages) != 4 || out.NextCursor != "" {
		t.Errorf("default limit: %d messages, cursor %q, err %v; want 4, \"\", nil", len(out.Messages), out.NextCursor, err)
	}
	empty := f.create(t, "empty", sqsq.QueueAttributes{})
	out, err = empty.Peek(f.ctx, sqsq.PeekInput{})
	if err != nil || out.Messages != nil || out.NextCursor != "" {
		t.Errorf("empty queue: %+v, %v; want no messages and no cursor", out, err)
	}
}

// A page of a filter few messages match stops after looking at 10,000
// messages, with a cursor: one call never holds the queue for O(queue).
func TestPeekFilteredPageStopsAtScanBudget(t *testing.T) {
	t.Parallel()
	f := setup(t)
	const n = 25_000
	entries := make([]sqsq.SendBatchEntry, 0, 10)
	for i := 0; i < n; i += 10 {
		entries = entries[:0]
		for j := 0; j < 10; j++ {
			entries = append(entries, sqsq.SendBatchEntry{Id: strconv.Itoa(j), SendInput: sqsq.SendInput{MessageBody: "x"}})
		}
		if _, err := f.q.SendBatch(f.ctx, entries); err != nil {
			t.Fatal(err)
		}
	}
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "late", DelaySeconds: sqsq.Some(time.Minute)})
	in := sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateDelayed}}
	var pages [][]string
	for {
		out, err := f.q.Peek(f.ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, peekBodies(out.Messages))
		if out.NextCursor == "" {
			break
		}
		in.Cursor = out.NextCursor
	}
	if d := diff([][]string{nil, nil, {"late"}}, pages); d != "" {
		t.Errorf("pages:\n%s", d)
	}
}

// Paging through 2,500 messages in pages of 100 returns each message
// exactly once, in send order, while messages are deleted between pages:
// the one the cursor names, ones ahead (never returned then), ones behind,
// and at one point most of the queue (which makes the index rebuild).
func TestPeekPagingWhileDeleting(t *testing.T) {
	t.Parallel()
	for _, fifo := range []bool{false, true} {
		t.Run(fmt.Sprintf("fifo=%v", fifo), func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			q := f.q
			if fifo {
				q = f.create(t, "paging.fifo", sqsq.QueueAttributes{FifoQueue: sqsq.Some(true), ContentBasedDeduplication: sqsq.Some(true)})
			}
			const n = 2500
			ids := make([]string, n)
			pos := map[string]int{}
			for i := range ids {
				in := sqsq.SendInput{MessageBody: strconv.Itoa(i)}
				if fifo {
					in.MessageGroupId = "g" + strconv.Itoa(i%7)
				}
				ids[i] = f.sendInput(t, q, in).MessageId
				pos[ids[i]] = i
			}
			deleted := make([]bool, n)
			del := func(i int) {
				if i < n && !deleted[i] {
					ok, err := q.DeleteMessageById(f.ctx, ids[i])
					if err != nil || !ok {
						t.Fatalf("DeleteMessageById(%d) = %v, %v", i, ok, err)
					}
					deleted[i] = true
				}
			}
			rng := rand.New(rand.NewPCG(1, 2))
			seen := make([]bool, n)
			last := -1
			in := sqsq.PeekInput{Limit: 100}
			for page := 0; ; page++ {
				out, err := q.Peek(f.ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				if len(out.Messages) != 100 && out.NextCursor != "" {
					t.Fatalf("page %d has %d messages and a cursor", page, len(out.Messages))
				}
				for _, p := range out.Messages {
					i := pos[p.MessageId]
					switch {
					case seen[i]:
						t.Fatalf("page %d: message %d again", page, i)
					case i <= last:
						t.Fatalf("page %d: message %d after %d", page, i, last)
					case deleted[i]:
						t.Fatalf("page %d: message %d was deleted", page, i)
					}
					seen[i], last = true, i
				}
				if out.NextCursor == "" {
					break
				}
				in.Cursor = out.NextCursor
				del(last)                   // the one the cursor names
				del(last + 1 + rng.IntN(5)) // one just ahead
				del(rng.IntN(last + 1))     // one behind
				if page == 5 {
					for i := last + 1; i < n-200; i++ {
						if i%10 != 0 {
							del(i) // most of what is left
						}
					}
				}
			}
			for i := range seen {
				if !seen[i] && !deleted[i] {
					t.Errorf("message %d was never returned", i)
				}
			}
			s := stats(t, q)
			left := 0
			for i := range deleted {
				if !deleted[i] {
					left++
				}
			}
			if s.Visible != left || int(s.Deleted) != n-left {
				t.Errorf("Visible %d Deleted %d, want %d and %d", s.Visible, s.Deleted, left, n-left)
			}
			if got := len(peekAll(t, q, sqsq.PeekInput{Limit: 1000})); got != left {
				t.Errorf("a new walk finds %d messages, want %d", got, left)
			}
		})
	}
}

func TestPeekErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		in     sqsq.PeekInput
		setup  func(f *fixture) // after the messages are sent
		// otherCursor: in.Cursor is a cursor of another queue
		otherCursor bool
		code        sqsq.Code
		msg         string
		err         error // when not an *sqsq.Error
	}{
		{reason: "a limit of 1 is the least", in: sqsq.PeekInput{Limit: 1}},
		{reason: "a limit of 1,000 is the most", in: sqsq.PeekInput{Limit: 1000}},
		{reason: "a negative limit", in: sqsq.PeekInput{Limit: -1}, code: sqsq.CodeInvalidParameterValue,
			msg: "Value -1 for parameter Limit is invalid. Reason: Must be between 1 and 1000, if provided."},
		{reason: "a limit above 1,000", in: sqsq.PeekInput{Limit: 1001}, code: sqsq.CodeInvalidParameterValue,
			msg: "Value 1001 for parameter Limit is invalid. Reason: Must be between 1 and 1000, if provided."},
		{reason: "an unknown state", in: sqsq.PeekInput{States: []sqsq.MessageState{"visible"}}, code: sqsq.CodeInvalidParameterValue,
			msg: `Value "visible" for parameter States is invalid. Reason: Must be one of available, delayed, inflight, held.`},
		{reason: "states are lower case", in: sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateAvailable, "InFlight"}}, code: sqsq.CodeInvalidParameterValue},
		{reason: "the empty state", in: sqsq.PeekInput{States: []sqsq.MessageState{""}}, code: sqsq.CodeInvalidParameterValue},
		{reason: "a negative body prefix", in: sqsq.PeekInput{BodyPrefix: -1}, code: sqsq.CodeInvalidParameterValue,
			msg: "Value -1 for parameter BodyPrefix is invalid. Reason: Must be >= 0."},
		{reason: "a cursor that is not base64", in: sqsq.PeekInput{Cursor: "not a cursor!"}, code: sqsq.CodeInvalidParameterValue,
			msg: "Value not a cursor! for parameter Cursor is invalid. Reason: Not a cursor of this queue."},
		{reason: "a cursor of the wrong length", in: sqsq.PeekInput{Cursor: "AAAA"}, code: sqsq.CodeInvalidParameterValue},
		{reason: "a cursor with padding", in: sqsq.PeekInput{Cursor: "AAAAAAAAAAAAAAAAAAAAAA=="}, code: sqsq.CodeInvalidParameterValue},
		{reason: "a cursor of another queue", otherCursor: true, code: sqsq.CodeInvalidParameterValue},
		{reason: "a deleted queue fails first, whatever the input", in: sqsq.PeekInput{Limit: -1},
			setup: func(f *fixture) { _ = f.q.DeleteQueue(f.ctx) }, code: sqsq.CodeQueueDoesNotExist,
			msg: "The specified queue does not exist."},
		{reason: "a closed broker", in: sqsq.PeekInput{},
			setup: func(f *fixture) { _ = f.b.Close() }, err: sqsq.ErrClosed},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			f.send(t, f.q, "a")
			f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "b", DelaySeconds: sqsq.Some(time.Minute)})
			f.receive(t, f.q, sqsq.ReceiveInput{})
			f.send(t, f.q, "c")
			before := f.peekSnap(t, f.q)
			in := tt.in
			if tt.otherCursor {
				other := f.create(t, "other", sqsq.QueueAttributes{})
				f.send(t, other, "o1")
				f.send(t, other, "o2")
				out, err := other.Peek(f.ctx, sqsq.PeekInput{Limit: 1})
				if err != nil || out.NextCursor == "" {
					t.Fatalf("Peek(other): %+v, %v", out, err)
				}
				in.Cursor = out.NextCursor
			} else if tt.setup != nil {
				tt.setup(f)
			}
			out, err := f.q.Peek(f.ctx, in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("got %v, want %v", err, tt.err)
				}
				return
			}
			wantErr(t, err, tt.code, tt.msg, tt.reason)
			if tt.code != "" {
				if out.Messages != nil || out.NextCursor != "" {
					t.Errorf("a failed Peek returned %+v", out)
				}
			} else if want := min(3, cmp.Or(in.Limit, 100)); len(out.Messages) != want {
				t.Errorf("Peek returned %d messages, want %d", len(out.Messages), want)
			}
			if tt.code == sqsq.CodeQueueDoesNotExist {
				return
			}
			if d := diff(before, f.peekSnap(t, f.q)); d != "" {
				t.Errorf("Peek changed the queue:\n%s\nreason: %s", d, tt.reason)
			}
		})
	}
}

func TestPeekCanceledContext(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "a")
	ctx, cancel := context.WithCancel(f.ctx)
	cancel()
	if _, err := f.q.Peek(ctx, sqsq.PeekInput{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Peek with a canceled context: %v, want context.Canceled", err)
	}
}

// A cursor of a queue that was deleted and created again under the same
// name is refused: it names messages of the old queue.
func TestPeekCursorOfRecreatedQueue(t *testing.T) {
	t.Parallel()
	f := setup(t, sqsq.WithRecreateDelay(0))
	f.send(t, f.q, "a")
	f.send(t, f.q, "b")
	out, err := f.q.Peek(f.ctx, sqsq.PeekInput{Limit: 1})
	if err != nil || out.NextCursor == "" {
		t.Fatalf("Peek: %+v, %v", out, err)
	}
	if err := f.q.DeleteQueue(f.ctx); err != nil {
		t.Fatal(err)
	}
	q := f.create(t, "test-queue", sqsq.QueueAttributes{})
	f.send(t, q, "c")
	f.send(t, q, "d")
	_, err = q.Peek(f.ctx, sqsq.PeekInput{Cursor: out.NextCursor})
	wantErr(t, err, sqsq.CodeInvalidParameterValue, "", "the cursor is the old queue's")
}

// A cursor whose message is gone still goes on after it.
func TestPeekCursorAfterDeletedMessage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var ids []string
	for _, b := range []string{"a", "b", "c", "d", "e"} {
		ids = append(ids, f.send(t, f.q, b).MessageId)
	}
	out, err := f.q.Peek(f.ctx, sqsq.PeekInput{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids[1:3] { // b, which the cursor names, and c, next
		if ok, err := f.q.DeleteMessageById(f.ctx, id); !ok || err != nil {
			t.Fatalf("DeleteMessageById: %v, %v", ok, err)
		}
	}
	got := peekBodies(peekAll(t, f.q, sqsq.PeekInput{Limit: 2, Cursor: out.NextCursor}))
	if d := diff([]string{"d", "e"}, got); d != "" {
		t.Errorf("after the deleted cursor message:\n%s", d)
	}
	// Every message after the cursor gone: an empty last page.
	for _, id := range ids[3:] {
		if _, err := f.q.DeleteMessageById(f.ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	out, err = f.q.Peek(f.ctx, sqsq.PeekInput{Cursor: out.NextCursor})
	if err != nil || out.Messages != nil || out.NextCursor != "" {
		t.Errorf("nothing left after the cursor: %+v, %v", out, err)
	}
}

// Peek wakes no parked receive: a long poll waiting while messages are in
// flight or delayed stays parked, and nothing is counted.
func TestPeekDoesNotWakeLongPolls(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "a")
	f.receive(t, f.q, sqsq.ReceiveInput{})
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "b", DelaySeconds: sqsq.Some(time.Minute)})
	done := make(chan []sqsq.Message, 1)
	go func() {
		msgs, _ := f.q.Receive(f.ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		done <- msgs
	}()
	if err := f.q.WaitForReceivers(f.ctx, 1); err != nil {
		t.Fatal(err)
	}
	before := f.peekSnap(t, f.q)
	for i := 0; i < 3; i++ {
		peekAll(t, f.q, sqsq.PeekInput{})
		peekAll(t, f.q, sqsq.PeekInput{States: []sqsq.MessageState{sqsq.StateAvailable}, Limit: 1})
	}
	if d := diff(before, f.peekSnap(t, f.q)); d != "" {
		t.Errorf("Peek changed the queue or woke the receiver:\n%s", d)
	}
	f.send(t, f.q, "c")
	if got := bodies(<-done); diff([]string{"c"}, got) != "" {
		t.Errorf("the long poll returned %v, want [c]", got)
	}
	if s := stats(t, f.q); s.LongPollWakeups != 1 {
		t.Errorf("LongPollWakeups = %d, want 1 (the send's)", s.LongPollWakeups)
	}
}

// Peek's counts by state are the queue's.
func TestPeekAgreesWithStats(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{})
	for i := 0; i < 30; i++ {
		f.fifoSend(t, "g"+strconv.Itoa(i%4), "m"+strconv.Itoa(i))
	}
	f.fifoRecv(t, 10, time.Minute)
	f.fifoRecv(t, 3, time.Minute)
	all := peekAll(t, f.q, sqsq.PeekInput{Limit: 7})
	count := map[sqsq.MessageState]int{}
	for _, p := range all {
		count[p.State]++
	}
	s := stats(t, f.q)
	if count[sqsq.StateAvailable]+count[sqsq.StateHeld] != s.Visible || count[sqsq.StateInFlight] != s.InFlight || count[sqsq.StateDelayed] != s.Delayed {
		t.Errorf("Peek counts %v, Stats visible %d in flight %d delayed %d", count, s.Visible, s.InFlight, s.Delayed)
	}
	if !strings.HasPrefix(peekLine(all[0]), "m0 inflight") {
		t.Errorf("first message: %s", peekLine(all[0]))
	}
}
