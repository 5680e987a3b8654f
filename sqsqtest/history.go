package sqsqtest

import (
	"fmt"
	"sync"
	"time"

	"github.com/sqsq/sqsq"
)

// Record is one entry of a message's history.
type Record struct {
	Kind      string // "sent", "received", "visibility", "deleted", "moved to DLQ", "redriven"
	At        time.Time
	Queue     string
	MessageID string
	// ReceiptHandle is the handle handed out or used.
	ReceiptHandle string
	ReceiveCount  int
	Timeout       time.Duration // visibility timeout set by a receive or a change
	Err           error         // the error a delete or visibility change returned
	Note          string        // "duplicate delivery", "injected", "no-op", the other MessageId of a redrive
}

func (r Record) String() string {
	s := fmt.Sprintf("t=%v %s %s", r.At.Sub(Epoch), r.Kind, r.Queue)
	switch r.Kind {
	case "received":
		s += fmt.Sprintf(" #%d hidden %v", r.ReceiveCount, r.Timeout)
	case "visibility":
		s += fmt.Sprintf(" %v", r.Timeout)
	}
	if r.Err != nil {
		s += fmt.Sprintf(": %v", r.Err)
	}
	if r.Note != "" {
		s += " (" + r.Note + ")"
	}
	return s
}

// Recorder is a [sqsq.Observer] that keeps the history of every message it
// sees: when it was sent, each receive with its handle, time and visibility,
// visibility changes, deletes, its move to a dead-letter queue and its
// redrive. [NewBroker] installs one; install your own with sqsq.WithObserver.
//
// The broker tells observers of every send, receive, delete, visibility
// change, dead-letter move and redrive; a redrive links the old MessageId's
// history to the new one's. A message first seen after it was sent (the
// recorder was installed late) starts with a "sent" record taken from its
// SentTimestamp.
type Recorder struct {
	mu runMutex // off while a run plays outside a bubble
	// events are every event observed, in order; the histories are built
	// from them when first read (built: how many are in), since most of
	// a kit's runs pass and nobody reads theirs.
	events  []sqsq.Event
	built   int
	hist    map[string][]Record
	ordered []string
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{hist: map[string][]Record{}}
}

// Observe implements [sqsq.Observer].
func (r *Recorder) Observe(e sqsq.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// since returns the events observed after the first n.
func (r *Recorder) since(n int) []sqsq.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.events[n:len(r.events):len(r.events)]
}

// build records the events not yet in the histories; r.mu is held.
func (r *Recorder) build() {
	for i := range r.events[r.built:] {
		r.record(&r.events[r.built+i])
	}
	r.built = len(r.events)
}

func (r *Recorder) record(e *sqsq.Event) {
	if e.MessageID == "" {
		return
	}
	if e.Kind == sqsq.EventSent {
		if _, seen := r.hist[e.MessageID]; !seen {
			r.ordered = append(r.ordered, e.MessageID)
		}
		r.hist[e.MessageID] = append(r.hist[e.MessageID], Record{Kind: "sent", At: e.At, Queue: e.Queue, MessageID: e.MessageID})
		return
	}
	if _, seen := r.hist[e.MessageID]; !seen {
		r.ordered = append(r.ordered, e.MessageID)
		r.hist[e.MessageID] = []Record{{Kind: "sent", At: e.SentAt, Queue: e.Queue, MessageID: e.MessageID}}
	}
	if e.Kind == sqsq.EventRedriven {
		r.hist[e.MessageID] = append(r.hist[e.MessageID], Record{Kind: "redriven", At: e.At, Queue: e.Queue,
			MessageID: e.MessageID, Note: "to " + e.Destination + " as " + e.NewMessageID})
		if _, seen := r.hist[e.NewMessageID]; !seen {
			r.ordered = append(r.ordered, e.NewMessageID)
		}
		r.hist[e.NewMessageID] = append(r.hist[e.NewMessageID], Record{Kind: "sent", At: e.At, Queue: e.Destination,
			MessageID: e.NewMessageID, Note: "redriven from " + e.MessageID})
		return
	}
	rec := Record{At: e.At, Queue: e.Queue, MessageID: e.MessageID, ReceiptHandle: e.ReceiptHandle,
		ReceiveCount: e.ReceiveCount, Timeout: e.Timeout, Err: e.Err}
	if e.Injected {
		rec.Note = "injected"
	}
	switch e.Kind {
	case sqsq.EventReceived:
		rec.Kind = "received"
		if e.Duplicate {
			rec.Note = "duplicate delivery"
		}
	case sqsq.EventVisibilityChanged:
		rec.Kind = "visibility"
	case sqsq.EventDeleted:
		rec.Kind = "deleted"
		if e.Err == nil && !e.Removed {
			rec.Note = "no-op"
		}
	case sqsq.EventDeadLettered:
		rec.Kind = "moved to DLQ"
		rec.Note = e.DeadLetterQueue
	}
	r.hist[e.MessageID] = append(r.hist[e.MessageID], rec)
}

// History returns the records of one message, oldest first; nil if the
// recorder never saw it.
func (r *Recorder) History(messageID string) []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.build()
	return append([]Record(nil), r.hist[messageID]...)
}

// MessageIDs returns the ids of every message seen, in order of first sight.
func (r *Recorder) MessageIDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.build()
	return append([]string(nil), r.ordered...)
}

var (
	registryMu sync.Mutex
	registry   = map[*Recorder]struct{}{}
)

func register(r *Recorder) {
	registryMu.Lock()
	registry[r] = struct{}{}
	registryMu.Unlock()
}

func unregister(r *Recorder) {
	registryMu.Lock()
	delete(registry, r)
	registryMu.Unlock()
}

// History returns the history of the message with that id on q (and, after
// a dead-letter move, on its DLQ) as recorded for a broker made by
// [NewBroker]; nil if none saw it. Message ids are random UUIDs, so the id
// finds the right broker even with parallel tests.
func History(q *sqsq.Queue, messageID string) []Record {
	registryMu.Lock()
	defer registryMu.Unlock()
	for r := range registry {
		h := r.History(messageID)
		for _, rec := range h {
			if rec.Queue == q.Name() {
				return h
			}
		}
	}
	return nil
}
