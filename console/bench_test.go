package console_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/console"
)

// BenchmarkListQueues is the page's queue listing, which it asks for every
// second, at three queue counts: each summary lists its dead-letter
// sources from an index, so the cost grows with the queues, not with their
// square (2.85 s at 10,000 queues before).
//
//	go test -run '^$' -bench ListQueues -benchtime 10x ./console
func BenchmarkListQueues(b *testing.B) {
	for _, n := range []int{100, 1_000, 10_000} {
		b.Run("queues="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			br := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
			defer br.Close()
			dlq, _ := br.CreateQueue(b.Context(), sqsq.CreateQueueInput{QueueName: "dlq"})
			policy := sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 3})
			for i := range n {
				in := sqsq.CreateQueueInput{QueueName: "q" + strconv.Itoa(i)}
				if i%10 == 0 {
					in.Attributes.RedrivePolicy = policy
				}
				if _, err := br.CreateQueue(b.Context(), in); err != nil {
					b.Fatal(err)
				}
			}
			h := console.Handler(br)
			b.ResetTimer()
			for range b.N {
				w := &countingWriter{h: http.Header{}} // the server's cost, not a recorder's copy
				h.ServeHTTP(w, httptest.NewRequest("GET", "/_sqsq/api/queues", nil))
				if w.code != http.StatusOK {
					b.Fatal(w.code, string(w.head))
				}
			}
		})
	}
}
