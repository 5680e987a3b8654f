package history

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sqsq/sqsq"
)

// Kind says what an [Entry] records. The values are those of the JSON
// field "kind".
type Kind string

// The kinds of entries, one per [sqsq.EventKind].
const (
	KindSent              Kind = "sent"              // a send stored the message
	KindReceived          Kind = "received"          // a receive handed it out
	KindReceiveLost       Kind = "receiveLost"       // a receive put it in flight, but its response was lost (injected)
	KindVisibilityChanged Kind = "visibilityChanged" // a ChangeMessageVisibility call or batch entry ended
	KindDeleted           Kind = "deleted"           // a DeleteMessage call or batch entry ended
	KindDeadLettered      Kind = "deadLettered"      // a receive moved it to its dead-letter queue
	KindRedriven          Kind = "redriven"          // a move task moved it out of a dead-letter queue, under a new id
)

// MaxBody is how many bytes of a message's body a history keeps.
const MaxBody = 256

// MessageHistory is what happened to one message, oldest first.
type MessageHistory struct {
	MessageID string `json:"messageId"`
	// Queue, Account and Region name the queue of the message's first
	// entry, its send unless the recorder saw the message only later.
	Queue   string `json:"queue"`
	Account string `json:"account"`
	Region  string `json:"region"`
	// Body is the start of the body: at most MaxBody bytes, cut before a
	// UTF-8 sequence rather than inside it.
	Body string `json:"body"`
	// Entries are the first entry, then the most recent ones (see
	// [WithMaxEntries]); Dropped counts the entries dropped between them.
	Entries []Entry `json:"entries"`
	Dropped int     `json:"dropped"`
}

// Entry is one thing that happened to a message: one [sqsq.Event]. Fields
// that do not apply to its kind are zero, and left out of its JSON.
type Entry struct {
	Kind Kind `json:"kind"`
	// At is the instant of the operation on the broker's clock.
	At time.Time `json:"at"`
	// Queue is the queue it happened on: the dead-letter queue for a
	// redrive out of it, the destination for the first entry of a
	// redriven message's new id.
	Queue string `json:"queue,omitempty"`
	// ReceiveCount is the message's ApproximateReceiveCount after the
	// operation, when the broker knew it.
	ReceiveCount int `json:"receiveCount,omitempty"`
	// ReceiptHandle is the handle a receive handed out, or the one a
	// delete or visibility change used.
	ReceiptHandle string `json:"receiptHandle,omitempty"`
	// TimeoutMs is the visibility timeout a receive set, or the new one
	// of a visibility change, in milliseconds.
	TimeoutMs int64 `json:"timeoutMs,omitempty"`
	// EndsEarlyMs, when positive, is the visibility timeout a receive
	// really set (rounded up to a millisecond): the fault policy ended it
	// early (see [sqsq.VisibilityFaults]).
	EndsEarlyMs int64 `json:"endsEarlyMs,omitempty"`
	// Duplicate marks a delivery the fault policy injected.
	Duplicate bool `json:"duplicate,omitempty"`
	// Injected reports that the fault policy made the call fail or lost
	// its response (for a receive: KindReceiveLost).
	Injected bool `json:"injected,omitempty"`
	// Applied reports that a delete or visibility change took effect
	// (it succeeded, or its response was lost).
	Applied bool `json:"applied,omitempty"`
	// Removed reports that a delete removed the message. A delete that
	// succeeded without it used a stale handle or came after the message
	// was gone.
	Removed bool `json:"removed,omitempty"`
	// Error is the SQS error code the call returned, "" if none.
	Error string `json:"error,omitempty"`
	// DeadLetterQueue is where a KindDeadLettered moved the message (it
	// keeps its id there).
	DeadLetterQueue string `json:"deadLetterQueue,omitempty"`
	// Destination and NewMessageID are set on a KindRedriven of the old id:
	// where the message went and its id there. FromMessageID is set on the
	// KindRedriven that starts the new id's history: the old id.
	Destination   string `json:"destination,omitempty"`
	NewMessageID  string `json:"newMessageId,omitempty"`
	FromMessageID string `json:"fromMessageId,omitempty"`
	// DelayMs is the delay of a send, in milliseconds.
	DelayMs int64 `json:"delayMs,omitempty"`
}

// MarshalJSON writes e with removed and applied on every delete and
// visibility change, false included: "removed": false is how a stale
// delete shows.
func (e Entry) MarshalJSON() ([]byte, error) {
	type plain Entry
	out := struct {
		plain
		Applied *bool `json:"applied,omitempty"`
		Removed *bool `json:"removed,omitempty"`
	}{plain: plain(e)}
	switch e.Kind {
	case KindDeleted:
		out.Applied, out.Removed = &e.Applied, &e.Removed
	case KindVisibilityChanged:
		out.Applied = &e.Applied
	default:
		if e.Applied {
			out.Applied = &e.Applied
		}
		if e.Removed {
			out.Removed = &e.Removed
		}
	}
	return json.Marshal(out)
}

// entry is an Entry as stored: 56 bytes, its strings those of the event
// (shared with the broker, not copied).
type entry struct {
	at     int64  // UnixNano on the broker's clock
	handle string // the receipt handle; for a redrive of the old id, the new id
	// ref is the error code (deleted, visibilityChanged), the dead-letter
	// queue (deadLettered), the destination (redriven, old id) or the old id
	// (redriven, new id: flagFrom).
	ref   string
	ms    int32 // TimeoutMs, or DelayMs for a send
	early int32 // EndsEarlyMs
	count int32 // ReceiveCount
	q     uint8 // the queue: 0 the record's first, i its more[i-1]
	kind  sqsq.EventKind
	flags uint8
}

const (
	flagDuplicate = 1 << iota
	flagInjected
	flagApplied
	flagRemoved
	flagFrom // the first entry of a redriven message's new id
)

// handsOut reports whether e handed out its receipt handle, which the
// recorder then remembers.
func (e *entry) handsOut() bool {
	return e.kind == sqsq.EventReceived || e.kind == sqsq.EventReceiveLost
}

// entryOf is the entry of ev on the queue numbered q.
func entryOf(ev *sqsq.Event, q uint8) entry {
	e := entry{at: ev.At.UnixNano(), q: q, kind: ev.Kind, count: clamp32(int64(ev.ReceiveCount))}
	setIf := func(ok bool, f uint8) {
		if ok {
			e.flags |= f
		}
	}
	setIf(ev.Duplicate, flagDuplicate)
	setIf(ev.Injected, flagInjected)
	setIf(ev.Applied, flagApplied)
	setIf(ev.Removed, flagRemoved)
	switch ev.Kind {
	case sqsq.EventSent:
		e.ms = millis(ev.Delay)
	case sqsq.EventReceived, sqsq.EventReceiveLost:
		e.handle, e.ms = ev.ReceiptHandle, millis(ev.Timeout)
		if ev.EndsEarly > 0 {
			e.early = max(millis(ev.EndsEarly), 1) // a shortened timeout never reads as none
		}
	case sqsq.EventVisibilityChanged, sqsq.EventDeleted:
		e.handle, e.ref = ev.ReceiptHandle, errorCode(ev.Err)
		if ev.Kind == sqsq.EventVisibilityChanged {
			e.ms = millis(ev.Timeout)
		}
	case sqsq.EventDeadLettered:
		e.ref = ev.DeadLetterQueue
	case sqsq.EventRedriven:
		e.handle, e.ref = ev.NewMessageID, ev.Destination
	}
	return e
}

// public is e, which happened on queue, as an Entry.
func (e *entry) public(queue string) Entry {
	out := Entry{
		At: time.Unix(0, e.at).UTC(), Queue: queue, ReceiveCount: int(e.count),
		Duplicate: e.flags&flagDuplicate != 0, Injected: e.flags&flagInjected != 0,
		Applied: e.flags&flagApplied != 0, Removed: e.flags&flagRemoved != 0,
	}
	switch e.kind {
	case sqsq.EventSent:
		out.Kind, out.DelayMs = KindSent, int64(e.ms)
	case sqsq.EventReceived:
		out.Kind, out.ReceiptHandle, out.TimeoutMs, out.EndsEarlyMs = KindReceived, e.handle, int64(e.ms), int64(e.early)
	case sqsq.EventReceiveLost:
		out.Kind, out.ReceiptHandle, out.TimeoutMs, out.EndsEarlyMs = KindReceiveLost, e.handle, int64(e.ms), int64(e.early)
	case sqsq.EventVisibilityChanged:
		out.Kind, out.ReceiptHandle, out.TimeoutMs, out.Error = KindVisibilityChanged, e.handle, int64(e.ms), e.ref
	case sqsq.EventDeleted:
		out.Kind, out.ReceiptHandle, out.Error = KindDeleted, e.handle, e.ref
	case sqsq.EventDeadLettered:
		out.Kind, out.DeadLetterQueue = KindDeadLettered, e.ref
	case sqsq.EventRedriven:
		out.Kind = KindRedriven
		if e.flags&flagFrom != 0 {
			out.FromMessageID = e.ref
		} else {
			out.Destination, out.NewMessageID = e.ref, e.handle
		}
	default:
		out.Kind = Kind(e.kind.String())
	}
	return out
}

// errorCode is the SQS error code of err: "" for nil, the message of an
// error that carries no code.
func errorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *sqsq.Error
	if errors.As(err, &e) {
		return string(e.Code)
	}
	return err.Error()
}

// millis is d in milliseconds, rounded up, as an int32 (SQS's longest
// timeout, 12 hours, is 43,200,000 ms).
func millis(d time.Duration) int32 {
	return clamp32((int64(d) + int64(time.Millisecond) - 1) / int64(time.Millisecond))
}

func clamp32(n int64) int32 {
	return int32(min(max(n, 0), math.MaxInt32))
}

// bodyPrefix is the start of body a history keeps: body itself when it is
// short (the broker's string, shared), else a copy of its first MaxBody
// bytes cut at a rune start, so the history does not hold on to a large
// body once the broker has let it go.
func bodyPrefix(body string) string {
	if len(body) <= MaxBody {
		return body
	}
	n := MaxBody
	for n > 0 && !utf8.RuneStart(body[n]) {
		n--
	}
	return strings.Clone(body[:n])
}
