//go:build go1.25

package sqsqtest_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sqsq/sqsq/sqsqtest"
)

// A Lambda function that fans its records out to goroutines, each working
// a drawn while on the bubble's clock (sometimes past the function
// timeout, which kills the invocation and cancels its context) before it
// charges through an inbox; the failures are collected under a mutex and
// reported by MessageId. Under every fault and crash the kit steps the
// goroutines one kit call at a time, fences a killed or crashed
// invocation's goroutines, and the test binary never panics.
func TestLambdaFanOutInBubble(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{
		Messages:        []string{"order-1", "order-2", "order-3", "order-4"},
		MaxReceiveCount: 3, Redrive: true,
		Faults: sqsqtest.AllFaults(5), Crash: 10,
		LambdaConfig: sqsqtest.LambdaConfig{ReportBatchItemFailures: true, Timeout: 3 * time.Second},
		Lambda: func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
			return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
				var (
					wg   sync.WaitGroup
					mu   sync.Mutex
					resp events.SQSEventResponse
				)
				for _, rec := range ev.Records {
					wg.Add(1)
					go func() {
						defer wg.Done()
						err := ctx.Err()
						if err == nil {
							work := env.DrawDuration("work on "+rec.Body, 5*time.Second)
							select {
							case <-time.After(work):
								err = lambdaCharge(env, rec.Body, true)
							case <-ctx.Done():
								err = ctx.Err()
							}
						}
						if err != nil {
							mu.Lock()
							resp.BatchItemFailures = append(resp.BatchItemFailures, lambdaFailure(rec))
							mu.Unlock()
						}
					}()
				}
				wg.Wait()
				return resp, nil
			}
		},
		Invariants: []sqsqtest.Invariant{
			sqsqtest.EffectOnce(lambdaKey),
			sqsqtest.NothingLeft(),
		},
	}
	s.Test(t)
}
