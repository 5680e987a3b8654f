package sqshttp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqshttp"
)

// The handler tells middleware what it decoded, on every path through it:
// success, SQS errors, protocol errors and refusals.
func TestRequestInfo(t *testing.T) {
	t.Parallel()
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
	t.Cleanup(func() { _ = b.Close() })
	if _, err := b.CreateQueue(t.Context(), sqsq.CreateQueueInput{QueueName: "dlq"}); err != nil {
		t.Fatal(err)
	}
	h := sqshttp.LoopbackOnly(sqshttp.NewHandler(b, sqshttp.WithMaxRequestBytes(1<<10)))
	json := func(target, body string) *http.Request {
		r := httptest.NewRequest("POST", "http://localhost/", strings.NewReader(body))
		r.Header.Set("X-Amz-Target", target)
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		return r
	}
	form := func(body string) *http.Request {
		r := httptest.NewRequest("POST", "http://localhost/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return r
	}
	foreign := form("Action=ListQueues")
	foreign.Host = "attacker.example"
	for _, tc := range []struct {
		name string
		r    *http.Request
		want sqshttp.RequestInfo
	}{
		{"JSON by ARN", json("AmazonSQS.StartMessageMoveTask", `{"SourceArn":"arn:aws:sqs:us-east-1:000000000000:dlq"}`),
			sqshttp.RequestInfo{Protocol: "json", Operation: "StartMessageMoveTask", Queue: "dlq", ErrorCode: "InvalidParameterValue",
				Account: "000000000000", Region: "us-east-1"}},
		{"JSON unknown operation", json("AmazonSQS.Frobnicate", `{}`),
			sqshttp.RequestInfo{Protocol: "json", Operation: "Frobnicate", ErrorCode: "UnknownOperationException"}},
		{"JSON too large", json("AmazonSQS.SendMessage", `{"MessageBody":"`+strings.Repeat("x", 2<<10)+`"}`),
			sqshttp.RequestInfo{Protocol: "json", Operation: "SendMessage", ErrorCode: "RequestEntityTooLarge"}},
		{"Query malformed", form("Action=%zz"),
			sqshttp.RequestInfo{Protocol: "query", ErrorCode: "MalformedQueryString"}},
		{"Query by URL", form("Action=PurgeQueue&QueueUrl=http%3A%2F%2Flocalhost%2F000000000000%2Fdlq"),
			sqshttp.RequestInfo{Protocol: "query", Operation: "PurgeQueue", Queue: "dlq", Account: "000000000000", Region: "us-east-1"}},
		{"Query by URL of another region", form("Action=PurgeQueue&QueueUrl=http%3A%2F%2Flocalhost%2Fqueue%2Feu-west-1%2F000000000000%2Fdlq"),
			sqshttp.RequestInfo{Protocol: "query", Operation: "PurgeQueue", Queue: "dlq", Account: "000000000000", Region: "eu-west-1",
				ErrorCode: "AWS.SimpleQueueService.NonExistentQueue", Hint: "sqsq: no queue dlq in eu-west-1 (account 000000000000), " +
					"the region and account its queue URL names; a queue of that name exists in us-east-1 (account 000000000000): http://localhost/000000000000/dlq."}},
		{"refused", foreign,
			sqshttp.RequestInfo{Protocol: "query", ErrorCode: "AccessDenied"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, info := sqshttp.WithRequestInfo(tc.r)
			h.ServeHTTP(httptest.NewRecorder(), r)
			if (tc.want.ErrorCode == "") != (info.ErrorMessage == "") {
				t.Errorf("ErrorMessage %q with ErrorCode %q", info.ErrorMessage, info.ErrorCode)
			}
			info.ErrorMessage = ""
			if *info != tc.want {
				t.Errorf("info = %+v, want %+v", *info, tc.want)
			}
		})
	}
	// Without WithRequestInfo the handler serves as before.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, form("Action=ListQueues"))
	if rec.Code != http.StatusOK {
		t.Errorf("ListQueues without RequestInfo: %d", rec.Code)
	}
}
