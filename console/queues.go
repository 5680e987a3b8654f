package console

import (
	"errors"
	"net/http"
	"net/url"
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
	OldestAgeMs          int64             `json:"oldestAgeMs"`
	OldestAvailableAgeMs int64             `json:"oldestAvailableAgeMs"`
	Attributes           map[string]string `json:"attributes"`
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

// queueRef names a queue of a DLQ link. Local is true for a queue of the
// console's account and region, which the console shows; the others are
// reachable by URL only.
type queueRef struct {
	Name  string `json:"name"`
	URL   string `json:"url"`
	Local bool   `json:"local"`
}

// listQueues answers GET /_sqsq/api/queues: every queue of the broker's
// account and region, in name order, with its counts and DLQ links.
func (c *console) listQueues(w http.ResponseWriter, r *http.Request) {
	queues, err := c.allQueues(r)
	if err != nil {
		fail(w, err)
		return
	}
	out := make([]queueSummary, 0, len(queues))
	for _, q := range queues {
		s, err := c.summary(r, q)
		if errors.Is(err, sqsq.ErrQueueDoesNotExist) {
			continue // deleted since the listing
		}
		if err != nil {
			fail(w, err)
			return
		}
		out = append(out, s)
	}
	writeJSON(w, http.StatusOK, struct {
		Queues []queueSummary `json:"queues"`
		Now    time.Time      `json:"now"`
	}{out, c.now()})
}

// getQueue answers GET /_sqsq/api/queues/{name}: one queue as listed.
func (c *console) getQueue(w http.ResponseWriter, r *http.Request) {
	q, ok := c.queue(w, r)
	if !ok {
		return
	}
	s, err := c.summary(r, q)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s)
}

// allQueues lists every queue of the broker, page by page.
func (c *console) allQueues(r *http.Request) ([]*sqsq.Queue, error) {
	var queues []*sqsq.Queue
	in := sqsq.ListQueuesInput{MaxResults: sqsq.Some(1000)}
	for {
		page, err := c.b.ListQueues(r.Context(), in)
		if err != nil {
			return nil, err
		}
		for _, u := range page.QueueURLs {
			q, err := c.b.GetQueue(r.Context(), u)
			if err == nil {
				queues = append(queues, q)
			}
		}
		if page.NextToken == "" {
			return queues, nil
		}
		in.NextToken = page.NextToken
	}
}

func (c *console) summary(r *http.Request, q *sqsq.Queue) (queueSummary, error) {
	st, err := q.Stats()
	if err != nil {
		return queueSummary{}, err
	}
	attrs, err := q.GetAttributes(r.Context(), sqsq.AttrAll)
	if err != nil {
		return queueSummary{}, err
	}
	s := queueSummary{
		Name: q.Name(), URL: c.queueURL(r, c.b.AccountID(), q.Name()), ARN: q.ARN(), FIFO: q.FIFO(),
		Counts:               counts{Available: st.Visible, InFlight: st.InFlight, Delayed: st.Delayed},
		OldestAgeMs:          st.OldestAge.Milliseconds(),
		OldestAvailableAgeMs: st.OldestAvailableAge.Milliseconds(),
		Attributes:           attrs,
		Sources:              []queueRef{},
	}
	if rp := attrs[sqsq.AttrRedrivePolicy]; rp != "" {
		if p, err := sqsq.ParseRedrivePolicy(rp); err == nil {
			s.DeadLetterQueue = &deadLetterQueue{queueRef: c.refOfARN(r, p.DeadLetterTargetArn), ARN: p.DeadLetterTargetArn, MaxReceiveCount: p.MaxReceiveCount}
		}
	}
	in := sqsq.ListDeadLetterSourceQueuesInput{MaxResults: sqsq.Some(1000)}
	for {
		page, err := q.ListDeadLetterSourceQueues(r.Context(), in)
		if err != nil {
			return queueSummary{}, err
		}
		for _, u := range page.QueueURLs {
			s.Sources = append(s.Sources, c.refOfURL(r, q, u))
		}
		if page.NextToken == "" {
			break
		}
		in.NextToken = page.NextToken
	}
	return s, nil
}

// refOfARN names the queue of arn (arn:aws:sqs:region:account:name).
func (c *console) refOfARN(r *http.Request, arn string) queueRef {
	parts := strings.Split(arn, ":")
	if len(parts) != 6 {
		return queueRef{Name: arn}
	}
	region, account, name := parts[3], parts[4], parts[5]
	return queueRef{Name: name, URL: c.queueURL(r, account, name), Local: region == c.b.Region() && account == c.b.AccountID()}
}

// refOfURL names a source queue of the dead-letter queue dlq from the URL
// ListDeadLetterSourceQueues gives (its broker's base URL, not the
// request's). A queue of the console's account is local if it is the
// broker's queue of that name and names dlq: a URL does not say the
// region, and a queue of another region may have the same name.
func (c *console) refOfURL(r *http.Request, dlq *sqsq.Queue, u string) queueRef {
	path := u
	if p, err := url.Parse(u); err == nil {
		path = p.Path
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) < 2 {
		return queueRef{Name: u, URL: u}
	}
	account, name := segs[len(segs)-2], segs[len(segs)-1]
	ref := queueRef{Name: name, URL: c.queueURL(r, account, name)}
	if account == c.b.AccountID() {
		if src, err := c.b.GetQueue(r.Context(), name); err == nil {
			attrs, err := src.GetAttributes(r.Context(), sqsq.AttrRedrivePolicy)
			if err == nil {
				p, err := sqsq.ParseRedrivePolicy(attrs[sqsq.AttrRedrivePolicy])
				ref.Local = err == nil && p.DeadLetterTargetArn == dlq.ARN()
			}
		}
	}
	return ref
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
// queue's must end in .fifo), QueueNameExists, QueueDeletedRecently.
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
	q, err := c.b.CreateQueue(r.Context(), sqsq.CreateQueueInput{QueueName: in.Name, Attributes: attrs})
	if err != nil {
		fail(w, err)
		return
	}
	s, err := c.summary(r, q)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s)
}

// purge answers POST /_sqsq/api/queues/{name}/purge: PurgeQueue, with its
// 60-second rule (PurgeQueueInProgress, 403).
func (c *console) purge(w http.ResponseWriter, r *http.Request) {
	q, ok := c.queue(w, r)
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
