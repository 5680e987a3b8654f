package console_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestUI(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	for _, tc := range []struct {
		target, contentType, contains string
	}{
		{"/_sqsq/ui/", "text/html; charset=utf-8", `<script type="module" src="app.js">`},
		{"/_sqsq/ui/app.js", "text/javascript; charset=utf-8", "/_sqsq/api"},
		{"/_sqsq/ui/style.css", "text/css; charset=utf-8", ":focus-visible"},
	} {
		rec := e.do("GET", tc.target, nil)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != tc.contentType || !strings.Contains(rec.Body.String(), tc.contains) {
			t.Errorf("GET %s: %d %q, want 200 %q with %q", tc.target, rec.Code, rec.Header().Get("Content-Type"), tc.contentType, tc.contains)
		}
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy %q", tc.target, csp)
		}
	}
	// The ids the browser tests rely on are there.
	page := e.do("GET", "/_sqsq/ui/", nil).Body.String()
	for _, id := range []string{"create-form", "create-name", "create-fifo", "create-submit", "queues-table", "clock-now", "clock-mode",
		"send-form", "send-body", "send-group", "send-dedup", "send-delay", "send-submit", "purge", "messages-table",
		"messages-next", "redrive-form", "redrive-rate", "redrive-submit", "tasks-table", "status", "error",
		"faults-panel", "faults-seed", "faults-rules"} {
		if !strings.Contains(page, `id="`+id+`"`) {
			t.Errorf("index.html has no #%s", id)
		}
	}
	for _, d := range []string{"1s", "30s", "5m", "1h", "1d"} {
		if !strings.Contains(page, `data-advance="`+d+`"`) {
			t.Errorf("no advance button of %s", d)
		}
	}
	for _, target := range []string{"/_sqsq/ui", "/_sqsq/ui/index.html"} {
		if rec := e.do("GET", target, nil); rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") == "" {
			t.Errorf("GET %s: %d, want a redirect to /_sqsq/ui/", target, rec.Code)
		}
	}
	if rec := e.do("GET", "/_sqsq/ui/nope.js", nil); rec.Code != http.StatusNotFound {
		t.Errorf("GET a missing file: %d", rec.Code)
	}
}
