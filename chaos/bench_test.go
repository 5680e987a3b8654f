package chaos_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/chaos"
	"github.com/sqsq/sqsq/sqshttp"
)

// missRules are n rules of every shape that match no SendMessage,
// ReceiveMessage or DeleteMessage on "orders": other operations, queues
// (exact, prefix, glob), namespaces.
func missRules(n int) []chaos.Rule {
	shapes := []chaos.Rule{
		{Operation: "PurgeQueue", Error: &chaos.ErrorSpec{Code: "ServiceUnavailable"}},
		{Queue: "invoices", LatencyMs: 10},
		{Queue: "payments-*", Error: &chaos.ErrorSpec{Code: "InternalError"}},
		{Queue: "*-dlq.fifo", LatencyMs: 5},
		{Region: "eu-west-1", Error: &chaos.ErrorSpec{Code: "ThrottlingException"}},
		{Account: "111111111111", LatencyMs: 1},
		{Operation: "DeleteMessageBatch", Queue: "orders", Error: &chaos.ErrorSpec{Code: "InternalFailure"}},
		{Queue: "invoices", Fault: chaos.KindDuplicate},
		{Queue: "invoices*", Fault: chaos.KindLostResponse},
		{Region: "eu-west-1", Fault: chaos.KindSample},
	}
	out := make([]chaos.Rule, n)
	for i := range out {
		out[i] = shapes[i%len(shapes)]
	}
	return out
}

// BenchmarkIntercept is the Engine's cost on every request the handler
// serves: with no rules, with 1 and 10 rules that do not match, and with
// 10 of which one matches (and fires half the time).
func BenchmarkIntercept(b *testing.B) {
	hit := chaos.Rule{Operation: "SendMessage", Queue: "orders", Probability: ptr(0.5), Error: &chaos.ErrorSpec{Code: "ServiceUnavailable"}}
	for _, bc := range []struct {
		name  string
		rules []chaos.Rule
	}{
		{"rules=0", nil},
		{"rules=1/none-match", missRules(1)},
		{"rules=10/none-match", missRules(10)},
		{"rules=10/one-matches", append(missRules(9), hit)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := newEngine(b, chaos.Config{Seed: 1, Rules: bc.rules})
			c := call("SendMessage", "orders")
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				e.Intercept(ctx, c)
			}
		})
	}
}

// BenchmarkFaults is the cost of the broker's decision points on a
// receive and a delete (Sample, Duplicate, Shuffle, VisibilityTimeout,
// LoseResponse twice) with no rules and with 10 that do not match.
func BenchmarkFaults(b *testing.B) {
	for _, n := range []int{0, 10} {
		b.Run(fmt.Sprint("rules=", n), func(b *testing.B) {
			e := newEngine(b, chaos.Config{Rules: missRules(n)})
			c := sqsq.Call{Op: sqsq.OpReceive, Queue: "orders", Account: "000000000000", Region: "us-east-1"}
			d := c
			d.Op = sqsq.OpDelete
			swap := func(i, j int) {}
			b.ReportAllocs()
			for b.Loop() {
				e.Sample(c, 5)
				e.Duplicate(c, 5)
				e.Shuffle(c, 5, swap)
				e.VisibilityTimeout(c, 30e9)
				e.LoseResponse(c)
				e.LoseResponse(d)
			}
		})
	}
}

// BenchmarkEndpoint is what the Engine costs the endpoint: a send, a
// receive and a delete through the handler's JSON protocol (three
// requests per op), without an Engine, with one without rules and with
// 10 rules that do not match.
func BenchmarkEndpoint(b *testing.B) {
	for _, bc := range []struct {
		name   string
		engine bool
		rules  []chaos.Rule
	}{
		{"engine=none", false, nil},
		{"rules=0", true, nil},
		{"rules=10/none-match", true, missRules(10)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var bopts []sqsq.Option
			var hopts []sqshttp.Option
			if bc.engine {
				e := newEngine(b, chaos.Config{Rules: bc.rules})
				bopts = append(bopts, sqsq.WithFaults(e))
				hopts = append(hopts, sqshttp.WithInterceptor(e))
			}
			br := sqsq.NewBroker(bopts...)
			b.Cleanup(func() { br.Close() })
			h := sqshttp.NewHandler(br, hopts...)
			benchRequest(b, h, "CreateQueue", `{"QueueName":"orders"}`)
			url := "http://example.com/000000000000/orders"
			send := `{"QueueUrl":"` + url + `","MessageBody":"hello"}`
			recv := `{"QueueUrl":"` + url + `","MaxNumberOfMessages":1}`
			b.ReportAllocs()
			for b.Loop() {
				benchRequest(b, h, "SendMessage", send)
				w := benchRequest(b, h, "ReceiveMessage", recv)
				var out struct {
					Messages []struct{ ReceiptHandle string }
				}
				if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || len(out.Messages) != 1 {
					b.Fatalf("%v %s", err, w.Body)
				}
				benchRequest(b, h, "DeleteMessage", `{"QueueUrl":"`+url+`","ReceiptHandle":"`+out.Messages[0].ReceiptHandle+`"}`)
			}
		})
	}
}

// benchRequest replays a JSON request on h without a network.
func benchRequest(b *testing.B, h http.Handler, op, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("X-Amz-Target", "AmazonSQS."+op)
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", op, w.Code, w.Body)
	}
	return w
}
