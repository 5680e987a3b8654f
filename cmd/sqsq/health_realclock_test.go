package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A server that accepts the health check and never answers fails it
// within its timeout, not Docker's.
func TestHealthcheckTimeoutRealClock(t *testing.T) {
	t.Parallel()
	stuck := make(chan struct{})
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stuck:
		case <-r.Context().Done():
		}
	}))
	defer other.Close()
	defer close(stuck)
	const timeout = 300 * time.Millisecond
	began := time.Now()
	err := checkHealth(context.Background(), other.Listener.Addr().String(), timeout, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Errorf("checkHealth of a stuck server: %v, want no answer within %v", err, timeout)
	}
	realWithin(t, "the health check of a stuck server", time.Since(began), timeout, timeout+2*time.Second)
}

// The command, as a HEALTHCHECK runs it: exit status 0 while the server
// serves, 1 (never 2, which Docker reserves) once it is gone, with the
// reason on stderr; each within the few seconds of its timeout.
func TestHealthcheckExitStatusRealClock(t *testing.T) {
	t.Parallel()
	p := startProcess(t)
	addr := strings.TrimPrefix(p.url, "http://")
	healthcheck := func() (int, string, time.Duration) {
		cmd := exec.Command(os.Args[0], "-healthcheck", "-addr", addr)
		cmd.Env = childEnv()
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		began := time.Now()
		err := cmd.Run()
		took := time.Since(began)
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			return exit.ExitCode(), stderr.String(), took
		case err != nil:
			t.Fatal(err)
		}
		return 0, stdout.String(), took
	}
	code, out, took := healthcheck()
	if code != 0 || !strings.Contains(out, `"status":"ok"`) {
		t.Errorf("sqsq -healthcheck of a serving sqsq: exit %d, %q; want 0 and its answer", code, out)
	}
	realWithin(t, "a passing health check", took, 0, healthcheckTimeout)

	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.waitExit(t, time.Now())
	// The port is closed now (nothing else takes it this soon: the kernel
	// hands out free ports in turn).
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Skip("the port was taken again at once")
	}
	code, out, took = healthcheck()
	if code != 1 || !strings.Contains(out, "sqsq: health check of http://"+addr+healthPath) {
		t.Errorf("sqsq -healthcheck with the server gone: exit %d, stderr %q; want 1 and the reason", code, out)
	}
	realWithin(t, "a failing health check", took, 0, healthcheckTimeout+2*time.Second)
}
