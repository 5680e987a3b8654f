package main

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqshttp"
)

// logged serves r through the server's middleware at level and returns
// what it logged.
func logged(t *testing.T, level slog.Level, r *http.Request) string {
	t.Helper()
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
	t.Cleanup(func() { _ = b.Close() })
	if _, err := b.CreateQueue(t.Context(), sqsq.CreateQueueInput{QueueName: "orders"}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: level}))
	mux := http.NewServeMux()
	mux.Handle("/", sqshttp.NewHandler(b))
	registerAdminFallback(mux, false)
	logRequests(log, sqshttp.LoopbackOnly(mux)).ServeHTTP(httptest.NewRecorder(), r)
	return out.String()
}

func jsonRequest(op, body string) *http.Request {
	r := httptest.NewRequest("POST", "http://localhost/", strings.NewReader(body))
	r.Header.Set("X-Amz-Target", "AmazonSQS."+op)
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	return r
}

func formRequest(path, body string) *http.Request {
	r := httptest.NewRequest("POST", "http://localhost"+path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

// Each request is one debug line with stable keys, whichever protocol
// names its operation and queue, and wherever.
func TestLogOneLinePerRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		r    *http.Request
		want []string
	}{
		{"JSON", jsonRequest("SendMessage", `{"QueueUrl":"http://localhost/000000000000/orders","MessageBody":"x"}`),
			[]string{"protocol=json", "op=SendMessage", "account=000000000000", "region=us-east-1", "queue=orders", "status=200", `error=""`}},
		{"JSONOtherRegion", signed(jsonRequest("CreateQueue", `{"QueueName":"west"}`), "eu-west-1"),
			[]string{"op=CreateQueue", "account=000000000000", "region=eu-west-1", "queue=west", "status=200"}},
		{"JSONError", jsonRequest("GetQueueUrl", `{"QueueName":"nope"}`),
			[]string{"protocol=json", "op=GetQueueUrl", "queue=nope", "status=400", "error=AWS.SimpleQueueService.NonExistentQueue"}},
		{"QueryBody", formRequest("/", "Version=2012-11-05&Action=Receive%4Dessage&QueueUrl=http%3A%2F%2Flocalhost%2F000000000000%2Forders"),
			[]string{"protocol=query", "op=ReceiveMessage", "queue=orders", "status=200"}},
		{"QueryURL", httptest.NewRequest("GET", "http://localhost/?Action=ListQueues", nil),
			[]string{"protocol=query", "op=ListQueues", `queue=""`, "status=200"}},
		{"QueryAtQueueURL", formRequest("/000000000000/orders", "Action=SendMessage&MessageBody=x"),
			[]string{"protocol=query", "op=SendMessage", "queue=orders", "status=200"}},
		{"QueryError", formRequest("/", "Action=SendMessage&QueueUrl=orders"),
			[]string{"op=SendMessage", "queue=orders", "status=400", "error=MissingParameter"}},
		{"NoAction", formRequest("/", "QueueUrl=x"), []string{"protocol=query", `op=""`, "status=400", "error=MissingAction"}},
		{"Admin", httptest.NewRequest("GET", "http://localhost/_sqsq/clock", nil), []string{"path=/_sqsq/clock", `protocol=""`, "status=404"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := logged(t, slog.LevelDebug, tc.r)
			if n := strings.Count(out, "\n"); n != 1 {
				t.Fatalf("%d lines, want 1: %s", n, out)
			}
			for _, key := range []string{"level=DEBUG", "msg=request", "method=", "path=", "protocol=", "op=", "account=", "region=", "queue=", "status=", "error=", "duration=", "request_id="} {
				if !strings.Contains(out, " "+key) {
					t.Errorf("no %s in %s", key, out)
				}
			}
			for _, want := range tc.want {
				if !strings.Contains(out, " "+want+" ") {
					t.Errorf("no %s in %s", want, out)
				}
			}
		})
	}
}

// At the default level nothing is logged per request but what needs a
// look: a refused request, at warn level with the reason.
func TestLogRefusedAtInfo(t *testing.T) {
	t.Parallel()
	if out := logged(t, slog.LevelInfo, formRequest("/", "Action=ListQueues")); out != "" {
		t.Errorf("a served request logged at info level: %s", out)
	}
	r := formRequest("/", "Action=ListQueues")
	r.Header.Set("Origin", "http://evil.example")
	out := logged(t, slog.LevelInfo, r)
	for _, want := range []string{"level=WARN", "status=403", "error=AccessDenied", "op=", "message=", "evil.example", "-allow-host"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in %s", want, out)
		}
	}
}

// signed gives r a SigV4 Authorization for region.
func signed(r *http.Request, region string) *http.Request {
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20261201/"+region+"/sqs/aws4_request, SignedHeaders=host, Signature=00")
	return r
}

// A queue missing in the request's region but present in another is a
// set-up to fix: logged at warn level with the hint the first time, at
// debug level after, so a consumer polling the wrong region cannot flood
// the log.
func TestLogRegionHint(t *testing.T) {
	t.Parallel()
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
	t.Cleanup(func() { _ = b.Close() })
	if _, err := b.CreateQueue(t.Context(), sqsq.CreateQueueInput{QueueName: "orders"}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h := logRequests(log, sqshttp.LoopbackOnly(sqshttp.NewHandler(b)))
	for range 3 {
		h.ServeHTTP(httptest.NewRecorder(), signed(jsonRequest("GetQueueUrl", `{"QueueName":"orders"}`), "eu-west-1"))
	}
	got := out.String()
	if n := strings.Count(got, "\n"); n != 1 {
		t.Fatalf("%d lines, want 1: %s", n, got)
	}
	for _, want := range []string{"level=WARN", "op=GetQueueUrl", "account=000000000000", "region=eu-west-1", "queue=orders", "status=400",
		"error=AWS.SimpleQueueService.NonExistentQueue",
		`hint="sqsq: no queue orders in eu-west-1 (account 000000000000), the region this request is signed for; a queue of that name exists in us-east-1 (account 000000000000): http://localhost/000000000000/orders."`} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in %s", want, got)
		}
	}
}
