package console_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/console"
)

// countingWriter is a ResponseWriter that keeps only the head of what is
// written, so that the test's own memory does not hide the server's.
type countingWriter struct {
	h    http.Header
	code int
	n    int
	head []byte
}

func (w *countingWriter) Header() http.Header  { return w.h }
func (w *countingWriter) WriteHeader(code int) { w.code = code }
func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	if len(w.head) < 64<<10 {
		w.head = append(w.head, p[:min(len(p), 64<<10-len(w.head))]...)
	}
	return len(p), nil
}

// TestPeekPageMemory: a page of large bodies is streamed and capped by
// bytes, so serving it allocates well under 1.5 times the bodies it shows
// (the console used to build the whole answer, HTML-escaped: a body of '<'
// took six times its size, and 200 bodies of 1 MiB 3.5 GB). It does not
// call t.Parallel: it reads the process's allocation counter, which the
// parallel tests would add to.
func TestPeekPageMemory(t *testing.T) {
	e := setup(t, true)
	q, err := e.b.CreateQueue(t.Context(), sqsq.CreateQueueInput{QueueName: "big",
		Attributes: sqsq.QueueAttributes{MaximumMessageSize: sqsq.Some(1 << 20)}})
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("<", 1<<20-64)
	for range 40 {
		if _, err := q.Send(t.Context(), sqsq.SendInput{MessageBody: body}); err != nil {
			t.Fatal(err)
		}
	}
	w := &countingWriter{h: http.Header{}}
	req := httptest.NewRequest("GET", "/_sqsq/api/queues/big/messages?limit=1000", nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e.h.ServeHTTP(w, req)
	runtime.ReadMemStats(&after)
	if w.code != http.StatusOK {
		t.Fatalf("status %d: %s", w.code, w.head)
	}
	// The page stops at 8 MiB of bodies: 8 of these.
	const wantShown = 8
	if w.n < wantShown*len(body) || w.n > (wantShown+1)*len(body)+64<<10 {
		t.Errorf("the page has %d bytes, want about %d bodies of %d", w.n, wantShown, len(body))
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	if limit := uint64(wantShown*len(body)) * 3 / 2; allocated > limit {
		t.Errorf("serving %d bodies of %d bytes allocated %d bytes, more than 1.5 times theirs (%d)", wantShown, len(body), allocated, limit)
	}
	t.Logf("%d bytes answered, %d allocated", w.n, allocated)
}

// TestPeekPageCursorAfterByteCap: a page cut by its byte cap goes on where
// it stopped, and the pages together show every message once. The cap is
// 512 KiB and the bodies 64 KiB, the proportions of the server's 8 MiB and
// 1 MiB bodies at a sixteenth of the bytes (some 4 s less under -race).
func TestPeekPageCursorAfterByteCap(t *testing.T) {
	t.Parallel()
	e := setup(t, true, console.WithPageBytes(512<<10))
	q, err := e.b.CreateQueue(t.Context(), sqsq.CreateQueueInput{QueueName: "big"})
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := q.Send(t.Context(), sqsq.SendInput{MessageBody: strings.Repeat("x", 64<<10-64)}); err != nil {
			t.Fatal(err)
		}
	}
	seen, pages, cursor := map[string]bool{}, 0, ""
	for {
		rec := e.do("GET", "/_sqsq/api/queues/big/messages?limit=1000&cursor="+cursor, nil)
		var page pageJSON
		if err := json.Unmarshal(rec.Body.Bytes(), &page); rec.Code != http.StatusOK || err != nil {
			t.Fatalf("%d %v", rec.Code, err)
		}
		pages++
		for _, m := range page.Messages {
			if seen[m.MessageID] {
				t.Errorf("message %s on two pages", m.MessageID)
			}
			seen[m.MessageID] = true
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if len(seen) != 20 || pages != 3 {
		t.Errorf("%d messages on %d pages, want 20 on 3 (8 bodies each)", len(seen), pages)
	}
}

// TestPeekBodyEscapes: the streamed body decodes to what was sent, quotes,
// backslashes, control characters and '<' included.
func TestPeekBodyEscapes(t *testing.T) {
	t.Parallel()
	e := setup(t, true)
	q, err := e.b.CreateQueue(t.Context(), sqsq.CreateQueueInput{QueueName: "q"})
	if err != nil {
		t.Fatal(err)
	}
	body := "say \"hi\" \\ to <b>&</b>\n\tand\r é \u2028 ✓"
	if _, err := q.Send(t.Context(), sqsq.SendInput{MessageBody: body, MessageAttributes: map[string]sqsq.MessageAttribute{
		"a": {DataType: "String", StringValue: `,"body":""`}}}); err != nil {
		t.Fatal(err)
	}
	rec := e.do("GET", "/_sqsq/api/queues/q/messages", nil)
	var page pageJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil || len(page.Messages) != 1 {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	if m := page.Messages[0]; m.Body != body || m.MessageAttributes["a"].StringValue != `,"body":""` {
		t.Errorf("body %q, attribute %q", m.Body, m.MessageAttributes["a"].StringValue)
	}
	if h := rec.Header().Get("X-Content-Type-Options"); h != "nosniff" {
		t.Errorf("X-Content-Type-Options %q", h)
	}
}
