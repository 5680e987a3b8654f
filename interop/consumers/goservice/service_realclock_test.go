package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"go.uber.org/goleak"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
	"github.com/sqsq/sqsq/internal/racexit"
	"github.com/sqsq/sqsq/sqsqtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.Cleanup(racexit.Exit)) }

// TestServiceDuplicates runs the service in process, through the awssqs
// adapter on the real clock, while a seeded policy delivers in-flight
// messages again (interop/consumers/run.sh does the same over the wire).
// The receive loop receives while the workers hold what it handed them, so
// every receive but the first draws: 0.7^39 of missing with 40 orders, and
// the seed makes the draws the same each run.
func TestServiceDuplicates(t *testing.T) {
	t.Parallel()
	const orders = 40
	tests := []struct {
		name       string
		idempotent bool
		twice      bool // some order charged twice
		reason     string
	}{
		{"buggy service charges a duplicate delivery twice", false, true, "it charges each delivery"},
		{"idempotent service charges each order once", true, false, "it skips an order charged before"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := setup(t, orders)
			svc := &Service{SQS: s.client, QueueURL: s.queueURL, Work: 2 * time.Millisecond, Payments: s.ledger, Idempotent: tt.idempotent}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- svc.Run(ctx) }()
			s.waitConsumed(t)
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("Run: %v", err)
			}

			charges := s.charges(t)
			if len(charges) != orders {
				t.Fatalf("%d orders charged, want %d", len(charges), orders)
			}
			var twice []string
			for id, n := range charges {
				if n > 1 {
					twice = append(twice, id)
				}
			}
			if got := len(twice) > 0; got != tt.twice {
				t.Errorf("orders charged twice: %v; want some: %v (%s); %d duplicates injected",
					twice, tt.twice, tt.reason, s.policy.Count(sqsqtest.Duplicate))
			}
			if s.policy.Count(sqsqtest.Duplicate) == 0 {
				t.Errorf("no duplicate injected: the service was not tested")
			}
		})
	}
}

type bundle struct {
	client   *awssqs.Client
	queueURL string
	policy   *sqsqtest.Policy
	ledger   *Ledger
	path     string
}

// setup makes a broker with 30 % duplicates and a queue holding n orders.
func setup(t *testing.T, n int) *bundle {
	t.Helper()
	policy := sqsqtest.SeedFaults(t, 7, sqsqtest.Rates{sqsqtest.Duplicate: 30})
	b := sqsq.NewBroker(sqsq.WithFaults(policy))
	t.Cleanup(func() { b.Close() })
	client := awssqs.New(b)
	ctx := context.Background()
	q, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders"), Attributes: map[string]string{"VisibilityTimeout": "30"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 10 {
		var entries []types.SendMessageBatchRequestEntry
		for j := i + 1; j <= min(i+10, n); j++ {
			entries = append(entries, types.SendMessageBatchRequestEntry{
				Id: aws.String(fmt.Sprint(j)), MessageBody: aws.String(fmt.Sprintf(`{"orderId":"o-%d"}`, j)),
			})
		}
		if _, err := client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: entries}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "ledger")
	ledger, err := OpenLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ledger.Close() })
	return &bundle{client: client, queueURL: *q.QueueUrl, policy: policy, ledger: ledger, path: path}
}

// waitConsumed waits, on the real clock, until the queue holds no message.
func (s *bundle) waitConsumed(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		out, err := s.client.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
			QueueUrl:       aws.String(s.queueURL),
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages, types.QueueAttributeNameApproximateNumberOfMessagesNotVisible},
		})
		if err != nil {
			t.Fatal(err)
		}
		if out.Attributes["ApproximateNumberOfMessages"] == "0" && out.Attributes["ApproximateNumberOfMessagesNotVisible"] == "0" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("queue not consumed within 10 s: %v", out.Attributes)
		}
	}
}

// charges counts the charge lines of each order in the ledger file.
func (s *bundle) charges(t *testing.T) map[string]int {
	t.Helper()
	b, err := os.ReadFile(s.path)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "charge" {
			n[f[1]]++
		}
	}
	return n
}
