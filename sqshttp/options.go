package sqshttp

import (
	"context"
	"log/slog"
	"strings"

	"github.com/sqsq/sqsq/internal/ids"
)

// Option configures the handler of [NewHandler]. Options are sealed: only
// this package implements them.
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	baseURL     string
	requestID   func() string
	maxBody     int64
	maxInFlight int64
	drain       context.Context
	log         *slog.Logger                // nil: slog.Default()
	intercept   Interceptor                 // nil: none (WithInterceptor)
	commit      func(context.Context) error // nil: none (WithCommit)
}

// DefaultMaxRequestBytes is the default limit on a request body: room for
// a 1 MiB batch however its client escapes it.
const DefaultMaxRequestBytes = 4 << 20

// DefaultMaxRequestBytesInFlight is the default memory budget of the
// request bodies being received at once: sixteen bodies of the largest
// default size, or some thirty 1 MiB batches.
const DefaultMaxRequestBytesInFlight = 64 << 20

func defaultConfig() config {
	return config{requestID: ids.NewRandom(), maxBody: DefaultMaxRequestBytes, maxInFlight: DefaultMaxRequestBytesInFlight}
}

// WithBaseURL fixes the scheme and host of the queue URLs the handler
// returns, for example "http://sqs.local:9324". By default each response
// uses the scheme and Host of its request (https when the request came
// over TLS or carries X-Forwarded-Proto: https), so a client reaches the
// queue at the URL it is given.
func WithBaseURL(base string) Option {
	return optionFunc(func(c *config) { c.baseURL = strings.TrimRight(base, "/") })
}

// WithRequestIDFunc makes the handler take the request id of each response
// (the x-amzn-RequestId header and the Query protocol's RequestId) from f,
// so golden tests get the same bytes on every run. The default is a random
// UUID.
func WithRequestIDFunc(f func() string) Option {
	return optionFunc(func(c *config) {
		if f != nil {
			c.requestID = f
		}
	})
}

// WithMaxRequestBytes sets the largest request body the handler reads
// (default [DefaultMaxRequestBytes]); a larger one is refused with HTTP 413
// and the error code RequestEntityTooLarge. n ≤ 0 restores the default.
func WithMaxRequestBytes(n int64) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.maxBody = n
		} else {
			c.maxBody = DefaultMaxRequestBytes
		}
	})
}

// WithMaxRequestBytesInFlight sets the memory budget of the request bodies
// the handler is receiving at once, across all requests (default
// [DefaultMaxRequestBytesInFlight]; never less than one body of the
// largest size). A body's buffer grows with the bytes that arrive — a
// client that announces a large body and sends little holds a few KiB —
// and each growth is charged to the budget until the body is complete. A
// request whose body would take the budget past its end is refused at once
// with HTTP 503 and the error code ServiceUnavailable, which the AWS SDKs
// retry, so clients that stall mid-body cannot make the server hold more
// than this. Bodies past 64 KiB share all but an eighth of the budget,
// which stays for the small bodies of nearly every SQS request, so clients
// stalled in large bodies cannot starve the others. n ≤ 0 restores the
// default.
func WithMaxRequestBytesInFlight(n int64) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.maxInFlight = n
		} else {
			c.maxInFlight = DefaultMaxRequestBytesInFlight
		}
	})
}

// WithDrain makes long polls end when ctx is done: a receive parked for
// messages returns at once with what it has (nothing), as if its wait had
// ended, so a server can shut down gracefully without waiting up to 20
// seconds — or forever on a virtual clock — for its parked receives. Other
// requests are not affected.
func WithDrain(ctx context.Context) Option {
	return optionFunc(func(c *config) { c.drain = ctx })
}

// WithLogger makes the handler log to l. It logs what it cannot answer as
// SQS would: a request whose handling panicked — in the code a broker runs
// for its user, an Observer or a Faults policy, or in sqsq itself — at
// error level, with the stack. nil, the default, logs to slog.Default().
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) { c.log = l })
}
