// Command goservice is an order service as a Go team would write it: a
// receive loop on an aws-sdk-go-v2 *sqs.Client hands each message to one
// of a few worker goroutines, which charges the order and deletes the
// message. interop/consumers/run.sh runs it against cmd/sqsq with injected
// duplicate deliveries, in both of its variants:
//
//	goservice -endpoint URL -queue-url URL -ledger FILE [-idempotent]
//
// Without -idempotent it charges every delivery (the classic at-least-once
// bug: a duplicate charges twice); with it, it charges an order once
// however often its message comes. Each charge is a line "charge <orderId>
// <messageId>" in the ledger file. It consumes until SIGTERM or SIGINT,
// then finishes the messages it holds and exits 0; 1 on an error.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "goservice:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("goservice", flag.ContinueOnError)
	endpoint := fs.String("endpoint", "", "SQS endpoint `URL` (sqsq's address)")
	queueURL := fs.String("queue-url", "", "`URL` of the orders queue")
	ledger := fs.String("ledger", "", "the ledger `file`: one line per charge")
	idempotent := fs.Bool("idempotent", false, "charge each order once, however often its message is delivered")
	workers := fs.Int("workers", 2, "messages handled at once")
	batch := fs.Int("batch", 1, "MaxNumberOfMessages of each receive")
	work := fs.Duration("work", 25*time.Millisecond, "time a charge takes")
	region := fs.String("region", "us-east-1", "region the requests are signed for")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *endpoint == "" || *queueURL == "" || *ledger == "" {
		return fmt.Errorf("-endpoint, -queue-url and -ledger are required")
	}
	if *batch < 1 || *batch > 10 {
		return fmt.Errorf("-batch %d: want 1 to 10", *batch)
	}
	payments, err := OpenLedger(*ledger)
	if err != nil {
		return err
	}
	defer payments.Close()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	svc := &Service{
		SQS: sqs.New(sqs.Options{
			Region:       *region,
			Credentials:  aws.CredentialsProviderFunc(staticCredentials),
			BaseEndpoint: aws.String(*endpoint),
		}),
		QueueURL:   *queueURL,
		Workers:    *workers,
		Batch:      int32(*batch),
		Work:       *work,
		Payments:   payments,
		Idempotent: *idempotent,
		Log:        slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}
	return svc.Run(ctx)
}

// staticCredentials are dummy keys: sqsq checks no signature, but the SDK
// signs every request, as it would for AWS.
func staticCredentials(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test", Source: "goservice"}, nil
}
