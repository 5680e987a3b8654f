package awssqs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
)

// The benchmarks compare each call through the adapter with the same call
// on the core Queue, so the difference is the adapter's cost:
//
//	go test -run '^$' -bench . -benchmem ./awssqs/
//
// "core+md5" adds the body digest the SQS response must carry
// (MD5OfMessageBody, MD5OfBody) and the core computes only on request; the
// adapter's overhead is its time over "core+md5". The queue stays shallow
// (at most benchChunk messages), the clock is a mock that never moves, and
// refills and purges happen with the timer stopped, every benchChunk
// iterations.

const benchChunk = 1000

var benchBody = strings.Repeat("x", 64)

type benchFixture struct {
	b      *sqsq.Broker
	q      *sqsq.Queue
	client *awssqs.Client
	url    *string
}

func newBenchFixture(b *testing.B) *benchFixture {
	b.Helper()
	broker := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()), sqsq.WithPurgeInterval(0))
	b.Cleanup(func() { _ = broker.Close() })
	q, err := broker.CreateQueue(context.Background(), sqsq.CreateQueueInput{QueueName: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	url := q.URL()
	return &benchFixture{b: broker, q: q, client: awssqs.New(broker), url: &url}
}

// every runs fn with the timer stopped once every benchChunk iterations.
func every(b *testing.B, i int, fn func()) {
	if i%benchChunk == 0 {
		b.StopTimer()
		fn()
		b.StartTimer()
	}
}

func BenchmarkSendMessage(b *testing.B) {
	ctx := context.Background()
	run := func(b *testing.B, send func(f *benchFixture)) {
		f := newBenchFixture(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			every(b, i, func() { _ = f.q.Purge(ctx) })
			send(f)
		}
	}
	b.Run("core", func(b *testing.B) {
		run(b, func(f *benchFixture) {
			if _, err := f.q.Send(ctx, sqsq.SendInput{MessageBody: benchBody}); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("core+md5", func(b *testing.B) {
		run(b, func(f *benchFixture) {
			res, err := f.q.Send(ctx, sqsq.SendInput{MessageBody: benchBody})
			if err != nil {
				b.Fatal(err)
			}
			_ = res.MD5OfMessageBody()
		})
	})
	b.Run("awssqs", func(b *testing.B) {
		// The input is the caller's, reused as a producer loop would.
		in := &sqs.SendMessageInput{MessageBody: aws.String(benchBody)}
		run(b, func(f *benchFixture) {
			in.QueueUrl = f.url
			if _, err := f.client.SendMessage(ctx, in); err != nil {
				b.Fatal(err)
			}
		})
	})
}

func BenchmarkReceiveDeleteMessage(b *testing.B) {
	ctx := context.Background()
	run := func(b *testing.B, receiveDelete func(f *benchFixture)) {
		f := newBenchFixture(b)
		refill := func() {
			for j := 0; j < benchChunk; j++ {
				if _, err := f.q.Send(ctx, sqsq.SendInput{MessageBody: benchBody}); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			every(b, i, refill)
			receiveDelete(f)
		}
	}
	b.Run("core", func(b *testing.B) {
		run(b, func(f *benchFixture) {
			msgs, err := f.q.Receive(ctx, sqsq.ReceiveInput{})
			if err != nil || len(msgs) != 1 {
				b.Fatal(len(msgs), err)
			}
			if err := f.q.Delete(ctx, msgs[0].ReceiptHandle); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("core+md5", func(b *testing.B) {
		run(b, func(f *benchFixture) {
			msgs, err := f.q.Receive(ctx, sqsq.ReceiveInput{})
			if err != nil || len(msgs) != 1 {
				b.Fatal(len(msgs), err)
			}
			_ = msgs[0].MD5OfBody()
			if err := f.q.Delete(ctx, msgs[0].ReceiptHandle); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("awssqs", func(b *testing.B) {
		// The inputs are the caller's, reused as a client loop would.
		receive, del := &sqs.ReceiveMessageInput{}, &sqs.DeleteMessageInput{}
		run(b, func(f *benchFixture) {
			receive.QueueUrl = f.url
			out, err := f.client.ReceiveMessage(ctx, receive)
			if err != nil || len(out.Messages) != 1 {
				b.Fatal(err)
			}
			del.QueueUrl, del.ReceiptHandle = f.url, out.Messages[0].ReceiptHandle
			if _, err := f.client.DeleteMessage(ctx, del); err != nil {
				b.Fatal(err)
			}
		})
	})
}
