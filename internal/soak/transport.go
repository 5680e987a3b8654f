package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// counter is the HTTP client under the SDK: it counts every response by
// status and every request that got none, including the attempts the SDK
// retries and so hides from its caller. A 5xx fails the soak.
type counter struct {
	next interface {
		Do(*http.Request) (*http.Response, error)
	}
	mu            sync.Mutex
	requests      int64
	byClass       [6]int64 // 1xx … 5xx by first digit
	transportErrs int64
	retried       int64    // failed attempts the SDK retried (a response it could not read, too)
	notes         []string // the first 5xx and transport errors, with their operation
}

func newCounter(conns int) *counter {
	return &counter{next: awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		tr.MaxIdleConnsPerHost = conns
	})}
}

func (c *counter) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.next.Do(req)
	op := strings.TrimPrefix(req.Header.Get("X-Amz-Target"), "AmazonSQS.")
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	switch {
	case err != nil:
		if req.Context().Err() == nil { // not a long poll the soak cancelled at its end
			c.transportErrs++
			c.note(fmt.Sprintf("%s: %v", op, err))
		}
	case resp.StatusCode/100 < len(c.byClass):
		c.byClass[resp.StatusCode/100]++
		if resp.StatusCode >= 500 {
			c.note(fmt.Sprintf("%s: HTTP %d", op, resp.StatusCode))
		}
	}
	return resp, err
}

// note keeps the first few notes. Caller holds c.mu.
func (c *counter) note(s string) {
	if len(c.notes) < 10 {
		c.notes = append(c.notes, s)
	}
}

// retry counts an attempt that failed and that the SDK retries.
func (c *counter) retry(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.retried++
	op := "?"
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.Response != nil && re.Response.Request != nil {
		op = strings.TrimPrefix(re.Response.Request.Header.Get("X-Amz-Target"), "AmazonSQS.")
	}
	c.note(fmt.Sprintf("%s attempt failed, retried: %v", op, err))
}

// countingRetryer is the SDK's standard retryer, telling the counter of
// each attempt it retries. The soak needs to know: the SDK now and then
// fails to read a 200 response ("deserialization failed … use of closed
// network connection", aws/aws-sdk-go-v2#1825 and #2737) and retries, as
// it does net.ErrClosed by default since aws/aws-sdk-go-v2#2949; the
// messages of a lost ReceiveMessage answer stay in flight until their
// visibility timeout ends and come back with a receive count the consumer
// never saw, and a retried SendMessageBatch sends a standard message twice.
type countingRetryer struct {
	aws.RetryerV2
	c *counter
}

func (r countingRetryer) IsErrorRetryable(err error) bool {
	ok := r.RetryerV2.IsErrorRetryable(err)
	if ok {
		r.c.retry(err)
	}
	return ok
}

type httpCounts struct {
	requests, c2xx, c4xx, c5xx, transportErrs, retried int64
	notes                                              []string
}

func (c *counter) counts() httpCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return httpCounts{c.requests, c.byClass[2], c.byClass[4], c.byClass[5], c.transportErrs, c.retried, append([]string(nil), c.notes...)}
}

// errorLog counts the errors SDK calls returned to the soak, by operation.
type errorLog struct {
	mu    sync.Mutex
	n     int
	first []string
}

func (l *errorLog) add(op string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	if len(l.first) < 10 {
		l.first = append(l.first, op+": "+err.Error())
	}
}

func (l *errorLog) addf(format string, args ...any) { l.add("", fmt.Errorf(format, args...)) }

func (l *errorLog) snapshot() (int, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, append([]string(nil), l.first...)
}

// errorCode is the SQS error code of err, or "".
func errorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// staticCredentials signs every request, as a real client does; sqsq
// accepts any signature. An access key id that is not 12 digits selects
// the server's default account.
var staticCredentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: "soak", SecretAccessKey: "soak", Source: "soak"}, nil
})
