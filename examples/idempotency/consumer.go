package main

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// This file is the service code, as it runs in production: it knows
// nothing of sqsq or of its test kit. It talks to SQS through the part of
// *sqs.Client it uses and to its database through an interface of its own;
// main.go hands it the kit's SDK-shaped client and a database backed by
// the kit's ledger (TestServiceCodeDoesNotImportTheKit keeps it so).

// API is the part of *sqs.Client the consumer uses.
type API interface {
	ReceiveMessage(context.Context, *sqs.ReceiveMessageInput, ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessageBatch(context.Context, *sqs.DeleteMessageBatchInput, ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
}

// In production the API is the SDK's client.
var _ API = (*sqs.Client)(nil)

// Payments is the consumer's database. In production InTx is a SQL
// transaction; name says what it is for (logs, traces).
type Payments interface {
	InTx(ctx context.Context, name string, fn func(tx PaymentsTx) error) error
}

// PaymentsTx is what a transaction of [Payments] can do: look up and fill
// the inbox table, and charge an order (a row in the payments table).
// Nothing of it is visible to others until the transaction commits, and
// nothing of it is left if it does not.
type PaymentsTx interface {
	Seen(key string) (bool, error)
	MarkSeen(key string) error
	Charge(orderID string) error
}

// Message is what a handler needs of a received message.
type Message struct {
	MessageID, OrderID string
}

// Handler charges the order a message asks for. An error leaves the
// message to come back after its visibility timeout.
type Handler func(ctx context.Context, db Payments, m Message) error

// NoInbox charges every delivery.
func NoInbox(ctx context.Context, db Payments, m Message) error {
	return db.InTx(ctx, "charge "+m.OrderID, func(tx PaymentsTx) error {
		return tx.Charge(m.OrderID)
	})
}

// InboxByOrder keys the inbox by the business id, the order: a
// redelivered or redriven order is seen and skipped.
func InboxByOrder(ctx context.Context, db Payments, m Message) error {
	return chargeOnce(ctx, db, m, m.OrderID)
}

// InboxByMessageID keys the inbox by the SQS MessageId: it absorbs
// redeliveries, but a redrive from the dead-letter queue gives the message
// a new MessageId.
func InboxByMessageID(ctx context.Context, db Payments, m Message) error {
	return chargeOnce(ctx, db, m, m.MessageID)
}

// chargeOnce charges the order unless key is in the inbox, inserting key
// in the same transaction as the charge.
func chargeOnce(ctx context.Context, db Payments, m Message, key string) error {
	return db.InTx(ctx, "charge "+m.OrderID, func(tx PaymentsTx) error {
		seen, err := tx.Seen(key)
		if err != nil || seen {
			return err
		}
		if err := tx.MarkSeen(key); err != nil {
			return err
		}
		return tx.Charge(m.OrderID)
	})
}

// Poll is the consumer's receive loop: 20-second long polls of up to 10
// messages, each batch handled by HandleBatch. It returns when ctx ends.
func Poll(ctx context.Context, api API, queueURL string, db Payments, handle Handler) {
	for ctx.Err() == nil {
		out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:            aws.String(queueURL),
			MaxNumberOfMessages: 10,
			WaitTimeSeconds:     20,
		})
		if err != nil {
			continue // throttled or a lost response: poll again (production code would back off)
		}
		HandleBatch(ctx, api, queueURL, db, handle, out.Messages)
	}
}

// HandleBatch handles the messages of one receive in turn, then deletes
// the handled ones in one batch. A message whose handler failed, or whose
// delete failed, comes back after its visibility timeout; the handler must
// absorb that second delivery.
func HandleBatch(ctx context.Context, api API, queueURL string, db Payments, handle Handler, msgs []types.Message) {
	var done []types.DeleteMessageBatchRequestEntry
	for i, m := range msgs {
		if err := handle(ctx, db, Message{MessageID: aws.ToString(m.MessageId), OrderID: aws.ToString(m.Body)}); err != nil {
			continue
		}
		done = append(done, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
	}
	if len(done) > 0 {
		// Entries that fail come back later; the inbox absorbs them.
		_, _ = api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(queueURL), Entries: done})
	}
}
