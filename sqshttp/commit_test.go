package sqshttp_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/sqsq/sqsq/sqshttp"
)

// WithCommit's hook runs before each answer of a call that succeeded, in
// both protocols; when it fails, the client gets 500 InternalFailure
// instead of the result, and a failed call does not run it.
func TestCommitHook(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var fail atomic.Bool
	f := setup(t, sqshttp.WithCommit(func(ctx context.Context) error {
		calls.Add(1)
		if fail.Load() {
			return errors.New("disk full")
		}
		return nil
	}))
	url := f.queue("orders", nil)

	before := calls.Load()
	if w := f.jsonCall("SendMessage", `{"QueueUrl":"`+url+`","MessageBody":"x"}`); w.Code != 200 {
		t.Fatalf("SendMessage: %d %s", w.Code, w.Body)
	}
	if got := calls.Load() - before; got != 1 {
		t.Errorf("the hook ran %d times for one call; want 1", got)
	}
	before = calls.Load()
	if w := f.jsonCall("SendMessage", `{"QueueUrl":"`+url+`"}`); w.Code != 400 {
		t.Fatalf("SendMessage without a body: %d %s", w.Code, w.Body)
	}
	if got := calls.Load() - before; got != 0 {
		t.Errorf("the hook ran %d times for a refused call; want 0", got)
	}

	fail.Store(true)
	w := f.jsonCall("SendMessage", `{"QueueUrl":"`+url+`","MessageBody":"y"}`)
	var je struct {
		Type string `json:"__type"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &je); err != nil {
		t.Fatal(err, w.Body)
	}
	if w.Code != 500 || je.Type != "com.amazonaws.sqs#InternalFailure" || w.Header().Get("x-amzn-query-error") != "InternalFailure;Receiver" {
		t.Errorf("JSON, the hook failing: %d %s %q", w.Code, w.Body, w.Header().Get("x-amzn-query-error"))
	}
	w = f.queryCall("/000000000000/orders", form("Action", "SendMessage", "MessageBody", "z"))
	var xe struct {
		Error struct{ Type, Code string }
	}
	if err := xml.Unmarshal(w.Body.Bytes(), &xe); err != nil {
		t.Fatal(err, w.Body)
	}
	if w.Code != 500 || xe.Error.Type != "Receiver" || xe.Error.Code != "InternalFailure" {
		t.Errorf("Query, the hook failing: %d %s", w.Code, w.Body)
	}
}
