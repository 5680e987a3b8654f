package main

import (
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqsq/sqsq/sqshttp"
)

// With -max-conns, each connection holds a slot until it closes, and a
// consumer that long-polls again at once never closes its own: 1,024 such
// consumers held every slot, and a producer got no answer. So when a
// client waits to connect and no slot is free, fairness takes one back:
// the keep-alive connection idle longest is closed (as IdleTimeout would
// close it later), else the oldest parked long poll is ended early — it
// answers empty, as if its wait had ended, with Connection: close — so its
// slot goes to the next client in the kernel's queue, and the poller, which
// polls again, queues behind it. Nothing is lost: a parked receive holds
// no message.
type fairness struct {
	log *slog.Logger
	max int

	mu    sync.Mutex
	idle  map[net.Conn]time.Time // keep-alive connections between requests, since when
	polls map[*poll]struct{}     // requests being served

	logged atomic.Int64 // when the limit was last logged (Unix ns)
}

// poll is a request being served, which may be a long poll.
type poll struct {
	start time.Time
	end   func() bool // sqshttp.WithEarlyEnd's
	cut   atomic.Bool // ended early: answer with Connection: close
}

func newFairness(log *slog.Logger, max int) *fairness {
	return &fairness{log: log, max: max, idle: map[net.Conn]time.Time{}, polls: map[*poll]struct{}{}}
}

// connState is the http.Server's ConnState hook: it tracks idle
// keep-alive connections.
func (f *fairness) connState(c net.Conn, s http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s == http.StateIdle {
		f.idle[c] = time.Now()
	} else {
		delete(f.idle, c)
	}
}

// wrap registers each request served by next, so that free can end it
// early if it is a long poll.
func (f *fairness) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, end := sqshttp.WithEarlyEnd(r)
		p := &poll{start: time.Now(), end: end}
		f.mu.Lock()
		f.polls[p] = struct{}{}
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			delete(f.polls, p)
			f.mu.Unlock()
		}()
		next.ServeHTTP(&closeIfCut{ResponseWriter: w, p: p}, r)
	})
}

// free takes a connection slot back for a client waiting to connect; it
// reports whether it found one to take.
func (f *fairness) free() bool {
	f.mu.Lock()
	var oldest net.Conn
	var since time.Time
	for c, t := range f.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	if oldest != nil {
		delete(f.idle, oldest)
		f.mu.Unlock()
		_ = oldest.Close()
		f.note("closed the keep-alive connection idle longest")
		return true
	}
	polls := make([]*poll, 0, len(f.polls))
	for p := range f.polls {
		if !p.cut.Load() {
			polls = append(polls, p)
		}
	}
	f.mu.Unlock()
	slices.SortFunc(polls, func(a, b *poll) int { return a.start.Compare(b.start) }) // the oldest first
	for _, p := range polls {
		p.cut.Store(true) // before end: the answer may be written at once
		if p.end() {
			f.note("ended the oldest long poll early (an empty answer) and closed its connection")
			return true
		}
		p.cut.Store(false) // not a parked receive
	}
	return false
}

// note logs, at most once a minute, that the connection limit is reached.
func (f *fairness) note(what string) {
	now := time.Now().UnixNano()
	last := f.logged.Load()
	if now-last < int64(time.Minute) || !f.logged.CompareAndSwap(last, now) {
		return
	}
	f.log.Warn("connection limit reached: a client waits to connect", "max-conns", f.max, "action", what,
		"hint", "long-polling consumers hold a connection each; raise -max-conns if this is steady")
}

// closeIfCut answers a request that fairness ended early with
// Connection: close, so that its connection gives its slot back.
type closeIfCut struct {
	http.ResponseWriter
	p *poll
}

func (w *closeIfCut) WriteHeader(status int) {
	if w.p.cut.Load() {
		w.Header().Set("Connection", "close")
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *closeIfCut) Write(b []byte) (int, error) {
	if w.p.cut.Load() {
		w.Header().Set("Connection", "close") // a no-op once the header is written
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the connection's writer.
func (w *closeIfCut) Unwrap() http.ResponseWriter { return w.ResponseWriter }
