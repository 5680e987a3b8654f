package sqshttp_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"sync"
	"testing"

	"github.com/sqsq/sqsq/sqshttp"
)

// interceptor answers each operation from a table and records the calls.
type interceptor struct {
	mu    sync.Mutex
	calls []sqshttp.Call
	by    map[string]sqshttp.Intervention
}

func (ic *interceptor) Intercept(_ context.Context, c sqshttp.Call) sqshttp.Intervention {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	ic.calls = append(ic.calls, c)
	return ic.by[c.Operation]
}

func (ic *interceptor) last() sqshttp.Call {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	return ic.calls[len(ic.calls)-1]
}

// An interceptor's error is answered instead of the call, in each
// protocol's error shape with the status and code chosen, and changes
// nothing; it is told the operation, the queue and the namespace.
func TestInterceptorErrors(t *testing.T) {
	t.Parallel()
	ic := &interceptor{by: map[string]sqshttp.Intervention{
		"SendMessage":    {Code: "ServiceUnavailable", Status: 503, Message: "try later"},
		"ReceiveMessage": {Code: "ThrottlingException", Message: "Rate exceeded"},
	}}
	f := setup(t, sqshttp.WithInterceptor(ic))
	url := f.queue("orders", nil)

	w := f.jsonCall("SendMessage", `{"QueueUrl":"`+url+`","MessageBody":"x"}`)
	var je struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &je); err != nil {
		t.Fatal(err, w.Body)
	}
	if w.Code != 503 || je.Type != "com.amazonaws.sqs#ServiceUnavailable" || je.Message != "try later" ||
		w.Header().Get("x-amzn-query-error") != "ServiceUnavailable;Receiver" {
		t.Errorf("JSON: %d %+v %q", w.Code, je, w.Header().Get("x-amzn-query-error"))
	}
	if c := ic.last(); c != (sqshttp.Call{Operation: "SendMessage", Queue: "orders", Account: "000000000000", Region: "us-east-1"}) {
		t.Errorf("told %+v", c)
	}
	w = f.jsonCall("ReceiveMessage", `{"QueueUrl":"`+url+`"}`)
	if err := json.Unmarshal(w.Body.Bytes(), &je); err != nil {
		t.Fatal(err)
	}
	if w.Code != 400 || je.Type != "com.amazonaws.sqs#ThrottlingException" || w.Header().Get("x-amzn-query-error") != "ThrottlingException;Sender" {
		t.Errorf("JSON throttling: %d %+v %q", w.Code, je, w.Header().Get("x-amzn-query-error"))
	}

	w = f.queryCall("/000000000000/orders", form("Action", "SendMessage", "MessageBody", "x"))
	var xe struct {
		Error struct{ Type, Code, Message string }
	}
	if err := xml.Unmarshal(w.Body.Bytes(), &xe); err != nil {
		t.Fatal(err, w.Body)
	}
	if w.Code != 503 || xe.Error.Type != "Receiver" || xe.Error.Code != "ServiceUnavailable" || xe.Error.Message != "try later" {
		t.Errorf("Query: %d %+v", w.Code, xe)
	}
	q, err := f.b.GetQueue(context.Background(), "orders")
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := q.Stats(); st.Visible != 0 {
		t.Errorf("injected errors sent %d messages, want none", st.Visible)
	}

	// Other operations are served; a URL of another namespace is told as
	// such, whatever the credential.
	mustOK(t, f.jsonCall("GetQueueUrl", `{"QueueName":"orders"}`))
	w = f.jsonCall("GetQueueAttributes", `{"QueueUrl":"http://example.com/queue/eu-west-1/111111111111/other"}`)
	if w.Code != http.StatusBadRequest {
		t.Errorf("missing queue: %d", w.Code)
	}
	if c := ic.last(); c.Account != "111111111111" || c.Region != "eu-west-1" || c.Queue != "other" {
		t.Errorf("told %+v, want the URL's namespace", c)
	}
}
