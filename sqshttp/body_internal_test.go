package sqshttp

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sqsq/sqsq"
)

func newTestHandler(t *testing.T, opts ...Option) *handler {
	t.Helper()
	b := sqsq.NewBroker()
	t.Cleanup(func() { b.Close() })
	return NewHandler(b, opts...).(*handler)
}

// stalledBody sends first, then blocks until the test ends it; started
// is closed once first has been read.
type stalledBody struct {
	first   []byte
	started chan struct{}
	pr      *io.PipeReader
	pw      *io.PipeWriter
}

func newStalledBody(first []byte) *stalledBody {
	pr, pw := io.Pipe()
	return &stalledBody{first: first, started: make(chan struct{}), pr: pr, pw: pw}
}

func (s *stalledBody) Read(p []byte) (int, error) {
	if len(s.first) > 0 {
		n := copy(p, s.first)
		s.first = s.first[n:]
		if len(s.first) == 0 {
			close(s.started)
		}
		return n, nil
	}
	return s.pr.Read(p)
}

// end makes the stalled read fail, as a read deadline does.
func (s *stalledBody) end() { s.pw.CloseWithError(errors.New("i/o timeout")) }

func bodyRequest(body io.Reader, length int64) *http.Request {
	r := httptest.NewRequest("POST", "/", body)
	r.ContentLength = length
	return r
}

// readBodyAsync runs readBody in the background.
func readBodyAsync(h *handler, r *http.Request) <-chan *wireError {
	done := make(chan *wireError, 1)
	go func() {
		buf, werr := h.readBody(r)
		if buf != nil {
			h.putBody(buf)
		}
		done <- werr
	}()
	return done
}

// A stalled body holds memory for the bytes it sent, not for the length it
// announced; the read deadline's error ends it with RequestCanceled and
// gives the memory back.
func TestReadBodyStalledHoldsWhatArrived(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t)
	body := newStalledBody([]byte(`{"Qu`))
	done := readBodyAsync(h, bodyRequest(body, DefaultMaxRequestBytes))
	<-body.started
	if held := h.receiving.Load(); held > bodyChunk {
		t.Errorf("a body that announced %d bytes and sent 4 holds %d bytes, want at most %d", DefaultMaxRequestBytes, held, bodyChunk)
	}
	body.end()
	if werr := <-done; werr == nil || werr.err.Code != codeRequestCanceled {
		t.Errorf("readBody of a stalled body = %v, want RequestCanceled", werr)
	}
	if held := h.receiving.Load(); held != 0 {
		t.Errorf("after the failed read the bodies hold %d bytes, want 0", held)
	}
}

// The buffer grows with the bytes, up to the announced length: never past
// it, and never more than about twice the bytes received.
func TestReadBodyGrowsWithBytes(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t, WithMaxRequestBytes(1<<20))
	tests := []struct {
		name      string
		size      int
		announced int64 // -1: chunked
		wantErr   sqsq.Code
		maxCap    int
	}{
		{"announced", 100_000, 100_000, "", 100_001},
		{"chunked", 10 << 10, -1, "", 16 << 10},
		{"empty", 0, 0, "", bodyChunk},
		{"at the limit, chunked", 1 << 20, -1, "", 1<<20 + 1},
		{"over the limit, chunked", 1<<20 + 1, -1, codeRequestEntityTooLarge, 0},
		{"over the limit, announced", 1<<20 + 1, 1<<20 + 1, codeRequestEntityTooLarge, 0},
		{"short of its announcement", 10, 1 << 20, "", bodyChunk},
	}
	for _, tt := range tests {
		data := bytes.Repeat([]byte("x"), tt.size)
		buf, werr := h.readBody(bodyRequest(bytes.NewReader(data), tt.announced))
		switch {
		case tt.wantErr != "":
			if werr == nil || werr.err.Code != tt.wantErr {
				t.Errorf("%s: %v, want %s", tt.name, werr, tt.wantErr)
			}
		case werr != nil:
			t.Errorf("%s: %v", tt.name, werr)
		default:
			if !bytes.Equal(buf.Bytes(), data) {
				t.Errorf("%s: read %d bytes, want %d", tt.name, buf.Len(), len(data))
			}
			if buf.Cap() > tt.maxCap {
				t.Errorf("%s: a buffer of %d bytes for %d, want at most %d", tt.name, buf.Cap(), tt.size, tt.maxCap)
			}
			// Not pooled: the next case starts from an empty buffer.
		}
		if held := h.receiving.Load(); held != 0 {
			t.Errorf("%s: after the read the bodies hold %d bytes, want 0", tt.name, held)
		}
	}
}

// When the bodies being received hold the budget, a body that needs more
// is refused with 503 ServiceUnavailable (which the SDKs retry) in its
// protocol, and served once the budget is free again.
func TestReadBodyBudget(t *testing.T) {
	t.Parallel()
	// The budget is never less than one body of the largest size: 64 KiB + 1.
	h := newTestHandler(t, WithMaxRequestBytes(64<<10), WithMaxRequestBytesInFlight(1))
	stalled := newStalledBody(bytes.Repeat([]byte(" "), 20<<10))
	done := readBodyAsync(h, bodyRequest(stalled, -1))
	<-stalled.started
	if held := h.receiving.Load(); held != 32<<10 {
		t.Fatalf("20 KiB received hold %d bytes, want 32 KiB", held)
	}

	list := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/", strings.NewReader("{"+strings.Repeat(" ", 40<<10)+"}"))
		r.Header.Set("Content-Type", jsonContentType)
		r.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := list()
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), `"__type":"com.amazonaws.sqs#ServiceUnavailable"`) ||
		w.Header().Get("x-amzn-query-error") != "ServiceUnavailable;Receiver" {
		t.Errorf("a body past the budget: %d %v %s; want 503 ServiceUnavailable", w.Code, w.Header(), w.Body)
	}
	if held := h.receiving.Load(); held != 32<<10 {
		t.Errorf("after the refusal the bodies hold %d bytes, want the stalled one's 32 KiB", held)
	}

	stalled.end()
	<-done
	if w := list(); w.Code != http.StatusOK {
		t.Errorf("the same request with the budget free: %d %s", w.Code, w.Body)
	}
	// One body of the largest size always fits the budget alone.
	if buf, werr := h.readBody(bodyRequest(bytes.NewReader(make([]byte, 64<<10)), -1)); werr != nil {
		t.Errorf("a body of the largest size alone: %v", werr)
	} else {
		h.putBody(buf)
	}
	if held := h.receiving.Load(); held != 0 {
		t.Errorf("at the end the bodies hold %d bytes, want 0", held)
	}
}

// Clients that stall in the middle of large bodies hold at most the large
// bodies' share of the budget: 40 that each push 3 MiB of a 4 MiB body
// and stall leave room for every small request (a ListQueues got 503 until
// their read timeout).
func TestReadBodyStalledLargeBodiesLeaveRoom(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t) // 4 MiB bodies, 64 MiB in flight
	chunk := bytes.Repeat([]byte(" "), 3<<20)
	var stalled []*stalledBody
	var dones []<-chan *wireError
	refused := 0
	for range 40 {
		s := newStalledBody(chunk)
		done := readBodyAsync(h, bodyRequest(s, 4<<20))
		select {
		case <-s.started:
			stalled, dones = append(stalled, s), append(dones, done)
		case werr := <-done:
			if werr == nil || werr.err.Code != sqsq.CodeServiceUnavailable {
				t.Fatalf("a large body past its share: %v", werr)
			}
			refused++
		}
	}
	if refused == 0 || h.receiving.Load() > 56<<20 {
		t.Errorf("%d large bodies refused, %d bytes held: want the large share (56 MiB) full and the rest refused", refused, h.receiving.Load())
	}
	r := httptest.NewRequest("POST", "/", strings.NewReader("{}"))
	r.Header.Set("Content-Type", jsonContentType)
	r.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Errorf("ListQueues while large bodies are stalled: %d %s", w.Code, w.Body)
	}
	for i, s := range stalled {
		s.end()
		<-dones[i]
	}
	if held := h.receiving.Load(); held != 0 {
		t.Errorf("at the end the bodies hold %d bytes, want 0", held)
	}
}
