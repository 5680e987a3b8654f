package sqshttp

import (
	"log/slog"
	"net/http"
	"runtime/debug"
)

// recoverPanic answers a request whose handling panicked as AWS answers a
// failure of its own: HTTP 500 and InternalFailure, in the request's
// protocol. The panic is the user's code the broker runs (an Observer, a
// Faults policy) or a bug; the broker releases its locks however a call
// ends, so the next request is served as usual. It logs the panic with its
// stack, which net/http would otherwise print before dropping the
// connection. http.ErrAbortHandler, a handler's way to abort a response on
// purpose, goes on to net/http. Deferred by ServeHTTP, which it must be
// called by directly.
//
// The handler encodes each response whole before it writes the status, so
// a panic comes before anything is written.
func (h *handler) recoverPanic(w http.ResponseWriter, r *http.Request, requestID string, isJSON bool) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	log := h.cfg.log
	if log == nil {
		log = slog.Default()
	}
	log.Error("sqshttp: request panicked; answered 500 InternalFailure",
		"method", r.Method, "path", r.URL.Path, "request_id", requestID, "panic", v, "stack", string(debug.Stack()))
	if isJSON {
		errInternal().writeJSON(w, r)
		return
	}
	errInternal().writeXML(w, r, requestID)
}
