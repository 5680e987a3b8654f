package sqshttp

import (
	"context"
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
	baseURL   string
	requestID func() string
	maxBody   int64
	drain     context.Context
}

// DefaultMaxRequestBytes is the default limit on a request body: room for
// a 1 MiB batch however its client escapes it.
const DefaultMaxRequestBytes = 4 << 20

func defaultConfig() config {
	return config{requestID: ids.NewRandom(), maxBody: DefaultMaxRequestBytes}
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

// WithDrain makes long polls end when ctx is done: a receive parked for
// messages returns at once with what it has (nothing), as if its wait had
// ended, so a server can shut down gracefully without waiting up to 20
// seconds — or forever on a virtual clock — for its parked receives. Other
// requests are not affected.
func WithDrain(ctx context.Context) Option {
	return optionFunc(func(c *config) { c.drain = ctx })
}
