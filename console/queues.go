package console

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sqsq/sqsq"
)

// queueSummary is a queue as GET /_sqsq/api/queues lists it.
type queueSummary struct {
	Name   string `json:"name"`
	URL    string `json:"url"`
	ARN    string `json:"arn"`
	FIFO   bool   `json:"fifo"`
	Counts counts `json:"counts"`
	// OldestAgeMs is the age of the oldest stored message, any state,
	// counted from its send; OldestAvailableAgeMs how long the oldest
	// available message has waited (ApproximateAgeOfOldestMessage).
	OldestAgeMs          int64 `json:"oldestAgeMs"`
	OldestAvailableAgeMs int64 `json:"oldestAvailableAgeMs"`
	// Attributes are GetQueueAttributes All's; a listing asked for
	// ?attributes=false leaves them out.
	Attributes attributes `json:"attributes,omitempty"`
	// DeadLetterQueue is the target of the queue's RedrivePolicy, nil
	// without one.
	DeadLetterQueue *deadLetterQueue `json:"deadLetterQueue"`
	// Sources are the queues whose RedrivePolicy names this one
	// (ListDeadLetterSourceQueues): non-empty for a dead-letter queue.
	Sources []queueRef `json:"sources"`
}

type counts struct {
	Available int `json:"available"`
	InFlight  int `json:"inflight"`
	Delayed   int `json:"delayed"`
}

type deadLetterQueue struct {
	queueRef
	ARN             string `json:"arn"`
	MaxReceiveCount int    `json:"maxReceiveCount"`
}

// queueRef names a queue of a DLQ link, with its namespace. Local is true
// for a queue of the namespace shown; the console shows the others in
// theirs. URL is "" for a queue that does not exist (any more).
type queueRef struct {
	Name    string `json:"name"`
	URL     string `json:"url"`
	Account string `json:"account"`
	Region  string `json:"region"`
	Local   bool   `json:"local"`
}

// listQueues answers GET /_sqsq/api/queues: every queue of the namespace
// (?account=, ?region=), in name order, with its counts and DLQ links, and
// its attributes unless ?attributes=false (the page's list shows none, and
// they are most of the answer's bytes and cost).
func (c *console) listQueues(w http.ResponseWriter, r *http.Request) {
	withAttrs := true
	switch v := r.URL.Query().Get("attributes"); v {
	case "", "true":
	case "false":
		withAttrs = false
	default:
		fail(w, sqsq.InvalidParameter("attributes", v, "it must be true or false."))
		return
	}
	b, ok := c.scope(w, r, false)
	if !ok {
		return
	}
	queues := b.Queues()
	// Streamed a queue at a time: the page asks every second, and 10,000
	// queues make an answer of megabytes.
	setJSONHeaders(w)
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10) // 10,000 queues are 7 MB: fewer, larger writes
	defer bw.Flush()
	_, _ = io.WriteString(bw, `{"queues":[`)
	base := c.baseURL(r)
	var buf []byte
	var keys []string
	n := 0
	for _, q := range queues {
		s, err := c.summary(r.Context(), base, b, q, withAttrs)
		if err != nil {
			continue // deleted since the listing, or the broker closed
		}
		buf = buf[:0]
		if n > 0 {
			buf = append(buf, ',')
		}
		buf, keys = s.appendJSON(buf, keys)
		_, _ = bw.Write(buf)
		n++
	}
	now, _ := json.Marshal(c.now())
	_, _ = io.WriteString(bw, `],"now":`+string(now)+"}\n")
}

// getQueue answers GET /_sqsq/api/queues/{name}: one queue as listed.
func (c *console) getQueue(w http.ResponseWriter, r *http.Request) {
	b, q, ok := c.queue(w, r)
	if !ok {
		return
	}
	s, err := c.summary(r.Context(), c.baseURL(r), b, q, true)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s)
}

// attributes are a queue's attributes, written in key order by hand
// (summary_json.go).
type attributes map[string]string

// summary describes q, a queue of the namespace of b, with its attributes
// if withAttrs.
func (c *console) summary(ctx context.Context, base string, b *sqsq.Broker, q *sqsq.Queue, withAttrs bool) (queueSummary, error) {
	st, err := q.Stats()
	if err != nil {
		return queueSummary{}, err
	}
	names := []string{sqsq.AttrRedrivePolicy} // for the DLQ link
	if withAttrs {
		names[0] = sqsq.AttrAll
	}
	attrs, err := q.GetAttributes(ctx, names...)
	if err != nil {
		return queueSummary{}, err
	}
	s := queueSummary{
		Name: q.Name(), URL: q.URLAt(base), ARN: q.ARN(), FIFO: q.FIFO(),
		Counts:               counts{Available: st.Visible, InFlight: st.InFlight, Delayed: st.Delayed},
		OldestAgeMs:          st.OldestAge.Milliseconds(),
		OldestAvailableAgeMs: st.OldestAvailableAge.Milliseconds(),
		Sources:              []queueRef{},
	}
	if withAttrs {
		s.Attributes = attrs
	}
	if rp := attrs[sqsq.AttrRedrivePolicy]; rp != "" {
		if p, err := sqsq.ParseRedrivePolicy(rp); err == nil {
			s.DeadLetterQueue = &deadLetterQueue{queueRef: c.refOfARN(ctx, base, b, p.DeadLetterTargetArn), ARN: p.DeadLetterTargetArn, MaxReceiveCount: p.MaxReceiveCount}
		}
	}
	in := sqsq.ListDeadLetterSourceQueuesInput{MaxResults: sqsq.Some(1000)}
	for {
		page, err := q.ListDeadLetterSourceQueues(ctx, in)
		if err != nil {
			return queueSummary{}, err
		}
		for _, u := range page.QueueURLs {
			s.Sources = append(s.Sources, c.refOfURL(ctx, base, b, u))
		}
		if page.NextToken == "" {
			break
		}
		in.NextToken = page.NextToken
	}
	return s, nil
}

// refOfARN names the queue of arn (arn:aws:sqs:region:account:name), seen
// from the namespace of b.
func (c *console) refOfARN(ctx context.Context, base string, b *sqsq.Broker, arn string) queueRef {
	account, region, name, ok := b.Locate(arn)
	if !ok {
		return queueRef{Name: arn}
	}
	ref := queueRef{Name: name, Account: account, Region: region, Local: region == b.Region() && account == b.AccountID()}
	if q, err := b.GetQueue(ctx, arn); err == nil {
		ref.URL = q.URLAt(base)
	}
	return ref
}

// refOfURL names a source queue of a dead-letter queue from the URL
// ListDeadLetterSourceQueues gives (its broker's base URL, not the
// request's; a URL names its region and account, so it finds the queue
// from b whatever its namespace), seen from the namespace of b.
func (c *console) refOfURL(ctx context.Context, base string, b *sqsq.Broker, u string) queueRef {
	q, err := b.GetQueue(ctx, u)
	if err != nil { // deleted since the listing
		name := u[strings.LastIndexByte(u, '/')+1:]
		return queueRef{Name: name}
	}
	return c.refOfARN(ctx, base, b, q.ARN())
}

// createInput is the body of POST /_sqsq/api/queues. Attributes are
// CreateQueue's, in their wire form ({"VisibilityTimeout": "60"}).
type createInput struct {
	Name       string            `json:"name"`
	FIFO       bool              `json:"fifo"`
	Attributes map[string]string `json:"attributes"`
}

// createQueue answers POST /_sqsq/api/queues: CreateQueue, idempotent as
// SQS's (an existing queue with the same attributes is answered as
// created), with its errors: InvalidParameterValue for a bad name (a FIFO
// queue's must end in .fifo), QueueNameExists, QueueDeletedRecently. It
// creates the queue in the namespace of ?account= and ?region=, creating
// the namespace if need be (see scope; it stays, as after an SDK request,
// even if the queue is refused).
func (c *console) createQueue(w http.ResponseWriter, r *http.Request) {
	var in createInput
	if !decode(w, r, &in) {
		return
	}
	if in.Name == "" {
		fail(w, sqsq.MissingParameter("name"))
		return
	}
	attrs, err := sqsq.ParseQueueAttributes(in.Attributes)
	if err != nil {
		fail(w, err)
		return
	}
	if in.FIFO {
		attrs.FifoQueue = sqsq.Some(true)
	}
	b, ok := c.scope(w, r, true)
	if !ok {
		return
	}
	q, err := b.CreateQueue(r.Context(), sqsq.CreateQueueInput{QueueName: in.Name, Attributes: attrs})
	if err != nil {
		fail(w, err)
		return
	}
	s, err := c.summary(r.Context(), c.baseURL(r), b, q, true)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s)
}

// purge answers POST /_sqsq/api/queues/{name}/purge: PurgeQueue, with its
// 60-second rule (PurgeQueueInProgress, 403).
func (c *console) purge(w http.ResponseWriter, r *http.Request) {
	_, q, ok := c.queue(w, r)
	if !ok {
		return
	}
	if err := q.Purge(r.Context()); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, struct{}{})
}

func (c *console) now() time.Time { return c.b.Clock().Now().UTC() }
