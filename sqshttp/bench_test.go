package sqshttp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqshttp"
)

// benchRequest replays a JSON request on h without a network.
func benchRequest(b *testing.B, h http.Handler, op, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("X-Amz-Target", "AmazonSQS."+op)
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", op, w.Code, w.Body)
	}
	return w
}

// BenchmarkCycle is the load test's loop without the network: send a
// batch of ten 1 KiB messages, receive ten, delete them in a batch, through
// the handler's JSON protocol. Per op is per loop (ten messages).
func BenchmarkCycle(b *testing.B) {
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"sqsq", sqshttp.NewHandler(sqsq.NewBroker())}, {"yardstick", &yardstick{}}} {
		b.Run(h.name, func(b *testing.B) {
			benchRequest(b, h.h, "CreateQueue", `{"QueueName":"bench"}`)
			url := "http://example.com/000000000000/bench"
			var entries []string
			for i := range 10 {
				entries = append(entries, `{"Id":"`+strconv.Itoa(i)+`","MessageBody":"`+body1K+`"}`)
			}
			send := `{"QueueUrl":"` + url + `","Entries":[` + strings.Join(entries, ",") + `]}`
			recv := `{"QueueUrl":"` + url + `","MaxNumberOfMessages":10}`
			b.ReportAllocs()
			b.SetBytes(10 * 1024)
			for b.Loop() {
				benchRequest(b, h.h, "SendMessageBatch", send)
				w := benchRequest(b, h.h, "ReceiveMessage", recv)
				var out struct {
					Messages []struct{ ReceiptHandle string }
				}
				if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
					b.Fatal(err)
				}
				del := make([]string, len(out.Messages))
				for i, m := range out.Messages {
					del[i] = `{"Id":"` + strconv.Itoa(i) + `","ReceiptHandle":"` + m.ReceiptHandle + `"}`
				}
				benchRequest(b, h.h, "DeleteMessageBatch", `{"QueueUrl":"`+url+`","Entries":[`+strings.Join(del, ",")+`]}`)
			}
		})
	}
}

// BenchmarkDrain receives ten messages and deletes them in a batch, from
// queues of several depths (kept up by a send batch outside the timer).
func BenchmarkDrain(b *testing.B) {
	for _, depth := range []int{1000, 100000} {
		for _, s := range []struct {
			name string
			h    http.Handler
		}{{"sqsq", sqshttp.NewHandler(sqsq.NewBroker())}, {"yardstick", &yardstick{}}} {
			b.Run(s.name+"/depth="+strconv.Itoa(depth), func(b *testing.B) {
				h := s.h
				benchRequest(b, h, "CreateQueue", `{"QueueName":"drain"}`)
				url := "http://example.com/000000000000/drain"
				var entries []string
				for i := range 10 {
					entries = append(entries, `{"Id":"`+strconv.Itoa(i)+`","MessageBody":"`+body1K+`"}`)
				}
				send := `{"QueueUrl":"` + url + `","Entries":[` + strings.Join(entries, ",") + `]}`
				for range depth / 10 {
					benchRequest(b, h, "SendMessageBatch", send)
				}
				recv := `{"QueueUrl":"` + url + `","MaxNumberOfMessages":10}`
				b.ReportAllocs()
				for b.Loop() {
					w := benchRequest(b, h, "ReceiveMessage", recv)
					var out struct {
						Messages []struct{ ReceiptHandle string }
					}
					if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
						b.Fatal(err)
					}
					del := make([]string, len(out.Messages))
					for i, m := range out.Messages {
						del[i] = `{"Id":"` + strconv.Itoa(i) + `","ReceiptHandle":"` + m.ReceiptHandle + `"}`
					}
					benchRequest(b, h, "DeleteMessageBatch", `{"QueueUrl":"`+url+`","Entries":[`+strings.Join(del, ",")+`]}`)
					b.StopTimer()
					benchRequest(b, h, "SendMessageBatch", send)
					b.StartTimer()
				}
			})
		}
	}
}
