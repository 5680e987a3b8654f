package console_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/console"
)

type clockJSON struct {
	Virtual    bool      `json:"virtual"`
	Now        time.Time `json:"now"`
	UnixMillis int64     `json:"unixMillis"`
}

func TestClock(t *testing.T) {
	t.Parallel()
	for _, real := range []bool{true, false} {
		e := setup(t, real)
		var got clockJSON
		e.ok("GET", "/_sqsq/api/clock", nil, &got)
		if got.Virtual == real || !got.Now.Equal(start) || got.UnixMillis != start.UnixMilli() {
			t.Errorf("real=%v: %+v", real, got)
		}
	}
}

// The real clock is the broker's default, read as it goes.
func TestClockReal(t *testing.T) {
	t.Parallel()
	b := sqsq.NewBroker()
	t.Cleanup(func() { _ = b.Close() })
	rec := httptest.NewRecorder()
	console.Handler(b).ServeHTTP(rec, httptest.NewRequest("GET", "/_sqsq/api/clock", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"virtual":false`) {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
	// No advance with the real clock.
	rec = httptest.NewRecorder()
	console.Handler(b).ServeHTTP(rec, httptest.NewRequest("POST", "/_sqsq/api/clock/advance?d=1s", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("advance with the real clock: %d %s", rec.Code, rec.Body)
	}
}

func TestAdvance(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	var got clockJSON
	e.ok("POST", "/_sqsq/api/clock/advance", map[string]string{"duration": "30s"}, &got)
	if !got.Virtual || !got.Now.Equal(start.Add(30*time.Second)) || !e.clk.Now().Equal(got.Now) {
		t.Errorf("after 30s: %+v, clock at %v", got, e.clk.Now())
	}
	e.ok("POST", "/_sqsq/api/clock/advance?d=1h", nil, &got)
	if !got.Now.Equal(start.Add(time.Hour + 30*time.Second)) {
		t.Errorf("after 1h more: %+v", got)
	}
}

func TestAdvanceRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, target string
		body         any
		code         string
	}{
		{"no duration", "", nil, "MissingParameter"},
		{"empty duration", "", map[string]string{"duration": ""}, "MissingParameter"},
		{"not a duration", "", map[string]string{"duration": "1 day"}, "InvalidParameterValue"},
		{"days are not Go", "?d=1d", nil, "InvalidParameterValue"},
		{"refused by the clock", "", map[string]string{"duration": "-1s"}, "InvalidParameterValue"},
		{"not JSON", "", "30s", "SerializationException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, false)
			rec := e.fails("POST", "/_sqsq/api/clock/advance"+tc.target, tc.body, http.StatusBadRequest, tc.code)
			if tc.name == "refused by the clock" && !strings.Contains(rec.Body.String(), "only moves forward") {
				t.Errorf("the advance function's reason is not shown: %s", rec.Body)
			}
			if !e.clk.Now().Equal(start) {
				t.Errorf("a refused advance moved the clock to %v", e.clk.Now())
			}
		})
	}
}

// An advance function's error is not an sqsq error: the console still
// answers it as a JSON 400.
func TestAdvanceFuncError(t *testing.T) {
	t.Parallel()
	b := sqsq.NewBroker()
	t.Cleanup(func() { _ = b.Close() })
	h := console.Handler(b, console.WithVirtualClock(func(time.Duration) (time.Time, error) {
		return time.Time{}, errors.New("no further than 2262")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/_sqsq/api/clock/advance?d=1s", nil))
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "no further than 2262") {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
}
