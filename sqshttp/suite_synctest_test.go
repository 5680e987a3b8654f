//go:build go1.25

package sqshttp_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsq/sqsq/internal/suite"
	"github.com/sqsq/sqsq/sqshttp"
)

// inProcess is an SDK HTTP client that calls a handler directly: a loopback
// socket would hang a synctest bubble, as socket reads do not count as
// durably blocked.
type inProcess struct{ h http.Handler }

func (c inProcess) Do(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = r.URL.Host
	if r.Body == nil {
		r.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, r)
	if err := r.Context().Err(); err != nil {
		return nil, err // as a transport does for a request cancelled in flight
	}
	return rec.Result(), nil
}

// TestSuiteSynctest runs the whole behaviour suite through the real SDK and
// the handler, both protocols, over sqsq.NewBroker() with its default
// clock, each test in a synctest bubble.
func TestSuiteSynctest(t *testing.T) {
	t.Parallel()
	for _, p := range []struct {
		name  string
		query bool
	}{{"json", false}, {"query", true}} {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			suite.RunIn(t, synctest.Test, func(t *testing.T) suite.Harness {
				b := suite.NewRealBroker(t)
				opts := []func(*sqs.Options){}
				if p.query {
					opts = append(opts, queryProtocol)
				}
				client := sqs.New(sqs.Options{
					Region:       "us-east-1",
					BaseEndpoint: aws.String("http://sqsq.local"),
					Credentials:  aws.AnonymousCredentials{},
					HTTPClient:   inProcess{sqshttp.NewHandler(b)},
				}, opts...)
				return suite.Harness{
					API:              client,
					Clock:            suite.WallClock,
					WaitForReceivers: suite.WaitFunc(b),
					Peek:             suite.PeekFunc(b),
					InFlightLimit:    suite.InFlightLimit,
					Features:         suite.Features{ClientValidation: true, QueryProtocol: p.query},
				}
			})
		})
	}
}
