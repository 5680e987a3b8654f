package sqshttp_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqshttp"
)

// An access log around the handler: WithRequestInfo gives middleware the
// operation, queue and error code that the handler decoded, in either
// protocol, without parsing the body twice.
func ExampleWithRequestInfo() {
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
	defer b.Close()
	sqs := sqshttp.NewHandler(b)
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // for a stable output
			}
			return a
		}}))
	logged := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, info := sqshttp.WithRequestInfo(r)
		sqs.ServeHTTP(w, r)
		log.Info("request", "protocol", info.Protocol, "op", info.Operation, "queue", info.Queue, "error", info.ErrorCode)
	})

	for _, body := range []string{"Action=CreateQueue&QueueName=orders", "Action=GetQueueUrl&QueueName=invoices"} {
		r := httptest.NewRequest("POST", "http://localhost/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		logged.ServeHTTP(httptest.NewRecorder(), r)
	}
	fmt.Println("done")
	// Output:
	// level=INFO msg=request protocol=query op=CreateQueue queue=orders error=""
	// level=INFO msg=request protocol=query op=GetQueueUrl queue=invoices error=AWS.SimpleQueueService.NonExistentQueue
	// done
}
