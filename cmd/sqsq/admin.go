package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// admin is the endpoint of -clock=virtual, under /_sqsq/. It is not
// registered in real-clock mode, where those paths are SQS's (and answer
// 404).
type admin struct {
	b   *sqsq.Broker
	clk *clock.Mock
	// mu serialises advances: concurrent clock.Mock.Add calls lose time and
	// move Now backwards. register makes it, so every handler shares it.
	mu *sync.Mutex
}

// clockLimit bounds the virtual clock: it stays before this instant. The
// broker keeps times as int64 Unix nanoseconds, which end at
// 2262-04-11T23:47:16.854775807Z; the 100 days left over cover every
// deadline it sets ahead of now (retention, at most 14 days, is the longest).
var clockLimit = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)

func (a admin) register(mux *http.ServeMux) {
	if a.mu == nil {
		a.mu = new(sync.Mutex)
	}
	mux.HandleFunc("GET /_sqsq/clock", a.now)
	mux.HandleFunc("/_sqsq/clock", methodNotAllowed("GET"))
	mux.HandleFunc("POST /_sqsq/clock/advance", a.advance)
	mux.HandleFunc("/_sqsq/clock/advance", methodNotAllowed("POST"))
	mux.HandleFunc("GET /_sqsq/queues/{name}/receivers", a.receivers)
	mux.HandleFunc("/_sqsq/queues/{name}/receivers", methodNotAllowed("GET"))
}

// registerAdminFallback answers the paths under /_sqsq/ that no endpoint
// serves with a plain 404, not SQS's: with the real clock the clock
// endpoints do not exist, and saying so saves a search.
func registerAdminFallback(mux *http.ServeMux, virtual bool) {
	msg := "no such endpoint; sqsq serves GET /_sqsq/clock, POST /_sqsq/clock/advance, GET /_sqsq/queues/{name}/receivers, GET /_sqsq/health and the console (/_sqsq/ui/, /_sqsq/api/)"
	if !virtual {
		msg = "no such endpoint; the clock endpoints under /_sqsq/ exist only with -clock=virtual (the console is at /_sqsq/ui/, the health check at GET /_sqsq/health)"
	}
	mux.HandleFunc("/_sqsq/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, msg)
	})
}

// methodNotAllowed answers a request for an admin path with a method it
// does not serve: 405 and the Allow header, as HTTP asks.
func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, r.Method+" "+r.URL.Path+" is not served; use "+allow)
	}
}

// clockState is the answer of the clock endpoints.
type clockState struct {
	Now        time.Time `json:"now"`
	UnixMillis int64     `json:"unixMillis"`
}

func (a admin) state() clockState {
	now := a.clk.Now()
	return clockState{Now: now.UTC(), UnixMillis: now.UnixMilli()}
}

func (a admin) now(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, a.state()) }

// advance moves the virtual clock forward by a duration given as
// {"duration":"30s"} or ?d=30s (Go syntax: 1h30m, 250ms, …): every delay,
// visibility timeout, retention period, long poll and move task whose time
// comes is due at once. Zero is a no-op; a negative duration, or one that
// would take the clock to clockLimit or beyond, is refused with 400.
// Concurrent advances add up.
func (a admin) advance(w http.ResponseWriter, r *http.Request) {
	d := r.URL.Query().Get("d")
	if d == "" {
		d = r.URL.Query().Get("duration")
	}
	if d == "" && r.ContentLength != 0 {
		var body struct {
			Duration string `json:"duration"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<10)).Decode(&body); err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("the body must be {\"duration\": \"30s\"}: %v", err))
			return
		}
		d = body.Duration
	}
	dur, err := time.ParseDuration(d)
	switch {
	case d == "":
		writeError(w, http.StatusBadRequest, `give the duration as {"duration":"30s"} or ?d=30s`)
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("bad duration: %v (Go syntax: 30s, 1h30m, 250ms)", err))
		return
	}
	now, err := a.advanceBy(dur)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, clockState{Now: now.UTC(), UnixMillis: now.UnixMilli()})
}

// advanceBy moves the virtual clock forward by d and returns the new time;
// it refuses a negative d, and one that would take the clock to clockLimit
// or beyond. The console's advance buttons use it too (see server.go).
func (a admin) advanceBy(d time.Duration) (time.Time, error) {
	if d < 0 {
		return time.Time{}, errors.New("the clock only moves forward")
	}
	// The check and the move happen under one lock, so that concurrent
	// advances add up exactly and none slips past the limit.
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.clk.Now()
	if !now.Add(d).Before(clockLimit) {
		return time.Time{}, fmt.Errorf("advancing %v would take the clock to %s; it must stay before %s, so advance at most %v",
			d, now.Add(d).UTC().Format(time.RFC3339Nano), clockLimit.Format(time.RFC3339), clockLimit.Sub(now)-time.Nanosecond)
	}
	a.clk.Add(d)
	return a.clk.Now(), nil
}

// receivers waits until at least ?atLeast=N (default 1) long polls are
// parked on the queue, so that a test advances the clock only once its
// receiver will see it; it answers {"parked": n}. It gives up when the
// client does. ?account= and ?region= name a queue of another account or
// region than the defaults.
func (a admin) receivers(w http.ResponseWriter, r *http.Request) {
	n := 1
	if s := r.URL.Query().Get("atLeast"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "atLeast must be a count")
			return
		}
	}
	b, ref := a.b, r.PathValue("name")
	if strings.ContainsAny(ref, "/:") {
		writeError(w, http.StatusNotFound, "The specified queue does not exist.")
		return
	}
	if account, region := r.URL.Query().Get("account"), r.URL.Query().Get("region"); account != "" || region != "" {
		// A queue of another account or region (see sqsq.Broker.Scope).
		account, region = cmp.Or(account, b.AccountID()), cmp.Or(region, b.Region())
		if !scopeName(account) || !scopeName(region) {
			writeError(w, http.StatusBadRequest, "account and region must be letters, digits, '-' and '_'")
			return
		}
		// By the queue's URL path, which finds it without opening a
		// namespace for whatever strings a request brings.
		ref = "/queue/" + region + "/" + account + "/" + ref
	}
	q, err := b.GetQueue(r.Context(), ref)
	if err != nil {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	if err := q.WaitForReceivers(r.Context(), n); err != nil {
		writeError(w, http.StatusRequestTimeout, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"parked": q.ParkedReceivers()})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// The code says what went wrong in the words of the console's API, which
// shares the paths under /_sqsq/.
func writeError(w http.ResponseWriter, status int, msg string) {
	code := "InvalidParameterValue"
	switch status {
	case http.StatusNotFound:
		code = "ResourceNotFoundException"
	case http.StatusMethodNotAllowed:
		code = "InvalidAction"
	case http.StatusInternalServerError:
		code = "InternalFailure"
	}
	writeJSON(w, status, map[string]string{"error": msg, "code": code})
}

// scopeName reports whether s can name an account or region: letters,
// digits, '-' and '_', as sqsq.Broker.Scope requires.
func scopeName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
