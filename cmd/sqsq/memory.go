package main

import (
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/sqsq/sqsq/sqshttp"
)

// After a large purge, queue deletion or drain, the messages are garbage,
// but Go's runtime collects only when the heap grows again or every two
// minutes, and gives the pages back to the system later still: 1 GB
// purged stayed in the process for 90 s. A server that just dropped much of
// its memory is idle enough to collect now, so memReleaser does it: after
// a purge, a queue deletion, or releaseDeletes messages deleted, once no
// such request has come for releaseQuiet, it collects and returns the
// freed memory to the system (debug.FreeOSMemory), at most once every
// releaseGap, since a collection costs CPU in proportion to what lives.

const (
	releaseQuiet   = time.Second
	releaseGap     = 10 * time.Second
	releaseDeletes = 10_000
)

type memReleaser struct {
	quiet, gap time.Duration
	release    func() // debug.FreeOSMemory, which collects first

	mu      sync.Mutex
	deletes int         // messages deleted since the last release
	due     bool        // a purge or queue deletion, or enough deletes
	timer   *time.Timer // fires releaseQuiet after the last shrinking request
	last    time.Time   // of the last release
}

func newMemReleaser() *memReleaser {
	return &memReleaser{quiet: releaseQuiet, gap: releaseGap, release: debug.FreeOSMemory}
}

// wrap watches the requests that shrink the store.
func (m *memReleaser) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, info := sqshttp.WithRequestInfo(r)
		next.ServeHTTP(w, r)
		switch {
		case info.ErrorCode != "":
		case info.Operation == "PurgeQueue" || info.Operation == "DeleteQueue":
			m.shrank(0, true)
		case info.Operation == "DeleteMessage":
			m.shrank(1, false)
		case info.Operation == "DeleteMessageBatch":
			m.shrank(10, false) // at most; close enough for a threshold
		case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/_sqsq/api/queues/") &&
			(strings.HasSuffix(r.URL.Path, "/purge") || strings.HasSuffix(r.URL.Path, "/redrive")):
			m.shrank(0, true) // the console's purge and redrive
		}
	})
}

// shrank notes deleted messages, or a purge-sized shrink when big, and
// (re)arms the quiet timer.
func (m *memReleaser) shrank(deleted int, big bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deletes += deleted
	if big || m.deletes >= releaseDeletes {
		m.due = true
	}
	if !m.due {
		return
	}
	wait := m.quiet
	if next := m.last.Add(m.gap); time.Until(next) > wait {
		wait = time.Until(next)
	}
	if m.timer == nil {
		m.timer = time.AfterFunc(wait, m.fire)
	} else {
		m.timer.Reset(wait)
	}
}

func (m *memReleaser) fire() {
	m.mu.Lock()
	if !m.due {
		m.mu.Unlock()
		return
	}
	m.due, m.deletes, m.last = false, 0, time.Now()
	m.mu.Unlock()
	m.release()
}

// stop ends a pending release.
func (m *memReleaser) stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.timer != nil {
		m.timer.Stop()
	}
}
