//go:build go1.25

package sqsqtest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Test plays Runs() schedules too, each in a bubble of its own.
func TestTestPlaysRuns(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	counted(&n).Test(t)
	if got, want := int(n.Load()), wantRuns(); got != want {
		t.Errorf("played %d runs, want %d (Runs() = %d)", got, want, Runs())
	}
}

// A consumer's context ends with the run: a loop that, once it has
// nothing more to do, waits only for its context (no kit call) returns
// when the run is over, crashed generations or not.
func TestConsumerContextEndsWithTheRun(t *testing.T) {
	t.Parallel()
	var ended atomic.Int64
	s := Scenario{Messages: []string{"a", "b"}, Crash: 10, Faults: AllFaults(10),
		Loop: func(ctx context.Context, env *Env) {
			api, url := env.SQS(), env.QueueURL()
			for ctx.Err() == nil {
				out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url})
				if errors.Is(err, ErrCrashed) {
					return
				}
				if err != nil {
					continue
				}
				if len(out.Messages) == 0 {
					<-ctx.Done() // the run may be over: only the context says so
					ended.Add(1)
					return
				}
				for _, m := range out.Messages {
					if _, err := api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: m.ReceiptHandle}); errors.Is(err, ErrCrashed) {
						return
					}
				}
			}
		}}
	s.Test(t)
	if ended.Load() == 0 {
		t.Error("no loop ever waited for its context to end")
	}
}
