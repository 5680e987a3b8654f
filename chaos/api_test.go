package chaos_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sqsq/sqsq/chaos"
)

// apiCall sends method path body to h and returns the answer.
func apiCall(t *testing.T, h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	var r *http.Request
	if body == "" {
		r = httptest.NewRequest(method, path, nil)
	} else {
		r = httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// decodeJSON reads w's body as JSON into v.
func decodeJSON(t *testing.T, w *httptest.ResponseRecorder, v any) {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if err := json.Unmarshal(w.Body.Bytes(), v); err != nil {
		t.Fatalf("%v: %s", err, w.Body)
	}
}

type apiErr struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// The native API reads, replaces and clears the Config; a bad body is
// answered 400 naming the field, and changes nothing.
func TestNativeAPI(t *testing.T) {
	t.Parallel()
	e := newEngine(t, chaos.Config{Seed: 1})
	h := e.Handler()

	w := apiCall(t, h, "GET", "/_sqsq/api/faults", "")
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"seed":1,"rules":[]}` {
		t.Fatalf("GET: %d %s", w.Code, w.Body)
	}

	body := `{"seed": 42, "rules": [{"operation": "SendMessage", "probability": 0.5, "error": {"code": "ServiceUnavailable"}}, {"queue": "orders*", "fault": "duplicate"}]}`
	w = apiCall(t, h, "PUT", "/_sqsq/api/faults", body)
	var got chaos.Config
	decodeJSON(t, w, &got)
	want := chaos.Config{Seed: 42, Rules: []chaos.Rule{
		{Operation: "SendMessage", Probability: ptr(0.5), Error: &chaos.ErrorSpec{Code: "ServiceUnavailable"}},
		{Queue: "orders*", Fault: chaos.KindDuplicate},
	}}
	if w.Code != 200 || diff(want, got) != "" || diff(want, e.Config()) != "" {
		t.Fatalf("PUT: %d %s", w.Code, diff(want, e.Config()))
	}

	for _, tc := range []struct{ body, want string }{
		{`{"seed": 42, "rules": [{"latencyMs": 1}, {"latencyMs": 1}, {"probability": 1.5, "latencyMs": 1}]}`, "rules[2].probability: 1.5 is not between 0 and 1"},
		{`{"rules": [{"probabilty": 1}]}`, `rules[0]: unknown field "probabilty"`},
		{`not json`, "not valid JSON: line 1, column 2"},
		{``, "the configuration is empty"},
	} {
		w = apiCall(t, h, "PUT", "/_sqsq/api/faults", tc.body)
		var ae apiErr
		decodeJSON(t, w, &ae)
		if w.Code != 400 || ae.Code != "InvalidParameterValue" || !strings.HasPrefix(ae.Error, tc.want) {
			t.Errorf("PUT %s: %d %+v, want 400 %q", tc.body, w.Code, ae, tc.want)
		}
		if d := diff(want, e.Config()); d != "" {
			t.Errorf("a refused PUT changed the Config:\n%s", d)
		}
	}
	w = apiCall(t, h, "PUT", "/_sqsq/api/faults", `{"rules": [`+strings.Repeat(`{"latencyMs": 1},`, 70000)+`{"latencyMs": 1}]}`)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("PUT of over 1 MiB: %d", w.Code)
	}

	w = apiCall(t, h, "DELETE", "/_sqsq/api/faults", "")
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"seed":42,"rules":[]}` {
		t.Errorf("DELETE: %d %s", w.Code, w.Body)
	}

	w = apiCall(t, h, "POST", "/_sqsq/api/faults", "{}")
	var ae apiErr
	decodeJSON(t, w, &ae)
	if w.Code != 405 || w.Header().Get("Allow") != "DELETE, GET, HEAD, PUT" || ae.Code != "InvalidAction" {
		t.Errorf("POST: %d %q %+v", w.Code, w.Header().Get("Allow"), ae)
	}
	if w = apiCall(t, h, "GET", "/_sqsq/api/nothing", ""); w.Code != 404 {
		t.Errorf("unknown path: %d", w.Code)
	}
}

// GET /_sqsq/api/faults/injected lists the injections and counts them.
func TestInjectedAPI(t *testing.T) {
	t.Parallel()
	e := newEngine(t, chaos.Config{Rules: []chaos.Rule{{Operation: "SendMessage", Error: &chaos.ErrorSpec{Code: "ServiceUnavailable"}}}})
	fired(e, call("SendMessage", "orders"))
	fired(e, call("SendMessage", "orders"))
	w := apiCall(t, e.Handler(), "GET", "/_sqsq/api/faults/injected", "")
	var got struct {
		Injections []chaos.Injection `json:"injections"`
		Counts     map[string]int    `json:"counts"`
	}
	decodeJSON(t, w, &got)
	if w.Code != 200 || len(got.Injections) != 2 || got.Counts["error"] != 2 || got.Injections[1].Decision != 1 ||
		got.Injections[1].Code != "ServiceUnavailable" || got.Injections[1].StatusCode != 503 {
		t.Errorf("%d %s", w.Code, w.Body)
	}
	if !strings.Contains(w.Body.String(), `"kind":"error","rule":0,"operation":"SendMessage","queue":"orders"`) {
		t.Errorf("JSON shape: %s", w.Body)
	}
	w = apiCall(t, newEngine(t, chaos.Config{}).Handler(), "GET", "/_sqsq/api/faults/injected", "")
	if strings.TrimSpace(w.Body.String()) != `{"injections":[],"counts":{}}` {
		t.Errorf("none: %s", w.Body)
	}
}

// LocalStack's Chaos API works as LocalStack documents it and its SDK's
// test (localstack-sdk-python tests/integration/test_chaos.py) expects:
// every change answers the rules in force; DELETE removes the rules equal
// to those given; the effects endpoint sets a latency.
func TestLocalStackAPI(t *testing.T) {
	t.Parallel()
	e := newEngine(t, chaos.Config{Seed: 3, Rules: []chaos.Rule{{Queue: "x", LatencyMs: 5}}})
	h := e.Handler()
	rules := func(w *httptest.ResponseRecorder) []chaos.LocalStackRule {
		t.Helper()
		if w.Code != 200 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		var out []chaos.LocalStackRule
		decodeJSON(t, w, &out)
		return out
	}

	if got := apiCall(t, h, "GET", "/_localstack/chaos/faults", ""); strings.TrimSpace(got.Body.String()) != "[]" {
		t.Fatalf("GET with none: %s", got.Body)
	}
	// test_rules_crud, step by step.
	one := `{"region": "us-east-1", "service": "s3"}`
	two := `{"region": "us-east-1", "service": "dynamodb"}`
	if got := rules(apiCall(t, h, "PATCH", "/_localstack/chaos/faults", "["+one+"]")); len(got) != 1 || got[0].Service != "s3" || got[0].Region != "us-east-1" {
		t.Fatalf("PATCH one: %+v", got)
	}
	if got := rules(apiCall(t, h, "GET", "/_localstack/chaos/faults", "")); len(got) != 1 || got[0].Service != "s3" {
		t.Fatalf("GET: %+v", got)
	}
	if got := rules(apiCall(t, h, "PATCH", "/_localstack/chaos/faults", "["+two+"]")); len(got) != 2 {
		t.Fatalf("PATCH two: %+v", got)
	}
	if got := rules(apiCall(t, h, "DELETE", "/_localstack/chaos/faults", "["+one+"]")); len(got) != 1 || got[0].Service != "dynamodb" {
		t.Fatalf("DELETE one: %+v", got)
	}
	if got := rules(apiCall(t, h, "DELETE", "/_localstack/chaos/faults", `[{"service": "dynamodb"}]`)); len(got) != 1 {
		t.Fatalf("DELETE of a rule that differs in a field removed something: %+v", got)
	}
	if got := rules(apiCall(t, h, "POST", "/_localstack/chaos/faults", "[]")); len(got) != 0 {
		t.Fatalf("POST []: %+v", got)
	}

	// The rules show in the native API under "localstack", with the
	// latency, and leave the native rules alone.
	sqs := `{"service": "sqs", "region": "us-east-1", "operation": "SendMessage", "probability": 0.5, "error": {"statusCode": 503, "code": "ServiceUnavailable"}}`
	rules(apiCall(t, h, "POST", "/_localstack/chaos/faults", "["+sqs+", {}]"))
	w := apiCall(t, h, "POST", "/_localstack/chaos/effects", `{"latency": 250}`)
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"latency":250}` {
		t.Fatalf("POST effects: %d %s", w.Code, w.Body)
	}
	if w = apiCall(t, h, "GET", "/_localstack/chaos/effects", ""); strings.TrimSpace(w.Body.String()) != `{"latency":250}` {
		t.Fatalf("GET effects: %s", w.Body)
	}
	w = apiCall(t, h, "GET", "/_sqsq/api/faults", "")
	wantJSON := `{"seed":3,"rules":[{"queue":"x","latencyMs":5}],"localstack":{"faults":[{"region":"us-east-1","service":"sqs","operation":"SendMessage","probability":0.5,"error":{"statusCode":503,"code":"ServiceUnavailable"}},{}],"latency":250}}`
	if strings.TrimSpace(w.Body.String()) != wantJSON {
		t.Errorf("GET native:\n got %s\nwant %s", w.Body, wantJSON)
	}
	// What GET answers, PUT takes back.
	if w = apiCall(t, h, "PUT", "/_sqsq/api/faults", wantJSON); w.Code != 200 || strings.TrimSpace(w.Body.String()) != wantJSON {
		t.Errorf("PUT of GET's answer: %d %s", w.Code, w.Body)
	}

	// Bad bodies: 400 naming the rule and field, nothing changed.
	before := e.Config()
	for _, tc := range []struct{ method, path, body, want string }{
		{"POST", "/_localstack/chaos/faults", `[{"error": {"statusCode": 200}}]`, "[0].error.statusCode: 200 is not between 400 and 599"},
		{"PATCH", "/_localstack/chaos/faults", `[{}, {"probability": 2}]`, "[1].probability: 2 is not between 0 and 1"},
		{"PATCH", "/_localstack/chaos/faults", `[{"servce": "sqs"}]`, `[0]: unknown field "servce"`},
		{"PATCH", "/_localstack/chaos/faults", `[{"service": "sqs", "operation": "sendMessage"}]`, `[0].operation: "sendMessage" is not an SQS operation; did you mean "SendMessage"?`},
		{"PATCH", "/_localstack/chaos/faults", `[{"operation": "Send_Message"}]`, `[0].operation: "Send_Message" is not an operation name`},
		{"PATCH", "/_localstack/chaos/faults", `[{"error": {"code": "Service Unavailable"}}]`, `[0].error.code: "Service Unavailable" is not an error code`},
		{"POST", "/_localstack/chaos/faults", `{"service": "sqs"}`, `{"service": "sqs"} is not a JSON array`},
		{"DELETE", "/_localstack/chaos/faults", ``, "want a JSON array of rules"},
		{"POST", "/_localstack/chaos/effects", `{"latency": -5}`, "latency: -5 is not between 0 and 300000"},
		{"POST", "/_localstack/chaos/effects", `{}`, "latency: required"},
		{"POST", "/_localstack/chaos/effects", `{"latency": 5, "jitter": 1}`, `unknown field "jitter"`},
	} {
		w := apiCall(t, h, tc.method, tc.path, tc.body)
		var ae apiErr
		decodeJSON(t, w, &ae)
		if w.Code != 400 || ae.Code != "InvalidParameterValue" || !strings.Contains(ae.Error, tc.want) {
			t.Errorf("%s %s %s: %d %+v, want 400 %q", tc.method, tc.path, tc.body, w.Code, ae, tc.want)
		}
	}
	if d := diff(before, e.Config()); d != "" {
		t.Errorf("a refused change changed the Config:\n%s", d)
	}
	if w = apiCall(t, h, "PUT", "/_localstack/chaos/effects", `{"latency": 1}`); w.Code != 405 || w.Header().Get("Allow") != "GET, HEAD, POST" {
		t.Errorf("PUT effects: %d %q", w.Code, w.Header().Get("Allow"))
	}

	// DELETE on the native API clears LocalStack's part too.
	apiCall(t, h, "DELETE", "/_sqsq/api/faults", "")
	if got := rules(apiCall(t, h, "GET", "/_localstack/chaos/faults", "")); len(got) != 0 {
		t.Errorf("after DELETE /_sqsq/api/faults: %+v", got)
	}
	if w = apiCall(t, h, "GET", "/_localstack/chaos/effects", ""); strings.TrimSpace(w.Body.String()) != `{"latency":0}` {
		t.Errorf("effects after clear: %s", w.Body)
	}
}

// LocalStack's rules match as LocalStack's do: by service, region and
// operation, any when absent; a rule for another service never matches;
// a rule without an error answers 503 ServiceUnavailable.
func TestLocalStackMatching(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rule   string
		call   string // operation
		region string
		want   string // code, "" for none
		status int
	}{
		{`{}`, "SendMessage", "us-east-1", "ServiceUnavailable", 503},
		{`{"service": "sqs"}`, "ListQueues", "us-east-1", "ServiceUnavailable", 503},
		{`{"service": "SQS"}`, "ListQueues", "us-east-1", "ServiceUnavailable", 503},
		{`{"service": "s3"}`, "SendMessage", "us-east-1", "", 0},
		{`{"region": "eu-west-1"}`, "SendMessage", "us-east-1", "", 0},
		{`{"region": "eu-west-1"}`, "SendMessage", "eu-west-1", "ServiceUnavailable", 503},
		{`{"operation": "SendMessage"}`, "SendMessageBatch", "us-east-1", "", 0},
		{`{"operation": "PutRecord"}`, "SendMessage", "us-east-1", "", 0},
		{`{"error": {"code": "ThrottlingException"}}`, "SendMessage", "us-east-1", "ThrottlingException", 503},
		{`{"error": {"statusCode": 400}}`, "SendMessage", "us-east-1", "ServiceUnavailable", 400},
		{`{"probability": 0}`, "SendMessage", "us-east-1", "", 0},
	} {
		e := newEngine(t, chaos.Config{})
		if w := apiCall(t, e.Handler(), "POST", "/_localstack/chaos/faults", "["+tc.rule+"]"); w.Code != 200 {
			t.Fatalf("%s: %d %s", tc.rule, w.Code, w.Body)
		}
		c := call(tc.call, "orders")
		c.Region = tc.region
		iv := e.Intercept(t.Context(), c)
		if iv.Code != tc.want || iv.Status != tc.status {
			t.Errorf("%s on %s in %s: %q %d, want %q %d", tc.rule, tc.call, tc.region, iv.Code, iv.Status, tc.want, tc.status)
		}
		if tc.want != "" && iv.Message != "Service 'sqs' not accessible due to an outage" {
			t.Errorf("message %q", iv.Message)
		}
	}
}
