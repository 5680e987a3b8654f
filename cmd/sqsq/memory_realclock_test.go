package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqshttp"
)

// TestMemReleaserRealClock: a purge releases memory once the shrinking
// requests have been quiet for a while, not at each; a few deletes do not;
// releases are spaced by the gap.
func TestMemReleaserRealClock(t *testing.T) {
	t.Parallel()
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
	t.Cleanup(func() { _ = b.Close() })
	if _, err := b.CreateQueue(t.Context(), sqsq.CreateQueueInput{QueueName: "q"}); err != nil {
		t.Fatal(err)
	}
	var released atomic.Int32
	m := &memReleaser{quiet: 50 * time.Millisecond, gap: 400 * time.Millisecond, release: func() { released.Add(1) }}
	t.Cleanup(m.stop)
	h := m.wrap(sqshttp.NewHandler(b))
	call := func(op, body string) {
		r := httptest.NewRequest("POST", "http://localhost/", strings.NewReader(body))
		r.Header.Set("X-Amz-Target", "AmazonSQS."+op)
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", op, w.Code, w.Body)
		}
	}
	const url = `"QueueUrl":"http://localhost/000000000000/q"`
	call("ListQueues", "{}")
	time.Sleep(150 * time.Millisecond)
	if n := released.Load(); n != 0 {
		t.Fatalf("%d releases without a shrinking request", n)
	}
	call("PurgeQueue", "{"+url+"}")
	if n := released.Load(); n != 0 {
		t.Errorf("released at once, not after the quiet time")
	}
	deadline := time.Now().Add(5 * time.Second)
	for released.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if released.Load() != 1 {
		t.Fatalf("%d releases after a purge and the quiet time, want 1", released.Load())
	}
	// A queue deletion at once waits for the gap, then releases.
	call("DeleteQueue", "{"+url+"}")
	time.Sleep(150 * time.Millisecond)
	if n := released.Load(); n != 1 {
		t.Errorf("%d releases within the gap, want 1", n)
	}
	for released.Load() == 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := released.Load(); n != 2 {
		t.Errorf("%d releases after the gap, want 2", n)
	}
}
