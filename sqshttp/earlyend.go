package sqshttp

import (
	"context"
	"net/http"
	"sync"
)

// A long poll holds its connection for up to 20 s, and a client that
// polls again at once holds it for good. A server that bounds its
// connections must be able to take one back from a poller for a client
// that waits to connect: WithEarlyEnd lets it end one request's wait, as
// WithDrain ends every wait at shutdown.

type earlyKey struct{}

// earlyEnd is the state of one request's early end.
type earlyEnd struct {
	mu      sync.Mutex
	waiting context.CancelFunc // set while a ReceiveMessage of the request runs
	ended   bool
}

// WithEarlyEnd returns r with end, a function that ends r's ReceiveMessage
// wait early, as the end of the wait would: the answer is the messages the
// receive has then, which for a parked long poll is none, and nothing is
// lost. end reports whether it ended a wait: false when r is not a
// ReceiveMessage, has not reached the broker yet, or has answered. It is
// safe to call from any goroutine, at any time, any number of times.
func WithEarlyEnd(r *http.Request) (_ *http.Request, end func() bool) {
	e := &earlyEnd{}
	return r.WithContext(context.WithValue(r.Context(), earlyKey{}, e)), e.end
}

func (e *earlyEnd) end() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.waiting == nil || e.ended {
		return false
	}
	e.ended = true
	e.waiting()
	return true
}

// receiveContext returns the context of r's ReceiveMessage: r's, ended
// early by the handler's drain or by the request's WithEarlyEnd. early
// reports, after the call, whether one of them ended it (and not the
// client); done must be called when the receive returns.
func (h *handler) receiveContext(r *http.Request) (ctx context.Context, early func() bool, done func()) {
	e, _ := r.Context().Value(earlyKey{}).(*earlyEnd)
	if h.cfg.drain == nil && e == nil {
		return r.Context(), func() bool { return false }, func() {}
	}
	ctx, cancel := context.WithCancel(r.Context())
	stop := func() bool { return false }
	if h.cfg.drain != nil {
		stop = context.AfterFunc(h.cfg.drain, cancel)
	}
	if e != nil {
		e.mu.Lock()
		e.waiting = cancel
		e.mu.Unlock()
	}
	early = func() bool {
		if r.Context().Err() != nil {
			return false // the client went away: not ours to answer
		}
		if h.cfg.drain != nil && h.cfg.drain.Err() != nil {
			return true
		}
		if e == nil {
			return false
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.ended
	}
	done = func() {
		if e != nil {
			e.mu.Lock()
			e.waiting = nil
			e.mu.Unlock()
		}
		stop()
		cancel()
	}
	return ctx, early, done
}
