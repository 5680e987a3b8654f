package awssqs

import (
	"context"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"

	"github.com/sqsq/sqsq"
)

// Client has the operation methods of the AWS SDK's *sqs.Client, with the
// same signatures, answered by a [sqsq.Broker] in the same process. Code
// that reaches SQS through an interface of *sqs.Client methods takes a
// *Client unchanged.
//
// A Client is safe for concurrent use; New is cheap, and a Client holds no
// state of its own besides its options. The optFns of each method are
// accepted and ignored: they configure the SDK's transport, which a Client
// does not have.
type Client struct {
	b         *sqsq.Broker
	baseURL   string // "" means the broker's own queue URLs
	requestID func() string
}

// The SDK's paginators take the client through these interfaces.
var (
	_ sqs.ListQueuesAPIClient                 = (*Client)(nil)
	_ sqs.ListDeadLetterSourceQueuesAPIClient = (*Client)(nil)
)

// Option configures a [Client]. Options are sealed: only this package
// implements them.
type Option interface {
	apply(*Client)
}

type optionFunc func(*Client)

func (f optionFunc) apply(c *Client) { f(c) }

// WithBaseURL makes the Client return queue URLs that start with base (for
// example "http://127.0.0.1:9324"; see [sqsq.Queue.URLAt]) instead of the
// broker's own URLs. Incoming queue URLs are resolved the
// same way whatever their scheme and host, so both forms keep working.
func WithBaseURL(base string) Option {
	return optionFunc(func(c *Client) { c.baseURL = strings.TrimRight(base, "/") })
}

// WithRequestIDFunc makes the Client take the request ids of its errors
// (the RequestID of the SDK's response error) from f, so tests that print
// errors get the same text on every run. The default is a random UUID.
func WithRequestIDFunc(f func() string) Option {
	return optionFunc(func(c *Client) {
		if f != nil {
			c.requestID = f
		}
	})
}

// New returns a Client over b.
func New(b *sqsq.Broker, opts ...Option) *Client {
	c := &Client{b: b, requestID: uuid.NewString}
	for _, o := range opts {
		o.apply(c)
	}
	return c
}

// Broker returns the broker the Client talks to.
func (c *Client) Broker() *sqsq.Broker { return c.b }

// call runs one operation: it fills in a nil input as the SDK does, fails
// at once when ctx has ended, and turns any error into the SDK's error
// chain for op.
//
// f is a method expression, not a method value, so that no closure is
// allocated per call.
func call[In, Out any](ctx context.Context, c *Client, op string, in *In, f func(*Client, context.Context, *In) (*Out, error)) (*Out, error) {
	if in == nil {
		in = new(In)
	}
	if err := ctx.Err(); err != nil {
		return nil, sdkError(op, err, "")
	}
	out, err := f(c, ctx, in)
	if err != nil {
		return nil, sdkError(op, err, c.requestID())
	}
	return out, nil
}

// queue resolves a QueueUrl member: any form of semantics §1.3 (a URL with
// any scheme and host, a bare name, an ARN). A URL names its queue's
// region as sqsq's URLs do (see [sqsq.Queue.URLAt]), whatever the Client's.
func (c *Client) queue(ctx context.Context, ref *string) (*sqsq.Queue, error) {
	if ref == nil {
		return nil, sqsq.MissingParameter("QueueUrl")
	}
	return c.b.GetQueue(ctx, *ref)
}

// url is the URL the Client reports for q.
func (c *Client) url(q *sqsq.Queue) string {
	if c.baseURL == "" {
		return q.URL()
	}
	return q.URLAt(c.baseURL)
}

// urls rewrites the broker's queue URLs to the Client's base; nil when
// there are none, as AWS omits an empty list. A queue deleted meanwhile
// keeps the broker's URL.
func (c *Client) urls(ctx context.Context, in []string) []string {
	if len(in) == 0 {
		return nil
	}
	if c.baseURL == "" {
		return in
	}
	out := make([]string, len(in))
	for i, u := range in {
		out[i] = u
		if q, err := c.b.GetQueue(ctx, u); err == nil {
			out[i] = q.URLAt(c.baseURL)
		}
	}
	return out
}

// seconds converts a whole-seconds wire value.
func seconds(n int32) time.Duration { return time.Duration(n) * time.Second }

// str dereferences an optional string member; nil reads as "".
func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// optional returns p's string, nil for "" (AWS omits empty members).
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
