// Command sqsq serves Amazon SQS on loopback: the sqsq emulator behind the
// wire protocols every SQS client speaks (see package sqshttp). Point any
// SDK or tool at it:
//
//	go run ./cmd/sqsq
//	AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1 \
//		aws --endpoint-url http://127.0.0.1:9324 sqs create-queue --queue-name orders
//
// It holds the terminal until Ctrl-C (SIGINT) or SIGTERM, which shut it
// down gracefully; a second one exits at once. With -clock=virtual, time
// stands still until a test moves it through the admin endpoint POST
// /_sqsq/clock/advance, so tests in any language get sqsq's deterministic
// time. README.md beside this file documents the flags, the config file
// and the admin endpoints.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-signals
		cancel() // shut down gracefully
		<-signals
		fmt.Fprintln(os.Stderr, "sqsq: second signal, exiting at once")
		os.Exit(exitInterrupted)
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	var usage usageError
	switch {
	case errors.As(err, &usage):
		os.Exit(usage.code) // the flag package has printed it
	case err != nil:
		fmt.Fprintln(os.Stderr, "sqsq:", err)
		os.Exit(1)
	}
}

// exitInterrupted is the status of a process ended by SIGINT, as shells
// report it (128+2).
const exitInterrupted = 130

// usageError is a command line that the flag package has already reported
// on stderr, with the usage; main exits with code (0 for -h, 2 otherwise).
type usageError struct {
	err  error
	code int
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usage is the text of -h.
func usage(fs *flag.FlagSet, w io.Writer) func() {
	return func() {
		fmt.Fprintf(w, "Usage: sqsq [flags]\n\nServes Amazon SQS (AWS JSON 1.0 and Query protocols) over an in-memory sqsq broker,\n"+
			"on 127.0.0.1:9324 unless -addr says otherwise, until Ctrl-C or SIGTERM.\n\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}
