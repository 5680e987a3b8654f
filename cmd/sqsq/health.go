package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// The health endpoint, and the -healthcheck mode that asks it.
//
// GET /_sqsq/health answers 200 {"status":"ok",...} once the server serves,
// in both clock modes. It lives under /_sqsq/, beside the admin endpoints
// and the console, as LocalStack's lives under /_localstack/health: no SQS
// request uses that prefix (queue URLs are /{account}/{queue}), so it can
// never be mistaken for, or shadow, a queue. Like every path it is inside
// sqshttp.LoopbackOnly: a health check names the server by a loopback name
// or its address, which pass.
//
// A container image built FROM scratch has no curl or wget, so the binary
// checks itself: sqsq -healthcheck -addr <the server's -addr> asks the
// endpoint over loopback and exits 0 if it answers ok within
// healthcheckTimeout, 1 otherwise — the exit codes a Docker HEALTHCHECK
// reads.

// healthPath is the path of the health endpoint.
const healthPath = "/_sqsq/health"

// healthcheckTimeout bounds -healthcheck, from dialling to the last byte of
// the answer: an answer takes microseconds, so a server that needs longer
// is stuck, and Docker's own --timeout (30 s by default) is never reached.
const healthcheckTimeout = 3 * time.Second

// healthAnswer is the body of GET /_sqsq/health.
type healthAnswer struct {
	Status  string `json:"status"`  // "ok"
	Version string `json:"version"` // as -version prints it
	Clock   string `json:"clock"`   // "real" or "virtual"
}

// registerHealth serves the health endpoint on mux: GET (and so HEAD)
// answers, other methods get 405. Its pattern is more specific than the
// /_sqsq/ fallback of registerAdminFallback, so it wins whatever the order.
func registerHealth(mux *http.ServeMux, clock string) {
	answer := healthAnswer{Status: "ok", Version: sqsqVersion(), Clock: clock}
	mux.HandleFunc("GET "+healthPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusOK, answer)
	})
	mux.HandleFunc(healthPath, methodNotAllowed("GET, HEAD"))
}

// healthURL is the URL of the health endpoint of a server started with
// -addr addr. A server listening on every interface (0.0.0.0, ::, or no
// host) is asked on loopback, so the image's -addr 0.0.0.0:9324 works; a
// host name is asked by that name, which the server allows as its own.
func healthURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("-addr %q: %v", addr, err)
	}
	p, err := net.LookupPort("tcp", port)
	if err != nil {
		return "", fmt.Errorf("-addr %q: %v", addr, err)
	}
	if p == 0 {
		return "", fmt.Errorf("-healthcheck needs the server's port, and -addr %q has port 0 (a free port, chosen when the server starts)", addr)
	}
	if ip, err := netip.ParseAddr(host); host == "" || err == nil && ip.Is4() && ip.IsUnspecified() {
		host = "127.0.0.1"
	} else if err == nil && ip.IsUnspecified() {
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(p)) + healthPath, nil
}

// checkHealth asks the health endpoint of the server at addr (its -addr)
// and returns nil if it answers 200 with status "ok" within timeout; it
// prints the answer to stdout.
func checkHealth(ctx context.Context, addr string, timeout time.Duration, stdout io.Writer) error {
	u, err := healthURL(addr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	c := &http.Client{
		// Never a proxy of the environment (HTTP_PROXY), and no connection
		// kept: the process exits.
		Transport:     &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := c.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("health check of %s: no answer within %v", u, timeout)
		}
		return fmt.Errorf("health check of %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if err != nil {
		return fmt.Errorf("health check of %s: reading the answer: %v", u, err)
	}
	var got healthAnswer
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &got) != nil || got.Status != "ok" {
		return fmt.Errorf("health check of %s: %s %q; want 200 and status \"ok\"", u, resp.Status, body)
	}
	fmt.Fprintf(stdout, "sqsq at %s is healthy: %s", u, body)
	return nil
}
