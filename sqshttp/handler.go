package sqshttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
	"github.com/sqsq/sqsq/internal/present"
)

const (
	jsonContentType = "application/x-amz-json-1.0"
	xmlContentType  = "text/xml"
	targetPrefix    = "AmazonSQS."
)

// operation is one SQS operation: how to make its input and how to call
// the adapter's method for it.
type operation struct {
	name       string
	input      reflect.Type // the SDK input struct
	queueLevel bool         // the input has a QueueUrl member
	result     bool         // the output has members (Query: an <OpResult> element; JSON: a body)
	call       func(ctx context.Context, c *awssqs.Client, in any) (smithy.Serializable, error)
}

// op builds the operation of an adapter method. Its name is the SDK's.
func op[In, Out any, PO interface {
	*Out
	smithy.Serializable
}](name string, f func(*awssqs.Client, context.Context, *In, ...func(*sqs.Options)) (*Out, error)) *operation {
	in, out := reflect.TypeFor[In](), reflect.TypeFor[Out]()
	o := &operation{name: name, input: in}
	_, o.queueLevel = in.FieldByName("QueueUrl")
	for i := 0; i < out.NumField(); i++ {
		if f := out.Field(i); f.IsExported() && f.Name != "ResultMetadata" {
			o.result = true
		}
	}
	o.call = func(ctx context.Context, c *awssqs.Client, in any) (smithy.Serializable, error) {
		res, err := f(c, ctx, in.(*In))
		if err != nil {
			return nil, err
		}
		return PO(res), nil
	}
	return o
}

// operations are the 23 operations of SQS (API version 2012-11-05), by name.
var operations = func() map[string]*operation {
	ops := []*operation{
		op("AddPermission", (*awssqs.Client).AddPermission),
		op("CancelMessageMoveTask", (*awssqs.Client).CancelMessageMoveTask),
		op("ChangeMessageVisibility", (*awssqs.Client).ChangeMessageVisibility),
		op("ChangeMessageVisibilityBatch", (*awssqs.Client).ChangeMessageVisibilityBatch),
		op("CreateQueue", (*awssqs.Client).CreateQueue),
		op("DeleteMessage", (*awssqs.Client).DeleteMessage),
		op("DeleteMessageBatch", (*awssqs.Client).DeleteMessageBatch),
		op("DeleteQueue", (*awssqs.Client).DeleteQueue),
		op("GetQueueAttributes", (*awssqs.Client).GetQueueAttributes),
		op("GetQueueUrl", (*awssqs.Client).GetQueueUrl),
		op("ListDeadLetterSourceQueues", (*awssqs.Client).ListDeadLetterSourceQueues),
		op("ListMessageMoveTasks", (*awssqs.Client).ListMessageMoveTasks),
		op("ListQueueTags", (*awssqs.Client).ListQueueTags),
		op("ListQueues", (*awssqs.Client).ListQueues),
		op("PurgeQueue", (*awssqs.Client).PurgeQueue),
		op("ReceiveMessage", (*awssqs.Client).ReceiveMessage),
		op("RemovePermission", (*awssqs.Client).RemovePermission),
		op("SendMessage", (*awssqs.Client).SendMessage),
		op("SendMessageBatch", (*awssqs.Client).SendMessageBatch),
		op("SetQueueAttributes", (*awssqs.Client).SetQueueAttributes),
		op("StartMessageMoveTask", (*awssqs.Client).StartMessageMoveTask),
		op("TagQueue", (*awssqs.Client).TagQueue),
		op("UntagQueue", (*awssqs.Client).UntagQueue),
	}
	m := make(map[string]*operation, len(ops))
	for _, o := range ops {
		m[o.name] = o
	}
	return m
}()

// handler serves SQS's wire protocols over a broker.
type handler struct {
	b   *sqsq.Broker
	cfg config

	fixed    *awssqs.Client // with cfg.baseURL; nil when URLs follow the request
	clients  sync.Map       // base URL → *awssqs.Client
	nClients atomic.Int32

	// Other accounts and regions than the broker's (see scope.go).
	scopeMu sync.Mutex
	scopes  map[scopeKey]*sqsq.Broker
	scoped  map[scopedClientKey]*awssqs.Client

	bufs    sync.Pool // *bytes.Buffer for request bodies
	writers sync.Pool // *jsonWriter

	// receiving is the memory of the bodies being received now, which
	// cfg.maxInFlight bounds (see readBody).
	receiving atomic.Int64
}

// NewHandler returns an http.Handler that serves Amazon SQS over b: the
// AWS JSON 1.0 protocol of the current SDKs and the legacy Query protocol,
// on any path. Every request is answered as SQS answers it — a result, or
// the error SQS sends, in the shape of its protocol — and never with a
// panic or an internal error for bad input. Requests are not
// authenticated; signatures are accepted and ignored. Each request is
// served by the scope of b (see [sqsq.Broker.Scope]) of its credential's
// account and region (see the package documentation).
//
// The handler translates requests with the [awssqs] adapter, so the
// in-process client and the HTTP endpoint behave identically. It is safe
// for concurrent use. It does not close b.
func NewHandler(b *sqsq.Broker, opts ...Option) http.Handler {
	h := &handler{b: b, cfg: defaultConfig()}
	for _, o := range opts {
		o.apply(&h.cfg)
	}
	if h.cfg.baseURL != "" {
		h.fixed = h.newClient(h.cfg.baseURL)
	}
	return h
}

// noRequestID is the request-id source of the adapters: the handler writes
// its own request id, never the adapter's.
func noRequestID() string { return "" }

func (h *handler) newClient(base string) *awssqs.Client {
	return awssqs.New(h.b, awssqs.WithBaseURL(base), awssqs.WithRequestIDFunc(noRequestID))
}

// maxClients bounds the cache of adapters by base URL: a server is reached
// under a few host names, not thousands.
const maxClients = 64

// client returns the adapter whose queue URLs start with base.
func (h *handler) client(base string) *awssqs.Client {
	if h.fixed != nil {
		return h.fixed
	}
	if c, ok := h.clients.Load(base); ok {
		return c.(*awssqs.Client)
	}
	c := h.newClient(base)
	if h.nClients.Load() < maxClients {
		if _, loaded := h.clients.LoadOrStore(base, c); !loaded {
			h.nClients.Add(1)
		}
	}
	return c
}

// baseURL is the scheme and host of the queue URLs for r.
func (h *handler) baseURL(r *http.Request) string {
	if h.cfg.baseURL != "" {
		return h.cfg.baseURL
	}
	return RequestBaseURL(r)
}

// RequestBaseURL is the scheme and host a client reached the server at,
// which starts the queue URLs the handler returns unless [WithBaseURL]
// fixes them: https when the request came over TLS or carries
// X-Forwarded-Proto: https, and the request's Host ("localhost" when it
// has none or one that cannot be part of a URL).
func RequestBaseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p == "https" || p == "http" {
		scheme = p
	}
	host := r.Host
	if host == "" || strings.ContainsAny(host, "/?#@ \"<>\\") {
		host = "localhost"
	}
	return scheme + "://" + host
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := h.cfg.requestID()
	w.Header().Set("x-amzn-RequestId", id)
	target := r.Header.Get("X-Amz-Target")
	isJSON := target != "" || strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-amz-json")
	defer h.recoverPanic(w, r, id, isJSON) // see panic.go
	noteProtocol(r, isJSON)
	if isJSON {
		h.serveJSON(w, r, target)
		return
	}
	h.serveQuery(w, r, id)
}

// readBody reads r's body into a pooled buffer, which the caller returns
// with h.putBody. It fails when the body is larger than the limit, when it
// cannot be read (the client stalled past the server's read deadline, or
// went away), and when the bodies being received already hold the
// handler's memory budget (see [WithMaxRequestBytesInFlight]).
//
// The buffer grows with the bytes that arrive, not with the length the
// request announces: a client that announces 4 MiB and sends 4 bytes
// costs a few KiB, so stalled clients cannot make the server allocate
// what they never send. Growth doubles, from bodyChunk up to the announced
// length (or the limit), so at most about twice the bytes received are
// allocated, and each growth is charged to the budget.
func (h *handler) readBody(r *http.Request) (*bytes.Buffer, *wireError) {
	tooLarge := newWireError(codeRequestEntityTooLarge,
		"Request body must be no larger than "+strconv.FormatInt(h.cfg.maxBody, 10)+" bytes.")
	if r.ContentLength > h.cfg.maxBody {
		return nil, tooLarge
	}
	limit := h.cfg.maxBody + 1 // one byte more tells a body over the limit
	buf, _ := h.bufs.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	// A pooled buffer's memory exists already: only growth is charged.
	data, held := buf.Bytes(), int64(0)
	defer func() { h.receiving.Add(-held) }()
	for {
		end := min(int64(cap(data)), limit)
		if int64(len(data)) == end {
			if end == limit {
				break // the body reached the limit
			}
			n := min(max(2*int64(cap(data)), bodyChunk), limit)
			if announced := r.ContentLength + 1; int64(cap(data)) < announced {
				n = min(n, announced) // the +1 reads the end without growing
			}
			// Charge the growth: the old array is garbage once copied.
			if !h.charge(n-held, n > smallBody) {
				h.putBody(buf)
				return nil, newWireError(sqsq.CodeServiceUnavailable, "The request bodies being received hold the "+
					strconv.FormatInt(h.inFlightBudget(), 10)+" bytes the server allows them; retry later.")
			}
			grown := make([]byte, len(data), n)
			copy(grown, data)
			data, held, end = grown, n, n
		}
		m, err := r.Body.Read(data[len(data):end])
		data = data[:len(data)+m]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			h.putBody(buf)
			return nil, newWireError(codeRequestCanceled, "The request body could not be read.")
		}
	}
	*buf = *bytes.NewBuffer(data)
	if int64(len(data)) > h.cfg.maxBody {
		h.putBody(buf)
		return nil, tooLarge
	}
	return buf, nil
}

// bodyChunk is the first allocation for a body that is not in a pooled
// buffer: a typical SQS request fits, and a stalled client holds no more.
const bodyChunk = 4 << 10

// inFlightBudget is the memory the bodies being received may hold: the
// configured budget, and at least one body of the largest size.
func (h *handler) inFlightBudget() int64 { return max(h.cfg.maxInFlight, h.cfg.maxBody+1) }

// smallBody is the size up to which a body may use the whole budget.
// Larger ones share all but an eighth of it, which is kept for small
// bodies — nearly every SQS request is a few KiB — so that clients that
// stall in the middle of large bodies cannot starve the rest: 40 of 3 MiB
// each held the whole 64 MiB, and every other request got 503.
const smallBody = 64 << 10

// charge takes n bytes of the in-flight budget, or reports that they are
// not there; a body growing past smallBody (large) has the smaller share.
func (h *handler) charge(n int64, large bool) bool {
	budget := h.inFlightBudget()
	if large {
		budget = max(budget-budget/8, h.cfg.maxBody+1)
	}
	for {
		cur := h.receiving.Load()
		if cur+n > budget {
			return false
		}
		if h.receiving.CompareAndSwap(cur, cur+n) {
			return true
		}
	}
}

// putBody returns a body buffer to the pool, unless it grew large.
func (h *handler) putBody(buf *bytes.Buffer) {
	if buf.Cap() <= 1<<20 {
		h.bufs.Put(buf)
	}
}

// invoke calls o with input in for request r. Receives end early, with
// what they have, when the drain context ends (see [WithDrain]).
func (h *handler) invoke(r *http.Request, o *operation, base string, in any, zeros present.Zeros) (smithy.Serializable, *wireError) {
	noteQueue(r, in)
	c, werr := h.clientFor(r, base)
	if werr != nil {
		return nil, werr
	}
	noteNamespace(r, h.b, in)
	if h.cfg.intercept != nil {
		sc := h.scopeOf(r)
		if werr := h.intercept(r, o.name, in, sc.account, sc.region); werr != nil {
			return nil, werr
		}
	}
	ctx, early := r.Context(), func() bool { return false }
	if o.name == "ReceiveMessage" { // a wait the server may end (WithDrain, WithEarlyEnd)
		var done func()
		ctx, early, done = h.receiveContext(r)
		defer done()
	}
	ctx = present.NewContext(ctx, zeros)
	out, err := o.call(ctx, c, in)
	if err == nil {
		return out, h.committed(r)
	}
	if errors.Is(err, context.Canceled) && early() {
		return &sqs.ReceiveMessageOutput{}, h.committed(r) // as if the wait had ended
	}
	werr = errorFor(err)
	if werr.err.Code == sqsq.CodeQueueDoesNotExist {
		werr = withHint(r, werr, h.hintMissing(r.Context(), r, in, base))
	}
	return nil, werr
}

func (h *handler) serveJSON(w http.ResponseWriter, r *http.Request, target string) {
	name, ok := strings.CutPrefix(target, targetPrefix)
	noteOperation(r, name)
	o := operations[name]
	if !ok || o == nil {
		h.discard(r)
		newWireError(codeUnknownOperation, "The operation "+strconv.Quote(target)+" is not known to this endpoint.").writeJSON(w, r)
		return
	}
	buf, werr := h.readBody(r)
	if werr != nil {
		werr.writeJSON(w, r)
		return
	}
	in := reflect.New(o.input).Interface()
	zeros, err := decodeJSON(buf.Bytes(), in)
	h.putBody(buf)
	if err != nil {
		newWireError(codeSerialization, err.Error()).writeJSON(w, r)
		return
	}
	out, werr := h.invoke(r, o, h.baseURL(r), in, zeros)
	if werr != nil {
		werr.writeJSON(w, r)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", jsonContentType)
	if !o.result {
		// An operation without output members answers with an empty body,
		// not {}: AWS does (recorded for SetQueueAttributes and
		// DeleteQueue), and the API reference says "an HTTP 200 response
		// with an empty HTTP body".
		hdr.Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
		return
	}
	jw, _ := h.writers.Get().(*jsonWriter)
	if jw == nil {
		jw = &jsonWriter{}
	}
	jw.reset()
	out.Serialize(jw)
	hdr.Set("Content-Length", strconv.Itoa(len(jw.buf)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(jw.buf)
	if cap(jw.buf) <= 1<<20 {
		h.writers.Put(jw)
	}
}

// discard reads a little of an unwanted body, so the connection can be
// reused for small ones.
func (h *handler) discard(r *http.Request) {
	_, _ = io.CopyN(io.Discard, r.Body, 64<<10)
}
