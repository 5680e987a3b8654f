package sqshttp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsq/sqsq"
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
	reportLatencies(b, lat)
}

// reportLatencies reports the p50, p99 and max of ds (sorted in place) in
// microseconds.
func reportLatencies(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(micros(quantile(ds, 0.50)), "p50-µs")
	b.ReportMetric(micros(quantile(ds, 0.99)), "p99-µs")
	b.ReportMetric(micros(ds[len(ds)-1]), "max-µs")
}

// quantile returns the q-quantile of sorted ds (nearest rank).
func quantile(ds []time.Duration, q float64) time.Duration {
	i := int(float64(len(ds))*q+0.999999) - 1
	return ds[max(0, min(i, len(ds)-1))]
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// TestLongPollIdleCPU measures what parked long polls cost a server with no
// traffic: 1,000 consumers each park a ReceiveMessage (WaitTimeSeconds 20)
// on a server in a child process (see load_test.go), and the child's CPU
// time is read over the window in which all of them are parked and none
// has yet come back empty. A second window covers 40 s of steady state, in
// which every poll ends empty after 20 s and its consumer polls again (50
// empty responses a second). The yardstick is measured alike.
//
//	SQSQ_IDLE=1 go test -run TestLongPollIdleCPU -v -timeout 300s ./sqshttp/
//
// It is skipped otherwise: it takes about two minutes of real time.
func TestLongPollIdleCPU(t *testing.T) {
	if os.Getenv("SQSQ_IDLE") == "" {
		t.Skip("set SQSQ_IDLE=1 to measure the idle cost of parked long polls")
	}
	const consumers = 1000
	var report []string
	for _, role := range []string{"sqsq", "yardstick"} {
		c := startChild(t, role)
		tr := &http.Transport{MaxIdleConnsPerHost: consumers}
		client := sqs.New(sqs.Options{
			Region:       "us-east-1",
			BaseEndpoint: aws.String(c.url),
			Credentials:  aws.AnonymousCredentials{},
			HTTPClient:   &http.Client{Transport: tr},
		})
		ctx, cancel := context.WithCancel(context.Background())
		out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("load")})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var polls, failures atomic.Int64
		first := time.Now()
		for range consumers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: out.QueueUrl, WaitTimeSeconds: 20})
					if err != nil {
						if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
							failures.Add(1)
							t.Error(err)
						}
						return
					}
					polls.Add(1)
					if len(out.Messages) > 0 {
						t.Error("a message on a queue nobody sends to")
					}
				}
			}()
		}
		c.waitParked(t, consumers)
		parkedAfter := time.Since(first)
		// Pure parking: from all parked to shortly before the first poll
		// can end.
		cpu0, t0 := c.cpu(t), time.Now()
		time.Sleep(time.Until(first.Add(20*time.Second - 200*time.Millisecond)))
		parkedCPU, parkedWall := c.cpu(t)-cpu0, time.Since(t0)
		if n := polls.Load(); n != 0 {
			t.Errorf("%d polls ended inside the parked window", n)
		}
		// Steady state: polls end empty every 20 s and are made again.
		cpu1, t1 := c.cpu(t), time.Now()
		time.Sleep(40 * time.Second)
		steadyCPU, steadyWall := c.cpu(t)-cpu1, time.Since(t1)
		steadyPolls := polls.Load()
		cancel()
		wg.Wait()
		tr.CloseIdleConnections()
		report = append(report, fmt.Sprintf("%-10s all %d parked after %v; parked %5.1f s: %v CPU = %.4f%% of a core; steady %4.1f s, %d empty polls: %v CPU = %.3f%% of a core (%v per empty poll)",
			role, consumers, parkedAfter.Round(time.Millisecond), parkedWall.Seconds(), parkedCPU.Round(time.Microsecond), 100*parkedCPU.Seconds()/parkedWall.Seconds(),
			steadyWall.Seconds(), steadyPolls, steadyCPU.Round(time.Microsecond), 100*steadyCPU.Seconds()/steadyWall.Seconds(),
			(steadyCPU/time.Duration(max(steadyPolls, 1))).Round(time.Microsecond)))
	}
	t.Log("\nidle cost of 1,000 parked long polls (WaitTimeSeconds 20), server CPU:\n" + fmt.Sprintln(report[0]) + report[1])
}
