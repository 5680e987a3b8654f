package sqsq_test

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/latency"
)

// BenchmarkLongPollWake measures, on the real clock as users run sqsq, how
// long a parked long poll takes to have a message in hand once a Send
// begins. R receivers loop on Receive (WaitTimeSeconds 20) and Delete; each
// operation waits until all R are parked, stamps the time, sends one
// message, and waits for the receiver that got it to report. Every sample is
// thus a wake from parked, never a receive that found the message waiting.
//
//	go test -run '^$' -bench LongPollWake -benchtime=10000x -timeout 300s .
//
// p50-µs, p99-µs and max-µs are the send-start → message-in-hand
// latencies; send-p99-µs is how long the Send call itself took. ns/op is a
// whole round (wait for R parked, send, delivery, the receiver's Delete)
// and allocs/op counts the receiver's allocations too. These are real-time
// measurements: other work on the machine shows up in the tail.
func BenchmarkLongPollWake(b *testing.B) {
	for _, r := range []int{1, 100, 1000} {
		b.Run("receivers="+strconv.Itoa(r), func(b *testing.B) {
			benchLongPollWake(b, r)
		})
	}
}

func benchLongPollWake(b *testing.B, receivers int) {
	broker := sqsq.NewBroker()
	ctx, cancel := context.WithCancel(context.Background())
	q, err := broker.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "wake"})
	if err != nil {
		b.Fatal(err)
	}

	// stamp is the send start, in nanoseconds since base on the monotonic
	// clock; each receiver reports its message's latency on got.
	base := time.Now()
	var stamp atomic.Int64
	got := make(chan time.Duration, 1)
	failed := make(chan error, receivers)
	var wg sync.WaitGroup
	in := sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)}
	for range receivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				msgs, err := q.Receive(ctx, in)
				if err != nil {
					if ctx.Err() == nil {
						failed <- err
					}
					return
				}
				for _, m := range msgs {
					d := time.Since(base) - time.Duration(stamp.Load())
					if err := q.Delete(ctx, m.ReceiptHandle); err != nil {
						failed <- err
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
	defer func() {
		cancel()
		_ = broker.Close()
		wg.Wait()
	}()

	lat := make([]time.Duration, 0, b.N)
	sends := make([]time.Duration, 0, b.N)
	body := sqsq.SendInput{MessageBody: "wake"}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := q.WaitForReceivers(ctx, receivers); err != nil {
			b.Fatal(err)
		}
		start := time.Since(base)
		stamp.Store(int64(start))
		if _, err := q.Send(ctx, body); err != nil {
			b.Fatal(err)
		}
		sends = append(sends, time.Since(base)-start)
		select {
		case d := <-got:
			lat = append(lat, d)
		case err := <-failed:
			b.Fatal(err)
		}
	}
	b.StopTimer()
	latency.Report(b, "", lat)
	slices.Sort(sends)
	b.ReportMetric(latency.Micros(latency.Quantile(sends, 0.99)), "send-p99-µs")
}

// BenchmarkLongPollWakeBatch is BenchmarkLongPollWake for batch consumers:
// R receivers each ask for up to 10 messages, and each operation sends a
// batch of ten. p50/p99/max run from just before SendBatch until all ten
// messages are in hand; wakeups/op counts the parked receives woken per
// batch (LongPollWakeups): one receive takes the whole batch, so a send
// should wake one receiver, not ten.
//
//	go test -run '^$' -bench LongPollWakeBatch -benchtime=10000x -timeout 300s .
func BenchmarkLongPollWakeBatch(b *testing.B) {
	for _, r := range []int{1, 16, 100} {
		b.Run("receivers="+strconv.Itoa(r), func(b *testing.B) {
			benchLongPollWakeBatch(b, r)
		})
	}
}

func benchLongPollWakeBatch(b *testing.B, receivers int) {
	broker := sqsq.NewBroker()
	ctx, cancel := context.WithCancel(context.Background())
	q, err := broker.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "wake-batch"})
	if err != nil {
		b.Fatal(err)
	}
	got := make(chan int, receivers) // messages received, per receive
	failed := make(chan error, receivers)
	var wg sync.WaitGroup
	in := sqsq.ReceiveInput{MaxNumberOfMessages: 10, WaitTimeSeconds: sqsq.Some(20 * time.Second)}
	for range receivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var del []sqsq.DeleteBatchEntry
			for {
				msgs, err := q.Receive(ctx, in)
				if err != nil {
					if ctx.Err() == nil {
						failed <- err
					}
					return
				}
				if len(msgs) == 0 {
					continue
				}
				del = del[:0]
				for i, m := range msgs {
					del = append(del, sqsq.DeleteBatchEntry{Id: strconv.Itoa(i), ReceiptHandle: m.ReceiptHandle})
				}
				select {
				case got <- len(msgs):
				case <-ctx.Done():
					return
				}
				if _, err := q.DeleteBatch(ctx, del); err != nil {
					failed <- err
					return
				}
			}
		}()
	}
	defer func() {
		cancel()
		_ = broker.Close()
		wg.Wait()
	}()

	batch := make([]sqsq.SendBatchEntry, 10)
	for i := range batch {
		batch[i] = sqsq.SendBatchEntry{Id: strconv.Itoa(i), SendInput: sqsq.SendInput{MessageBody: "wake"}}
	}
	lat := make([]time.Duration, 0, b.N)
	before, err := q.Stats()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := q.WaitForReceivers(ctx, receivers); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := q.SendBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
		for n := 0; n < len(batch); {
			select {
			case k := <-got:
				n += k
			case err := <-failed:
				b.Fatal(err)
			}
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	after, err := q.Stats()
	if err != nil {
		b.Fatal(err)
	}
	latency.Report(b, "", lat)
	b.ReportMetric(float64(after.LongPollWakeups-before.LongPollWakeups)/float64(b.N), "wakeups/op")
}
