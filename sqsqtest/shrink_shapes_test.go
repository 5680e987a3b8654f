package sqsqtest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsq/sqsq/sqsqtest"
)

// Scenario.Shrink, on every consumer shape with a bug: the shrunk run
// fails the same invariant, is no longer than the run it came from, and
// is the same every time.
func TestShrinkEveryShape(t *testing.T) {
	t.Parallel()
	loop := chargeScenario(false)
	loop.Consumer = nil
	loop.Loop = func(ctx context.Context, env *sqsqtest.Env) {
		api, url := env.SQS(), env.QueueURL()
		for ctx.Err() == nil {
			out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 20})
			if err != nil {
				continue
			}
			for _, m := range out.Messages {
				if lambdaCharge(env, *m.Body, false) == nil {
					_, _ = api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: m.ReceiptHandle})
				}
			}
		}
	}
	lambda := lambdaScenario(true)
	lambda.Lambda = func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
		return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			env.WorkBetween(0, 4*time.Second)
			for _, rec := range ev.Records {
				if err := lambdaCharge(env, rec.Body, false); err != nil {
					return events.SQSEventResponse{}, err
				}
			}
			return events.SQSEventResponse{}, nil
		}
	}
	for name, s := range map[string]sqsqtest.Scenario{
		"Consumer":              chargeScenario(false),
		"BatchConsumer, env.Go": fifoBatch(true),
		"Loop":                  loop,
		"Lambda, FIFO":          lambda,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			found := 0
			for seed := uint64(1); seed <= 500 && found < 3; seed++ {
				o := s.Run(sqsqtest.Seed(seed))
				if o.Err == nil {
					continue
				}
				found++
				short := s.Shrink(sqsqtest.Seed(seed))
				kind := func(o *sqsqtest.Outcome) string { k, _, _ := strings.Cut(o.Err.Error(), ":"); return k }
				if short.Err == nil || kind(short) != kind(o) {
					t.Fatalf("seed %d: %v shrank to %v", seed, o.Err, short.Err)
				}
				if short.Steps > o.Steps {
					t.Errorf("seed %d: %d steps shrank to %d", seed, o.Steps, short.Steps)
				}
				if again := s.Shrink(sqsqtest.Seed(seed)); again.String() != short.String() {
					t.Errorf("seed %d: two shrinks differ:\n%v\n%v", seed, short, again)
				}
			}
			if found == 0 {
				t.Fatal("no failing seed in 500")
			}
		})
	}
}
