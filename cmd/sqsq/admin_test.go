package main

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/testsize"
)

// adminMux serves the admin endpoint of a broker on a mock clock set to
// start, without a listener: requests go straight to the mux.
func adminMux(t *testing.T, start time.Time) (*http.ServeMux, *clock.Mock) {
	t.Helper()
	clk := clock.NewMock()
	clk.Set(start)
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	t.Cleanup(func() { _ = b.Close() })
	mux := http.NewServeMux()
	admin{b: b, clk: clk}.register(mux)
	return mux, clk
}

// serveAdmin serves one request on mux and returns the status and the body.
func serveAdmin(mux *http.ServeMux, method, target, body string) (int, []byte) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	mux.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

func TestAdvanceRejects(t *testing.T) {
	t.Parallel()
	today := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	near := clockLimit.Add(-time.Hour) // an hour before the limit
	for _, tc := range []struct {
		name   string
		start  time.Time
		target string
		body   string
		want   string // in the error
	}{
		{"negative", today, "?d=-1s", "", "forward"},
		{"negative body", today, "", `{"duration":"-1ns"}`, "forward"},
		{"unparsable", today, "?d=soon", "", "bad duration"},
		{"unparsable body", today, "", `{"duration":"soon"}`, "bad duration"},
		{"bad body", today, "", `{"duration":`, "body"},
		{"missing", today, "", "", "duration"},
		{"missing in body", today, "", `{}`, "duration"},
		{"beyond a Duration", today, "?d=3000000h", "", "bad duration"},
		// The reported overflow: past 2262 SentTimestamp went negative.
		{"past 2262", today, "?d=2562047h", "", "2262"},
		{"max Duration", today, "?duration=2562047h47m16.854775807s", "", "2262"},
		{"to the limit", near, "?d=1h", "", "at most 59m59.999999999s"},
		{"past the limit", near, "?d=1h0m0.000000001s", "", "2262"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mux, clk := adminMux(t, tc.start)
			code, body := serveAdmin(mux, "POST", "/_sqsq/clock/advance"+tc.target, tc.body)
			var e struct{ Error string }
			if err := json.Unmarshal(body, &e); err != nil || code != http.StatusBadRequest {
				t.Fatalf("%d %s (%v), want 400 and a JSON error", code, body, err)
			}
			if !strings.Contains(e.Error, tc.want) {
				t.Errorf("error %q, want it to mention %q", e.Error, tc.want)
			}
			if !clk.Now().Equal(tc.start) {
				t.Errorf("a refused advance moved the clock to %v", clk.Now())
			}
		})
	}
}

func TestAdvanceAccepts(t *testing.T) {
	t.Parallel()
	near := clockLimit.Add(-time.Hour)
	for _, tc := range []struct {
		name   string
		target string
		body   string
		want   time.Time
	}{
		{"zero is a no-op", "?d=0s", "", near},
		{"body", "", `{"duration":"30m"}`, near.Add(30 * time.Minute)},
		{"up to the limit", "?d=59m59.999999999s", "", clockLimit.Add(-time.Nanosecond)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mux, clk := adminMux(t, near)
			code, body := serveAdmin(mux, "POST", "/_sqsq/clock/advance"+tc.target, tc.body)
			var st clockState
			if err := json.Unmarshal(body, &st); err != nil || code != http.StatusOK {
				t.Fatalf("%d %s (%v)", code, body, err)
			}
			if !st.Now.Equal(tc.want) || !clk.Now().Equal(tc.want) || st.UnixMillis != tc.want.UnixMilli() {
				t.Errorf("answered %+v, clock at %v; want %v", st, clk.Now(), tc.want)
			}
		})
	}
}

// The limit leaves room for the longest deadline the broker sets ahead of
// now, the 14-day retention period, in int64 nanoseconds.
func TestClockLimitLeavesRoom(t *testing.T) {
	last := clockLimit.Add(-time.Nanosecond)
	if end := time.Unix(0, math.MaxInt64); !last.Add(14 * 24 * time.Hour).Before(end) {
		t.Errorf("%v + 14 days is not before %v, where UnixNano overflows", last, end)
	}
}

// Concurrent advances add up exactly, and the clock read meanwhile never
// goes back.
func TestAdvanceConcurrent(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	mux, clk := adminMux(t, start)
	// Two readers spin while the writers advance: 25 advances each
	// interleave plenty, SQSQ_LONG=1 does 100.
	const writers = 8
	advances := testsize.Scale(25, 100)

	done := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			last := start
			for {
				select {
				case <-done:
					return
				default:
				}
				code, body := serveAdmin(mux, "GET", "/_sqsq/clock", "")
				var st clockState
				if err := json.Unmarshal(body, &st); err != nil || code != http.StatusOK {
					t.Errorf("GET /_sqsq/clock: %d %s (%v)", code, body, err)
					return
				}
				if st.Now.Before(last) {
					t.Errorf("the clock went back from %v to %v", last, st.Now)
					return
				}
				last = st.Now
			}
		}()
	}

	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range advances {
				if code, body := serveAdmin(mux, "POST", "/_sqsq/clock/advance?d=1s", ""); code != http.StatusOK {
					t.Errorf("advance: %d %s", code, body)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	readers.Wait()

	want := start.Add(time.Duration(writers*advances) * time.Second)
	if got := clk.Now(); !got.Equal(want) {
		t.Errorf("the clock is at %v after %d advances of 1s, want %v (lost %v)", got, writers*advances, want, want.Sub(got))
	}
}

// TestReceiversOpensNoNamespace: ?account= and ?region= find a queue of
// another namespace, and never open one: 1,000 requests for made-up
// namespaces leave the broker's namespaces as they were.
func TestReceiversOpensNoNamespace(t *testing.T) {
	t.Parallel()
	clk := clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	t.Cleanup(func() { _ = b.Close() })
	mux := http.NewServeMux()
	admin{b: b, clk: clk, mu: new(sync.Mutex)}.register(mux)
	if _, err := b.Scope("111111111111", "eu-west-1").CreateQueue(t.Context(), sqsq.CreateQueueInput{QueueName: "q"}); err != nil {
		t.Fatal(err)
	}
	before := len(b.Scopes())
	for i := range 1000 {
		code, body := serveAdmin(mux, "GET", "/_sqsq/queues/q/receivers?atLeast=0&account=a"+strconv.Itoa(i)+"&region=r"+strconv.Itoa(i), "")
		if code != http.StatusNotFound {
			t.Fatalf("a made-up namespace: %d %s", code, body)
		}
	}
	if after := len(b.Scopes()); after != before {
		t.Errorf("%d namespaces after the requests, %d before", after, before)
	}
	if code, body := serveAdmin(mux, "GET", "/_sqsq/queues/q/receivers?atLeast=0&account=111111111111&region=eu-west-1", ""); code != http.StatusOK {
		t.Errorf("the queue of another namespace: %d %s", code, body)
	}
}
