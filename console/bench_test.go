package console_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/console"
)

// listingBroker has n queues, one in ten with a dead-letter queue.
func listingBroker(b *testing.B, n int) *sqsq.Broker {
	br := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
	b.Cleanup(func() { br.Close() })
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
	return br
}

// BenchmarkListQueues is the queue listing at three queue counts, with
// every queue's attributes (the API's default) and without (what the page
// asks for every second). Each summary lists its dead-letter sources from
// an index, so the cost grows with the queues, not with their square
// (2.85 s at 10,000 queues before).
//
//	go test -run '^$' -bench ListQueues -benchtime 10x ./console
func BenchmarkListQueues(b *testing.B) {
	for _, n := range []int{100, 1_000, 10_000} {
		for _, path := range []string{"/_sqsq/api/queues", "/_sqsq/api/queues?attributes=false"} {
			name := "queues=" + strconv.Itoa(n) + "/attributes=" + strconv.FormatBool(path == "/_sqsq/api/queues")
			b.Run(name, func(b *testing.B) {
				h := console.Handler(listingBroker(b, n))
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					w := &countingWriter{h: http.Header{}} // the server's cost, not a recorder's copy
					h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
					if w.code != http.StatusOK {
						b.Fatal(w.code, string(w.head))
					}
					b.SetBytes(int64(w.n))
				}
			})
		}
	}
}

// BenchmarkListQueuesHTTP is the page's listing of 10,000 queues as its
// browser sees it: over loopback HTTP, read to the end.
//
//	go test -run '^$' -bench ListQueuesHTTP -benchtime 20x ./console
func BenchmarkListQueuesHTTP(b *testing.B) {
	srv := httptest.NewServer(console.Handler(listingBroker(b, 10_000)))
	defer srv.Close()
	for _, query := range []string{"", "?attributes=false"} {
		b.Run("queues=10000/attributes="+strconv.FormatBool(query == ""), func(b *testing.B) {
			for range b.N {
				resp, err := srv.Client().Get(srv.URL + "/_sqsq/api/queues" + query)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatal(resp.StatusCode, err)
				}
				b.SetBytes(n)
			}
		})
	}
}
