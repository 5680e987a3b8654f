// Command idempotency shows the sqsqtest kit finding the classic SQS consumer
// bug — a payment applied twice because a message came back — and checking
// the fix.
//
// The consumer charges an order and then deletes the message. SQS delivers
// at least once: a crash between the charge and the delete, a delete that
// fails, or a duplicate delivery hands the message to a consumer again.
// Three versions of the consumer run under drawn schedules of sends,
// deliveries, crashes, clock advances, redrives and faults:
//
//   - NoInbox charges every delivery: the kit finds the double charge.
//   - InboxByOrder records the order id in an inbox in the same transaction
//     as the charge and skips orders it has seen: it passes.
//   - InboxByMessageID keys the inbox by MessageId: it survives redeliveries
//     but not a redrive from the dead-letter queue, which gives the message
//     a new MessageId.
//
// Run it with
//
//	go run ./examples/idempotency
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsq/sqsq/sqsqtest"
)

// API is the part of *sqs.Client the consumer uses. Production passes an
// *sqs.Client; the kit passes its SDK-shaped view of the queue under test.
type API interface {
	DeleteMessage(context.Context, *sqs.DeleteMessageInput, ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
}

// Store is the consumer's database: one transaction per call.
type Store interface {
	Commit(what string, fn func(tx *sqsqtest.Tx) error) error
}

// Message is what the consumer handles: an order id in the body.
type Message struct {
	MessageID, ReceiptHandle, OrderID string
}

// charge is the effect: in a real service, a row in the payments table.
func charge(tx *sqsqtest.Tx, order string) { tx.Effect("charge:" + order) }

// NoInbox charges the order, then deletes the message.
func NoInbox(ctx context.Context, db Store, api API, queueURL string, m Message) error {
	if err := db.Commit("charge", func(tx *sqsqtest.Tx) error {
		charge(tx, m.OrderID)
		return nil
	}); err != nil {
		return err
	}
	_, err := api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(queueURL), ReceiptHandle: aws.String(m.ReceiptHandle)})
	return err
}

// withInbox charges the order unless key is in the inbox, inserting key in
// the same transaction as the charge, then deletes the message.
func withInbox(ctx context.Context, db Store, api API, queueURL string, m Message, key string) error {
	if err := db.Commit("charge", func(tx *sqsqtest.Tx) error {
		if _, seen := tx.Get("inbox:" + key); seen {
			tx.Suppress(key)
			return nil
		}
		tx.Put("inbox:"+key, "charged")
		charge(tx, m.OrderID)
		return nil
	}); err != nil {
		return err
	}
	_, err := api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(queueURL), ReceiptHandle: aws.String(m.ReceiptHandle)})
	return err
}

// InboxByOrder keys the inbox by the business id, the order.
func InboxByOrder(ctx context.Context, db Store, api API, queueURL string, m Message) error {
	return withInbox(ctx, db, api, queueURL, m, m.OrderID)
}

// InboxByMessageID keys the inbox by the SQS MessageId.
func InboxByMessageID(ctx context.Context, db Store, api API, queueURL string, m Message) error {
	return withInbox(ctx, db, api, queueURL, m, m.MessageID)
}

// Consumer is the signature the three versions share.
type Consumer func(ctx context.Context, db Store, api API, queueURL string, m Message) error

// Scenario is the test every version faces: three orders, two consumers, a
// dead-letter queue after two receives that the schedule may redrive, every
// fault at 5 % and a 10 % crash chance at each step of a handler. The
// invariants: every order charged exactly once, and no message lost.
func Scenario(consume Consumer) sqsqtest.Scenario {
	return sqsqtest.Scenario{
		Messages:        []string{"order-1", "order-2", "order-3"},
		Consumers:       2,
		MaxReceiveCount: 2,
		Redrive:         true,
		Faults:          sqsqtest.AllFaults(5),
		Crash:           10,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			api := env.SQS()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				return consume(ctx, env, api, env.QueueURL(), Message{MessageID: m.MessageId, ReceiptHandle: m.ReceiptHandle, OrderID: m.Body})
			}
		},
		Invariants: []sqsqtest.Invariant{
			sqsqtest.EffectOnce(func(order string) string { return "charge:" + order }),
			sqsqtest.NoneLost(),
		},
	}
}

// Versions are the consumers in the order the program tries them.
var Versions = []struct {
	Name    string
	Consume Consumer
}{
	{"no inbox", NoInbox},
	{"inbox keyed by order id", InboxByOrder},
	{"inbox keyed by MessageId", InboxByMessageID},
}

// run searches seeds 1…runs for each version and prints what it found.
// runs is how many schedules the program tries on each consumer; its
// golden test tries as many, so both print the same.
const runs = 2000

func run(w io.Writer, runs int) {
	for _, v := range Versions {
		f := Scenario(v.Consume).Find(1, runs)
		if f.Runs == 0 {
			fmt.Fprintf(w, "%s: passed %d schedules\n\n", v.Name, runs)
			continue
		}
		fmt.Fprintf(w, "%s: caught after %d runs (seed %d), shrunk from %d to %d steps\n%v\n\n",
			v.Name, f.Runs, f.Seed, f.First.Steps, f.Shrunk.Steps, f.Shrunk)
	}
}

func main() { run(os.Stdout, runs) }
