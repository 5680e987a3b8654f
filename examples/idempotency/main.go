// Command idempotency shows the sqsqtest kit finding the classic SQS consumer
// bug — a payment applied twice because a message came back — and checking
// the fix.
//
// The consumer (consumer.go, service code that knows nothing of the kit)
// takes up to 10 messages per receive, charges each order in a transaction
// of its own database interface, and deletes the charged messages in one
// batch. SQS delivers at least once: a crash between the charge and the
// delete, a delete that fails, or a duplicate delivery hands a message to
// a consumer again. The kit runs three versions under drawn schedules of
// sends, receives, crashes, clock advances, redrives and faults, giving
// each the kit's SDK-shaped client and a database backed by the kit's
// ledger:
//
//   - NoInbox charges every delivery: the kit finds the double charge.
//   - InboxByOrder records the order id in an inbox in the same transaction
//     as the charge and skips orders it has seen: it passes.
//   - InboxByMessageID keys the inbox by MessageId: it survives redeliveries
//     but not a redrive from the dead-letter queue, which gives the message
//     a new MessageId.
//
// The consumer's whole receive loop, Poll, with its 20-second long polls,
// runs as a loop consumer in the tests (PollScenario).
//
// Run it with
//
//	go run ./examples/idempotency
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq/sqsqtest"
)

// ledgerDB is the consumer's Payments database backed by the kit's ledger:
// each transaction is one [sqsqtest.Env.Commit], a step of the schedule
// (the consumer may crash before it), committed atomically. This adapter
// is the only code that knows both the service's interfaces and the kit.
type ledgerDB struct{ env *sqsqtest.Env }

func (db ledgerDB) InTx(_ context.Context, name string, fn func(PaymentsTx) error) error {
	return db.env.Commit(name, func(tx *sqsqtest.Tx) error { return fn(ledgerTx{tx}) })
}

// ledgerTx maps the service's tables onto the ledger: inbox rows are keys
// "inbox:…", a charge is the effect "charge:<order>" that the invariant
// counts, and an inbox hit is reported as a suppressed duplicate, so that
// the timeline shows it.
type ledgerTx struct{ tx *sqsqtest.Tx }

func (t ledgerTx) Seen(key string) (bool, error) {
	_, seen := t.tx.Get("inbox:" + key)
	if seen {
		t.tx.Suppress(key)
	}
	return seen, nil
}

func (t ledgerTx) MarkSeen(key string) error { t.tx.Put("inbox:"+key, "charged"); return nil }

func (t ledgerTx) Charge(order string) error { t.tx.Effect("charge:" + order); return nil }

// crashAware is the kit's SDK-shaped client as the consumer's API. A
// crashed consumer's calls fail with [sqsqtest.ErrCrashed]; the first
// receive that does ends the loop's context, as the process's death would
// end the loop.
type crashAware struct {
	*sqsqtest.SQS
	stop context.CancelFunc
}

func (a crashAware) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	out, err := a.SQS.ReceiveMessage(ctx, in, optFns...)
	if errors.Is(err, sqsqtest.ErrCrashed) {
		a.stop()
	}
	return out, err
}

// Scenario is the test every version faces: three orders, two consumers
// that each get up to 10 messages per receive and hand them to
// HandleBatch, a dead-letter queue after two receives that the schedule
// may redrive, every fault at 5 % and a 10 % crash chance at each step of
// a consumer. The invariants: every order charged exactly once, and no
// message left behind.
func Scenario(handle Handler) sqsqtest.Scenario {
	return sqsqtest.Scenario{
		Messages:        []string{"order-1", "order-2", "order-3"},
		Consumers:       2,
		Batch:           10,
		MaxReceiveCount: 2,
		Redrive:         true,
		Faults:          sqsqtest.AllFaults(5),
		Crash:           10,
		BatchConsumer: func(env *sqsqtest.Env) sqsqtest.BatchHandler {
			api, db := env.SQS(), ledgerDB{env}
			return func(ctx context.Context, msgs []sqsqtest.Msg) error {
				HandleBatch(ctx, api, env.QueueURL(), db, handle, sdkMessages(msgs))
				return nil
			}
		},
		Invariants: []sqsqtest.Invariant{
			sqsqtest.EffectOnce(func(order string) string { return "charge:" + order }),
			sqsqtest.NothingLeft(),
		},
	}
}

// PollScenario runs the whole receive loop, Poll, as each consumer: 20 s
// long polls through the kit's SDK-shaped client. It has no dead-letter
// queue: the kit's settle phase does not yet redrive a dead-letter queue
// while loop consumers long-poll (see README.md), so the redrive bug is
// left to Scenario.
func PollScenario(handle Handler) sqsqtest.Scenario {
	s := Scenario(handle)
	s.BatchConsumer, s.MaxReceiveCount, s.Redrive = nil, 0, false
	s.Loop = func(ctx context.Context, env *sqsqtest.Env) {
		ctx, stop := context.WithCancel(ctx)
		defer stop()
		Poll(ctx, crashAware{env.SQS(), stop}, env.QueueURL(), ledgerDB{env}, handle)
	}
	return s
}

// sdkMessages turns the kit's messages into the SDK's.
func sdkMessages(msgs []sqsqtest.Msg) []types.Message {
	out := make([]types.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.Message()
	}
	return out
}

// Versions are the consumers in the order the program tries them.
var Versions = []struct {
	Name   string
	Handle Handler
}{
	{"no inbox", NoInbox},
	{"inbox keyed by order id", InboxByOrder},
	{"inbox keyed by MessageId", InboxByMessageID},
}

// find searches a version's schedules, seeds 1…runs. The tests share one
// search per version between this program's output and their own checks
// (exampletest.Shared).
var find = func(_ string, s sqsqtest.Scenario, runs int) sqsqtest.Finding { return s.Find(1, runs) }

// runs is how many schedules the program tries on each consumer; its
// golden test tries as many with SQSQ_LONG=1, so both print the same.
const runs = 1000

// run searches seeds 1…runs for each version and prints what it found.
func run(w io.Writer, runs int) {
	for _, v := range Versions {
		f := find(v.Name, Scenario(v.Handle), runs)
		if f.Runs == 0 {
			fmt.Fprintf(w, "%s: passed %d schedules\n\n", v.Name, runs)
			continue
		}
		fmt.Fprintf(w, "%s: caught after %d runs (seed %d), shrunk from %d to %d steps\n%v\n\n",
			v.Name, f.Runs, f.Seed, f.First.Steps, f.Shrunk.Steps, f.Shrunk)
	}
}

func main() { run(os.Stdout, runs) }
