package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestGracefulRounds runs the whole driver against cmd/sqsq (built, or
// $SQSQ_BIN) for three rounds, stopping the server with SIGTERM, which
// saves everything even before every call is durable: the driver and its
// checks must pass against it. A child process and a build: only with
// SQSQ_CRASH=1, so the quick suite stays quick.
func TestGracefulRounds(t *testing.T) {
	if os.Getenv("SQSQ_CRASH") != "1" {
		t.Skip("runs cmd/sqsq in a child process: set SQSQ_CRASH=1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	res, err := run(ctx, []string{"-graceful", "-kills", "3", "-min-kills", "3", "-max-duration", "1m", "-seed", "7"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if !res.pass() || res.kills != 3 {
		t.Fatalf("want a pass with 3 kills:\n%s%s", stdout.String(), stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "crash: PASS: 3 kills (SIGTERM)") {
		t.Errorf("summary: %q", stdout.String())
	}
	if res.checked.ackedSends == 0 || res.checked.ackedDeletes == 0 {
		t.Errorf("the checks held nothing to the contract: %s", stdout.String())
	}
	t.Log(strings.TrimSpace(stdout.String()))
}
