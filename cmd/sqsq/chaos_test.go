package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
)

// faultFile writes rules to a file of the test's and returns its path.
func faultFile(t *testing.T, rules string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "faults.json")
	if err := os.WriteFile(p, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// noRetries makes the SDK client answer each error as it comes.
func noRetries(o *sqs.Options) { o.RetryMaxAttempts = 1 }

// -faults rules apply from the start, through the wire, and the API
// changes them at run time.
func TestFaultsFile(t *testing.T) {
	t.Parallel()
	s := start(t, "-faults", faultFile(t, `{"seed": 7, "rules": [
		{"operation": "SendMessage", "queue": "orders*", "error": {"code": "ServiceUnavailable"}}
	]}`))
	ctx := context.Background()
	q, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")}, noRetries)
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ServiceUnavailable" {
		t.Fatalf("send under the rule: %v, want ServiceUnavailable", err)
	}
	var cfg struct {
		Seed  uint64
		Rules []map[string]any
	}
	if code := s.admin(t, "GET", "/_sqsq/api/faults", "", &cfg); code != http.StatusOK || cfg.Seed != 7 || len(cfg.Rules) != 1 {
		t.Fatalf("GET faults: %d %+v", code, cfg)
	}
	if code := s.admin(t, "DELETE", "/_sqsq/api/faults", "", nil); code != http.StatusOK && code != http.StatusNoContent {
		t.Fatalf("DELETE faults: %d", code)
	}
	if _, err := s.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")}, noRetries); err != nil {
		t.Fatalf("send without rules: %v", err)
	}
}

// A bad rule file stops the server at start with one line naming the
// file and the field.
func TestFaultsFileRefused(t *testing.T) {
	t.Parallel()
	p := faultFile(t, `{"rules": [{"operation": "SendMessage", "probability": 1.5, "error": {"code": "InternalError"}}]}`)
	err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-faults", p}, discard{}, discard{})
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "rules[0].probability") {
		t.Fatalf("run: %v; want an error naming %s and rules[0].probability", err, p)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Reset, at sqsq's, LocalStack's and moto's paths, empties the server:
// queues, rules, the history, and the virtual clock goes back to its
// start; message ids start their seeded sequence again.
func TestReset(t *testing.T) {
	t.Parallel()
	s := start(t, "-clock", "virtual", "-seed", "3")
	ctx := context.Background()
	var t0 clockState
	s.admin(t, "GET", "/_sqsq/clock", "", &t0)
	firstID := ""
	for i, path := range []string{"/_sqsq/api/reset", "/_localstack/state/reset", "/moto-api/reset"} {
		q, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
		if err != nil {
			t.Fatalf("%s: create again at once: %v", path, err)
		}
		sent, err := s.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			firstID = *sent.MessageId
		} else if *sent.MessageId != firstID {
			t.Errorf("after a reset the first message id is %s, want %s again (seeded)", *sent.MessageId, firstID)
		}
		s.admin(t, "PUT", "/_sqsq/api/faults", `{"seed": 3, "rules": [{"latencyMs": 1}]}`, nil)
		s.admin(t, "POST", "/_sqsq/clock/advance?d=1h", "", nil)
		var hist struct{ Messages []any }
		if code := s.admin(t, "GET", "/_sqsq/api/queues/orders/history", "", &hist); code != http.StatusOK || len(hist.Messages) != 1 {
			t.Errorf("history before reset: %d %+v", code, hist)
		}

		if code := s.admin(t, "POST", path, "", nil); code != http.StatusOK {
			t.Fatalf("POST %s: %d", path, code)
		}
		list, err := s.client.ListQueues(ctx, &sqs.ListQueuesInput{})
		if err != nil || len(list.QueueUrls) != 0 {
			t.Errorf("%s: queues after reset: %v %v", path, list.QueueUrls, err)
		}
		var cfg struct{ Rules []any }
		if s.admin(t, "GET", "/_sqsq/api/faults", "", &cfg); len(cfg.Rules) != 0 {
			t.Errorf("%s: rules after reset: %v", path, cfg.Rules)
		}
		var now clockState
		if s.admin(t, "GET", "/_sqsq/clock", "", &now); now.UnixMillis != t0.UnixMillis {
			t.Errorf("%s: clock %v after reset, want its start %v", path, now.Now, t0.Now)
		}
		if code := s.admin(t, "GET", path, "", nil); code != http.StatusMethodNotAllowed {
			t.Errorf("GET %s: %d, want 405", path, code)
		}
	}
}

// The same seed and the same requests give the same faults, run after
// run: a duplicate rule at 50 % over one consumer on the virtual clock.
func TestSeedReplays(t *testing.T) {
	t.Parallel()
	rules := faultFile(t, `{"rules": [{"operation": "ReceiveMessage", "probability": 0.5, "fault": "duplicate"}]}`)
	trace := func(seed string) string {
		s := start(t, "-clock", "virtual", "-seed", seed, "-faults", rules)
		ctx := context.Background()
		q, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			if _, err := s.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("m")}); err != nil {
				t.Fatal(err)
			}
		}
		var b strings.Builder
		for range 40 { // receive two, delete the first: one stays in flight to duplicate
			out, err := s.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range out.Messages {
				b.WriteString(*m.MessageId + " ")
			}
			b.WriteString("| ")
			if len(out.Messages) > 0 {
				_, _ = s.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: out.Messages[0].ReceiptHandle})
			}
			s.admin(t, "POST", "/_sqsq/clock/advance?d=1s", "", nil)
		}
		return b.String()
	}
	a, b, c := trace("11"), trace("11"), trace("12")
	if a != b {
		t.Errorf("seed 11 twice gave two runs:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("seeds 11 and 12 gave the same run: %s", a)
	}
}
