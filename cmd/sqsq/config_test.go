package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// mark is where, in a test's config file, the error must point; the test
// removes it before writing the file.
const mark = "‸"

// writeConfig writes content, without its mark, to queues.json in a new
// directory, and returns the path and the "line:column" of the mark ("" if
// none).
func writeConfig(t *testing.T, content string) (path, at string) {
	t.Helper()
	if i := strings.Index(content, mark); i >= 0 {
		before := content[:i]
		line := 1 + strings.Count(before, "\n")
		at = fmt.Sprintf("%d:%d", line, i-strings.LastIndex(before, "\n"))
		content = before + content[i+len(mark):]
	}
	path = filepath.Join(t.TempDir(), "queues.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, at
}

// load reads the config at path and creates its queues on a new broker,
// which it returns with the error of either step.
func load(t *testing.T, path string) (*sqsq.Broker, error) {
	t.Helper()
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
	t.Cleanup(func() { b.Close() })
	cfg, err := readConfig(path)
	if err != nil {
		return b, err
	}
	_, err = createQueues(context.Background(), b, cfg, path, false)
	return b, err
}

func queueCount(t *testing.T, b *sqsq.Broker) int {
	t.Helper()
	out, err := b.ListQueues(context.Background(), sqsq.ListQueuesInput{})
	if err != nil {
		t.Fatal(err)
	}
	return len(out.QueueURLs)
}

// sdkWords are the AWS SDK's wrapping, which a config error must not carry.
var sdkWords = []string{"https response error", "RequestID", "api error", "operation error", "StatusCode"}

// TestConfigErrors gives one bad file per error: the error says
// file:line:column (at the file's mark), the queue, the field and what is
// wrong, on one line and without the SDK's wording; errors the file alone
// shows create no queue.
func TestConfigErrors(t *testing.T) {
	t.Parallel()
	const dlqArn = `arn:aws:sqs:us-east-1:000000000000:dlq`
	for _, tc := range []struct {
		name    string
		content string
		want    []string
		queues  int // queues created before the error
	}{
		// SQS's errors, in the words of the file.
		{"bad attribute value", "{\"queues\": [\n  {\"name\": \"orders\",\n   \"attributes\": {\"VisibilityTimeout\": ‸\"90000\"}}\n]}",
			[]string{`queue "orders": attributes.VisibilityTimeout: "90000" is not a valid value: it must be an integer from 0 to 43200`,
				"InvalidAttributeValue: Invalid value for the parameter VisibilityTimeout."}, 0},
		{"attribute name in the wrong case", `{"queues": [{"name": "orders", "attributes": {‸"visibilityTimeout": "60"}}]}`,
			[]string{`queue "orders": attributes.visibilityTimeout: not an attribute CreateQueue takes`, "did you mean VisibilityTimeout?",
				"InvalidAttributeName: Unknown Attribute visibilityTimeout."}, 0},
		{"unknown attribute", `{"queues": [{"name": "orders", "attributes": {‸"Colour": "blue"}}]}`,
			[]string{`attributes.Colour: not an attribute CreateQueue takes (SQS: InvalidAttributeName: Unknown Attribute Colour.)`}, 0},
		{"attributes that exclude each other", `{"queues": [{"name": "orders", ‸"attributes": {"KmsMasterKeyId": "alias/k", "SqsManagedSseEnabled": "true"}}]}`,
			[]string{`queue "orders": attributes: InvalidAttributeName: You can use one type of server-side encryption (SSE) at one time.`}, 0},
		{"bad queue name", `{"queues": [{"name": ‸"orders!"}]}`,
			[]string{`queue "orders!": name: InvalidParameterValue: Can only include alphanumeric characters, hyphens, or underscores.`}, 0},
		{"FIFO attribute on a standard queue", `{"queues": [{"name": "a"}, {"name": "b", "attributes": {"ContentBasedDeduplication": ‸"true"}}]}`,
			[]string{`queue "b": attributes.ContentBasedDeduplication: InvalidAttributeName: Unknown Attribute ContentBasedDeduplication.`}, 1},
		{"bad tag", `{"queues": [{"name": "orders", "tags": ‸{"aws:team": "x"}}]}`,
			[]string{`queue "orders": tags: InvalidParameterValue: Value aws:team for parameter TagKey is invalid.`}, 0},
		{"malformed RedrivePolicy attribute", `{"queues": [{"name": "orders", "attributes": {"RedrivePolicy": ‸"{}"}}]}`,
			[]string{`queue "orders": attributes.RedrivePolicy: InvalidParameterValue: Value {} for parameter RedrivePolicy is invalid. Reason: Redrive policy does not contain mandatory attribute: maxReceiveCount.`}, 0},
		{"RedrivePolicy attribute naming no queue", `{"queues": [{"name": "orders", "attributes": {"RedrivePolicy": ‸"{\"deadLetterTargetArn\":\"` + dlqArn + `\",\"maxReceiveCount\":3}"}}]}`,
			[]string{`queue "orders": attributes.RedrivePolicy: InvalidParameterValue:`, "Reason: Dead letter target does not exist."}, 1},
		{"deadLetterTargetArn naming no queue", `{"queues": [{"name": "orders", "redrivePolicy": {"deadLetterTargetArn": ‸"` + dlqArn + `", "maxReceiveCount": 3}}]}`,
			[]string{`queue "orders": redrivePolicy.deadLetterTargetArn: InvalidParameterValue:`, "Reason: Dead letter target does not exist."}, 1},
		{"malformed deadLetterTargetArn", `{"queues": [{"name": "orders", "redrivePolicy": {"deadLetterTargetArn": ‸"dlq", "maxReceiveCount": 3}}]}`,
			[]string{`queue "orders": redrivePolicy.deadLetterTargetArn: InvalidParameterValue:`, "Reason: Invalid value for deadLetterTargetArn."}, 0},
		{"dead-letter queue of the other type", `{"queues": [{"name": "orders.fifo", "attributes": {"FifoQueue": "true"}, "redrivePolicy": {"deadLetterQueue": ‸"dlq", "maxReceiveCount": 3}}, {"name": "dlq"}]}`,
			[]string{`queue "orders.fifo": redrivePolicy.deadLetterQueue: InvalidParameterValue:`, "Reason: Dead-letter queue must be same type of queue as the source."}, 2},
		{"dead-letter queue listed later that refuses the source", `{"queues": [{"name": "orders", "redrivePolicy": {"deadLetterQueue": ‸"dlq", "maxReceiveCount": 3}},
			{"name": "dlq", "attributes": {"RedriveAllowPolicy": "{\"redrivePermission\":\"denyAll\"}"}}]}`,
			[]string{`queue "orders": redrivePolicy.deadLetterQueue: InvalidParameterValue:`, "Reason: Dead-letter target does not allow this queue as a source."}, 2},

		// JSON errors, with line and column.
		{"syntax error", "{\"queues\": [\n  {\"name\": \"orders\" ‸\"attributes\": {}}\n]}",
			[]string{`invalid JSON: invalid character '"' after object key:value pair`}, 0},
		{"file ends early", "{\"queues\": [\n  {\"name\": \"orders\"}‸\n",
			[]string{"invalid JSON: the file ends before the object does"}, 0},
		{"maxReceiveCount as a string", `{"queues": [{"name": "orders", "redrivePolicy": {"deadLetterQueue": "orders", "maxReceiveCount": ‸"3"}}]}`,
			[]string{`queue "orders": redrivePolicy.maxReceiveCount: want an integer, not the string "3"`}, 0},
		{"attribute value as a number", `{"queues": [{"name": "orders", "attributes": {"VisibilityTimeout": ‸60}}]}`,
			[]string{`queue "orders": attributes.VisibilityTimeout: want a string, not the number 60: write it in quotes, "60"`}, 0},
		{"switch as a string", `{"staleDeleteRemoves": ‸"yes"}`,
			[]string{`staleDeleteRemoves: want true or false, not the string "yes"`}, 0},
		{"unknown queue field", "{\"queues\": [\n  {\"name\": \"orders\", ‸\"atributes\": {}}\n]}",
			[]string{`queue "orders": unknown field "atributes" (known fields: name, account, region, attributes, redrivePolicy, tags)`}, 0},
		{"unknown field at the top", "{\"queues\": [],\n ‸\"queue\": []}",
			[]string{`unknown field "queue" (known fields: staleDeleteRemoves, strictNotInflight, queues)`}, 0},
		{"unknown redrivePolicy field", `{"queues": [{"Name": "orders", "redrivePolicy": {‸"maxRecieveCount": 3}}]}`,
			[]string{`queue "orders": redrivePolicy: unknown field "maxRecieveCount" (known fields: deadLetterQueue, deadLetterTargetArn, maxReceiveCount)`}, 0},
		{"text after the object", "{\"queues\": []}\n‸}\n",
			[]string{`unexpected "}" after the end of the JSON object`}, 0},
		{"a second object", "{\"queues\": []} ‸{\"queues\": []}",
			[]string{`unexpected "{\"queues\": []}" after the end of the JSON object`}, 0},

		// What SQS cannot see: the file's own rules.
		{"redrivePolicy key and RedrivePolicy attribute", `{"queues": [{"name": "dlq"}, {"name": "orders",
			"attributes": {"RedrivePolicy": "{\"deadLetterTargetArn\":\"` + dlqArn + `\",\"maxReceiveCount\":3}"},
			‸"redrivePolicy": {"deadLetterQueue": "dlq", "maxReceiveCount": 3}}]}`,
			[]string{`queue "orders": redrivePolicy: both this key and attributes.RedrivePolicy give a dead-letter queue: keep one`}, 0},
		{"empty name", `{"queues": [{"name": "orders"}, {"name": ‸""}]}`,
			[]string{`queues[1]: name: missing or empty: each queue needs a name`}, 0},
		{"missing name", "{\"queues\": [\n  ‸{\"attributes\": {}}\n]}",
			[]string{`queues[0]: name: missing or empty`}, 0},
		{"same name twice", "{\"queues\": [\n  {\"name\": \"orders\"},\n  {\"name\": \"dlq\"},\n  {\"name\": ‸\"orders\"}\n]}",
			[]string{`queue "orders": name: queues[2] has the same name as queues[0] (line 2): each queue of a namespace needs its own name`}, 0},
		{"same name in another namespace is fine, twice in one is not",
			"{\"queues\": [\n  {\"name\": \"orders\", \"region\": \"eu-west-1\"},\n  {\"name\": \"orders\"},\n  {\"name\": ‸\"orders\", \"region\": \"eu-west-1\"}\n]}",
			[]string{`queue "orders": name: queues[2] has the same name as queues[0] (line 2)`}, 0},
		{"an account that is not 12 digits", `{"queues": [{"name": "orders", "account": ‸"acme"}]}`,
			[]string{`queue "orders": account: "acme" is not an account id: it must be 12 digits`}, 0},
		{"a region that is no region", `{"queues": [{"name": "orders", "region": ‸"local"}]}`,
			[]string{`queue "orders": region: "local" is not an AWS region's name, such as eu-west-1`}, 0},
		{"deadLetterQueue of another namespace", `{"queues": [{"name": "dlq"}, {"name": "orders", "region": "eu-west-1", "redrivePolicy": {"deadLetterQueue": ‸"dlq", "maxReceiveCount": 3}}]}`,
			[]string{`redrivePolicy.deadLetterQueue: "dlq" is not a queue of this file in the same account and region (a dead-letter queue of another namespace is given by deadLetterTargetArn)`}, 0},
		{"redrivePolicy without a queue", `{"queues": [{"name": "orders", ‸"redrivePolicy": {"maxReceiveCount": 3}}]}`,
			[]string{`queue "orders": redrivePolicy: no dead-letter queue: give deadLetterQueue (the name of a queue of this file) or deadLetterTargetArn`}, 0},
		{"redrivePolicy with two queues", `{"queues": [{"name": "orders", ‸"redrivePolicy": {"deadLetterQueue": "dlq", "deadLetterTargetArn": "` + dlqArn + `", "maxReceiveCount": 3}}, {"name": "dlq"}]}`,
			[]string{`queue "orders": redrivePolicy: give deadLetterQueue or deadLetterTargetArn, not both`}, 0},
		{"deadLetterQueue not in the file", `{"queues": [{"name": "audit"}, {"name": "orders", "redrivePolicy": {"deadLetterQueue": ‸"orders-dlq", "maxReceiveCount": 3}}]}`,
			[]string{`queue "orders": redrivePolicy.deadLetterQueue: "orders-dlq" is not a queue of this file`}, 0},
		{"maxReceiveCount 0", `{"queues": [{"name": "orders", "redrivePolicy": {"deadLetterQueue": "orders", "maxReceiveCount": ‸0}}]}`,
			[]string{`queue "orders": redrivePolicy.maxReceiveCount: 0 is not a valid value: it must be an integer from 1 to 1000`}, 0},
		{"maxReceiveCount 1001", `{"queues": [{"name": "orders", "redrivePolicy": {"deadLetterQueue": "orders", "maxReceiveCount": ‸1001}}]}`,
			[]string{`redrivePolicy.maxReceiveCount: 1001 is not a valid value: it must be an integer from 1 to 1000`}, 0},
		{"maxReceiveCount missing", `{"queues": [{"name": "orders", ‸"redrivePolicy": {"deadLetterQueue": "orders"}}]}`,
			[]string{`queue "orders": redrivePolicy: maxReceiveCount is missing: it must be an integer from 1 to 1000`}, 0},
		{"empty file", "", []string{`queues.json: the file is empty: want a JSON object such as {"queues": [{"name": "orders"}]}`}, 0},
		{"blank file", " \n\t\n", []string{`queues.json: the file is empty`}, 0},
		{"an array", "\n ‸[{\"name\": \"orders\"}]", []string{`the file must hold a JSON object such as {"queues": [{"name": "orders"}]}, not an array`}, 0},
		{"null", "‸null", []string{`the file must hold a JSON object such as {"queues": [{"name": "orders"}]}, not null`}, 0},
		{"queues an object", `{"queues": ‸{"name": "orders"}}`, []string{`queues: want an array of queues such as [{"name": "orders"}], not an object`}, 0},
		{"queues a string", `{"queues": ‸"orders"}`, []string{`queues: want an array of queues such as [{"name": "orders"}], not the string "orders"`}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path, at := writeConfig(t, tc.content)
			b, err := load(t, path)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			prefix := path + ": "
			if at != "" {
				prefix = path + ":" + at + ": "
			}
			if !strings.HasPrefix(msg, prefix) {
				t.Errorf("error %q\ndoes not start with %q", msg, prefix)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q\ndoes not say %q", msg, w)
				}
			}
			for _, w := range append(sdkWords, "\n", "sqsq:") {
				if strings.Contains(msg, w) {
					t.Errorf("error %q has %q", msg, w)
				}
			}
			if strings.Contains(tc.name, "not in the file") && strings.Contains(msg, "audit") {
				t.Errorf("error %q lists other queues", msg)
			}
			if n := queueCount(t, b); n != tc.queues {
				t.Errorf("%d queues created, want %d", n, tc.queues)
			}
		})
	}
}

// TestConfigErrorIsSQSError: an error SQS gave is still there for
// errors.Is and errors.As, though its text is the file's.
func TestConfigErrorIsSQSError(t *testing.T) {
	t.Parallel()
	path, _ := writeConfig(t, `{"queues": [{"name": "q", "attributes": {"DelaySeconds": "901"}}]}`)
	_, err := load(t, path)
	var e *sqsq.Error
	if !errors.As(err, &e) || e.Code != sqsq.CodeInvalidAttributeValue || !errors.Is(err, sqsq.ErrInvalidAttributeValue) {
		t.Errorf("error %v (%T): want an *sqsq.Error InvalidAttributeValue inside", err, err)
	}
	path, _ = writeConfig(t, `{"queues": [{"name": ""}]}`)
	if _, err := load(t, path); errors.As(err, &e) {
		t.Errorf("error %v wraps %v: the file's own rule is no SQS error", err, e)
	}
}

// TestConfigMissingFile: the error names the path, once.
func TestConfigMissingFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "queues.json")
	_, err := readConfig(path)
	if err == nil || !strings.Contains(err.Error(), path) || strings.Count(err.Error(), "open") != 1 || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %v: want one naming %s", err, path)
	}
}

// TestConfigWithoutFile: a config not read from a file (no positions)
// still names the file, the queue and the field.
func TestConfigWithoutFile(t *testing.T) {
	t.Parallel()
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
	defer b.Close()
	cfg := config{Queues: []queueConfig{{Name: "q", Attributes: map[string]string{"VisibilityTimeout": "-1"}}}}
	_, err := createQueues(context.Background(), b, cfg, "queues.json", false)
	want := `queues.json: queue "q": attributes.VisibilityTimeout: "-1" is not a valid value`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %s…", err, want)
	}
}

// TestConfigDeadLetterQueueListedLater: every form of redrive policy works
// with the dead-letter queue listed after its source, and with a
// RedriveAllowPolicy that names the source.
func TestConfigDeadLetterQueueListedLater(t *testing.T) {
	t.Parallel()
	const dlqArn = "arn:aws:sqs:us-east-1:000000000000:dlq"
	allow := `"attributes": {"RedriveAllowPolicy": "{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":[\"arn:aws:sqs:us-east-1:000000000000:orders\"]}"}`
	for _, tc := range []struct{ name, source string }{
		{"redrivePolicy by name", `"redrivePolicy": {"deadLetterQueue": "dlq", "maxReceiveCount": 3}`},
		{"redrivePolicy by ARN", `"redrivePolicy": {"deadLetterTargetArn": "` + dlqArn + `", "maxReceiveCount": 3}`},
		{"RedrivePolicy attribute", `"attributes": {"RedrivePolicy": "{\"deadLetterTargetArn\":\"` + dlqArn + `\",\"maxReceiveCount\":\"3\"}"}`},
	} {
		for _, dlq := range []string{`{"name": "dlq"}`, `{"name": "dlq", ` + allow + `}`} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				path, _ := writeConfig(t, `{"queues": [{"name": "orders", `+tc.source+`}, `+dlq+`]}`)
				b, err := load(t, path)
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				src, err := b.GetQueue(ctx, "orders")
				if err != nil {
					t.Fatal(err)
				}
				got, err := src.GetAttributes(ctx, sqsq.AttrRedrivePolicy)
				if want := `{"deadLetterTargetArn":"` + dlqArn + `","maxReceiveCount":3}`; err != nil || got[sqsq.AttrRedrivePolicy] != want {
					t.Errorf("RedrivePolicy %q (%v), want %q", got[sqsq.AttrRedrivePolicy], err, want)
				}
				q, err := b.GetQueue(ctx, "dlq")
				if err != nil {
					t.Fatal(err)
				}
				sources, err := q.ListDeadLetterSourceQueues(ctx, sqsq.ListDeadLetterSourceQueuesInput{})
				if err != nil || len(sources.QueueURLs) != 1 || sources.QueueURLs[0] != src.URL() {
					t.Errorf("dead-letter sources %v (%v), want %s", sources.QueueURLs, err, src.URL())
				}
			})
		}
	}
}

// TestConfigNamespaces: queues of the file go to the account and region
// they name; a name may repeat across namespaces, and deadLetterQueue
// names the queue of its own namespace.
func TestConfigNamespaces(t *testing.T) {
	t.Parallel()
	path, _ := writeConfig(t, `{"queues": [
		{"name": "orders", "redrivePolicy": {"deadLetterQueue": "dlq", "maxReceiveCount": 3}},
		{"name": "dlq"},
		{"name": "orders", "region": "eu-west-1", "redrivePolicy": {"deadLetterQueue": "dlq", "maxReceiveCount": 5}},
		{"name": "dlq", "region": "eu-west-1"},
		{"name": "billing", "account": "111111111111"},
		{"name": "billing", "account": "111111111111", "region": "ap-south-1"}
	]}`)
	b, err := load(t, path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct{ account, region, name, dlq string }{
		{"000000000000", "us-east-1", "orders", "arn:aws:sqs:us-east-1:000000000000:dlq"},
		{"000000000000", "eu-west-1", "orders", "arn:aws:sqs:eu-west-1:000000000000:dlq"},
		{"111111111111", "us-east-1", "billing", ""},
		{"111111111111", "ap-south-1", "billing", ""},
	} {
		q, err := b.Scope(tc.account, tc.region).GetQueue(ctx, tc.name)
		if err != nil {
			t.Errorf("%s in %s/%s: %v", tc.name, tc.account, tc.region, err)
			continue
		}
		if tc.dlq == "" {
			continue
		}
		attrs, _ := q.GetAttributes(ctx, sqsq.AttrRedrivePolicy)
		if p, err := sqsq.ParseRedrivePolicy(attrs[sqsq.AttrRedrivePolicy]); err != nil || p.DeadLetterTargetArn != tc.dlq {
			t.Errorf("%s in %s: dead-letter queue %v (%v), want %s", tc.name, tc.region, p, err, tc.dlq)
		}
	}
	if n := queueCount(t, b); n != 2 {
		t.Errorf("the default namespace has %d queues, want 2", n)
	}
}

// TestAttributeHints checks the ranges the errors quote against the core:
// each bound is accepted, one past it refused.
func TestAttributeHints(t *testing.T) {
	t.Parallel()
	for name, hint := range attributeHints {
		var lo, hi int
		if _, err := fmt.Sscanf(hint, "an integer from %d to %d", &lo, &hi); err != nil {
			continue
		}
		for v, ok := range map[int]bool{lo: true, hi: true, lo - 1: false, hi + 1: false} {
			_, err := sqsq.ParseQueueAttributes(map[string]string{name: strconv.Itoa(v)})
			if (err == nil) != ok {
				t.Errorf("%s %d: error %v; the hint says %q", name, v, err, hint)
			}
		}
	}
}

// TestConfigErrorFromRun: a bad file stops sqsq before it listens, with
// one line that run's caller prints after "sqsq: ".
func TestConfigErrorFromRun(t *testing.T) {
	t.Parallel()
	path, at := writeConfig(t, "{\"queues\": [\n  {\"name\": \"orders\", \"attributes\": {\"VisibilityTimeout\": ‸\"90000\"}}\n]}\n")
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-config", path}, io.Discard, &stderr)
	want := path + ":" + at + `: queue "orders": attributes.VisibilityTimeout: "90000" is not a valid value`
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("run: %v\nwant one line starting %s", err, want)
	}
	missing := filepath.Join(t.TempDir(), "nope.json")
	err = run(context.Background(), []string{"-addr", "127.0.0.1:0", "-config", missing}, io.Discard, &stderr)
	if err == nil || !strings.Contains(err.Error(), missing) || strings.Contains(err.Error(), "open open") {
		t.Errorf("run with a missing file: %v", err)
	}
}

// TestReadmeConfigError: the error the README shows is the one its
// example gives with a VisibilityTimeout out of range.
func TestReadmeConfigError(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, example, _ := strings.Cut(string(readme), "```json\n")
	example, _, _ = strings.Cut(example, "```")
	bad := strings.Replace(example, `"VisibilityTimeout": "60"`, `"VisibilityTimeout": "90000"`, 1)
	path, _ := writeConfig(t, bad)
	_, err = load(t, path)
	if err == nil {
		t.Fatal("no error")
	}
	line := "sqsq: " + strings.Replace(err.Error(), path, "queues.json", 1) + "\n"
	if !strings.Contains(string(readme), line) {
		t.Errorf("README.md does not show the error\n%s", line)
	}
}

// TestConfigErrorOnlyLine: a bad file is the one line on stderr that the
// README promises, even when the switches it or the command line sets
// would be logged (they are, once the queues exist).
func TestConfigErrorOnlyLine(t *testing.T) {
	t.Parallel()
	path, _ := writeConfig(t, `{"staleDeleteRemoves": true, "queues": [{"name": "orders", "attributes": {"VisibilityTimeout": "90000"}}]}`)
	for _, args := range [][]string{
		{"-config", path},
		{"-config", path, "-strict-not-inflight", "-log-level", "debug"},
	} {
		cmd := exec.CommandContext(t.Context(), os.Args[0], append([]string{"-addr", "127.0.0.1:0"}, args...)...)
		cmd.Env = childEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("%v: %v, want exit code 1", args, err)
		}
		want := "sqsq: " + path + ":1:"
		if lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], want) {
			t.Errorf("%v: stderr is %d lines, want one starting %q:\n%s", args, len(lines), want, stderr.String())
		}
	}
}
