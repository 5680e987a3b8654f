// Command fifo-ledger shows the sqsqtest kit checking a FIFO consumer that
// must apply each account's ledger entries in order.
//
// Entries go to a FIFO queue whose message group is the account, so SQS
// hands out one account's entries in order and never to two consumers at
// once. The consumer (consumer.go, service code that knows nothing of the
// kit) takes up to 10 messages per receive and posts their entries to its
// ledger database, which fails now and then. Order is now the consumer's
// to keep:
//
//   - Sequential posts the batch in order and stops an account at its first
//     failure, giving the rest of that account's entries back at once
//     (visibility 0): no schedule breaks the order.
//   - PastFailure leaves a failed entry to come back later but goes on with
//     the account's next ones: the kit finds the entry posted out of order.
//   - Concurrent posts the whole batch at once, a goroutine per message: the
//     kit finds two entries of one account racing. Goroutines that a
//     handler starts need a testing/synctest bubble (Scenario.Test), which
//     a program has not, so that version is checked in synctest_test.go.
//
// Run it with
//
//	go run ./examples/fifo-ledger
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq/sqsqtest"
)

// Entries are the scenario's messages: two accounts, interleaved.
var Entries = []string{"alice#1 +100", "alice#2 -30", "bob#1 +50", "alice#3 -60", "bob#2 -20"}

// accountOf is a body's message group.
func accountOf(body string) string {
	e, err := ParseEntry(body)
	if err != nil {
		return body
	}
	return e.Account
}

// errUnavailable is the database's transient failure.
var errUnavailable = errors.New("database unavailable")

// ledgerBooks is the consumer's Books database backed by the kit's ledger.
// Each post first draws whether the database fails, if it may (1 in 10;
// rapid and Find shrink it away unless the failure matters), then is one
// [sqsqtest.Env.Commit], named by the entry so that concurrent posts are
// told apart: the entry is the effect the invariant reads, a second post
// of it a suppressed duplicate. This adapter is the only code that knows
// both the service's interfaces and the kit.
type ledgerBooks struct {
	env      *sqsqtest.Env
	failures bool
}

func (b ledgerBooks) Post(_ context.Context, e Entry) (bool, error) {
	if b.failures && b.env.Draw("database fails on "+e.ID(), 10) == 9 {
		return false, errUnavailable
	}
	posted := false
	err := b.env.Commit("post "+e.ID(), func(tx *sqsqtest.Tx) error {
		if _, dup := tx.Get("entry:" + e.ID()); dup {
			tx.Suppress(e.ID())
			return nil
		}
		tx.Put("entry:"+e.ID(), fmt.Sprint(e.Amount))
		tx.Effect(e.ID())
		posted = true
		return nil
	})
	return posted, err
}

// entryID names a body's ledger entry, the effect its posting commits.
func entryID(body string) string {
	e, err := ParseEntry(body)
	if err != nil {
		return body
	}
	return e.ID()
}

// Scenario is the test every version faces: five entries of two accounts
// on a FIFO queue grouped by account, two consumers receiving up to 10
// messages at a time, the faults a FIFO queue allows at 5 %, a 10 % crash
// chance at each step of a consumer, and a database that fails one post
// in ten. The invariants: each account's entries posted once, in order,
// and no message left behind.
func Scenario(process Processor) sqsqtest.Scenario { return scenario(process, true) }

// RaceScenario is Scenario with a database that never fails: only the
// order in which the consumers' calls go can break the order of entries.
func RaceScenario(process Processor) sqsqtest.Scenario { return scenario(process, false) }

func scenario(process Processor, failures bool) sqsqtest.Scenario {
	return sqsqtest.Scenario{
		Messages:  Entries,
		FIFO:      true,
		GroupOf:   accountOf,
		Consumers: 2,
		Batch:     10,
		Faults:    sqsqtest.AllFaults(5),
		Crash:     10,
		BatchConsumer: func(env *sqsqtest.Env) sqsqtest.BatchHandler {
			api, books := env.SQS(), ledgerBooks{env, failures}
			return func(ctx context.Context, msgs []sqsqtest.Msg) error {
				process(ctx, api, env.QueueURL(), books, sdkMessages(msgs))
				return nil
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.GroupOrder(entryID), sqsqtest.EffectOnce(entryID), sqsqtest.NothingLeft()},
	}
}

// sdkMessages turns the kit's messages into the SDK's.
func sdkMessages(msgs []sqsqtest.Msg) []types.Message {
	out := make([]types.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.Message()
	}
	return out
}

// find searches a version's schedules, seeds 1…runs. The tests share one
// search per version between this program's output and their own checks
// (exampletest.Shared).
var find = func(_ string, s sqsqtest.Scenario, runs int) sqsqtest.Finding { return s.Find(1, runs) }

// runs is how many schedules the program tries on each consumer; its
// golden test tries as many with SQSQ_LONG=1, so both print the same.
const runs = 1000

// run searches seeds 1…runs for the versions that run without a bubble
// and prints what it found.
func run(w io.Writer, runs int) {
	for _, v := range []struct {
		name    string
		process Processor
	}{
		{"sequential, an account stopped at its first failure", Sequential},
		{"sequential, going on past a failure", PastFailure},
	} {
		f := find(v.name, Scenario(v.process), runs)
		if f.Runs == 0 {
			fmt.Fprintf(w, "%s: passed %d schedules\n\n", v.name, runs)
			continue
		}
		fmt.Fprintf(w, "%s: caught after %d runs (seed %d), shrunk from %d to %d steps\n%v\n\n",
			v.name, f.Runs, f.Seed, f.First.Steps, f.Shrunk.Steps, f.Shrunk)
	}
	fmt.Fprintln(w, strings.TrimSpace(`
concurrent, a goroutine per message: checked by go test ./examples/fifo-ledger
(goroutines a handler starts need a testing/synctest bubble)`))
}

func main() { run(os.Stdout, runs) }
