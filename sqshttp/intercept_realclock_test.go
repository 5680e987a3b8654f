package sqshttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq/sqshttp"
)

// An interceptor's delay is real time before the call is served, and a
// request cancelled meanwhile stops waiting.
func TestInterceptorDelayRealClock(t *testing.T) {
	t.Parallel()
	ic := &interceptor{by: map[string]sqshttp.Intervention{
		"GetQueueUrl": {Delay: 100 * time.Millisecond},
		"ListQueues":  {Delay: time.Hour},
		"DeleteQueue": {Delay: 50 * time.Millisecond, Code: "InternalError", Status: 500},
	}}
	f := setup(t, sqshttp.WithInterceptor(ic))
	f.queue("orders", nil)

	start := time.Now()
	mustOK(t, f.jsonCall("GetQueueUrl", `{"QueueName":"orders"}`))
	if d := time.Since(start); d < 100*time.Millisecond || d > 5*time.Second {
		t.Errorf("served after %v, want 100 ms", d)
	}
	start = time.Now()
	if w := f.jsonCall("DeleteQueue", `{"QueueUrl":"http://example.com/000000000000/orders"}`); w.Code != 500 {
		t.Errorf("delayed error: %d", w.Code)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("error after %v, want the delay first", d)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{}`)).WithContext(ctx)
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
	start = time.Now()
	f.serve(r)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a cancelled request waited %v", d)
	}
}
