package sqshttp_test

import (
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/schemas"
	"github.com/aws/smithy-go/transport/http/protocol/awsquery"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/suite"
	"github.com/sqsq/sqsq/sqshttp"
)

// newServer serves b's queues over HTTP for the length of the test.
func newServer(t testing.TB, b *sqsq.Broker, opts ...sqshttp.Option) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(sqshttp.NewHandler(b, opts...))
	t.Cleanup(srv.Close)
	return srv
}

// newClient is the real SDK client of srv, with its checksum validation on.
func newClient(srv *httptest.Server, optFns ...func(*sqs.Options)) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  aws.AnonymousCredentials{},
		HTTPClient:   srv.Client(),
	}, optFns...)
}

// queryProtocol makes the SDK speak the legacy Query protocol, as SDKs
// before the JSON switch (Go v1.27, November 2023) did.
func queryProtocol(o *sqs.Options) { o.Protocol = awsquery.New(schemas.AmazonSQS) }

// TestSuite runs the SQS behaviour suite through the real aws-sdk-go-v2
// client over HTTP against the handler: the same suite, and the same
// results, as against the in-process adapter.
func TestSuite(t *testing.T) {
	t.Parallel()
	suite.Run(t, func(t *testing.T) suite.Harness {
		b, clk := suite.NewBroker(t)
		return suite.Harness{
			API:              newClient(newServer(t, b)),
			Clock:            suite.MockClock(clk),
			WaitForReceivers: suite.WaitFunc(b),
			Peek:             suite.PeekFunc(b),
			InFlightLimit:    suite.InFlightLimit,
			Features:         suite.Features{ClientValidation: true},
		}
	})
}
