package sqshttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/suite"
	"github.com/sqsq/sqsq/sqshttp"
)

// fuzzHandler is a handler over a fresh broker with a standard and a FIFO
// queue. Its drain context is done, so a long poll returns at once instead
// of parking on the mock clock.
func fuzzHandler(t *testing.T) http.Handler {
	b, _ := suite.NewBroker(t)
	for _, in := range []sqsq.CreateQueueInput{
		{QueueName: "q"},
		{QueueName: "f.fifo", Attributes: sqsq.QueueAttributes{FifoQueue: sqsq.Some(true)}},
	} {
		if _, err := b.CreateQueue(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	drained, cancel := context.WithCancel(context.Background())
	cancel()
	return sqshttp.NewHandler(b, sqshttp.WithDrain(drained), sqshttp.WithMaxRequestBytes(1<<16))
}

// FuzzJSON sends arbitrary operations and bodies in the JSON protocol. The
// handler must answer every one with a result (a JSON object, or an empty
// body for an operation without output members) or a well-formed AWS error,
// never a panic or a 5xx. The seeds under testdata/fuzz/FuzzJSON run with
// every go test.
func FuzzJSON(f *testing.F) {
	f.Add("SendMessage", []byte(`{"QueueUrl":"q","MessageBody":"hi"}`))
	f.Add("ReceiveMessage", []byte(`{"QueueUrl":"q","WaitTimeSeconds":0,"MaxNumberOfMessages":10}`))
	f.Fuzz(func(t *testing.T, op string, body []byte) {
		h := fuzzHandler(t)
		r := &http.Request{Method: http.MethodPost, URL: &url.URL{Path: "/"}, Host: "example.com",
			Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}, "X-Amz-Target": {"AmazonSQS." + op}},
			Body:   io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body))}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r.WithContext(context.Background()))
		if w.Code >= 500 {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		if !json.Valid(w.Body.Bytes()) && !(w.Code == http.StatusOK && w.Body.Len() == 0) {
			t.Fatalf("response is not JSON: %q", w.Body)
		}
		if w.Code != http.StatusOK {
			var e struct {
				Type    string `json:"__type"`
				Message *string
			}
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Type == "" || e.Message == nil || w.Header().Get("x-amzn-query-error") == "" {
				t.Fatalf("malformed error response %d %q", w.Code, w.Body)
			}
		}
	})
}

// FuzzQuery sends arbitrary Query protocol requests: a query string and a
// form body, to "/" or to a queue URL. The handler must answer with XML,
// never a panic or a 5xx.
func FuzzQuery(f *testing.F) {
	f.Add("", []byte("Action=SendMessage&QueueUrl=q&MessageBody=hi"), false)
	f.Add("Action=ReceiveMessage&AttributeName.1=All", []byte(""), true)
	f.Fuzz(func(t *testing.T, query string, body []byte, atQueue bool) {
		h := fuzzHandler(t)
		path := "/"
		if atQueue {
			path = "/000000000000/q"
		}
		r := &http.Request{Method: http.MethodPost, URL: &url.URL{Path: path, RawQuery: query}, Host: "example.com",
			Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
			Body:   io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body))}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r.WithContext(context.Background()))
		if w.Code >= 500 {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		d := xml.NewDecoder(bytes.NewReader(w.Body.Bytes()))
		for {
			_, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("response is not XML (%v): %q", err, w.Body)
			}
		}
	})
}
