package sqshttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/latency"
	"github.com/sqsq/sqsq/sqshttp"
)

// BenchmarkLongPollWakeHTTP measures what a long-polling consumer sees over
// a real loopback socket, on the real clock: consumers, each on its own
// connection with the real Go SDK, loop on ReceiveMessage (WaitTimeSeconds
// 20) and DeleteMessage; each operation waits until every consumer is
// parked on the server, stamps the time, and SendMessage's one message. The
// latency runs from just before SendMessage to the moment a consumer's SDK
// call has returned the message (response read, MD5 checked).
//
//	go test -run '^$' -bench LongPollWakeHTTP -benchtime=2000x -timeout 300s ./sqshttp/
//
// ns/op is a whole round — send, delivery, the consumer's delete and its
// next receive parking — and allocs/op counts client and server together.
func BenchmarkLongPollWakeHTTP(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run("consumers="+strconv.Itoa(n), func(b *testing.B) {
			benchLongPollWakeHTTP(b, n)
		})
	}
}

func benchLongPollWakeHTTP(b *testing.B, consumers int) {
	broker := sqsq.NewBroker()
	srv := httptest.NewServer(sqshttp.NewHandler(broker))
	// A connection per consumer and one for the producer, kept between calls.
	tr := &http.Transport{MaxIdleConnsPerHost: consumers + 1}
	client := sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  aws.AnonymousCredentials{},
		HTTPClient:   &http.Client{Transport: tr},
	})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() {
		cancel() // the consumers' requests end, and with them the parked handlers
		wg.Wait()
		srv.Close()
		tr.CloseIdleConnections()
		_ = broker.Close()
	}()
	out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("wake")})
	if err != nil {
		b.Fatal(err)
	}
	url := out.QueueUrl
	q, err := broker.GetQueue(ctx, "wake")
	if err != nil {
		b.Fatal(err)
	}

	base := time.Now()
	var stamp atomic.Int64 // the send start, since base
	got := make(chan time.Duration, 1)
	failed := make(chan error, consumers)
	for range consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, WaitTimeSeconds: 20})
				if err != nil {
					if ctx.Err() == nil {
						failed <- err
					}
					return
				}
				for _, m := range out.Messages {
					d := time.Since(base) - time.Duration(stamp.Load())
					if _, err := client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: m.ReceiptHandle}); err != nil {
						if ctx.Err() == nil {
							failed <- err
						}
						return
					}
					select {
					case got <- d:
					case <-ctx.Done():
						return
					}
				}
			}
		}()
	}

	lat := make([]time.Duration, 0, b.N)
	body := aws.String("wake")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := q.WaitForReceivers(ctx, consumers); err != nil {
			b.Fatal(err)
		}
		stamp.Store(int64(time.Since(base)))
		if _, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: body}); err != nil {
			b.Fatal(err)
		}
		select {
		case d := <-got:
			lat = append(lat, d)
		case err := <-failed:
			b.Fatal(err)
		}
	}
	b.StopTimer()
	latency.Report(b, "", lat)
}
