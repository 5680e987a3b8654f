package chaos_test

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/chaos"
	"github.com/sqsq/sqsq/sqshttp"
)

// Rules from a file or a string, an Engine wired into a broker (for the
// SQS-semantic faults) and into its handler (for errors and latency on the
// wire), and what a client then sees.
func Example() {
	cfg, err := chaos.ParseConfig([]byte(`{"seed": 42, "rules": [
		{"operation": "ReceiveMessage", "queue": "orders*", "fault": "duplicate"},
		{"operation": "SendMessage", "queue": "payments", "error": {"code": "ServiceUnavailable"}}
	]}`))
	if err != nil {
		log.Fatal(err)
	}
	engine, err := chaos.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()), sqsq.WithFaults(engine))
	defer b.Close()
	mux := http.NewServeMux()
	mux.Handle("/", sqshttp.NewHandler(b, sqshttp.WithInterceptor(engine)))
	mux.Handle("/_sqsq/api/faults", engine.Handler()) // and the other paths of Handler

	// call sends one request of the AWS JSON protocol, as an SDK would.
	call := func(op, body string) (int, map[string]any) {
		r := httptest.NewRequest("POST", "http://localhost/", strings.NewReader(body))
		r.Header.Set("X-Amz-Target", "AmazonSQS."+op)
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		var out map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &out)
		return w.Code, out
	}
	call("CreateQueue", `{"QueueName": "orders"}`)
	call("CreateQueue", `{"QueueName": "payments"}`)

	status, out := call("SendMessage", `{"QueueUrl": "http://localhost/000000000000/payments", "MessageBody": "pay"}`)
	fmt.Println("send to payments:", status, out["__type"])

	call("SendMessage", `{"QueueUrl": "http://localhost/000000000000/orders", "MessageBody": "order 1"}`)
	var ids []any
	for range 2 {
		_, out := call("ReceiveMessage", `{"QueueUrl": "http://localhost/000000000000/orders"}`)
		ids = append(ids, out["Messages"].([]any)[0].(map[string]any)["MessageId"])
	}
	fmt.Println("received the same message twice:", ids[0] == ids[1])

	for _, in := range engine.Injected() {
		fmt.Println(in.Kind, in.Operation, in.Queue, in.Code+in.Detail)
	}
	// Output:
	// send to payments: 503 com.amazonaws.sqs#ServiceUnavailable
	// received the same message twice: true
	// error SendMessage payments ServiceUnavailable
	// duplicate ReceiveMessage orders delivered in-flight message 0 of 1 again
}

// The JSON API changes the rules while the endpoint runs; LocalStack's
// Chaos API does too, at LocalStack's paths.
func ExampleEngine_Handler() {
	engine := &chaos.Engine{} // no rules yet
	api := engine.Handler()
	send := func(method, path, body string) {
		w := httptest.NewRecorder()
		api.ServeHTTP(w, httptest.NewRequest(method, path, strings.NewReader(body)))
		fmt.Print(w.Code, " ", w.Body)
	}
	send("PUT", "/_sqsq/api/faults", `{"seed": 7, "rules": [{"queue": "orders", "probability": 0.25, "latencyMs": 200}]}`)
	send("PUT", "/_sqsq/api/faults", `{"seed": 7, "rules": [{"queue": "orders", "probability": 2.5, "latencyMs": 200}]}`)
	send("POST", "/_localstack/chaos/faults", `[{"service": "sqs", "operation": "SendMessage", "probability": 0.1}]`)
	send("POST", "/_localstack/chaos/effects", `{"latency": 50}`)
	// Output:
	// 200 {"seed":7,"rules":[{"queue":"orders","probability":0.25,"latencyMs":200}]}
	// 400 {"error":"rules[0].probability: 2.5 is not between 0 and 1","code":"InvalidParameterValue"}
	// 200 [{"service":"sqs","operation":"SendMessage","probability":0.1}]
	// 200 {"latency":50}
}
