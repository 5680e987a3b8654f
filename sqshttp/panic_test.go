package sqshttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/suite"
	"github.com/sqsq/sqsq/sqshttp"
)

// panicOnSend is an Observer that panics with v whenever it is told of a
// send of the body "boom": the user's code failing inside a request.
type panicOnSend struct{ v any }

func (p panicOnSend) Observe(e sqsq.Event) {
	if e.Kind == sqsq.EventSent && e.Body == "boom" {
		panic(p.v)
	}
}

// syncBuffer is a log destination that tests read while requests run.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// panicFixture is a handler logging to the returned buffer, over a broker
// whose observer panics with v on sends of "boom".
func panicFixture(t *testing.T, v any) (*fixture, *syncBuffer) {
	t.Helper()
	var reqs atomic.Int64
	b, clk := suite.NewBroker(t, sqsq.WithObserver(panicOnSend{v}))
	log := &syncBuffer{}
	h := sqshttp.NewHandler(b,
		sqshttp.WithRequestIDFunc(func() string { return fmt.Sprintf("req-%d", reqs.Add(1)) }),
		sqshttp.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	return &fixture{t: t, b: b, clk: clk, h: h}, log
}

// protocolCalls are SendMessage and a ReceiveMessage of up to 10 messages
// in one protocol.
type protocolCalls struct {
	name    string
	send    func(f *fixture, url, body string) *httptest.ResponseRecorder
	receive func(f *fixture, url string, wait int) *httptest.ResponseRecorder
}

var panicProtocols = []protocolCalls{
	{"JSON",
		func(f *fixture, url, body string) *httptest.ResponseRecorder {
			return f.jsonCall("SendMessage", `{"QueueUrl":"`+url+`","MessageBody":"`+body+`"}`)
		},
		func(f *fixture, url string, wait int) *httptest.ResponseRecorder {
			return f.jsonCall("ReceiveMessage", fmt.Sprintf(`{"QueueUrl":%q,"MaxNumberOfMessages":10,"WaitTimeSeconds":%d}`, url, wait))
		}},
	{"Query",
		func(f *fixture, url, body string) *httptest.ResponseRecorder {
			return f.queryCall("/", form("Action", "SendMessage", "QueueUrl", url, "MessageBody", body))
		},
		func(f *fixture, url string, wait int) *httptest.ResponseRecorder {
			return f.queryCall("/", form("Action", "ReceiveMessage", "QueueUrl", url, "MaxNumberOfMessages", "10", "WaitTimeSeconds", fmt.Sprint(wait)))
		}},
}

// A request that panics is answered as AWS answers a failure of its own,
// HTTP 500 InternalFailure in the request's protocol (API Reference,
// Common Errors), and logged with its stack; the queue is not left locked,
// and the next requests on it, a long poll included, are served.
func TestPanicIsInternalFailure(t *testing.T) {
	t.Parallel()
	for _, p := range panicProtocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			f, log := panicFixture(t, "observer bug")
			url := f.queue("q", nil)
			w := p.send(f, url, "boom")
			if w.Code != http.StatusInternalServerError {
				t.Fatalf("status %d, want 500: %s", w.Code, w.Body)
			}
			if id := w.Header().Get("x-amzn-RequestId"); id != "req-1" {
				t.Errorf("x-amzn-RequestId %q, want req-1", id)
			}
			const msg = "The request processing has failed because of an unknown error."
			if p.name == "JSON" {
				var e jsonError
				if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Type != "com.amazonaws.sqs#InternalFailure" || e.Message != msg {
					t.Errorf("body %s (%v), want an InternalFailure", w.Body, err)
				}
				if ct, q := w.Header().Get("Content-Type"), w.Header().Get("x-amzn-query-error"); ct != "application/x-amz-json-1.0" || q != "InternalFailure;Receiver" {
					t.Errorf("Content-Type %q, x-amzn-query-error %q", ct, q)
				}
			} else {
				var e xmlError
				if err := xml.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error.Type != "Receiver" || e.Error.Code != "InternalFailure" ||
					e.Error.Message != msg || e.RequestId != "req-1" {
					t.Errorf("body %s (%v), want an InternalFailure ErrorResponse", w.Body, err)
				}
			}
			for _, want := range []string{"level=ERROR", "request_id=req-1", `panic="observer bug"`, "stack=", "recoverPanic"} {
				if !strings.Contains(log.String(), want) {
					t.Errorf("log lacks %q:\n%s", want, log)
				}
			}

			mustOK(t, p.send(f, url, "ok"))
			got := mustOK(t, p.receive(f, url, 0)).Body.String()
			for _, body := range []string{"boom", "ok"} {
				if !strings.Contains(got, body) {
					t.Errorf("receive after the panic lacks %q (the panicking send stays applied): %s", body, got)
				}
			}
			q, err := f.b.GetQueue(context.Background(), "q")
			if err != nil {
				t.Fatal(err)
			}
			parked := make(chan *httptest.ResponseRecorder, 1)
			go func() { parked <- p.receive(f, url, 20) }()
			if err := q.WaitForReceivers(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			mustOK(t, p.send(f, url, "after"))
			if got := mustOK(t, <-parked).Body.String(); !strings.Contains(got, "after") {
				t.Errorf("the long poll after the panic got %s, want the message sent", got)
			}
		})
	}
}

// http.ErrAbortHandler, a handler's way to abort a response, goes on to
// net/http, unlogged.
func TestPanicAbortHandlerGoesOn(t *testing.T) {
	t.Parallel()
	for _, p := range panicProtocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			f, log := panicFixture(t, http.ErrAbortHandler)
			url := f.queue("q", nil)
			v := func() (v any) {
				defer func() { v = recover() }()
				p.send(f, url, "boom")
				return nil
			}()
			if v != http.ErrAbortHandler {
				t.Fatalf("ServeHTTP panicked with %v, want http.ErrAbortHandler", v)
			}
			if log.String() != "" {
				t.Errorf("logged %s", log)
			}
			mustOK(t, p.send(f, url, "ok"))
		})
	}
}
