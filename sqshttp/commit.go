package sqshttp

import (
	"context"
	"log/slog"
	"net/http"
)

// WithCommit makes the handler call commit after each call that
// succeeded and before it answers: an answer of 200 then means what
// commit makes it mean. Durable mode gives (*durable.Store).Sync, which
// returns once the call's changes are on disk, so that a call answered
// 200 survives a crash a moment later. If commit fails, the client gets
// 500 InternalFailure instead, as AWS answers a failure of its own, and
// retries; the change may have been made, as after any 5xx.
func WithCommit(commit func(ctx context.Context) error) Option {
	return optionFunc(func(c *config) { c.commit = commit })
}

// committed runs the commit hook for request r, if there is one.
func (h *handler) committed(r *http.Request) *wireError {
	if h.cfg.commit == nil {
		return nil
	}
	if err := h.cfg.commit(r.Context()); err != nil {
		if r.Context().Err() != nil { // the client left; nobody reads this
			return newWireError(codeRequestCanceled, "The request was cancelled.")
		}
		log := h.cfg.log
		if log == nil {
			log = slog.Default()
		}
		log.Error("sqshttp: a call's changes could not be committed; answered 500 InternalFailure", "error", err)
		return errInternal()
	}
	return nil
}
