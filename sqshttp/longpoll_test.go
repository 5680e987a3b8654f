package sqshttp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/suite"
	"github.com/sqsq/sqsq/sqshttp"
)

// served wraps h and reports on done each time a request has been answered.
func served(h http.Handler, done chan<- struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { done <- struct{}{} }()
		h.ServeHTTP(w, r)
	})
}

// hangGuard bounds a wait that can only hang on a bug, not on timing.
func hangGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestLongPollClientGone checks that a parked receive ends, on the server,
// when its client goes away: it is parked on a mock clock that never
// moves, so only the request's context can end it.
func TestLongPollClientGone(t *testing.T) {
	t.Parallel()
	b, _ := suite.NewBroker(t)
	q, err := b.CreateQueue(context.Background(), sqsq.CreateQueueInput{QueueName: "poll"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{}, 1)
	srv := httptest.NewServer(served(sqshttp.NewHandler(b), done))
	t.Cleanup(srv.Close)
	client := newClient(srv)

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.URL()), WaitTimeSeconds: 20})
		errc <- err
	}()
	guard := hangGuard(t)
	if err := q.WaitForReceivers(guard, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("client: %v, want context.Canceled", err)
	}
	select {
	case <-done:
	case <-guard.Done():
		t.Fatal("the handler is still parked after its client went away")
	}
	if n := q.ParkedReceivers(); n != 0 {
		t.Errorf("%d receivers still parked", n)
	}
}

// TestDrain checks that WithDrain ends a parked receive with an empty
// result, while other requests go on.
func TestDrain(t *testing.T) {
	t.Parallel()
	b, _ := suite.NewBroker(t)
	q, err := b.CreateQueue(context.Background(), sqsq.CreateQueueInput{QueueName: "drain"})
	if err != nil {
		t.Fatal(err)
	}
	drain, stop := context.WithCancel(context.Background())
	client := newClient(newServer(t, b, sqshttp.WithDrain(drain)))
	type result struct {
		out *sqs.ReceiveMessageOutput
		err error
	}
	res := make(chan result, 1)
	go func() {
		out, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.URL()), WaitTimeSeconds: 20})
		res <- result{out, err}
	}()
	if err := q.WaitForReceivers(hangGuard(t), 1); err != nil {
		t.Fatal(err)
	}
	stop()
	r := <-res
	if r.err != nil || len(r.out.Messages) != 0 {
		t.Errorf("drained receive: %v, %d messages; want an empty result", r.err, len(r.out.Messages))
	}
	if _, err := client.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL()), MessageBody: aws.String("x")}); err != nil {
		t.Errorf("a send while draining: %v", err)
	}
}

// TestBrokerClosed checks that a parked receive ends with
// ServiceUnavailable when the broker closes.
func TestBrokerClosed(t *testing.T) {
	t.Parallel()
	b, _ := suite.NewBroker(t)
	q, err := b.CreateQueue(context.Background(), sqsq.CreateQueueInput{QueueName: "closing"})
	if err != nil {
		t.Fatal(err)
	}
	client := newClient(newServer(t, b), func(o *sqs.Options) { o.RetryMaxAttempts = 1 })
	errc := make(chan error, 1)
	go func() {
		_, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.URL()), WaitTimeSeconds: 20})
		errc <- err
	}()
	if err := q.WaitForReceivers(hangGuard(t), 1); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "StatusCode: 503") || !strings.Contains(err.Error(), "ServiceUnavailable") {
		t.Errorf("receive on a closed broker: %v; want a 503 ServiceUnavailable", err)
	}
}

// TestQueueURLs checks where the queue URLs of responses come from: the
// request's Host and scheme, or a fixed base.
func TestQueueURLs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		opts   []sqshttp.Option
		host   string
		proto  string
		want   string
	}{
		{"the request's host", nil, "sqs.local:9324", "", "http://sqs.local:9324/000000000000/u"},
		{"https behind a proxy", nil, "sqs.example.com", "https", "https://sqs.example.com/000000000000/u"},
		{"a fixed base wins", []sqshttp.Option{sqshttp.WithBaseURL("https://fixed.example/")}, "other:1", "", "https://fixed.example/000000000000/u"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t, tt.opts...)
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"QueueName":"u"}`))
			r.Host = tt.host
			r.Header.Set("X-Amz-Target", "AmazonSQS.CreateQueue")
			r.Header.Set("Content-Type", "application/x-amz-json-1.0")
			if tt.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tt.proto)
			}
			w := mustOK(t, f.serve(r))
			if got := w.Body.String(); got != `{"QueueUrl":"`+tt.want+`"}` {
				t.Errorf("got %s, want QueueUrl %s", got, tt.want)
			}
		})
	}
}
