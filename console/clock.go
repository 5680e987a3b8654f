package console

import (
	"fmt"
	"net/http"
	"time"

	"github.com/sqsq/sqsq"
)

// clockState is the answer of the clock endpoints.
type clockState struct {
	// Virtual is true when the clock moves only when told (see
	// WithVirtualClock).
	Virtual    bool      `json:"virtual"`
	Now        time.Time `json:"now"`
	UnixMillis int64     `json:"unixMillis"`
}

func (c *console) clockState(now time.Time) clockState {
	return clockState{Virtual: c.cfg.advance != nil, Now: now.UTC(), UnixMillis: now.UnixMilli()}
}

// clock answers GET /_sqsq/api/clock: the broker's clock, real or virtual.
func (c *console) clock(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, c.clockState(c.b.Clock().Now()))
}

// advanceClock answers POST /_sqsq/api/clock/advance, served with a
// virtual clock only: the body {"duration":"30s"} (Go syntax) or ?d=30s
// moves it forward with the advance function of WithVirtualClock, which
// says what it refuses.
func (c *console) advanceClock(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Duration string `json:"duration"`
	}
	if !decode(w, r, &in) {
		return
	}
	if d := r.URL.Query().Get("d"); d != "" {
		in.Duration = d
	}
	if in.Duration == "" {
		fail(w, sqsq.MissingParameter("duration"))
		return
	}
	d, err := time.ParseDuration(in.Duration)
	if err != nil {
		fail(w, sqsq.InvalidParameter("duration", in.Duration, "it must be a Go duration such as 30s, 5m or 1h30m."))
		return
	}
	now, err := c.cfg.advance(d)
	if err != nil {
		fail(w, sqsq.InvalidParameter("duration", in.Duration, fmt.Sprint(err)))
		return
	}
	writeJSON(w, http.StatusOK, c.clockState(now))
}
