// Command lambda shows the sqsqtest kit driving an AWS Lambda function the
// way Lambda's event source mapping for SQS does, and finding the classic
// mistakes of its batch contract.
//
// The function (function.go, service code that knows nothing of the kit)
// gets up to 10 orders per invocation, authorizes each with a card
// processor that sometimes declines for now, and records the charge in its
// database. The mapping deletes a batch when the
// function succeeds; when it returns an error, times out or crashes, the
// whole batch comes back after the visibility timeout, unless the function
// names the records that failed in a partial batch response
// (ReportBatchItemFailures). The kit runs four versions under drawn
// schedules of sends, invocations, declines, crashes, clock advances,
// redrives and faults:
//
//   - WholeBatchError fails the invocation at the first decline: the kit
//     finds the orders charged before it charged again.
//   - FailuresByIndex names the failed records by index, not MessageId:
//     Lambda fails the whole batch, and the kit finds the same double
//     charge.
//   - PartialBatch names them by MessageId: only the declined ones come
//     back, but a duplicate delivery, a crash after a charge or a failed
//     delete still brings a charged order back, and the kit finds that.
//   - PartialBatchWithInbox also charges through an inbox keyed by the
//     order: it passes.
//
// Run it with
//
//	go run ./examples/lambda
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sqsq/sqsq/sqsqtest"
)

// ledgerDB is the function's Payments database backed by the kit's
// ledger: each transaction is one [sqsqtest.Env.Commit], a step of the
// schedule (the invocation may crash or be killed before it), committed
// atomically. This adapter and gateway are the only code that knows both
// the service's interfaces and the kit.
type ledgerDB struct{ env *sqsqtest.Env }

func (db ledgerDB) InTx(_ context.Context, name string, fn func(PaymentsTx) error) error {
	return db.env.Commit(name, func(tx *sqsqtest.Tx) error { return fn(ledgerTx{tx}) })
}

// ledgerTx maps the service's tables onto the ledger: inbox rows are keys
// "inbox:…", a charge is the effect "charge:<order>" that the invariant
// counts, and an inbox hit is reported as a suppressed duplicate, so that
// the timeline shows it.
type ledgerTx struct{ tx *sqsqtest.Tx }

func (t ledgerTx) Seen(order string) (bool, error) {
	_, seen := t.tx.Get("inbox:" + order)
	if seen {
		t.tx.Suppress(order)
	}
	return seen, nil
}

func (t ledgerTx) MarkSeen(order string) error { t.tx.Put("inbox:"+order, "charged"); return nil }

func (t ledgerTx) Charge(order string) error { t.tx.Effect("charge:" + order); return nil }

// gateway is the card processor as the schedule plays it: it declines an
// authorization one time in five.
type gateway struct{ env *sqsqtest.Env }

func (g gateway) Authorize(_ context.Context, order string) error {
	if g.env.Draw("decline "+order, 5) == 4 {
		return ErrDeclined
	}
	return nil
}

// Scenario is the test every version faces: three orders, two execution
// environments fed by an event source mapping with batches of up to 10,
// ReportBatchItemFailures and a 3 s timeout; a 30 s visibility timeout; a
// dead-letter queue after five receives (as AWS advises for Lambda) that
// the schedule may redrive; every fault at 5 % and a 10 % crash chance at
// each step of the function. The invariants: every order charged exactly
// once, and no message left behind.
func Scenario(fn func(Payments, Gateway) Function) sqsqtest.Scenario {
	return sqsqtest.Scenario{
		Messages:        []string{"order-1", "order-2", "order-3"},
		Consumers:       2,
		Visibility:      30 * time.Second,
		MaxReceiveCount: 5,
		Redrive:         true,
		Faults:          sqsqtest.AllFaults(5),
		Crash:           10,
		LambdaConfig: sqsqtest.LambdaConfig{
			BatchSize:               10,
			ReportBatchItemFailures: true,
			Timeout:                 3 * time.Second,
		},
		Lambda: func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
			return sqsqtest.LambdaHandler(fn(ledgerDB{env}, gateway{env}))
		},
		Invariants: []sqsqtest.Invariant{
			sqsqtest.EffectOnce(func(order string) string { return "charge:" + order }),
			sqsqtest.NothingLeft(),
		},
	}
}

// Versions are the functions in the order the program tries them.
var Versions = []struct {
	Name string
	New  func(Payments, Gateway) Function
}{
	{"error for the whole batch", WholeBatchError},
	{"failures reported by index", FailuresByIndex},
	{"partial batch response", PartialBatch},
	{"partial batch response with an inbox", PartialBatchWithInbox},
}

// find searches a version's schedules, seeds 1…runs. The tests share one
// search per version between this program's output and their own checks
// (exampletest.Shared).
var find = func(_ string, s sqsqtest.Scenario, runs int) sqsqtest.Finding { return s.Find(1, runs) }

// runs is how many schedules the program tries on each version; its
// golden test tries as many with SQSQ_LONG=1, so both print the same.
const runs = 1000

// run searches seeds 1…runs for each version and prints what it found.
func run(w io.Writer, runs int) {
	for _, v := range Versions {
		f := find(v.Name, Scenario(v.New), runs)
		if f.Runs == 0 {
			fmt.Fprintf(w, "%s: passed %d schedules\n\n", v.Name, runs)
			continue
		}
		fmt.Fprintf(w, "%s: caught after %d runs (seed %d), shrunk from %d to %d steps\n%v\n\n",
			v.Name, f.Runs, f.Seed, f.First.Steps, f.Shrunk.Steps, f.Shrunk)
	}
}

func main() { run(os.Stdout, runs) }
