package chaos_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/chaos"
	"github.com/sqsq/sqsq/sqshttp"
)

// The end-to-end tests: an Engine in a broker on a mock clock and in its
// HTTP handler, served over loopback and driven by the real AWS SDK for Go
// v2, as cmd/sqsq will wire it.

// endpoint is a served broker with an Engine, and the requests it got.
type endpoint struct {
	t   *testing.T
	e   *chaos.Engine
	b   *sqsq.Broker
	clk *clock.Mock
	url string

	mu       sync.Mutex
	requests map[string]int // by X-Amz-Target operation
}

func serve(t *testing.T, cfg chaos.Config) *endpoint {
	t.Helper()
	ep := &endpoint{t: t, e: newEngine(t, cfg), clk: clock.NewMock(), requests: map[string]int{}}
	ep.b = sqsq.NewBroker(sqsq.WithClock(ep.clk), sqsq.WithFaults(ep.e))
	t.Cleanup(func() { ep.b.Close() })
	h := sqshttp.NewHandler(ep.b, sqshttp.WithInterceptor(ep.e))
	mux := http.NewServeMux()
	api := ep.e.Handler()
	mux.Handle("/_sqsq/api/faults", api)
	mux.Handle("/_sqsq/api/faults/", api)
	mux.Handle("/_localstack/chaos/", api)
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ep.mu.Lock()
		ep.requests[strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.")]++
		ep.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ep.url = srv.URL
	return ep
}

func (ep *endpoint) count(op string) int {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return ep.requests[op]
}

// client is an SDK client of the endpoint that tries each call up to
// attempts times, without waiting between attempts (the SDK's standard
// retryer, less its backoff and its retry quota).
func (ep *endpoint) client(attempts int) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(ep.url),
		Credentials:  aws.AnonymousCredentials{},
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = attempts
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
			o.RateLimiter = ratelimit.None
		}),
	})
}

// queue creates a standard queue and sends bodies to it, in order.
func (ep *endpoint) queue(c *sqs.Client, name string, bodies ...string) string {
	ep.t.Helper()
	ctx := context.Background()
	out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		ep.t.Fatal(err)
	}
	for _, body := range bodies {
		if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: out.QueueUrl, MessageBody: aws.String(body)}); err != nil {
			ep.t.Fatal(err)
		}
	}
	return *out.QueueUrl
}

func receive(t *testing.T, c *sqs.Client, url string, max int32) []types.Message {
	t.Helper()
	out, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(url), MaxNumberOfMessages: max, WaitTimeSeconds: 0, VisibilityTimeout: 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Messages
}

func bodies(msgs []types.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = *m.Body
	}
	return out
}

func (ep *endpoint) stats(name string) sqsq.Stats {
	ep.t.Helper()
	q, err := ep.b.GetQueue(context.Background(), name)
	if err != nil {
		ep.t.Fatal(err)
	}
	st, err := q.Stats()
	if err != nil {
		ep.t.Fatal(err)
	}
	return st
}

// apiError returns err's wire code and HTTP status.
func apiError(t *testing.T, err error) (string, int) {
	t.Helper()
	var ae smithy.APIError
	var re *awshttp.ResponseError
	if !errors.As(err, &ae) || !errors.As(err, &re) {
		t.Fatalf("%T %v is not an API error", err, err)
	}
	return ae.ErrorCode(), re.HTTPStatusCode()
}

// duplicate: a receive delivers again a message another consumer holds,
// with a new receipt handle.
func TestWireDuplicate(t *testing.T) {
	t.Parallel()
	ep := serve(t, chaos.Config{Rules: []chaos.Rule{{Operation: "ReceiveMessage", Queue: "orders", Fault: chaos.KindDuplicate}}})
	c := ep.client(1)
	url := ep.queue(c, "orders", "m1")
	first := receive(t, c, url, 1)
	second := receive(t, c, url, 1)
	if len(first) != 1 || len(second) != 1 {
		t.Fatalf("received %d then %d", len(first), len(second))
	}
	if *second[0].MessageId != *first[0].MessageId || *second[0].ReceiptHandle == *first[0].ReceiptHandle {
		t.Errorf("second receive: %s %s, want %s with a new handle", *second[0].MessageId, *second[0].ReceiptHandle, *first[0].MessageId)
	}
	in := ep.e.Injected()
	if len(in) != 1 || in[0].Kind != chaos.KindDuplicate || in[0].Queue != "orders" || in[0].Detail != "delivered in-flight message 0 of 1 again" {
		t.Errorf("injections %+v", in)
	}
}

// sample: a short poll returns fewer of the waiting messages, maybe none.
func TestWireSample(t *testing.T) {
	t.Parallel()
	ep := serve(t, chaos.Config{Seed: 1, Rules: []chaos.Rule{{Fault: chaos.KindSample}}})
	c := ep.client(1)
	url := ep.queue(c, "orders", "m0", "m1", "m2", "m3", "m4")
	got := receive(t, c, url, 10)
	if len(got) >= 5 {
		t.Errorf("a sampled short poll returned %d of 5", len(got))
	}
	if ep.stats("orders").Visible+len(got) != 5 {
		t.Errorf("messages lost")
	}
	if in := ep.e.Injected(); len(in) != 1 || in[0].Detail != fmt.Sprintf("returned %d of 5 waiting messages", len(got)) {
		t.Errorf("injections %+v", in)
	}
}

// reorder: a receive returns its messages in another order than sent.
func TestWireReorder(t *testing.T) {
	t.Parallel()
	ep := serve(t, chaos.Config{Seed: 2, Rules: []chaos.Rule{{Fault: chaos.KindReorder}}})
	c := ep.client(1)
	sent := []string{"m0", "m1", "m2", "m3", "m4"}
	url := ep.queue(c, "orders", sent...)
	got := bodies(receive(t, c, url, 10))
	if len(got) != 5 || strings.Join(got, ",") == strings.Join(sent, ",") {
		t.Errorf("received %v: want the five in another order (seed 2 draws one)", got)
	}
	// Without the rule, the same receive keeps the send order.
	ep = serve(t, chaos.Config{Seed: 2})
	c = ep.client(1)
	url = ep.queue(c, "orders", sent...)
	if got := bodies(receive(t, c, url, 10)); strings.Join(got, ",") != strings.Join(sent, ",") {
		t.Errorf("no rule: %v", got)
	}
}

// lostResponse on DeleteMessage: the SDK gets ServiceUnavailable, and the
// message is gone. The SDK retries the 503: each retry deletes again (a
// no-op, which succeeds) and loses that response too.
func TestWireLostDelete(t *testing.T) {
	t.Parallel()
	for _, attempts := range []int{1, 3} {
		t.Run(fmt.Sprint("attempts=", attempts), func(t *testing.T) {
			t.Parallel()
			ep := serve(t, chaos.Config{Rules: []chaos.Rule{{Operation: "DeleteMessage", Fault: chaos.KindLostResponse}}})
			c := ep.client(attempts)
			url := ep.queue(c, "orders", "m1")
			m := receive(t, c, url, 1)[0]
			_, err := c.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
			if code, status := apiError(t, err); code != "ServiceUnavailable" || status != 503 {
				t.Errorf("DeleteMessage: %s %d", code, status)
			}
			if st := ep.stats("orders"); st.Visible+st.InFlight != 0 || st.Deleted != 1 {
				t.Errorf("the delete was not applied: %+v", st)
			}
			if n := ep.count("DeleteMessage"); n != attempts {
				t.Errorf("%d requests, want %d", n, attempts)
			}
			if n := ep.e.Counts()[chaos.KindLostResponse]; n != uint64(attempts) {
				t.Errorf("%d lost responses, want %d", n, attempts)
			}
		})
	}
}

// A rule naming DeleteMessage also loses the response of each entry of a
// DeleteMessageBatch: the core decides on each entry as on a delete.
func TestWireLostDeleteBatch(t *testing.T) {
	t.Parallel()
	ep := serve(t, chaos.Config{Rules: []chaos.Rule{{Operation: "DeleteMessage", Fault: chaos.KindLostResponse}}})
	c := ep.client(1)
	url := ep.queue(c, "orders", "m1", "m2")
	msgs := receive(t, c, url, 10)
	var entries []types.DeleteMessageBatchRequestEntry
	for i, m := range msgs {
		entries = append(entries, types.DeleteMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(i)), ReceiptHandle: m.ReceiptHandle})
	}
	out, err := c.DeleteMessageBatch(context.Background(), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failed) != 2 || *out.Failed[0].Code != "ServiceUnavailable" || out.Failed[0].SenderFault {
		t.Errorf("Failed %+v", out.Failed)
	}
	if st := ep.stats("orders"); st.Visible+st.InFlight != 0 {
		t.Errorf("the deletes were not applied: %+v", st)
	}
}

// visibilityEndsEarly: a received message is visible again before its
// visibility timeout ends, on the mock clock.
func TestWireVisibilityEndsEarly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rules []chaos.Rule
		want  int
	}{
		{[]chaos.Rule{{Fault: chaos.KindVisibilityEndsEarly}}, 1},
		{nil, 0}, // the control: without the rule it stays hidden
	} {
		ep := serve(t, chaos.Config{Seed: 3, Rules: tc.rules})
		c := ep.client(1)
		url := ep.queue(c, "orders", "m1")
		if n := len(receive(t, c, url, 1)); n != 1 {
			t.Fatalf("received %d", n)
		}
		ep.clk.Add(30*time.Second - time.Nanosecond) // the real timeout is drawn from [1 ms, 30 s)
		if got := receive(t, c, url, 1); len(got) != tc.want {
			t.Errorf("rules %+v: %d visible before the timeout ended, want %d", tc.rules, len(got), tc.want)
		}
	}
}

// An injected ServiceUnavailable is a 503 the SDK retries: with the rule
// always firing every attempt fails; with p = 0.5 the retries get through.
// Nothing is sent by a failed attempt.
func TestWireError(t *testing.T) {
	t.Parallel()
	ep := serve(t, chaos.Config{Rules: []chaos.Rule{{Operation: "SendMessage", Error: &chaos.ErrorSpec{Code: "ServiceUnavailable"}}}})
	c := ep.client(3)
	url := ep.queue(c, "orders")
	_, err := c.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("x")})
	if code, status := apiError(t, err); code != "ServiceUnavailable" || status != 503 {
		t.Errorf("SendMessage: %s %d", code, status)
	}
	if !strings.Contains(err.Error(), "The request has failed due to a temporary failure of the server.") {
		t.Errorf("message: %v", err)
	}
	if n := ep.count("SendMessage"); n != 3 {
		t.Errorf("the SDK sent %d attempts, want 3", n)
	}
	if st := ep.stats("orders"); st.Sent != 0 {
		t.Errorf("an injected error sent a message")
	}

	ep = serve(t, chaos.Config{Seed: 4, Rules: []chaos.Rule{{Operation: "SendMessage", Probability: ptr(0.5), Error: &chaos.ErrorSpec{Code: "ServiceUnavailable"}}}})
	c = ep.client(10)
	url = ep.queue(c, "orders")
	for i := range 20 {
		if _, err := c.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}
	injected := int(ep.e.Counts()[chaos.KindError])
	if n := ep.count("SendMessage"); injected == 0 || n != 20+injected || ep.stats("orders").Sent != 20 {
		t.Errorf("%d attempts, %d injected errors, %d sent: want 20 sends through retries", n, injected, ep.stats("orders").Sent)
	}
}

// Latency delays the answer, in real time whatever the broker's clock.
func TestWireLatency(t *testing.T) {
	t.Parallel()
	ep := serve(t, chaos.Config{Rules: []chaos.Rule{{Operation: "GetQueueUrl", LatencyMs: 50}}})
	c := ep.client(1)
	ep.queue(c, "orders")
	start := time.Now()
	if _, err := c.GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String("orders")}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("GetQueueUrl took %v, want at least 50ms", d)
	}
}

// LocalStack's rules and latency reach SDK clients as LocalStack's do.
func TestWireLocalStack(t *testing.T) {
	t.Parallel()
	ep := serve(t, chaos.Config{})
	c := ep.client(1)
	url := ep.queue(c, "orders")
	post := func(path, body string) {
		t.Helper()
		resp, err := http.Post(ep.url+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("POST %s: %d", path, resp.StatusCode)
		}
	}
	post("/_localstack/chaos/faults", `[{"service": "sqs", "region": "us-east-1", "operation": "SendMessage"}]`)
	_, err := c.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("x")})
	if code, status := apiError(t, err); code != "ServiceUnavailable" || status != 503 || !strings.Contains(err.Error(), "Service 'sqs' not accessible due to an outage") {
		t.Errorf("SendMessage: %s %d %v", code, status, err)
	}
	if _, err := c.GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String("orders")}); err != nil {
		t.Errorf("another operation failed: %v", err)
	}

	post("/_localstack/chaos/faults", `[]`)
	post("/_localstack/chaos/effects", `{"latency": 40}`)
	start := time.Now()
	if _, err := c.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("x")}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("SendMessage took %v with 40 ms of latency", d)
	}

	// The injections, through the mounts the Handler's doc gives.
	resp, err := http.Get(ep.url + "/_sqsq/api/faults/injected")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct{ Counts map[string]int }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got.Counts["error"] != 1 || got.Counts["latency"] != 1 {
		t.Errorf("injected: %v %+v", err, got)
	}
}

// The operation names the package knows are those the handler tells an
// interceptor: a rule on each fires on its requests.
func TestOperationNames(t *testing.T) {
	t.Parallel()
	for _, op := range []string{
		"AddPermission", "CancelMessageMoveTask", "ChangeMessageVisibility", "ChangeMessageVisibilityBatch",
		"CreateQueue", "DeleteMessage", "DeleteMessageBatch", "DeleteQueue", "GetQueueAttributes", "GetQueueUrl",
		"ListDeadLetterSourceQueues", "ListMessageMoveTasks", "ListQueueTags", "ListQueues", "PurgeQueue",
		"ReceiveMessage", "RemovePermission", "SendMessage", "SendMessageBatch", "SetQueueAttributes",
		"StartMessageMoveTask", "TagQueue", "UntagQueue",
	} {
		e := newEngine(t, chaos.Config{Rules: []chaos.Rule{{Operation: op, Error: &chaos.ErrorSpec{Code: "Injected"}}}})
		h := sqshttp.NewHandler(sqsq.NewBroker(), sqshttp.WithInterceptor(e))
		r := httptest.NewRequest("POST", "/", strings.NewReader(`{"QueueUrl": "http://localhost/000000000000/q", "QueueName": "q"}`))
		r.Header.Set("X-Amz-Target", "AmazonSQS."+op)
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if !strings.Contains(w.Body.String(), "#Injected") {
			t.Errorf("%s: %d %s", op, w.Code, w.Body)
		}
	}
}
