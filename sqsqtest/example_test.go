package sqsqtest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqsqtest"
)

// A consumer that charges and then deletes, with no inbox, charges twice
// when it crashes between the two: Find searches seeded schedules, shrinks
// the first failure and prints it as a timeline.
func ExampleScenario_Find() {
	s := sqsqtest.Scenario{
		Messages: []string{"order-1"},
		Crash:    20,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				if err := env.Commit("charge", func(tx *sqsqtest.Tx) error {
					tx.Effect("charge:" + m.Body)
					return nil
				}); err != nil {
					return err
				}
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.EffectOnce(func(b string) string { return "charge:" + b })},
	}
	f := s.Find(1, 1000)
	fmt.Println(f.Shrunk)
	// Output:
	// invariant failed: every message's effect committed exactly once: A (charge:order-1) committed 2 times
	// messages: A = "order-1" (…1)
	// schedule (4 steps):
	//   t=0s send(A)
	// → t=0s receive(A) by c1
	// → t=0s c1 charge(A): charge:order-1
	// → t=0s c1 crashed before delete(A)
	// → t=0s settle: faults and crashes off
	// → t=30s visibility expired(A)
	// → t=30s receive(A) by c1
	// → t=30s c1 charge(A): charge:order-1
	// → t=30s c1 delete(A)
	// → t=30s c1 done with A
}

// A Recorder keeps each message's history: the send, every receive with its
// handle, visibility changes and the delete.
// Shrink shortens a failing schedule by steps: here the seeded run sends
// and handles three orders before the crash that charges one twice; the
// shrunk one keeps only what the double charge needs.
func ExampleScenario_Shrink() {
	s := sqsqtest.Scenario{
		Messages: []string{"order-1", "order-2", "order-3"},
		Crash:    20,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				if err := env.Commit("charge", func(tx *sqsqtest.Tx) error {
					tx.Effect("charge:" + m.Body)
					return nil
				}); err != nil {
					return err
				}
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.EffectOnce(func(b string) string { return "charge:" + b })},
	}
	first := s.Run(sqsqtest.Seed(1))
	short := s.Shrink(sqsqtest.Seed(1))
	fmt.Printf("%d steps shrink to %d\n", first.Steps, short.Steps)
	fmt.Println(short)
	// Output:
	// 22 steps shrink to 4
	// invariant failed: every message's effect committed exactly once: A (charge:order-1) committed 2 times
	// messages: A = "order-1" (…1); B = "order-2" (…2); C = "order-3" (…3)
	// schedule (4 steps):
	//   t=0s send(A)
	// → t=0s receive(A) by c2
	// → t=0s c2 charge(A): charge:order-1
	// → t=0s c2 crashed before delete(A)
	// → t=0s settle: faults and crashes off
	// → t=0s … 10 events of B, C (send, receive, charge, delete, done)
	// → t=30s visibility expired(A)
	// → t=30s receive(A) by c1
	// → t=30s c1 charge(A): charge:order-1
	// → t=30s c1 delete(A)
	// → t=30s c1 done with A
}

func ExampleRecorder() {
	ctx := context.Background()
	clk := clock.NewMock()
	clk.Set(sqsqtest.Epoch)
	rec := sqsqtest.NewRecorder()
	b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithObserver(rec))
	defer b.Close()
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "jobs"})
	sent, _ := q.Send(ctx, sqsq.SendInput{MessageBody: "resize"})

	first, _ := q.Receive(ctx, sqsq.ReceiveInput{})
	_ = q.ChangeVisibility(ctx, first[0].ReceiptHandle, 0) // give it back
	second, _ := q.Receive(ctx, sqsq.ReceiveInput{})
	_ = q.Delete(ctx, first[0].ReceiptHandle) // stale: deletes nothing
	_ = q.Delete(ctx, second[0].ReceiptHandle)

	for _, r := range rec.History(sent.MessageId) {
		fmt.Println(r)
	}
	// Output:
	// t=0s sent jobs
	// t=0s received jobs #1 hidden 30s
	// t=0s visibility jobs 0s
	// t=0s received jobs #2 hidden 30s
	// t=0s deleted jobs (no-op)
	// t=0s deleted jobs
}

// The lucky schedule takes the first choice everywhere: no fault, no crash;
// the run settles at once.
func ExampleLucky() {
	s := sqsqtest.Scenario{
		Messages:   []string{"job-1"},
		Consumers:  1,
		Visibility: time.Minute,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			return func(ctx context.Context, m sqsqtest.Msg) error {
				env.Work(45 * time.Second)
				return env.Queue().Delete(ctx, m.ReceiptHandle)
			}
		},
	}
	fmt.Println(s.Run(sqsqtest.Lucky()).Timeline)
	// Output:
	//   t=0s settle: faults and crashes off
	// → t=0s send(A)
	// → t=0s receive(A) by c1
	// → t=45s c1 worked 45s on A
	// → t=45s c1 delete(A)
	// → t=45s c1 done with A
}
