package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// API is the part of *sqs.Client the service uses.
type API interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessage(ctx context.Context, in *sqs.DeleteMessageInput, opts ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
}

// Service consumes orders from one queue: a receive loop hands each message
// to one of Workers goroutines, which charges the order and deletes the
// message. Run may be called once.
type Service struct {
	SQS      API
	QueueURL string
	// Workers is how many messages are handled at once (default 2); Batch
	// is MaxNumberOfMessages (default 1); Work is the time a charge takes.
	Workers int
	Batch   int32
	Work    time.Duration
	// Payments charges orders. With Idempotent it charges an order once
	// however often its message is delivered; without, once a delivery.
	Payments   *Ledger
	Idempotent bool
	Log        *slog.Logger
}

// order is a message body.
type order struct {
	OrderID string `json:"orderId"`
}

// Run consumes until ctx ends, then lets the workers finish the messages
// they hold (charge and delete) and returns nil. It returns early with
// the error of a failed receive, delete or ledger write.
func (s *Service) Run(ctx context.Context) error {
	workers := s.Workers
	if workers <= 0 {
		workers = 2
	}
	batch := s.Batch
	if batch <= 0 {
		batch = 1
	}
	// A failure stops the service; graceful work after ctx ends uses a
	// context of its own, so the last deletes are not cancelled.
	failed := make(chan error, 1)
	fail := func(err error) {
		select {
		case failed <- err:
		default:
		}
	}
	work, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	recv, stopRecv := context.WithCancel(ctx)
	defer stopRecv()

	jobs := make(chan types.Message) // unbuffered: a worker takes each message as it is received
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range jobs {
				if err := s.handle(work, m); err != nil {
					fail(err)
					stopRecv()
				}
			}
		}()
	}

	var err error
	for recv.Err() == nil {
		var out *sqs.ReceiveMessageOutput
		out, err = s.SQS.ReceiveMessage(recv, &sqs.ReceiveMessageInput{
			QueueUrl:            aws.String(s.QueueURL),
			MaxNumberOfMessages: batch,
			WaitTimeSeconds:     1,
			VisibilityTimeout:   30,
		})
		if err != nil {
			if recv.Err() != nil {
				err = nil // stopping
			} else {
				err = fmt.Errorf("receive: %w", err)
			}
			break
		}
		for _, m := range out.Messages {
			jobs <- m
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case werr := <-failed:
		return errors.Join(err, werr)
	default:
		return err
	}
}

// handle charges the order of m, then deletes m.
func (s *Service) handle(ctx context.Context, m types.Message) error {
	var o order
	if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &o); err != nil || o.OrderID == "" {
		return fmt.Errorf("message %s: body %q is not an order", aws.ToString(m.MessageId), aws.ToString(m.Body))
	}
	time.Sleep(s.Work) // the payment provider's round trip
	charged, err := s.Payments.Charge(o.OrderID, aws.ToString(m.MessageId), s.Idempotent)
	if err != nil {
		return err
	}
	if s.Log != nil {
		s.Log.Debug("order", "order", o.OrderID, "message", aws.ToString(m.MessageId), "charged", charged)
	}
	if _, err := s.SQS.DeleteMessage(ctx, &sqs.DeleteMessageInput{
		QueueUrl:      aws.String(s.QueueURL),
		ReceiptHandle: m.ReceiptHandle,
	}); err != nil {
		return fmt.Errorf("delete %s: %w", aws.ToString(m.MessageId), err)
	}
	return nil
}
