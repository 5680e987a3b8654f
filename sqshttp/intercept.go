package sqshttp

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/sqsq/sqsq"
)

// Call is what an [Interceptor] is told of a request before the handler
// serves it.
type Call struct {
	// Operation is the SQS operation, such as "SendMessage".
	Operation string
	// Queue is the name of the queue the request names (QueueUrl,
	// QueueName or SourceArn), "" for none.
	Queue string
	// Account and Region are the namespace the request is served in: the
	// one its QueueUrl names, else its credential's.
	Account, Region string
}

// Intervention is an [Interceptor]'s answer: wait Delay, then answer the
// error if Code is set, or serve the call.
type Intervention struct {
	Delay time.Duration
	// Code is the error code answered instead of the call, such as
	// "ServiceUnavailable" or "ThrottlingException"; "" serves it.
	Code string
	// Status is the HTTP status of the error (default: the code's in
	// SQS, 400 for a code SQS does not model).
	Status int
	// Message is the error's message.
	Message string
}

// Interceptor decides, for each request the handler has decoded, whether
// to delay it or to answer an error instead of serving it: fault
// injection on the wire (package chaos has one driven by rules). It is
// called for every request, concurrently: it must be quick and safe for
// concurrent use.
type Interceptor interface {
	Intercept(ctx context.Context, c Call) Intervention
}

// WithInterceptor makes the handler consult ic before it serves each
// request it could decode. The delay is real time, whatever the broker's
// clock (a virtual clock would hold the request until someone moves it),
// and ends early, with the error answered or the call served, when the
// request is cancelled or the handler drains (see [WithDrain]). An error
// is answered in the request's protocol, with the header and document
// shapes SQS uses for its own errors, so an SDK's retry logic sees what it
// sees from AWS.
func WithInterceptor(ic Interceptor) Option {
	return optionFunc(func(c *config) { c.intercept = ic })
}

// intercept consults the interceptor about request r for operation op
// with input in, after the handler has chosen its namespace (account,
// region). It returns the error to answer instead, or nil to serve it.
func (h *handler) intercept(r *http.Request, op string, in any, account, region string) *wireError {
	c := Call{Operation: op, Account: account, Region: region}
	v := reflect.ValueOf(in).Elem()
	for _, field := range [...]string{"QueueUrl", "QueueName", "SourceArn"} {
		s, ok := stringField(v, field)
		if !ok {
			continue
		}
		// Locate reads a URL or ARN without allocating; a bare name is of
		// the credential's namespace.
		if a, rg, name, ok := h.b.Locate(s); ok && strings.ContainsAny(s, "/:") {
			c.Queue = name
			if field == "QueueUrl" {
				c.Account, c.Region = a, rg
			}
		} else {
			c.Queue = queueName(s)
		}
		break
	}
	iv := h.cfg.intercept.Intercept(r.Context(), c)
	if iv.Delay > 0 {
		h.wait(r, iv.Delay)
	}
	if iv.Code == "" {
		return nil
	}
	code := sqsq.Code(iv.Code)
	e := &wireError{err: &sqsq.Error{Code: code, Message: iv.Message}, status: iv.Status}
	if e.status == 0 {
		e.status = code.Info().HTTPStatus
	}
	if e.err.Message == "" {
		e.err.Message = iv.Code + " (injected fault)."
	}
	return e
}

// wait sleeps d of real time, or less if r is cancelled or the handler
// drains.
func (h *handler) wait(r *http.Request, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	drain := context.Background().Done()
	if h.cfg.drain != nil {
		drain = h.cfg.drain.Done()
	}
	select {
	case <-t.C:
	case <-r.Context().Done():
	case <-drain:
	}
}
