package main

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The debug log names each request's operation, wherever its protocol
// puts it.
func TestLogRequestsNamesOp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, target, query, body, want, reason string
	}{
		{"JSON", "AmazonSQS.SendMessage", "", `{"QueueUrl":"x"}`, "SendMessage", "X-Amz-Target names it"},
		{"QueryURL", "", "Action=ListQueues", "", "ListQueues", "a GET names it in the URL"},
		{"QueryBody", "", "", "Version=2012-11-05&Action=Receive%4Dessage&QueueUrl=x", "ReceiveMessage", "a POST names it in the form body the handler read"},
		{"None", "", "", "QueueUrl=x", `""`, "nothing names it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
			h := logRequests(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body) // as sqshttp reads it
			}))
			r := httptest.NewRequest("POST", "/?"+tc.query, strings.NewReader(tc.body))
			if tc.target != "" {
				r.Header.Set("X-Amz-Target", tc.target)
			}
			h.ServeHTTP(httptest.NewRecorder(), r)
			if want := " op=" + tc.want + " "; !strings.Contains(out.String(), want) {
				t.Errorf("log %q lacks %q: %s", out.String(), want, tc.reason)
			}
		})
	}
}
