package main

import (
	"context"
	"errors"
	"strconv"

	"github.com/aws/aws-lambda-go/events"
)

// This file is the service code, as it runs in production: an AWS Lambda
// function that charges the orders of an SQS event, built with
// aws-lambda-go's events types. It knows nothing of sqsq or of its test
// kit: it talks to its database and to the card processor through
// interfaces of its own, and main.go hands it ones backed by the kit
// (TestServiceCodeDoesNotImportTheKit keeps it so). In production:
//
//	lambda.Start(PartialBatchWithInbox(sqlPayments{db}, stripeGateway{key}))

// Function is the handler lambda.Start takes for an SQS event source.
type Function func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error)

// Payments is the function's database. In production InTx is a SQL
// transaction; name says what it is for (logs, traces).
type Payments interface {
	InTx(ctx context.Context, name string, fn func(tx PaymentsTx) error) error
}

// PaymentsTx is what a transaction of [Payments] can do: look up and fill
// the inbox table, and charge an order (a row in the payments table).
// Nothing of it is visible to others until the transaction commits, and
// nothing of it is left if it does not.
type PaymentsTx interface {
	Seen(order string) (bool, error)
	MarkSeen(order string) error
	Charge(order string) error
}

// Gateway is the card processor: Authorize reserves an order's amount, or
// fails with [ErrDeclined] for now (the bank says try again later).
type Gateway interface {
	Authorize(ctx context.Context, order string) error
}

// ErrDeclined is a transient decline: a later try may pass.
var ErrDeclined = errors.New("payment declined")

// charge authorizes the order and records the charge, skipping the orders
// the inbox has when inbox is set.
func charge(ctx context.Context, db Payments, gw Gateway, order string, inbox bool) error {
	if err := gw.Authorize(ctx, order); err != nil {
		return err
	}
	return db.InTx(ctx, "charge "+order, func(tx PaymentsTx) error {
		if inbox {
			if seen, err := tx.Seen(order); err != nil || seen {
				return err
			}
			if err := tx.MarkSeen(order); err != nil {
				return err
			}
		}
		return tx.Charge(order)
	})
}

// WholeBatchError charges the orders one by one and fails the invocation
// at the first that is declined. Lambda then makes the whole batch visible
// again, so the orders charged before the decline are charged again on
// redelivery.
func WholeBatchError(db Payments, gw Gateway) Function {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		for _, rec := range ev.Records {
			if err := charge(ctx, db, gw, rec.Body, false); err != nil {
				return events.SQSEventResponse{}, err
			}
		}
		return events.SQSEventResponse{}, nil
	}
}

// FailuresByIndex reports the declined records in a partial batch
// response, but names them by their index in the batch instead of their
// MessageId. Lambda treats a response naming an unknown item as a failure
// of the whole batch, so it is WholeBatchError again.
func FailuresByIndex(db Payments, gw Gateway) Function {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		for i, rec := range ev.Records {
			if err := charge(ctx, db, gw, rec.Body, false); err != nil {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: strconv.Itoa(i)})
			}
		}
		return resp, nil
	}
}

// PartialBatch reports the records it could not charge by MessageId, so
// Lambda deletes the others. It still charges every delivery: a duplicate
// delivery, a crash or a timeout after a charge, or a delete that fails
// brings a charged order back.
func PartialBatch(db Payments, gw Gateway) Function {
	return partialBatch(db, gw, false)
}

// PartialBatchWithInbox reports failures by MessageId and charges through
// an inbox keyed by the order, in the same transaction as the charge: an
// order that comes back for any reason is seen and skipped.
func PartialBatchWithInbox(db Payments, gw Gateway) Function {
	return partialBatch(db, gw, true)
}

func partialBatch(db Payments, gw Gateway, inbox bool) Function {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		for _, rec := range ev.Records {
			if err := charge(ctx, db, gw, rec.Body, inbox); err != nil {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
			}
		}
		return resp, nil
	}
}
