package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

func TestSwitchFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason       string
		args         []string
		cfg          config
		stale, stric bool
	}{
		{"the defaults are sqsq's: a stale delete deletes nothing, a late CMV succeeds", nil, config{}, false, false},
		{"a bare flag means true", []string{"-stale-delete-removes"}, config{}, true, false},
		{"=true works too", []string{"-strict-not-inflight=true"}, config{}, false, true},
		{"both flags", []string{"-stale-delete-removes", "-strict-not-inflight"}, config{}, true, true},
		{"the config file sets them when no flag does", nil, config{StaleDeleteRemoves: true, StrictNotInflight: true}, true, true},
		{"a flag wins over the config file, also =false", []string{"-stale-delete-removes=false"},
			config{StaleDeleteRemoves: true, StrictNotInflight: true}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			o, err := parseFlags(tt.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			got := resolveSwitches(o, tt.cfg)
			if want := (switches{staleDeleteRemoves: tt.stale, strictNotInflight: tt.stric}); got != want {
				t.Errorf("args %q, config %+v: %+v, want %+v", tt.args, tt.cfg, got, want)
			}
		})
	}
	for _, bad := range [][]string{{"-stale-delete-removes=maybe"}, {"-strict-not-inflight=2"}} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("parseFlags %q: no error", bad)
		}
	}
	var help bytes.Buffer
	if _, err := parseFlags([]string{"-h"}, &help); err == nil {
		t.Error("-h: no flag.ErrHelp")
	}
	for _, name := range []string{"-stale-delete-removes\n", "-strict-not-inflight\n"} {
		if !strings.Contains(help.String(), name) {
			t.Errorf("-h lacks %q (a switch, with no value to give):\n%s", name, help.String())
		}
	}
}

func TestSwitchConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cfg, err := readConfig(write("on.json", `{"staleDeleteRemoves": true, "strictNotInflight": true, "queues": [{"name": "q"}]}`))
	if err != nil || !cfg.StaleDeleteRemoves || !cfg.StrictNotInflight || len(cfg.Queues) != 1 {
		t.Errorf("readConfig: %+v, %v; want both switches on and one queue", cfg, err)
	}
	cfg, err = readConfig(write("off.json", `{"queues": []}`))
	if err != nil || cfg.StaleDeleteRemoves || cfg.StrictNotInflight {
		t.Errorf("readConfig without the keys: %+v, %v; want both off", cfg, err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, example, _ := strings.Cut(string(readme), "```json\n")
	example, _, _ = strings.Cut(example, "```")
	cfg, err = readConfig(write("readme.json", example))
	if err != nil || !cfg.StaleDeleteRemoves || len(cfg.Queues) != 4 {
		t.Errorf("the README's config example: %+v, %v; want staleDeleteRemoves and four queues", cfg, err)
	}
	b := sqsq.NewBroker()
	defer b.Close()
	if _, err := createQueues(t.Context(), b, cfg, "readme.json", false); err != nil {
		t.Errorf("the README's config example creates no queues: %v", err)
	}
	for _, bad := range []string{
		`{"staleDeleteRemove": true}`,  // a typo is refused, as for every key
		`{"strictNotInflight": "yes"}`, // a JSON boolean, not a string
	} {
		path := write("bad.json", bad)
		if _, err := readConfig(path); err == nil {
			t.Errorf("readConfig %s: no error", bad)
		}
		if err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-config", path}, io.Discard, io.Discard); err == nil {
			t.Errorf("run with config %s: no error, want the server not to start", bad)
		}
	}
}

// rawClient speaks AWS JSON 1.0 to a started sqsq over plain HTTP.
type rawClient struct {
	t   *testing.T
	s   *server
	c   *http.Client
	url string // of queue "q"
}

func newRawClient(t *testing.T, s *server) *rawClient {
	// Its own transport, so no idle connection outlives the test (goleak);
	// the timeout is a hang guard.
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	r := &rawClient{t: t, s: s, c: &http.Client{Transport: tr, Timeout: time.Minute}}
	var out struct{ QueueUrl string }
	r.ok("CreateQueue", map[string]any{"QueueName": "q"}, &out)
	r.url = out.QueueUrl
	return r
}

// call posts op with params and returns the status and the body.
func (r *rawClient) call(op string, params map[string]any) (int, []byte) {
	r.t.Helper()
	body, _ := json.Marshal(params)
	req, err := http.NewRequest("POST", r.s.url+"/", bytes.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "AmazonSQS."+op)
	resp, err := r.c.Do(req)
	if err != nil {
		r.t.Fatalf("%s: %v", op, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatalf("%s: %v", op, err)
	}
	return resp.StatusCode, answer
}

// ok calls op, fails the test unless it answers 200, and decodes the
// answer into v unless v is nil.
func (r *rawClient) ok(op string, params map[string]any, v any) {
	r.t.Helper()
	code, answer := r.call(op, params)
	if code != http.StatusOK {
		r.t.Fatalf("%s: %d %s", op, code, answer)
	}
	if v != nil {
		if err := json.Unmarshal(answer, v); err != nil {
			r.t.Fatalf("%s: %v in %s", op, err, answer)
		}
	}
}

// receive receives the one message of q with visibility 0, so that it
// stays visible and the next receive gets it again with a new handle.
func (r *rawClient) receive() string {
	r.t.Helper()
	var out struct {
		Messages []struct{ ReceiptHandle string }
	}
	r.ok("ReceiveMessage", map[string]any{"QueueUrl": r.url, "VisibilityTimeout": 0}, &out)
	if len(out.Messages) != 1 {
		r.t.Fatalf("received %d messages, want 1", len(out.Messages))
	}
	return out.Messages[0].ReceiptHandle
}

// visible is the queue's ApproximateNumberOfMessages.
func (r *rawClient) visible() string {
	r.t.Helper()
	var out struct{ Attributes map[string]string }
	r.ok("GetQueueAttributes", map[string]any{"QueueUrl": r.url, "AttributeNames": []string{"ApproximateNumberOfMessages"}}, &out)
	return out.Attributes["ApproximateNumberOfMessages"]
}

// TestStaleDeleteEndToEnd deletes with the handle of a message's first
// receive after a second receive: the request succeeds either way (AWS:
// "the request will still succeed, but the message might not be
// deleted"); by default the message stays, with -stale-delete-removes or
// the config key it is gone (as a 2021 test against AWS saw).
func TestStaleDeleteEndToEnd(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "stale.json")
	if err := os.WriteFile(cfg, []byte(`{"staleDeleteRemoves": true, "queues": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		reason string
		args   []string
		left   string
	}{
		{"by default a stale-handle delete deletes nothing", nil, "1"},
		{"-stale-delete-removes makes it delete", []string{"-stale-delete-removes"}, "0"},
		{"so does staleDeleteRemoves in the config file", []string{"-config", cfg}, "0"},
		{"and the flag set to false overrides the file", []string{"-config", cfg, "-stale-delete-removes=false"}, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			r := newRawClient(t, start(t, append([]string{"-clock", "virtual"}, tt.args...)...))
			r.ok("SendMessage", map[string]any{"QueueUrl": r.url, "MessageBody": "once"}, nil)
			first := r.receive()
			if second := r.receive(); second == first {
				t.Fatal("the second receive returned the first handle; the test needs a stale one")
			}
			code, answer := r.call("DeleteMessage", map[string]any{"QueueUrl": r.url, "ReceiptHandle": first})
			if code != http.StatusOK || len(answer) != 0 {
				t.Fatalf("DeleteMessage with a stale handle: %d %s, want 200 and an empty body", code, answer)
			}
			if got := r.visible(); got != tt.left {
				t.Errorf("%s: ApproximateNumberOfMessages = %s, want %s", tt.reason, got, tt.left)
			}
		})
	}
}

// TestStrictNotInflightEndToEnd changes the visibility of a message whose
// visibility already ended (received with visibility 0): by default that
// succeeds and changes nothing; with -strict-not-inflight or the config key
// it fails with MessageNotInflight, and changes nothing either.
func TestStrictNotInflightEndToEnd(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "strict.json")
	if err := os.WriteFile(cfg, []byte(`{"strictNotInflight": true, "queues": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		reason string
		args   []string
		code   int
		typ    string
	}{
		{"by default it succeeds", nil, http.StatusOK, ""},
		{"-strict-not-inflight refuses it", []string{"-strict-not-inflight"}, http.StatusBadRequest, "MessageNotInflight"},
		{"so does strictNotInflight in the config file", []string{"-config", cfg}, http.StatusBadRequest, "MessageNotInflight"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			r := newRawClient(t, start(t, append([]string{"-clock", "virtual"}, tt.args...)...))
			r.ok("SendMessage", map[string]any{"QueueUrl": r.url, "MessageBody": "m"}, nil)
			rh := r.receive()
			code, answer := r.call("ChangeMessageVisibility", map[string]any{"QueueUrl": r.url, "ReceiptHandle": rh, "VisibilityTimeout": 60})
			if code != tt.code || (tt.typ != "" && !bytes.Contains(answer, []byte(tt.typ))) {
				t.Errorf("%s: ChangeMessageVisibility = %d %s, want %d %s", tt.reason, code, answer, tt.code, tt.typ)
			}
			if got := r.visible(); got != "1" {
				t.Errorf("ApproximateNumberOfMessages = %s after the change, want 1: it changes nothing", got)
			}
		})
	}
}
