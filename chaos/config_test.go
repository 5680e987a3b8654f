package chaos_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqsq/sqsq/chaos"
)

func ptr[T any](v T) *T { return &v }

// diff shows want and got as JSON when they differ, "" when they are
// deeply equal (the module has no go-cmp).
func diff(want, got any) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	w, _ := json.Marshal(want)
	g, _ := json.Marshal(got)
	return "- " + string(w) + "\n+ " + string(g)
}

// A valid configuration reads into the Config its JSON spells, and the
// Config's JSON reads back the same.
func TestParseConfig(t *testing.T) {
	t.Parallel()
	cfg, err := chaos.ParseConfig([]byte(`{"seed": 42, "rules": [
		{"operation": "ReceiveMessage", "queue": "orders*", "account": "000000000000", "region": "us-east-1", "probability": 0.2, "fault": "duplicate"},
		{"operation": "SendMessage", "probability": 0.1, "error": {"code": "ServiceUnavailable", "statusCode": 503, "message": "try later"}},
		{"latencyMs": 200},
		{"operation": "*", "queue": null, "error": {"code": "ThrottlingException"}, "latencyMs": 1e3}
	], "localstack": {"faults": [{"service": "sqs", "operation": "SendMessage", "error": {"statusCode": 503}}], "latency": 5}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := chaos.Config{Seed: 42, Rules: []chaos.Rule{
		{Operation: "ReceiveMessage", Queue: "orders*", Account: "000000000000", Region: "us-east-1", Probability: ptr(0.2), Fault: chaos.KindDuplicate},
		{Operation: "SendMessage", Probability: ptr(0.1), Error: &chaos.ErrorSpec{Code: "ServiceUnavailable", StatusCode: 503, Message: "try later"}},
		{LatencyMs: 200},
		{Operation: "*", Error: &chaos.ErrorSpec{Code: "ThrottlingException"}, LatencyMs: 1000},
	}, LocalStack: &chaos.LocalStackConfig{
		Faults:  []chaos.LocalStackRule{{Service: "sqs", Operation: "SendMessage", Error: &chaos.LocalStackError{StatusCode: 503}}},
		Latency: 5,
	}}
	if diff := diff(want, cfg); diff != "" {
		t.Fatalf("(-want +got)\n%s", diff)
	}
	e, err := chaos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diff(want, e.Config()); diff != "" {
		t.Errorf("Config() (-want +got)\n%s", diff)
	}
}

// Every invalid configuration is refused with one error that names the
// field at fault, in the form the package doc promises.
func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, json, want, reason string
	}{
		{"empty", ``, "the configuration is empty", "nothing to read"},
		{"syntax", "{\"rules\": [\n  {\"queue\": }]}", "not valid JSON: line 2, column 13", "the position of a syntax error"},
		{"truncated", `{"rules": [`, "not valid JSON: it ends too early", ""},
		{"trailing", `{} {}`, "unexpected data after the JSON value", "one document only"},
		{"not an object", `[1]`, "the configuration [1] is not a JSON object", ""},
		{"unknown top", `{"rule": []}`, `unknown field "rule" (the fields are seed, rules, localstack)`, "a typo at the top"},
		{"unknown rule field", `{"rules": [{}, {"probabilty": 0.5}]}`, `rules[1]: unknown field "probabilty" (the fields are operation`, "the brief's example"},
		{"case of a field", `{"rules": [{"LatencyMs": 5}]}`, `rules[0]: unknown field "LatencyMs"; did you mean "latencyMs"?`, ""},
		{"twice", `{"rules": [{"latencyMs": 5, "latencyMs": 6}]}`, `rules[0]: field "latencyMs" is given twice`, "JSON allows it; a config should not"},
		{"seed negative", `{"seed": -1}`, `seed: -1 is not a whole number from 0 to 18446744073709551615`, ""},
		{"seed string", `{"seed": "42"}`, `seed: "42" is not a whole number`, ""},
		{"rules not array", `{"rules": {}}`, `rules: {} is not a JSON array`, ""},
		{"rule not object", `{"rules": [5]}`, `rules[0]: 5 is not a JSON object`, ""},
		{"probability range", `{"rules": [{"latencyMs": 1}, {"latencyMs": 1}, {"probability": 1.5, "latencyMs": 1}]}`, `rules[2].probability: 1.5 is not between 0 and 1`, "the brief's example"},
		{"probability type", `{"rules": [{"probability": "high", "latencyMs": 1}]}`, `rules[0].probability: "high" is not a number`, ""},
		{"fault kind", `{"rules": [{"fault": "dup"}]}`, `rules[0].fault: "dup" is not one of duplicate, sample, reorder, lostResponse, visibilityEndsEarly`, "the brief's example"},
		{"operation", `{"rules": [{"operation": "SendMesage", "latencyMs": 1}]}`, `rules[0].operation: "SendMesage" is not an SQS operation`, ""},
		{"operation case", `{"rules": [{"operation": "sendMessage", "latencyMs": 1}]}`, `rules[0].operation: "sendMessage" is not an SQS operation; did you mean "SendMessage"?`, "wire names are case-sensitive"},
		{"fault operation", `{"rules": [{"operation": "SendMessage", "fault": "duplicate"}]}`, `rules[0].operation: fault "duplicate" applies to ReceiveMessage only, not SendMessage`, "the core decides duplicates on receives"},
		{"lost operation", `{"rules": [{"operation": "PurgeQueue", "fault": "lostResponse"}]}`, `rules[0].operation: fault "lostResponse" applies to ReceiveMessage, DeleteMessage, DeleteMessageBatch, ChangeMessageVisibility and ChangeMessageVisibilityBatch, not PurgeQueue`, ""},
		{"glob", `{"rules": [{"queue": "orders[", "latencyMs": 1}]}`, `rules[0].queue: "orders[" is not a valid pattern`, "path.Match syntax"},
		{"region pattern", `{"rules": [{"region": "us-*", "latencyMs": 1}]}`, `rules[0].region: "us-*": an account or region is exact (patterns are for queue)`, ""},
		{"account space", `{"rules": [{"account": "0000 0000", "latencyMs": 1}]}`, `rules[0].account: "0000 0000" contains spaces`, ""},
		{"no effect", `{"rules": [{"operation": "SendMessage"}]}`, `rules[0]: the rule has no effect`, "a rule must do something"},
		{"zero latency", `{"rules": [{"latencyMs": 0}]}`, `rules[0]: the rule has no effect`, "0 ms is no effect"},
		{"fault and error", `{"rules": [{"fault": "sample", "error": {"code": "X"}}]}`, `rules[0]: a rule with a fault has no error or latencyMs`, "a fault is the core's; an error the wire's"},
		{"fault and latency", `{"rules": [{"fault": "sample", "latencyMs": 5}]}`, `rules[0]: a rule with a fault has no error or latencyMs`, ""},
		{"latency range", `{"rules": [{"latencyMs": 300001}]}`, `rules[0].latencyMs: 300001 is not between 0 and 300000`, ""},
		{"latency fraction", `{"rules": [{"latencyMs": 1.5}]}`, `rules[0].latencyMs: 1.5 is not a whole number`, ""},
		{"error code missing", `{"rules": [{"error": {"statusCode": 503}}]}`, `rules[0].error.code: required`, ""},
		{"error code chars", `{"rules": [{"error": {"code": "Bad Code"}}]}`, `rules[0].error.code: "Bad Code" is not an error code`, "codes travel in a header"},
		{"error status", `{"rules": [{"error": {"code": "X", "statusCode": 200}}]}`, `rules[0].error.statusCode: 200 is not between 400 and 599`, "an error is 4xx or 5xx"},
		{"error field", `{"rules": [{"error": {"code": "X", "status": 503}}]}`, `rules[0].error: unknown field "status" (the fields are code, statusCode, message)`, ""},
		{"localstack field", `{"localstack": {"rules": []}}`, `localstack: unknown field "rules" (the fields are faults, latency)`, ""},
		{"localstack status", `{"localstack": {"faults": [{"error": {"statusCode": 600}}]}}`, `localstack.faults[0].error.statusCode: 600 is not between 400 and 599`, ""},
		{"localstack latency", `{"localstack": {"latency": -1}}`, `localstack.latency: -1 is not between 0 and 300000`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := chaos.ParseConfig([]byte(tc.json))
			if err == nil {
				t.Fatalf("no error; want %q (%s)", tc.want, tc.reason)
			}
			var ce *chaos.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("%T %v is not a *ConfigError", err, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to begin %q (%s)", err, tc.want, tc.reason)
			}
			if i := strings.Index(tc.want, ": "); i > 0 && !strings.ContainsAny(tc.want[:i], " ") && ce.Field != tc.want[:i] {
				t.Errorf("Field %q, want %q", ce.Field, tc.want[:i])
			}
		})
	}
}

// Set refuses what ParseConfig refuses, for a Config built in Go, and
// changes nothing.
func TestSetInvalid(t *testing.T) {
	t.Parallel()
	e, err := chaos.New(chaos.Config{Seed: 7, Rules: []chaos.Rule{{LatencyMs: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	before := e.Config()
	for _, cfg := range []chaos.Config{
		{Rules: []chaos.Rule{{Probability: ptr(-0.1), LatencyMs: 1}}},
		{Rules: []chaos.Rule{{Fault: "Duplicate"}}},
		{Rules: []chaos.Rule{{LatencyMs: 1}, {}}},
		{LocalStack: &chaos.LocalStackConfig{Faults: []chaos.LocalStackRule{{Operation: "send_message"}}}},
	} {
		if err := e.Set(cfg); err == nil {
			t.Errorf("Set(%+v) succeeded", cfg)
		}
	}
	if diff := diff(before, e.Config()); diff != "" {
		t.Errorf("a refused Set changed the config (-before +after)\n%s", diff)
	}
}

// LoadFile reads a file and names it in its errors.
func TestLoadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "faults.json")
	if err := os.WriteFile(good, []byte(`{"seed": 3, "rules": [{"latencyMs": 10}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := chaos.LoadFile(good)
	if err != nil || cfg.Seed != 3 || len(cfg.Rules) != 1 {
		t.Fatalf("LoadFile = %+v, %v", cfg, err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"rules": [{"fault": "dup"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = chaos.LoadFile(bad)
	var ce *chaos.ConfigError
	if err == nil || !strings.HasPrefix(err.Error(), bad+": rules[0].fault: ") || !errors.As(err, &ce) {
		t.Errorf("LoadFile(bad) = %v", err)
	}
	if _, err := chaos.LoadFile(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("LoadFile(missing) = %v", err)
	}
}
