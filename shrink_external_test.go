package sqsq_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// TestMemoryReturnsAfterFIFOLoad loads a FIFO queue with n single-message
// groups (each send with its own deduplication id), drains it with
// receives that carry attempt ids, moves the clock past the deduplication
// and attempt windows, and checks that the heap is back within 2× of its
// size before the load; a second run ends the load with PurgeQueue
// instead. n is 20,000; with SQSQ_MEMTEST=1 it is 1,000,000 (a few
// seconds, about 1 GB at the peak), and the numbers are logged:
//
//	SQSQ_MEMTEST=1 go test -run TestMemoryReturnsAfterFIFOLoad -v -timeout 600s .
//
// It does not call t.Parallel: other tests allocating at the same time
// would be counted too. The heap is HeapInuse after a GC: the spans in use,
// so storage a surviving object pins counts as well.
func TestMemoryReturnsAfterFIFOLoad(t *testing.T) {
	n := 20_000
	if os.Getenv("SQSQ_MEMTEST") == "1" {
		n = 1_000_000
	}
	for _, purge := range []bool{false, true} {
		name := "drained"
		if purge {
			name = "purged"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			clk := clock.NewMock()
			b := sqsq.NewBroker(sqsq.WithClock(clk))
			q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{
				QueueName:  "memory.fifo",
				Attributes: sqsq.QueueAttributes{FifoQueue: sqsq.Some(true)},
			})
			if err != nil {
				t.Fatal(err)
			}
			before := heapInuse()

			for i := 0; i < n; i++ {
				s := strconv.Itoa(i)
				if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "m-" + s, MessageGroupId: "g-" + s, MessageDeduplicationId: "d-" + s}); err != nil {
					t.Fatal(err)
				}
			}
			loaded := heapInuse()
			if purge {
				if err := q.Purge(ctx); err != nil {
					t.Fatal(err)
				}
			} else {
				for left, k := n, 0; left > 0; k++ {
					msgs, err := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, ReceiveRequestAttemptId: "a-" + strconv.Itoa(k)})
					if err != nil {
						t.Fatal(err)
					}
					if len(msgs) == 0 {
						t.Fatalf("receive returned nothing with %d messages left", left)
					}
					for _, m := range msgs {
						if err := q.Delete(ctx, m.ReceiptHandle); err != nil {
							t.Fatal(err)
						}
					}
					left -= len(msgs)
				}
			}
			drained := heapInuse()
			clk.Add(5*time.Minute + time.Second) // past the deduplication and attempt windows
			s, err := q.Stats()                  // brings the queue up to the clock
			if err != nil {
				t.Fatal(err)
			}
			after := heapInuse()
			t.Logf("%d groups: heap in use %s before the load, %s loaded, %s %s, %s after the windows",
				n, mb(before), mb(loaded), mb(drained), name, mb(after))
			if s.Visible+s.InFlight+s.Delayed != 0 || s.Groups != 0 {
				t.Fatalf("stats after the load = %+v, want an empty queue", s)
			}
			if after > 2*before {
				t.Errorf("heap in use %s after the load, want at most 2× the %s before it", mb(after), mb(before))
			}
			runtime.KeepAlive(q)
		})
	}
}

// heapInuse returns the heap spans in use after a full collection.
func heapInuse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

func mb(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB" }
