// Command sqsq serves Amazon SQS on loopback: the sqsq emulator behind the
// wire protocols every SQS client speaks (see package sqshttp). Point any
// SDK or tool at it:
//
//	go run github.com/sqsq/sqsq/cmd/sqsq
//	aws --endpoint-url http://127.0.0.1:9324 sqs create-queue --queue-name orders
//
// With -clock=virtual, time stands still until a test moves it through
// the admin endpoint POST /_sqsq/clock/advance, so tests in any language
// get sqsq's deterministic time. README.md beside this file documents the
// flags, the config file and the admin endpoints.
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "sqsq:", err)
		os.Exit(1)
	}
}

// usage is the text of -h.
func usage(fs *flag.FlagSet, w io.Writer) func() {
	return func() {
		fmt.Fprintf(w, "Usage: sqsq [flags]\n\nServes Amazon SQS (AWS JSON 1.0 and Query protocols) over an in-memory sqsq broker.\n\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}
