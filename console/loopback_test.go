package console_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sqsq/sqsq/sqshttp"
)

// Served behind sqshttp.LoopbackOnly, as cmd/sqsq serves it, the console
// refuses the requests a web page of another site makes a browser send,
// and serves the page's own: a fetch from the console's page carries the
// Origin of the server it came from, a loopback origin.
func TestLoopbackOnly(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	e.queue("q", nil)
	srv := httptest.NewServer(sqshttp.LoopbackOnly(e.h))
	t.Cleanup(srv.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}

	const send = `{"body":"from the console"}`
	foreign := map[string]string{"Origin": "https://evil.example", "Content-Type": "application/json"}
	for _, tc := range []struct {
		name, method, path string
		host               string // "" for the server's address
		header             map[string]string
		body               string
		want               int
	}{
		{"foreign page sends", "POST", "/_sqsq/api/queues/q/messages", "", foreign, send, 403},
		{"foreign page purges", "POST", "/_sqsq/api/queues/q/purge", "", foreign, "", 403},
		{"foreign page creates", "POST", "/_sqsq/api/queues", "", map[string]string{"Origin": "http://evil.example:9324"}, `{"name":"evil"}`, 403},
		{"sandboxed page advances", "POST", "/_sqsq/api/clock/advance?d=1h", "", map[string]string{"Origin": "null"}, "", 403},
		{"foreign page deletes", "DELETE", "/_sqsq/api/queues/q/messages/x", "", foreign, "", 403},
		{"foreign page redrives", "POST", "/_sqsq/api/queues/q/redrive", "", foreign, "{}", 403},
		{"cross-site without Origin", "POST", "/_sqsq/api/queues/q/purge", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, "", 403},
		{"DNS rebinding", "POST", "/_sqsq/api/queues/q/purge", "evil.example", nil, "", 403},
		{"foreign page reads", "GET", "/_sqsq/api/queues", "", foreign, "", 403},
		{"the console's own fetch", "POST", "/_sqsq/api/queues/q/messages", "",
			map[string]string{"Origin": srv.URL, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"}, send, 200},
		{"the console's page", "GET", "/_sqsq/ui/", "", map[string]string{"Sec-Fetch-Site": "none"}, "", 200},
		{"a localhost origin", "GET", "/_sqsq/api/queues", "localhost", map[string]string{"Origin": "http://localhost:9324"}, "", 200},
		{"a program", "GET", "/_sqsq/api/clock", "", nil, "", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("%d %s, want %d", resp.StatusCode, body, tc.want)
			}
			// A refusal is in the console's error shape, which its page
			// shows, not SQS's XML.
			var refusal apiError
			if resp.StatusCode == http.StatusForbidden && (resp.Header.Get("Content-Type") != "application/json" ||
				json.Unmarshal(body, &refusal) != nil || refusal.Code != "AccessDenied" || !strings.Contains(refusal.Error, "is denied")) {
				t.Errorf("the refusal: %s %s, want JSON with code AccessDenied", resp.Header.Get("Content-Type"), body)
			}
		})
	}
	// Only the console's own send went through.
	var page pageJSON
	e.ok("GET", "/_sqsq/api/queues/q/messages", nil, &page)
	if len(page.Messages) != 1 || page.Messages[0].Body != "from the console" {
		t.Errorf("messages %+v, want the one same-origin send", page.Messages)
	}
	if names := e.names(); len(names) != 1 {
		t.Errorf("queues %v", names)
	}
	if !e.clk.Now().Equal(start) {
		t.Errorf("a foreign page moved the clock to %v", e.clk.Now())
	}
}
