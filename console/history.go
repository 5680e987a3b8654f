package console

import (
	"net/http"
	"strings"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/history"
)

// WithHistory makes the console serve the delivery histories rec records
// (install rec on the broker too, with sqsq.WithObserver):
// GET /_sqsq/api/queues/{name}/messages/{id}/history and
// GET /_sqsq/api/queues/{name}/history, and the page's History buttons.
// Without it those paths answer 404 and say the history is off.
func WithHistory(rec *history.Recorder) Option {
	return optionFunc(func(c *config) { c.history = rec })
}

// historyRoutes adds the history's endpoints to the console's mux.
func (c *console) historyRoutes() {
	m := c.mux
	if c.cfg.history == nil {
		m.HandleFunc("/_sqsq/api/queues/{name}/history", historyOff)
		m.HandleFunc("/_sqsq/api/queues/{name}/messages/{id}/history", historyOff)
		return
	}
	m.Handle("/_sqsq/api/queues/{name}/history", methods{"GET": c.queueHistory})
	m.Handle("/_sqsq/api/queues/{name}/messages/{id}/history", methods{"GET": c.messageHistory})
}

func historyOff(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, codeUnknownOperation, "the delivery history is off: this endpoint records no history of messages")
}

// messageHistory answers GET /_sqsq/api/queues/{name}/messages/{id}/history:
// {"history": …}, the history of message id if it had an event on the
// queue (history.Recorder.MessageOn); else 404, QueueDoesNotExist if the
// queue does not exist, ResourceNotFoundException if it does. Unlike the
// other endpoints, it answers for a queue deleted since: a history outlives
// its queue, until the recorder drops it.
func (c *console) messageHistory(w http.ResponseWriter, r *http.Request) {
	b, name, ok := c.historyQueue(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	h, found := c.cfg.history.MessageOn(b.AccountID(), b.Region(), name, id)
	if !found {
		if _, err := b.GetQueue(r.Context(), name); err != nil {
			fail(w, err)
			return
		}
		writeError(w, http.StatusNotFound, sqsq.CodeResourceNotFound, "no history of message "+id+" on the queue "+name+
			": the recorder never saw it there, or has dropped it")
		return
	}
	writeJSON(w, http.StatusOK, struct {
		History history.MessageHistory `json:"history"`
	}{h})
}

// queueHistory answers GET /_sqsq/api/queues/{name}/history:
// {"messages": […]}, the histories of the messages that had an event on
// the queue, in the order of their first event there (history.Recorder.Queue);
// 404 QueueDoesNotExist for a queue that neither exists nor has a history.
func (c *console) queueHistory(w http.ResponseWriter, r *http.Request) {
	b, name, ok := c.historyQueue(w, r)
	if !ok {
		return
	}
	hs := c.cfg.history.Queue(b.AccountID(), b.Region(), name)
	if len(hs) == 0 {
		if _, err := b.GetQueue(r.Context(), name); err != nil {
			fail(w, err)
			return
		}
		hs = []history.MessageHistory{}
	}
	writeJSON(w, http.StatusOK, struct {
		Messages []history.MessageHistory `json:"messages"`
	}{hs})
}

// historyQueue is the namespace r names and the queue name in the path,
// which need not exist any more (see messageHistory).
func (c *console) historyQueue(w http.ResponseWriter, r *http.Request) (*sqsq.Broker, string, bool) {
	b, ok := c.scope(w, r, false)
	if !ok {
		return nil, "", false
	}
	name := r.PathValue("name")
	if name == "" || strings.ContainsAny(name, ":/") {
		writeError(w, http.StatusNotFound, sqsq.CodeQueueDoesNotExist, "The specified queue does not exist.")
		return nil, "", false
	}
	return b, name, true
}
