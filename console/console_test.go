package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/console"
)

// start is the virtual clock's time in every test.
var start = time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)

// env is a broker on a mock clock and its console.
type env struct {
	t   *testing.T
	b   *sqsq.Broker
	clk *clock.Mock
	h   http.Handler
}

// setup serves the console of a new broker on a mock clock set to start,
// reported as virtual unless real is true.
func setup(t *testing.T, real bool, opts ...console.Option) *env {
	t.Helper()
	clk := clock.NewMock()
	clk.Set(start)
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	t.Cleanup(func() { _ = b.Close() })
	if !real {
		opts = append(opts, console.WithVirtualClock(func(d time.Duration) (time.Time, error) {
			if d < 0 {
				return time.Time{}, errors.New("the clock only moves forward")
			}
			clk.Add(d)
			return clk.Now(), nil
		}))
	}
	return &env{t: t, b: b, clk: clk, h: console.Handler(b, opts...)}
}

// with is e reporting to t, for subtests.
func (e *env) with(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

// do serves one request; body is sent as is if it is a string, else as
// its JSON.
func (e *env) do(method, target string, body any) *httptest.ResponseRecorder {
	e.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	req := httptest.NewRequest(method, target, r)
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

// ok serves a request that must answer 200 and decodes the answer into v
// (if not nil).
func (e *env) ok(method, target string, body, v any) {
	e.t.Helper()
	rec := e.do(method, target, body)
	if rec.Code != http.StatusOK {
		e.t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		e.t.Errorf("%s %s: Content-Type %q", method, target, ct)
	}
	if v != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
			e.t.Fatalf("%s %s: %v in %s", method, target, err, rec.Body)
		}
	}
}

// apiError is the body of an error answer.
type apiError struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// fails checks that a request answers status with the JSON error code.
func (e *env) fails(method, target string, body any, status int, code string) *httptest.ResponseRecorder {
	e.t.Helper()
	rec := e.do(method, target, body)
	var got apiError
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != status || got.Code != code || got.Error == "" {
		e.t.Errorf("%s %s: %d %s (%v), want %d and code %s", method, target, rec.Code, rec.Body, err, status, code)
	}
	return rec
}

// queue creates a queue.
func (e *env) queue(name string, attrs map[string]string) *sqsq.Queue {
	e.t.Helper()
	a, err := sqsq.ParseQueueAttributes(attrs)
	if err != nil {
		e.t.Fatal(err)
	}
	q, err := e.b.CreateQueue(context.Background(), sqsq.CreateQueueInput{QueueName: name, Attributes: a})
	if err != nil {
		e.t.Fatal(err)
	}
	return q
}

func (e *env) send(q *sqsq.Queue, in sqsq.SendInput) string {
	e.t.Helper()
	res, err := q.Send(context.Background(), in)
	if err != nil {
		e.t.Fatal(err)
	}
	return res.MessageId
}

func (e *env) stats(q *sqsq.Queue) sqsq.Stats {
	e.t.Helper()
	st, err := q.Stats()
	if err != nil {
		e.t.Fatal(err)
	}
	return st
}

// names lists the broker's queues.
func (e *env) names() []string {
	e.t.Helper()
	out, err := e.b.ListQueues(context.Background(), sqsq.ListQueuesInput{})
	if err != nil {
		e.t.Fatal(err)
	}
	var names []string
	for _, u := range out.QueueURLs {
		names = append(names, u[strings.LastIndex(u, "/")+1:])
	}
	return names
}

func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	e.queue("q", nil)
	for _, tc := range []struct {
		method, target, allow string
	}{
		{"DELETE", "/_sqsq/api/queues", "GET, HEAD, POST"},
		{"PUT", "/_sqsq/api/queues/q", "GET, HEAD"},
		{"PATCH", "/_sqsq/api/queues/q/messages", "GET, HEAD, POST"},
		{"PUT", "/_sqsq/api/queues/q/messages/some-id", "DELETE, GET, HEAD"},
		{"POST", "/_sqsq/api/namespaces", "GET, HEAD"},
		{"GET", "/_sqsq/api/queues/q/purge", "POST"},
		{"GET", "/_sqsq/api/queues/q/redrive", "POST"},
		{"POST", "/_sqsq/api/queues/q/tasks", "GET, HEAD"},
		{"POST", "/_sqsq/api/clock", "GET, HEAD"},
		{"GET", "/_sqsq/api/clock/advance", "POST"},
		{"POST", "/_sqsq/ui/", "GET, HEAD"},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			t.Parallel()
			rec := e.with(t).fails(tc.method, tc.target, nil, http.StatusMethodNotAllowed, "InvalidAction")
			if got := rec.Header().Get("Allow"); got != tc.allow {
				t.Errorf("Allow %q, want %q", got, tc.allow)
			}
		})
	}
}

func TestUnknownPaths(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	for _, target := range []string{"/_sqsq/api/", "/_sqsq/api/nope", "/_sqsq/api/queues/q/nope", "/_sqsq/nope", "/_sqsq/"} {
		e.fails("GET", target, nil, http.StatusNotFound, "UnknownOperationException")
	}
}

func mustGet(t *testing.T, e *env, name string) *sqsq.Queue {
	t.Helper()
	q, err := e.b.GetQueue(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
