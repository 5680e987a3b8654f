package history_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/history"
)

// t0 is the broker's clock at the start of every synthetic history.
var t0 = time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

const (
	account = "000000000000"
	region  = "us-east-1"
)

// observe tells r of events, filling in what a row leaves out: the queue
// orders of the default namespace, and a body.
func observe(r *history.Recorder, events ...sqsq.Event) {
	for _, e := range events {
		if e.Queue == "" {
			e.Queue = "orders"
		}
		if e.Account == "" {
			e.Account, e.Region = account, region
		}
		if e.Body == "" && e.MessageID != "" {
			e.Body = "body of " + e.MessageID
		}
		r.Observe(e)
	}
}

// diff is "" when want and got are equal, else both as JSON.
func diff(want, got any) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	w, _ := json.MarshalIndent(want, "", "  ")
	g, _ := json.MarshalIndent(got, "", "  ")
	return fmt.Sprintf("want:\n%s\ngot:\n%s", w, g)
}

var errThrottled = &sqsq.Error{Code: sqsq.CodeRequestThrottled, Message: "Rate exceeded (injected fault)."}
var errUnavailable = &sqsq.Error{Code: sqsq.CodeServiceUnavailable, Message: "The response was lost (injected fault); the call was applied.", Receiver: true}

func TestEventsToHistories(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		reason string
		events []sqsq.Event
		want   map[string][]history.Entry // by message id; an id absent from want must have no history
		absent []string
	}{
		{
			name:   "sent, received, deleted",
			reason: "each event is one entry, in order, with the fields of its kind",
			events: []sqsq.Event{
				{Kind: sqsq.EventSent, At: at(0), MessageID: "m1"},
				{Kind: sqsq.EventReceived, At: at(1), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1, Timeout: 30 * time.Second},
				{Kind: sqsq.EventDeleted, At: at(2), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1, Removed: true, Applied: true},
			},
			want: map[string][]history.Entry{"m1": {
				{Kind: history.KindSent, At: at(0), Queue: "orders"},
				{Kind: history.KindReceived, At: at(1), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1", TimeoutMs: 30000},
				{Kind: history.KindDeleted, At: at(2), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1", Removed: true, Applied: true},
			}},
		},
		{
			name:   "delayed send",
			reason: "a send's delay is delayMs",
			events: []sqsq.Event{{Kind: sqsq.EventSent, At: at(0), MessageID: "m1", Delay: 90 * time.Second}},
			want:   map[string][]history.Entry{"m1": {{Kind: history.KindSent, At: at(0), Queue: "orders", DelayMs: 90000}}},
		},
		{
			name:   "injected duplicate",
			reason: "a delivery the policy injected is marked duplicate, with its own handle",
			events: []sqsq.Event{
				{Kind: sqsq.EventSent, At: at(0), MessageID: "m1"},
				{Kind: sqsq.EventReceived, At: at(1), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1, Timeout: 30 * time.Second},
				{Kind: sqsq.EventReceived, At: at(2), MessageID: "m1", ReceiptHandle: "h2", ReceiveCount: 2, Timeout: 30 * time.Second, Duplicate: true},
			},
			want: map[string][]history.Entry{"m1": {
				{Kind: history.KindSent, At: at(0), Queue: "orders"},
				{Kind: history.KindReceived, At: at(1), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1", TimeoutMs: 30000},
				{Kind: history.KindReceived, At: at(2), Queue: "orders", ReceiveCount: 2, ReceiptHandle: "h2", TimeoutMs: 30000, Duplicate: true},
			}},
		},
		{
			name: "lost receive response",
			reason: "the broker tells of the delivery, then of its loss: one entry, receiveLost and injected, with the delivery's " +
				"timeout; its handle is remembered like a received one's",
			events: []sqsq.Event{
				{Kind: sqsq.EventSent, At: at(0), MessageID: "m1"},
				{Kind: sqsq.EventReceived, At: at(1), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1, Timeout: 30 * time.Second, EndsEarly: time.Second},
				{Kind: sqsq.EventReceiveLost, At: at(1), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1, Injected: true},
				{Kind: sqsq.EventDeleted, At: at(2), ReceiptHandle: "h1", Applied: true},
			},
			want: map[string][]history.Entry{"m1": {
				{Kind: history.KindSent, At: at(0), Queue: "orders"},
				{Kind: history.KindReceiveLost, At: at(1), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1", TimeoutMs: 30000, EndsEarlyMs: 1000, Injected: true},
				{Kind: history.KindDeleted, At: at(2), Queue: "orders", ReceiptHandle: "h1", Applied: true},
			}},
		},
		{
			name:   "lost receive response alone",
			reason: "a loss without its delivery before it (the recorder was off, say) is an entry of its own",
			events: []sqsq.Event{
				{Kind: sqsq.EventReceived, At: at(1), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1},
				{Kind: sqsq.EventReceiveLost, At: at(2), MessageID: "m1", ReceiptHandle: "h2", ReceiveCount: 2, Injected: true},
			},
			want: map[string][]history.Entry{"m1": {
				{Kind: history.KindReceived, At: at(1), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1"},
				{Kind: history.KindReceiveLost, At: at(2), Queue: "orders", ReceiveCount: 2, ReceiptHandle: "h2", Injected: true},
			}},
		},
		{
			name:   "visibility ended early",
			reason: "endsEarlyMs is the timeout really set; under a millisecond it rounds up, never to 0 (which reads as not shortened)",
			events: []sqsq.Event{
				{Kind: sqsq.EventReceived, At: at(1), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1, Timeout: 30 * time.Second, EndsEarly: 3 * time.Second},
				{Kind: sqsq.EventReceived, At: at(5), MessageID: "m1", ReceiptHandle: "h2", ReceiveCount: 2, Timeout: 30 * time.Second, EndsEarly: time.Nanosecond},
			},
			want: map[string][]history.Entry{"m1": {
				{Kind: history.KindReceived, At: at(1), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1", TimeoutMs: 30000, EndsEarlyMs: 3000},
				{Kind: history.KindReceived, At: at(5), Queue: "orders", ReceiveCount: 2, ReceiptHandle: "h2", TimeoutMs: 30000, EndsEarlyMs: 1},
			}},
		},
		{
			name:   "visibility changes, one throttled",
			reason: "a visibility change records its new timeout; an injected rejection its code, not applied",
			events: []sqsq.Event{
				{Kind: sqsq.EventReceived, At: at(1), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1, Timeout: 30 * time.Second},
				{Kind: sqsq.EventVisibilityChanged, At: at(2), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1, Timeout: time.Minute, Err: errThrottled, Injected: true},
				{Kind: sqsq.EventVisibilityChanged, At: at(3), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1, Timeout: 0, Applied: true},
			},
			want: map[string][]history.Entry{"m1": {
				{Kind: history.KindReceived, At: at(1), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1", TimeoutMs: 30000},
				{Kind: history.KindVisibilityChanged, At: at(2), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1", TimeoutMs: 60000, Injected: true, Error: "RequestThrottled"},
				{Kind: history.KindVisibilityChanged, At: at(3), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1", Applied: true},
			}},
		},
		{
			name:   "lost delete response",
			reason: "a delete whose response was lost removed the message (applied) and returned ServiceUnavailable (injected)",
			events: []sqsq.Event{
				{Kind: sqsq.EventReceived, At: at(1), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1},
				{Kind: sqsq.EventDeleted, At: at(2), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1, Removed: true, Applied: true, Injected: true, Err: errUnavailable},
			},
			want: map[string][]history.Entry{"m1": {
				{Kind: history.KindReceived, At: at(1), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1"},
				{Kind: history.KindDeleted, At: at(2), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1", Removed: true, Applied: true, Injected: true, Error: "ServiceUnavailable"},
			}},
		},
		{
			name:   "an error without an SQS code",
			reason: "error is the code of a *sqsq.Error (wrapped too), else the error's text",
			events: []sqsq.Event{
				{Kind: sqsq.EventDeleted, At: at(1), MessageID: "m1", ReceiptHandle: "h1", Err: fmt.Errorf("wrapped: %w", errThrottled)},
				{Kind: sqsq.EventDeleted, At: at(2), MessageID: "m1", ReceiptHandle: "h1", Err: errors.New("boom")},
			},
			want: map[string][]history.Entry{"m1": {
				{Kind: history.KindDeleted, At: at(1), Queue: "orders", ReceiptHandle: "h1", Error: "RequestThrottled"},
				{Kind: history.KindDeleted, At: at(2), Queue: "orders", ReceiptHandle: "h1", Error: "boom"},
			}},
		},
		{
			name:   "delete after the message is gone",
			reason: "an event without a MessageID goes to the message whose receive handed out its handle: removed nothing",
			events: []sqsq.Event{
				{Kind: sqsq.EventSent, At: at(0), MessageID: "m1"},
				{Kind: sqsq.EventReceived, At: at(1), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1},
				{Kind: sqsq.EventDeleted, At: at(2), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1, Removed: true, Applied: true},
				{Kind: sqsq.EventDeleted, At: at(3), ReceiptHandle: "h1", Applied: true},
				{Kind: sqsq.EventVisibilityChanged, At: at(4), ReceiptHandle: "h1", Timeout: time.Second, Err: &sqsq.Error{Code: sqsq.CodeMessageNotInflight}},
			},
			want: map[string][]history.Entry{"m1": {
				{Kind: history.KindSent, At: at(0), Queue: "orders"},
				{Kind: history.KindReceived, At: at(1), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1"},
				{Kind: history.KindDeleted, At: at(2), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1", Removed: true, Applied: true},
				{Kind: history.KindDeleted, At: at(3), Queue: "orders", ReceiptHandle: "h1", Applied: true},
				{Kind: history.KindVisibilityChanged, At: at(4), Queue: "orders", ReceiptHandle: "h1", TimeoutMs: 1000, Error: "MessageNotInflight"},
			}},
		},
		{
			name:   "a handle the recorder never saw handed out",
			reason: "without a MessageID and with an unknown handle there is no message to add the event to",
			events: []sqsq.Event{
				{Kind: sqsq.EventDeleted, At: at(1), ReceiptHandle: "h-unknown", Applied: true},
				{Kind: sqsq.EventDeleted, At: at(1), Applied: true},
			},
			want:   map[string][]history.Entry{},
			absent: []string{"h-unknown", ""},
		},
		{
			name:   "first seen at a receive",
			reason: "a message the recorder did not see sent (it was off, or forgot it) starts with what it saw",
			events: []sqsq.Event{
				{Kind: sqsq.EventReceived, At: at(7), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 3},
			},
			want: map[string][]history.Entry{"m1": {
				{Kind: history.KindReceived, At: at(7), Queue: "orders", ReceiveCount: 3, ReceiptHandle: "h1"},
			}},
		},
		{
			name:   "dead-lettered, then received from the dead-letter queue",
			reason: "the message keeps its id in the dead-letter queue: one history across both queues",
			events: []sqsq.Event{
				{Kind: sqsq.EventSent, At: at(0), MessageID: "m1"},
				{Kind: sqsq.EventReceived, At: at(1), MessageID: "m1", ReceiptHandle: "h1", ReceiveCount: 1},
				{Kind: sqsq.EventDeadLettered, At: at(40), MessageID: "m1", ReceiveCount: 1, DeadLetterQueue: "orders-dlq"},
				{Kind: sqsq.EventReceived, At: at(41), Queue: "orders-dlq", MessageID: "m1", ReceiptHandle: "h2", ReceiveCount: 2},
			},
			want: map[string][]history.Entry{"m1": {
				{Kind: history.KindSent, At: at(0), Queue: "orders"},
				{Kind: history.KindReceived, At: at(1), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h1"},
				{Kind: history.KindDeadLettered, At: at(40), Queue: "orders", ReceiveCount: 1, DeadLetterQueue: "orders-dlq"},
				{Kind: history.KindReceived, At: at(41), Queue: "orders-dlq", ReceiveCount: 2, ReceiptHandle: "h2"},
			}},
		},
		{
			name:   "redriven under a new id",
			reason: "the old id's history ends with the move and names the new id; the new id's starts with it and names the old",
			events: []sqsq.Event{
				{Kind: sqsq.EventDeadLettered, At: at(40), MessageID: "m1", ReceiveCount: 1, DeadLetterQueue: "orders-dlq"},
				{Kind: sqsq.EventRedriven, At: at(50), Queue: "orders-dlq", MessageID: "m1", Destination: "orders", NewMessageID: "m2"},
				{Kind: sqsq.EventReceived, At: at(51), MessageID: "m2", ReceiptHandle: "h3", ReceiveCount: 1},
			},
			want: map[string][]history.Entry{
				"m1": {
					{Kind: history.KindDeadLettered, At: at(40), Queue: "orders", ReceiveCount: 1, DeadLetterQueue: "orders-dlq"},
					{Kind: history.KindRedriven, At: at(50), Queue: "orders-dlq", Destination: "orders", NewMessageID: "m2"},
				},
				"m2": {
					{Kind: history.KindRedriven, At: at(50), Queue: "orders", FromMessageID: "m1"},
					{Kind: history.KindReceived, At: at(51), Queue: "orders", ReceiveCount: 1, ReceiptHandle: "h3"},
				},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := history.New()
			observe(r, tc.events...)
			for id, want := range tc.want {
				h, ok := r.Message(id)
				if !ok {
					t.Fatalf("no history of %s (%s)", id, tc.reason)
				}
				if d := diff(want, h.Entries); d != "" || h.Dropped != 0 {
					t.Errorf("history of %s, dropped %d (%s):\n%s", id, h.Dropped, tc.reason, d)
				}
			}
			for _, id := range tc.absent {
				if h, ok := r.Message(id); ok {
					t.Errorf("a history of %q: %+v (%s)", id, h, tc.reason)
				}
			}
			var ids []string
			for _, h := range r.Queue(account, region, "orders") {
				ids = append(ids, h.MessageID)
			}
			if len(ids) != len(tc.want) {
				t.Errorf("orders lists %v, want the %d messages of the row", ids, len(tc.want))
			}
		})
	}
}

// A history names the queue, namespace and body of its first entry; the
// body is cut at 256 bytes, before a UTF-8 sequence rather than in it.
func TestHistoryHeader(t *testing.T) {
	t.Parallel()
	r := history.New()
	long := strings.Repeat("a", 255) + "é" + strings.Repeat("b", 1000) // é is bytes 255 and 256
	r.Observe(sqsq.Event{Kind: sqsq.EventSent, At: at(0), Queue: "jobs", Account: "111111111111", Region: "eu-west-1", MessageID: "m1", Body: long})
	r.Observe(sqsq.Event{Kind: sqsq.EventSent, At: at(0), Queue: "jobs", Account: "111111111111", Region: "eu-west-1", MessageID: "m2", Body: "short"})
	h, _ := r.Message("m1")
	if h.MessageID != "m1" || h.Queue != "jobs" || h.Account != "111111111111" || h.Region != "eu-west-1" || h.Body != strings.Repeat("a", 255) {
		t.Errorf("history header %+v, want jobs of 111111111111 in eu-west-1 with the first 255 bytes of the body", h)
	}
	if h, _ := r.Message("m2"); h.Body != "short" {
		t.Errorf("short body %q", h.Body)
	}
}

// Every field's JSON name; kind and at always, applied and removed on
// the calls they describe, the others only when set.
func TestEntryJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		entry history.Entry
		want  string
	}{
		{history.Entry{Kind: history.KindSent, At: at(1).Add(5 * time.Millisecond)}, `{"kind":"sent","at":"2026-11-29T21:00:01.005Z"}`},
		{history.Entry{
			Kind: history.KindReceived, At: at(0), Queue: "q", ReceiveCount: 2, ReceiptHandle: "h", TimeoutMs: 1, EndsEarlyMs: 2,
			Duplicate: true, Injected: true, Applied: true, Removed: true, Error: "E", DeadLetterQueue: "d", Destination: "t",
			NewMessageID: "n", FromMessageID: "f", DelayMs: 3,
		}, `{"kind":"received","at":"2026-11-29T21:00:00Z","queue":"q","receiveCount":2,"receiptHandle":"h","timeoutMs":1,` +
			`"endsEarlyMs":2,"duplicate":true,"injected":true,"error":"E","deadLetterQueue":"d",` +
			`"destination":"t","newMessageId":"n","fromMessageId":"f","delayMs":3,"applied":true,"removed":true}`},
		// A delete says whether it was applied and removed the message,
		// false included: a stale delete shows as "removed": false.
		{history.Entry{Kind: history.KindDeleted, At: at(0), ReceiptHandle: "h", Applied: true},
			`{"kind":"deleted","at":"2026-11-29T21:00:00Z","receiptHandle":"h","applied":true,"removed":false}`},
		{history.Entry{Kind: history.KindVisibilityChanged, At: at(0), Error: "ServiceUnavailable", Injected: true},
			`{"kind":"visibilityChanged","at":"2026-11-29T21:00:00Z","injected":true,"error":"ServiceUnavailable","applied":false}`},
	} {
		got, err := json.Marshal(tc.entry)
		if err != nil || string(got) != tc.want {
			t.Errorf("JSON %s (%v)\nwant %s", got, err, tc.want)
		}
	}
	h := history.MessageHistory{MessageID: "m", Queue: "q", Account: "a", Region: "r", Body: "b", Entries: []history.Entry{}}
	got, _ := json.Marshal(h)
	if want := `{"messageId":"m","queue":"q","account":"a","region":"r","body":"b","entries":[],"dropped":0}`; string(got) != want {
		t.Errorf("history JSON %s\nwant %s", got, want)
	}
}

// ids lists the message ids of histories.
func ids(hs []history.MessageHistory) []string {
	out := []string{}
	for _, h := range hs {
		out = append(out, h.MessageID)
	}
	return out
}

// sends are the sends of ids, a second apart.
func sends(ids ...string) []sqsq.Event {
	var out []sqsq.Event
	for i, id := range ids {
		out = append(out, sqsq.Event{Kind: sqsq.EventSent, At: at(i), MessageID: id})
	}
	return out
}

// Past WithMaxMessages, the history of the message seen least recently
// goes first, with its place in its queues and its handles.
func TestMaxMessages(t *testing.T) {
	t.Parallel()
	r := history.New(history.WithMaxMessages(3))
	observe(r, sends("m1", "m2", "m3")...)
	observe(r,
		sqsq.Event{Kind: sqsq.EventReceived, At: at(10), MessageID: "m2", ReceiptHandle: "h2"}, // m2 seen again
		sqsq.Event{Kind: sqsq.EventReceived, At: at(10), MessageID: "m1", ReceiptHandle: "h1"}, // m1 too: m3 is the least recent
	)
	observe(r, sqsq.Event{Kind: sqsq.EventSent, At: at(11), MessageID: "m4"})
	if _, ok := r.Message("m3"); ok {
		t.Errorf("m3, seen least recently, kept")
	}
	if got, want := ids(r.Queue(account, region, "orders")), []string{"m1", "m2", "m4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("orders lists %v, want %v", got, want)
	}
	observe(r, sqsq.Event{Kind: sqsq.EventSent, At: at(12), MessageID: "m5"}) // m2 goes, and h2 with it
	observe(r, sqsq.Event{Kind: sqsq.EventDeleted, At: at(13), ReceiptHandle: "h2", Applied: true})
	if _, ok := r.Message("m2"); ok {
		t.Errorf("a delete by the handle of m2, forgotten, brought its history back")
	}
	observe(r, sqsq.Event{Kind: sqsq.EventDeleted, At: at(13), ReceiptHandle: "h1", Applied: true})
	if h, _ := r.Message("m1"); len(h.Entries) != 3 || h.Entries[2].Kind != history.KindDeleted {
		t.Errorf("m1, kept, did not get the delete by its handle: %+v", h.Entries)
	}
	if got, want := ids(r.Queue(account, region, "orders")), []string{"m1", "m4", "m5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("orders lists %v, want %v", got, want)
	}
}

// Past WithMaxEntries, a history keeps its first entry and the most recent
// ones, counts the others, and forgets the handles of the receives dropped.
func TestMaxEntries(t *testing.T) {
	t.Parallel()
	r := history.New(history.WithMaxEntries(4))
	observe(r, sends("m1")...)
	for i := 1; i <= 5; i++ {
		observe(r, sqsq.Event{Kind: sqsq.EventReceived, At: at(i), MessageID: "m1", ReceiptHandle: fmt.Sprint("h", i), ReceiveCount: i})
	}
	h, _ := r.Message("m1")
	var got []string
	for _, e := range h.Entries {
		got = append(got, fmt.Sprint(e.Kind, e.ReceiveCount))
	}
	if want := []string{"sent0", "received3", "received4", "received5"}; !reflect.DeepEqual(got, want) || h.Dropped != 2 {
		t.Errorf("entries %v, dropped %d; want %v, dropped 2", got, h.Dropped, want)
	}
	observe(r, sqsq.Event{Kind: sqsq.EventDeleted, At: at(9), ReceiptHandle: "h1", Applied: true}) // its receive was dropped
	observe(r, sqsq.Event{Kind: sqsq.EventDeleted, At: at(9), ReceiptHandle: "h3", Applied: true}) // its receive is kept, for now
	h, _ = r.Message("m1")
	if last := h.Entries[3]; len(h.Entries) != 4 || h.Dropped != 3 || last.Kind != history.KindDeleted || last.ReceiptHandle != "h3" {
		t.Errorf("after deletes by h1 (forgotten) and h3 (kept): %+v, dropped %d", h.Entries, h.Dropped)
	}

	// The smallest bound keeps the first and the latest.
	r = history.New(history.WithMaxEntries(1))
	observe(r, sends("m1", "m1", "m1")...)
	if h, _ := r.Message("m1"); len(h.Entries) != 2 || h.Entries[1].At != at(2) || h.Dropped != 1 {
		t.Errorf("WithMaxEntries(1): %+v, dropped %d", h.Entries, h.Dropped)
	}
}

// Queue lists the messages with an event on a queue of a namespace, in the
// order of their first event there: a dead-letter queue lists those moved
// into it, a redrive's destination the new ids.
func TestQueue(t *testing.T) {
	t.Parallel()
	r := history.New()
	observe(r, sends("m1", "m2", "m3")...)
	observe(r,
		sqsq.Event{Kind: sqsq.EventSent, At: at(0), Account: "111111111111", Region: "eu-west-1", MessageID: "x1"},
		sqsq.Event{Kind: sqsq.EventDeadLettered, At: at(5), MessageID: "m2", DeadLetterQueue: "orders-dlq"},
		sqsq.Event{Kind: sqsq.EventDeadLettered, At: at(6), MessageID: "m1", DeadLetterQueue: "orders-dlq"},
		sqsq.Event{Kind: sqsq.EventRedriven, At: at(7), Queue: "orders-dlq", MessageID: "m2", Destination: "orders", NewMessageID: "m2b"},
	)
	for _, tc := range []struct {
		account, region, name string
		want                  []string
	}{
		{account, region, "orders", []string{"m1", "m2", "m3", "m2b"}},
		{account, region, "orders-dlq", []string{"m2", "m1"}},
		{"111111111111", "eu-west-1", "orders", []string{"x1"}},
		{account, "eu-west-1", "orders", []string{}},
		{account, region, "jobs", []string{}},
	} {
		if got := ids(r.Queue(tc.account, tc.region, tc.name)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Queue(%s, %s, %s) lists %v, want %v", tc.account, tc.region, tc.name, got, tc.want)
		}
	}
	if _, ok := r.MessageOn(account, region, "orders-dlq", "m1"); !ok {
		t.Errorf("MessageOn: m1 was dead-lettered into orders-dlq")
	}
	if _, ok := r.MessageOn(account, region, "orders-dlq", "m3"); ok {
		t.Errorf("MessageOn: m3 never was in orders-dlq")
	}
	if _, ok := r.MessageOn("111111111111", "eu-west-1", "orders", "m1"); ok {
		t.Errorf("MessageOn: m1 is of the other namespace's orders")
	}
	if h, ok := r.MessageOn(account, region, "orders", "m2b"); !ok || h.Entries[0].FromMessageID != "m2" {
		t.Errorf("MessageOn: m2b %+v, %v", h, ok)
	}
}

// Reset forgets everything: histories, queues and handles.
func TestReset(t *testing.T) {
	t.Parallel()
	r := history.New()
	observe(r, sends("m1")...)
	observe(r, sqsq.Event{Kind: sqsq.EventReceived, At: at(1), MessageID: "m1", ReceiptHandle: "h1"})
	r.Reset()
	observe(r, sqsq.Event{Kind: sqsq.EventDeleted, At: at(2), ReceiptHandle: "h1", Applied: true})
	if _, ok := r.Message("m1"); ok {
		t.Errorf("m1 kept, or brought back by its handle")
	}
	if got := r.Queue(account, region, "orders"); got != nil {
		t.Errorf("orders lists %v after Reset", ids(got))
	}
	observe(r, sends("m2")...)
	if _, ok := r.Message("m2"); !ok || !r.Enabled() {
		t.Errorf("a reset recorder records no more")
	}
}

// Disabled, a recorder records nothing and keeps what it had.
func TestSetEnabled(t *testing.T) {
	t.Parallel()
	r := history.New()
	observe(r, sends("m1")...)
	r.SetEnabled(false)
	if r.Enabled() {
		t.Fatal("Enabled after SetEnabled(false)")
	}
	observe(r, sqsq.Event{Kind: sqsq.EventReceived, At: at(1), MessageID: "m1", ReceiptHandle: "h1"})
	observe(r, sends("m2")...)
	if h, _ := r.Message("m1"); len(h.Entries) != 1 {
		t.Errorf("m1 recorded while off: %+v", h.Entries)
	}
	if _, ok := r.Message("m2"); ok {
		t.Errorf("m2 recorded while off")
	}
	r.SetEnabled(true)
	observe(r, sends("m2")...)
	if _, ok := r.Message("m2"); !ok {
		t.Errorf("m2 not recorded once on again")
	}
}
