//go:build go1.25

package sqsqtest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq/sqsqtest"
)

// A batch consumer that processes its messages in goroutines it starts and
// waits for, under every fault and crash: the kit steps the goroutines one
// kit call at a time, a crash in any of them fences the consumer, and the
// test binary never panics.
func TestBatchGoroutinesInBubble(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{
		Messages: []string{"o1", "o2", "o3", "o4"},
		Batch:    4, Faults: sqsqtest.AllFaults(5), Crash: 10,
		BatchConsumer: func(env *sqsqtest.Env) sqsqtest.BatchHandler {
			q := env.Queue()
			return func(ctx context.Context, msgs []sqsqtest.Msg) error {
				var wg sync.WaitGroup
				for _, m := range msgs {
					wg.Add(1)
					go func() {
						defer wg.Done()
						err := env.Commit("charge "+m.Body, func(tx *sqsqtest.Tx) error {
							if _, seen := tx.Get(m.Body); seen {
								tx.Suppress(m.Body)
								return nil
							}
							tx.Put(m.Body, "done")
							tx.Effect("charge:" + m.Body)
							return nil
						})
						if err == nil {
							_ = q.Delete(ctx, m.ReceiptHandle)
						}
					}()
				}
				wg.Wait()
				return nil
			}
		},
		Invariants: []sqsqtest.Invariant{
			sqsqtest.EffectOnce(func(b string) string { return "charge:" + b }),
			sqsqtest.NothingLeft(),
		},
	}
	s.Test(t)
}

// A consumer that owns its receive loop: 20 s long polls through the SDK
// client, a heartbeat goroutine on a time.Ticker of the bubble, and the
// same at-least-once handling.
func TestLoopConsumerInBubble(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{
		Messages: []string{"j1", "j2"}, Visibility: 30 * time.Second, Crash: 5,
		Faults: sqsqtest.Rates{sqsqtest.Duplicate: 5, sqsqtest.LoseDelete: 5},
		Loop: func(ctx context.Context, env *sqsqtest.Env) {
			api, url := env.SQS(), env.QueueURL()
			for ctx.Err() == nil {
				out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 20, MaxNumberOfMessages: 10})
				if err != nil {
					if err == sqsqtest.ErrCrashed {
						return
					}
					continue
				}
				for _, m := range out.Messages {
					handle(ctx, env, api, url, m)
				}
			}
		},
		Invariants: []sqsqtest.Invariant{
			sqsqtest.NothingLeft(),
			{Name: "every job done", Check: func(r *sqsqtest.Result) error {
				for _, b := range r.Bodies {
					if r.Ledger.Effects["done:"+b] == 0 {
						return fmt.Errorf("%s never done", b)
					}
				}
				return nil
			}},
		},
	}
	s.Test(t)
}

// handle works 45 s on a job, with a heartbeat every 10 s that keeps it
// hidden.
func handle(ctx context.Context, env *sqsqtest.Env, api *sqsqtest.SQS, url string, m types.Message) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(10 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				_, _ = api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: &url, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 30})
			}
		}
	}()
	time.Sleep(45 * time.Second)
	close(stop)
	wg.Wait()
	if env.Commit("done "+aws.ToString(m.Body), func(tx *sqsqtest.Tx) error { tx.Effect("done:" + aws.ToString(m.Body)); return nil }) == nil {
		_, _ = api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: m.ReceiptHandle})
	}
}
