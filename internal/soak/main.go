// Command soak drives cmd/sqsq, in a child process on loopback, with the
// real AWS SDK for Go for a bounded number of messages, then checks a
// ledger of everything sent and received: that nothing was lost or
// duplicated, that FIFO order held per group, that the server answered no
// 5xx, and that its memory (beyond the FIFO deduplication ids SQS keeps
// for five minutes) and its CPU per message did not grow over the run.
//
//	go run ./internal/soak -messages 100000
//
// The mix: a standard queue and a FIFO queue (explicit deduplication ids,
// many groups), each with a dead-letter queue at maxReceiveCount 3 and a
// visibility timeout of 2 s; producers sending with SendMessageBatch;
// consumers long-polling with waits of 1 to 20 s and deleting with
// DeleteMessageBatch; handlers that fail on purpose (once, or always, so
// their messages must end in the dead-letter queue), giving the message
// back with ChangeMessageVisibilityBatch or letting its timeout run out;
// and slow handlers that extend the visibility with ChangeMessageVisibility
// and work past the queue's timeout before deleting.
//
// It prints one summary line and exits 1 if a check failed (2 if it could
// not run). Run it with -h for the flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	case !res.pass():
		os.Exit(1)
	}
}
