// Package console serves a developer console for a [sqsq.Broker]: a JSON
// API under /_sqsq/api/ that shows what is in the queues without changing
// them ([sqsq.Queue.Peek]) and runs the few mutations a developer needs
// (create a queue, send, purge, delete a message, redrive a dead-letter
// queue), and a web page under /_sqsq/ui/ that drives it. cmd/sqsq mounts
// it; any program can:
//
//	mux.Handle("/_sqsq/", console.Handler(b))
//	http.ListenAndServe("127.0.0.1:9324", sqshttp.LoopbackOnly(mux))
//
// With [WithHistory] it also serves the delivery history of each message
// (package history): what happened to it, receive by receive, faults
// injected included.
//
// One endpoint serves every account and region, each a namespace of queues
// ([sqsq.Broker.Scope]); the console shows one at a time. Every queue
// endpoint takes ?account= and ?region= (default: the broker's own), a
// namespace the endpoint lacks answers 404, and GET /_sqsq/api/namespaces
// lists those with queues.
//
// The page is embedded (no build step, no CDN, no external font): it works
// offline. The API answers JSON; an error is {"error": message, "code":
// SQS error code} with an HTTP status that says the same (404 for a queue
// or message that does not exist, 405 with Allow for a method an endpoint
// does not serve).
//
// The console changes queues, so serve it only where web pages of other
// sites cannot reach it: wrap it, as cmd/sqsq wraps its whole server, in
// [sqshttp.LoopbackOnly], which refuses requests from foreign origins and
// host names (DNS rebinding). The page's own requests are same-origin and
// pass.
package console

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/history"
	"github.com/sqsq/sqsq/sqshttp"
)

// Option configures [Handler].
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	baseURL string
	advance func(time.Duration) (time.Time, error)
	history *history.Recorder // nil: the history is off
	// pageBytes is maxPageBytes; the tests set a smaller cap, to page
	// through kilobytes rather than tens of megabytes under -race.
	pageBytes int
}

// WithVirtualClock tells the console that the broker's clock is virtual (it
// moves only when told) and how to move it: advance moves it forward by d
// and returns the new time, or an error that says why it refused (it is
// shown to the user as InvalidParameterValue). The console then reports
// the clock as virtual, serves POST /_sqsq/api/clock/advance and shows the
// advance buttons. advance must be safe for concurrent use; nil leaves the
// clock real.
func WithVirtualClock(advance func(d time.Duration) (time.Time, error)) Option {
	return optionFunc(func(c *config) { c.advance = advance })
}

// WithBaseURL fixes the scheme and host of the queue URLs the console shows,
// as sqshttp.WithBaseURL does for the SQS endpoint. By default they are
// those of each request.
func WithBaseURL(base string) Option {
	return optionFunc(func(c *config) { c.baseURL = strings.TrimRight(base, "/") })
}

// console is the handler of one broker.
type console struct {
	b   *sqsq.Broker
	cfg config
	mux *http.ServeMux
}

// Handler returns the console of b: the JSON API under /_sqsq/api/ and the
// web page under /_sqsq/ui/ (see the package doc and cmd/sqsq/README.md for
// the endpoints). It shows the queues of every namespace (account and
// region) of b's endpoint, one at a time, by default b's own (see
// [sqsq.Broker.Scope]). Any other path under /_sqsq/ answers 404. It is
// safe for concurrent use.
func Handler(b *sqsq.Broker, opts ...Option) http.Handler {
	c := &console{b: b, mux: http.NewServeMux(), cfg: config{pageBytes: maxPageBytes}}
	for _, o := range opts {
		o.apply(&c.cfg)
	}
	c.routes()
	return c
}

func (c *console) ServeHTTP(w http.ResponseWriter, r *http.Request) { c.mux.ServeHTTP(w, r) }

func (c *console) routes() {
	m := c.mux
	m.Handle("/_sqsq/api/namespaces", methods{"GET": c.listNamespaces})
	m.Handle("/_sqsq/api/queues", methods{"GET": c.listQueues, "POST": c.createQueue})
	m.Handle("/_sqsq/api/queues/{name}", methods{"GET": c.getQueue})
	m.Handle("/_sqsq/api/queues/{name}/messages", methods{"GET": c.peek, "POST": c.send})
	m.Handle("/_sqsq/api/queues/{name}/messages/{id}", methods{"GET": c.getMessage, "DELETE": c.deleteMessage})
	m.Handle("/_sqsq/api/queues/{name}/purge", methods{"POST": c.purge})
	m.Handle("/_sqsq/api/queues/{name}/redrive", methods{"POST": c.redrive})
	m.Handle("/_sqsq/api/queues/{name}/tasks", methods{"GET": c.tasks})
	c.historyRoutes()
	m.Handle("/_sqsq/api/clock", methods{"GET": c.clock})
	if c.cfg.advance != nil {
		m.Handle("/_sqsq/api/clock/advance", methods{"POST": c.advanceClock})
	}
	m.Handle("/_sqsq/ui/", methods{"GET": serveUI})
	m.Handle("/_sqsq/ui", http.RedirectHandler("/_sqsq/ui/", http.StatusMovedPermanently))
	m.HandleFunc("/_sqsq/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, codeUnknownOperation, "no such endpoint: "+r.URL.Path+"; the console serves /_sqsq/api/… and /_sqsq/ui/")
	})
}

// methods serves a path by method, answering 405 with Allow (and a JSON
// error) for the others. HEAD is served as GET.
type methods map[string]http.HandlerFunc

func (m methods) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	if h, ok := m[method]; ok {
		h(w, r)
		return
	}
	allow := make([]string, 0, len(m)+1)
	for k := range m {
		allow = append(allow, k)
		if k == http.MethodGet {
			allow = append(allow, http.MethodHead)
		}
	}
	slices.Sort(allow)
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeError(w, http.StatusMethodNotAllowed, codeInvalidAction, r.Method+" "+r.URL.Path+" is not served; use "+strings.Join(allow, " or "))
}

// Codes of the console's own errors, which no SQS operation returns. They
// are the names AWS's protocol layer uses for the same faults.
const (
	codeUnknownOperation      sqsq.Code = "UnknownOperationException" // no such endpoint
	codeInvalidAction         sqsq.Code = "InvalidAction"             // a method the endpoint does not serve
	codeSerialization         sqsq.Code = "SerializationException"    // a body that is not the JSON expected
	codeRequestEntityTooLarge sqsq.Code = "RequestEntityTooLarge"
)

// apiError is the body of every error answer.
type apiError struct {
	Error string    `json:"error"`
	Code  sqsq.Code `json:"code"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	setJSONHeaders(w)
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // read by fetch(), never as HTML (nosniff): a body of '<' stays its size
	_ = enc.Encode(v)
}

func setJSONHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
}

func writeError(w http.ResponseWriter, status int, code sqsq.Code, msg string) {
	writeJSON(w, status, apiError{Error: msg, Code: code})
}

// fail answers err, an error of the broker: its SQS code with the status
// SQS gives it, except that a queue named in the path that does not exist
// is a 404, as for any resource of a URL.
func fail(w http.ResponseWriter, err error) {
	var e *sqsq.Error
	if !errors.As(err, &e) {
		writeError(w, http.StatusInternalServerError, "InternalFailure", err.Error())
		return
	}
	status := e.Code.Info().HTTPStatus
	if e.Code == sqsq.CodeQueueDoesNotExist {
		status = http.StatusNotFound
	}
	msg := e.Message
	if msg == "" {
		msg = string(e.Code)
	}
	writeError(w, status, e.Code, msg)
}

// maxBody bounds a request body: a message of the largest size SQS
// allows (1 MiB), its attributes and JSON's escapes fit, as in sqshttp.
const maxBody = sqshttp.DefaultMaxRequestBytes

// decode reads r's JSON body into v, answering the error itself when it
// cannot: 413 for a body too large, 400 SerializationException for one
// that is not the JSON expected (unknown fields included, to catch typos).
// An empty body reads as {}.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil, errors.Is(err, io.EOF): // io.EOF: no body at all
		return true
	case errors.As(err, &tooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, codeRequestEntityTooLarge, "the body is larger than the limit of 4 MiB")
	default:
		writeError(w, http.StatusBadRequest, codeSerialization, "the body is not the JSON expected: "+err.Error())
	}
	return false
}

// queue finds the queue named in the path in the namespace r names (see
// scope), and returns it with the namespace's broker: a name only, never a
// URL or ARN, which would reach another namespace.
func (c *console) queue(w http.ResponseWriter, r *http.Request) (*sqsq.Broker, *sqsq.Queue, bool) {
	b, ok := c.scope(w, r, false)
	if !ok {
		return nil, nil, false
	}
	name := r.PathValue("name")
	if name == "" || strings.ContainsAny(name, ":/") {
		writeError(w, http.StatusNotFound, sqsq.CodeQueueDoesNotExist, "The specified queue does not exist.")
		return nil, nil, false
	}
	q, err := b.GetQueue(r.Context(), name)
	if err != nil {
		fail(w, err)
		return nil, nil, false
	}
	return b, q, true
}

// baseURL is the scheme and host of the queue URLs shown for r.
func (c *console) baseURL(r *http.Request) string {
	if c.cfg.baseURL != "" {
		return c.cfg.baseURL
	}
	return sqshttp.RequestBaseURL(r) // the URLs the SDK gets from the same server
}
