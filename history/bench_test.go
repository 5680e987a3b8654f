package history_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/history"
)

// story runs n messages through q: each sent, received receives times
// (with visibility 0, so each receive finds it again) and deleted.
func story(tb testing.TB, q *sqsq.Queue, n, receives int) {
	ctx := context.Background()
	for i := range n {
		if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: fmt.Sprintf(`{"order":%d}`, i)}); err != nil {
			tb.Fatal(err)
		}
		var msgs []sqsq.Message
		for range receives {
			var err error
			if msgs, err = q.Receive(ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Duration(0))}); err != nil || len(msgs) != 1 {
				tb.Fatalf("receive: %v, %v", msgs, err)
			}
		}
		if err := q.Delete(ctx, msgs[0].ReceiptHandle); err != nil {
			tb.Fatal(err)
		}
	}
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkMemoryPerMessage measures what the recorder keeps per message
// of history. 10,000 messages go through a real broker, each sent,
// received 3 times and deleted ("5 entries"), or received 63 times ("64
// entries": a history at the default bound, one entry dropped); the heap is
// measured with the histories and again after Reset. The difference is
// everything the histories hold alive: their own structures, the maps and
// the queue index, and the strings they share with the broker (ids,
// receipt handles, bodies of about 14 bytes), which the broker let go of
// with the deleted messages. Report it with
//
//	go test -run '^$' -bench MemoryPerMessage -benchtime 3x ./history
func BenchmarkMemoryPerMessage(b *testing.B) {
	for _, bc := range []struct {
		name     string
		receives int
	}{
		{"5 entries", 3},
		{"64 entries", 63},
	} {
		b.Run(bc.name, func(b *testing.B) {
			const n = 10_000
			var perMessage float64
			for b.Loop() {
				rec := history.New()
				br := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()), sqsq.WithObserver(rec))
				q, err := br.CreateQueue(context.Background(), sqsq.CreateQueueInput{QueueName: "orders"})
				if err != nil {
					b.Fatal(err)
				}
				story(b, q, n, bc.receives)
				with := heap()
				rec.Reset()
				without := heap()
				perMessage = float64(int64(with)-int64(without)) / n
				runtime.KeepAlive(br)
				_ = br.Close()
			}
			b.ReportMetric(perMessage, "B/message")
		})
	}
}

// BenchmarkObserve is the cost of one event, an average over a message's
// send, 3 receives and delete by a handle (the broker naming no message),
// with the recorder full: each new message drops the least recent history.
func BenchmarkObserve(b *testing.B) {
	const keep, distinct = 10_000, 1 << 15
	rec := history.New(history.WithMaxMessages(keep))
	ids, handles := make([]string, distinct), make([]string, 3*distinct)
	for i := range ids {
		ids[i] = fmt.Sprintf("%036d", i)
		for k := range 3 {
			handles[3*i+k] = fmt.Sprintf("AQEB%044d", 3*i+k)
		}
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		m := i / 5 % distinct
		switch k := i % 5; k {
		case 0:
			rec.Observe(sqsq.Event{Kind: sqsq.EventSent, Queue: "orders", MessageID: ids[m], Body: "body"})
		case 1, 2, 3:
			rec.Observe(sqsq.Event{Kind: sqsq.EventReceived, Queue: "orders", MessageID: ids[m], ReceiptHandle: handles[3*m+k-1], ReceiveCount: k})
		case 4:
			rec.Observe(sqsq.Event{Kind: sqsq.EventDeleted, Queue: "orders", ReceiptHandle: handles[3*m], Applied: true})
		}
		i++
	}
}

// Off, Observe costs an atomic load: it allocates nothing.
func TestDisabledAllocatesNothing(t *testing.T) {
	rec := history.New()
	rec.SetEnabled(false)
	e := sqsq.Event{Kind: sqsq.EventSent, Queue: "orders", MessageID: "m1", Body: "body"}
	if n := testing.AllocsPerRun(100, func() { rec.Observe(e) }); n != 0 {
		t.Errorf("a disabled Observe allocates %v times", n)
	}
}
