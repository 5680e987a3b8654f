package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// This file is the service code, as it runs in production: it knows
// nothing of sqsq or of its test kit. It talks to SQS through the part of
// *sqs.Client it uses; main.go hands it the kit's SDK-shaped client
// (TestServiceCodeDoesNotImportTheKit keeps it so).

// API is the part of *sqs.Client a worker uses.
type API interface {
	DeleteMessage(context.Context, *sqs.DeleteMessageInput, ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
	ChangeMessageVisibility(context.Context, *sqs.ChangeMessageVisibilityInput, ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
}

// In production the API is the SDK's client.
var _ API = (*sqs.Client)(nil)

// Lease is a received message as a worker holds it.
type Lease struct {
	API           API
	QueueURL      string
	ReceiptHandle string
}

// Extend hides the message for d from now.
func (l Lease) Extend(ctx context.Context, d time.Duration) error {
	_, err := l.API.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: aws.String(l.QueueURL), ReceiptHandle: aws.String(l.ReceiptHandle), VisibilityTimeout: int32(d / time.Second)})
	return err
}

// Release deletes the message: the job is done.
func (l Lease) Release(ctx context.Context) error {
	_, err := l.API.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(l.QueueURL), ReceiptHandle: aws.String(l.ReceiptHandle)})
	return err
}

// Job is the work a message asks for; it stops early, with ctx's error,
// when ctx ends.
type Job func(ctx context.Context) error

// Two ways to keep a message hidden while its job runs. The first, a
// heartbeat goroutine on a ticker, is how services are usually written.
// The second works the job in slices and extends the lease in between,
// on a Worker's clock; the kit runs it without a testing/synctest bubble,
// so the example's program, which has no *testing.T, uses it.

// NoHeartbeat runs the job, then deletes the message.
func NoHeartbeat(ctx context.Context, l Lease, job Job) error {
	if err := job(ctx); err != nil {
		return err
	}
	return l.Release(ctx)
}

// Ticker runs the job while a goroutine extends the lease to extend every
// period. If an extension fails the lease is in doubt — the message may
// already be another worker's — so the job is cancelled and the message
// left to come back.
func Ticker(period, extend time.Duration) func(ctx context.Context, l Lease, job Job) error {
	return ticker(period, extend, true)
}

// TickerGoingOn is Ticker, but a failed extension is only retried at the
// next tick — "it was a blip" — while the job goes on: the bug, since the
// message may come back meanwhile.
func TickerGoingOn(period, extend time.Duration) func(ctx context.Context, l Lease, job Job) error {
	return ticker(period, extend, false)
}

func ticker(period, extend time.Duration, giveUp bool) func(ctx context.Context, l Lease, job Job) error {
	return func(ctx context.Context, l Lease, job Job) error {
		jobCtx, cancelJob := context.WithCancel(ctx)
		defer cancelJob()
		stop := make(chan struct{})
		var lost error
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(period)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if err := l.Extend(ctx, extend); err != nil && giveUp {
						lost = err
						cancelJob()
						return
					}
				}
			}
		}()
		err := job(jobCtx)
		close(stop)
		wg.Wait()
		if lost != nil {
			return fmt.Errorf("lease lost, giving up: %w", lost)
		}
		if err != nil {
			return err
		}
		return l.Release(ctx)
	}
}

// Worker models a job's time for the sliced heartbeat: Work(d) returns
// after d of processing.
type Worker interface {
	Work(d time.Duration)
}

// NoHeartbeatWork works the whole job, then deletes the message.
func NoHeartbeatWork(ctx context.Context, w Worker, l Lease, job time.Duration) error {
	w.Work(job)
	return l.Release(ctx)
}

// Sliced works in slices of slice and extends the lease to extend after
// each. If an extension fails it stops: the message may already be
// visible to others.
func Sliced(slice, extend time.Duration) func(ctx context.Context, w Worker, l Lease, job time.Duration) error {
	return func(ctx context.Context, w Worker, l Lease, job time.Duration) error {
		for done := time.Duration(0); done < job; done += slice {
			w.Work(min(slice, job-done))
			if done+slice >= job {
				break
			}
			if err := l.Extend(ctx, extend); err != nil {
				return fmt.Errorf("lease lost, giving up: %w", err)
			}
		}
		return l.Release(ctx)
	}
}
