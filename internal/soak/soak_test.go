package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq/internal/testsize"
)

// TestSoakSmall runs a small soak end to end, so that the program cannot
// rot between the CI's 100,000-message runs: it builds cmd/sqsq, drives it
// in a child process with the real SDK, and checks the ledger. Memory and
// CPU are not judged: 2,000 messages are too few to measure them. The
// quick suite skips it: .ci/run runs the 100,000-message soak, which does
// all this and more, right after it, and SQSQ_LONG=1 runs it here.
func TestSoakSmall(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds cmd/sqsq and runs it for several seconds")
	}
	testsize.LongOnly(t, "CI's 100,000-message soak (go run ./internal/soak) covers it")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	res, err := run(ctx, []string{"-messages", "2000", "-consumers", "16", "-producers", "4", "-groups", "40",
		"-backlog", "400", "-rss-ratio", "0", "-cpu-ratio", "0", "-max-duration", "2m", "-v"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("soak did not run: %v\n%s", err, stderr.String())
	}
	t.Log(strings.TrimSpace(stdout.String()))
	if !res.pass() {
		t.Fatalf("soak failed: %v\n%s", res.failures, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "soak PASS: 2000 messages") || strings.Count(stdout.String(), "\n") != 1 {
		t.Errorf("stdout %q: want one summary line", stdout.String())
	}
	rep := res.rep
	if rep.sent != 2000 || rep.deleted+rep.dlq != 2000 || rep.dlqExpected == 0 || rep.redeliveries == 0 {
		t.Errorf("report %+v: want 2,000 sent, each deleted or dead-lettered, some always-failing ones dead-lettered, some redeliveries", rep)
	}
	if res.fifo == 0 || res.http.c2xx == 0 {
		t.Errorf("%d FIFO messages, %d 2xx answers: want the FIFO queue used and the answers counted", res.fifo, res.http.c2xx)
	}
}

func TestFlagsRejected(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args   []string
		reason string
	}{
		{[]string{"-messages", "0"}, "nothing to send"},
		{[]string{"-consumers", "1"}, "each queue needs a consumer"},
		{[]string{"-fifo", "1.5"}, "a share is at most 1"},
		{[]string{"-groups", "2", "-producers", "4"}, "a group has one producer, so no producer may be without one"},
		{[]string{"-body", "8"}, "the body must hold the message's number, group and sequence"},
		{[]string{"-visibility", "1500ms"}, "SQS takes whole seconds"},
		{[]string{"-backlog", "5"}, "a backlog smaller than a batch stalls the producers"},
		{[]string{"extra"}, "no arguments"},
	}
	for _, tt := range tests {
		if _, err := parseFlags(tt.args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q): no error (%s)", tt.args, tt.reason)
		}
	}
}
