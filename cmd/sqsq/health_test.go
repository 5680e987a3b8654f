package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// GET /_sqsq/health answers ok on either clock, and only that path: the
// /_sqsq/ fallback keeps the others. It is guarded like every path, so a
// container reached through a published port (Host localhost:9324) passes
// and one reached by its Compose service name needs -allow-host.
func TestHealthEndpoint(t *testing.T) {
	t.Parallel()
	for _, clock := range []string{"real", "virtual"} {
		t.Run(clock, func(t *testing.T) {
			t.Parallel()
			s := start(t, "-clock", clock)
			c := testHTTPClient(t, "")

			resp, err := c.Get(s.url + healthPath)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var got healthAnswer
			if err := json.Unmarshal(body, &got); resp.StatusCode != http.StatusOK || err != nil {
				t.Fatalf("GET %s: %d %s (%v)", healthPath, resp.StatusCode, body, err)
			}
			if got.Status != "ok" || got.Clock != clock || got.Version == "" {
				t.Errorf("GET %s = %s, want status ok, clock %s and a version", healthPath, body, clock)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}

			for _, tc := range []struct {
				req    browserRequest
				status int
				want   string // in the body
				reason string
			}{
				{browserRequest{method: "HEAD", path: healthPath}, 200, "", "HEAD is GET without the body"},
				{browserRequest{method: "POST", path: healthPath}, 405, "use GET, HEAD", "the endpoint only reads"},
				{browserRequest{method: "GET", path: healthPath + "/more"}, 404, "no such endpoint", "the /_sqsq/ fallback keeps other paths"},
				{browserRequest{method: "GET", path: healthPath, host: "localhost:9324"}, 200, `"status":"ok"`,
					"a published port: the client names localhost, the server listens elsewhere"},
				{browserRequest{method: "GET", path: healthPath, host: "sqsq:9324"}, 403, "AccessDenied",
					"a Compose service name is not allowed without -allow-host"},
				{browserRequest{method: "GET", path: healthPath, header: map[string]string{"Origin": "https://evil.example"}}, 403, "AccessDenied",
					"a web page of another site"},
			} {
				code, body := tc.req.send(t, s, c)
				if code != tc.status || !strings.Contains(body, tc.want) {
					t.Errorf("%s %s (Host %q): %d %q, want %d with %q: %s", tc.req.method, tc.req.path, tc.req.host, code, body, tc.status, tc.want, tc.reason)
				}
			}
		})
	}
	t.Run("allow-host", func(t *testing.T) {
		t.Parallel()
		s := start(t, "-allow-host", "sqsq")
		code, body := browserRequest{method: "GET", path: healthPath, host: "sqsq:9324"}.send(t, s, testHTTPClient(t, ""))
		if code != http.StatusOK {
			t.Errorf("GET %s with Host sqsq:9324 and -allow-host sqsq: %d %s, want 200", healthPath, code, body)
		}
	})
}

// healthURL asks a server listening on every interface on loopback, and
// refuses what names no server.
func TestHealthURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr, want, err string
		reason          string
	}{
		{"0.0.0.0:9324", "http://127.0.0.1:9324/_sqsq/health", "", "the image's -addr: every IPv4 interface, loopback among them"},
		{"127.0.0.1:9324", "http://127.0.0.1:9324/_sqsq/health", "", "the default -addr"},
		{":9324", "http://127.0.0.1:9324/_sqsq/health", "", "no host: every interface"},
		{"[::]:9324", "http://[::1]:9324/_sqsq/health", "", "every IPv6 interface: IPv6 loopback"},
		{"[::1]:4566", "http://[::1]:4566/_sqsq/health", "", "a loopback address is asked as given"},
		{"localhost:http", "http://localhost:80/_sqsq/health", "", "a host name is asked by name, a service name becomes its port"},
		{"127.0.0.1:0", "", "port 0", "a free port is chosen at start: there is nothing to ask"},
		{"127.0.0.1", "", "missing port", "no port"},
	} {
		got, err := healthURL(tc.addr)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("healthURL(%q) = %q, %v; want %q, error with %q: %s", tc.addr, got, err, tc.want, tc.err, tc.reason)
		}
	}
}

// -healthcheck starts no server: it asks the one at -addr and succeeds
// only on its ok. The server's other flags are accepted, so a HEALTHCHECK
// can repeat the server's command line.
func TestHealthcheckMode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	check := func(args ...string) (string, error) {
		var stdout bytes.Buffer
		err := run(ctx, append([]string{"-healthcheck"}, args...), &stdout, io.Discard)
		return stdout.String(), err
	}
	t.Run("healthy", func(t *testing.T) {
		t.Parallel()
		s := start(t, "-clock", "virtual")
		out, err := check("-addr", strings.TrimPrefix(s.url, "http://"), "-clock", "virtual", "-allow-host", "sqsq")
		if err != nil || !strings.Contains(out, `"status":"ok"`) {
			t.Errorf("-healthcheck of a serving sqsq: %q, %v; want its answer and no error", out, err)
		}
	})
	t.Run("nothing listening", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		if _, err := check("-addr", addr); err == nil || !strings.Contains(err.Error(), "health check of http://"+addr+healthPath) {
			t.Errorf("-healthcheck of a closed port: %v, want an error naming the URL", err)
		}
	})
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"not ok", http.StatusOK, `{"status":"starting"}`},
		{"not JSON", http.StatusOK, `ok`},
		{"an error status", http.StatusServiceUnavailable, `{"status":"ok"}`},
		{"a redirect", http.StatusFound, `{"status":"ok"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.status == http.StatusFound {
					w.Header().Set("Location", healthPath+"/elsewhere")
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer other.Close()
			if _, err := check("-addr", other.Listener.Addr().String()); err == nil || !strings.Contains(err.Error(), `want 200 and status "ok"`) {
				t.Errorf("-healthcheck of a server answering %d %s: %v, want a failure", tc.status, tc.body, err)
			}
		})
	}
	t.Run("port 0", func(t *testing.T) {
		t.Parallel()
		if _, err := check("-addr", "127.0.0.1:0"); err == nil || !strings.Contains(err.Error(), "port 0") {
			t.Errorf("-healthcheck -addr 127.0.0.1:0: %v, want an error about port 0", err)
		}
	})
}

// -version prints one line and starts nothing.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	var stdout bytes.Buffer
	if err := run(context.Background(), []string{"-version"}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	if out := stdout.String(); out != "sqsq "+sqsqVersion()+"\n" || sqsqVersion() == "" {
		t.Errorf("-version printed %q, want \"sqsq <version>\"", out)
	}
}
