package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/console"
)

// queueJSON is a queue as the API lists it.
type queueJSON struct {
	Name   string `json:"name"`
	URL    string `json:"url"`
	ARN    string `json:"arn"`
	FIFO   bool   `json:"fifo"`
	Counts struct {
		Available int `json:"available"`
		InFlight  int `json:"inflight"`
		Delayed   int `json:"delayed"`
	} `json:"counts"`
	OldestAgeMs          int64             `json:"oldestAgeMs"`
	OldestAvailableAgeMs int64             `json:"oldestAvailableAgeMs"`
	Attributes           map[string]string `json:"attributes"`
	DeadLetterQueue      *struct {
		queueRefJSON
		ARN             string `json:"arn"`
		MaxReceiveCount int    `json:"maxReceiveCount"`
	} `json:"deadLetterQueue"`
	Sources []queueRefJSON `json:"sources"`
}

// queueRefJSON is a queue of a dead-letter link.
type queueRefJSON struct {
	Name    string `json:"name"`
	URL     string `json:"url"`
	Account string `json:"account"`
	Region  string `json:"region"`
	Local   bool   `json:"local"`
}

const dlqARN = "arn:aws:sqs:us-east-1:000000000000:orders-dlq"

// withDLQ makes orders, whose dead-letter queue is orders-dlq after
// maxReceiveCount receives, and returns both.
func withDLQ(e *env, maxReceiveCount string) (src, dlq *sqsq.Queue) {
	e.t.Helper()
	dlq = e.queue("orders-dlq", nil)
	src = e.queue("orders", map[string]string{
		sqsq.AttrRedrivePolicy: `{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":` + maxReceiveCount + `}`,
	})
	return src, dlq
}

func TestListQueues(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	src, _ := withDLQ(e, "3")
	e.queue("jobs.fifo", map[string]string{sqsq.AttrFifoQueue: "true"})
	ctx := context.Background()
	e.send(src, sqsq.SendInput{MessageBody: "first"})
	e.clk.Add(10 * time.Second)
	e.send(src, sqsq.SendInput{MessageBody: "second"})
	e.send(src, sqsq.SendInput{MessageBody: "later", DelaySeconds: sqsq.Some(time.Minute)})
	if _, err := src.Receive(ctx, sqsq.ReceiveInput{}); err != nil { // "first" goes in flight
		t.Fatal(err)
	}
	e.clk.Add(5 * time.Second)

	var got struct {
		Queues []queueJSON `json:"queues"`
		Now    time.Time   `json:"now"`
	}
	e.ok("GET", "/_sqsq/api/queues", nil, &got)
	if !got.Now.Equal(start.Add(15 * time.Second)) {
		t.Errorf("now %v, want the mock clock's", got.Now)
	}
	names := []string{}
	for _, q := range got.Queues {
		names = append(names, q.Name)
	}
	if want := []string{"jobs.fifo", "orders", "orders-dlq"}; !slices.Equal(names, want) {
		t.Fatalf("queues %v, want %v in name order", names, want)
	}
	fifo, orders, dlq := got.Queues[0], got.Queues[1], got.Queues[2]
	if !fifo.FIFO || orders.FIFO || fifo.DeadLetterQueue != nil || len(fifo.Sources) != 0 {
		t.Errorf("jobs.fifo: %+v", fifo)
	}
	if orders.URL != "http://example.com/000000000000/orders" || orders.ARN != "arn:aws:sqs:us-east-1:000000000000:orders" {
		t.Errorf("orders: URL %s, ARN %s; want the request's host", orders.URL, orders.ARN)
	}
	if c := orders.Counts; c.Available != 1 || c.InFlight != 1 || c.Delayed != 1 {
		t.Errorf("orders counts %+v, want 1 of each", c)
	}
	if orders.OldestAgeMs != 15000 || orders.OldestAvailableAgeMs != 5000 {
		t.Errorf("orders ages %d ms (any), %d ms (available); want 15000 and 5000", orders.OldestAgeMs, orders.OldestAvailableAgeMs)
	}
	if orders.Attributes[sqsq.AttrVisibilityTimeout] != "30" || orders.Attributes[sqsq.AttrQueueArn] != orders.ARN {
		t.Errorf("orders attributes %v", orders.Attributes)
	}
	// The DLQ links, both ways.
	if d := orders.DeadLetterQueue; d == nil || d.Name != "orders-dlq" || d.ARN != dlqARN || !d.Local || d.MaxReceiveCount != 3 ||
		d.URL != "http://example.com/000000000000/orders-dlq" {
		t.Errorf("orders' dead-letter queue %+v", d)
	}
	if len(dlq.Sources) != 1 || dlq.Sources[0].Name != "orders" || !dlq.Sources[0].Local ||
		dlq.Sources[0].URL != "http://example.com/000000000000/orders" {
		t.Errorf("orders-dlq sources %+v", dlq.Sources)
	}
	// Looking changed nothing.
	if st := e.stats(src); st.Visible != 1 || st.InFlight != 1 || st.Delayed != 1 || st.Received != 1 {
		t.Errorf("after the listing: %+v", st)
	}
}

// ?attributes=false lists the queues as the page shows them: everything
// but the attributes, which the list does not show and which are most of
// the answer; the default lists them; any other value is refused.
func TestListQueuesWithoutAttributes(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	withDLQ(e, "5")
	var full, lean struct {
		Queues []map[string]json.RawMessage `json:"queues"`
	}
	e.ok("GET", "/_sqsq/api/queues?attributes=true", nil, &full)
	e.ok("GET", "/_sqsq/api/queues?attributes=false", nil, &lean)
	if len(full.Queues) != 2 || len(lean.Queues) != 2 {
		t.Fatalf("%d and %d queues, want 2", len(full.Queues), len(lean.Queues))
	}
	for i, q := range lean.Queues {
		if _, ok := q["attributes"]; ok {
			t.Errorf("%s: attributes listed: %s", q["name"], q["attributes"])
		}
		if _, ok := full.Queues[i]["attributes"]; !ok {
			t.Errorf("%s: no attributes by default", q["name"])
		}
		delete(full.Queues[i], "attributes")
		if !reflect.DeepEqual(q, full.Queues[i]) {
			t.Errorf("without attributes:\n%v\nwant the rest as listed with them:\n%v", q, full.Queues[i])
		}
	}
	if string(lean.Queues[0]["deadLetterQueue"]) == "null" { // orders: its DLQ link still read
		t.Errorf("orders lost its dead-letter queue: %v", lean.Queues[0])
	}
	e.fails("GET", "/_sqsq/api/queues?attributes=no", nil, http.StatusBadRequest, "InvalidParameterValue")
}

// A dead-letter queue of another account shows as a link the console
// cannot follow.
func TestListQueuesForeignDLQ(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	other := e.b.Scope("111111111111", "us-east-1")
	ctx := context.Background()
	a, err := sqsq.ParseQueueAttributes(map[string]string{
		sqsq.AttrRedriveAllowPolicy: `{"redrivePermission":"byQueue","sourceQueueArns":["arn:aws:sqs:us-east-1:000000000000:mine"]}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "theirs", Attributes: a}); err != nil {
		t.Fatal(err)
	}
	e.queue("mine", map[string]string{
		sqsq.AttrRedrivePolicy: `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:111111111111:theirs","maxReceiveCount":1}`,
	})
	var got queueJSON
	e.ok("GET", "/_sqsq/api/queues/mine", nil, &got)
	if d := got.DeadLetterQueue; d == nil || d.Local || d.Name != "theirs" || d.URL != "http://example.com/111111111111/theirs" {
		t.Errorf("dead-letter queue %+v, want theirs, not local", d)
	}
}

func TestGetQueue(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	e.queue("jobs.fifo", map[string]string{sqsq.AttrFifoQueue: "true"})
	var got queueJSON
	e.ok("GET", "/_sqsq/api/queues/jobs.fifo", nil, &got)
	if got.Name != "jobs.fifo" || !got.FIFO || got.Sources == nil {
		t.Errorf("%+v", got)
	}
	for _, name := range []string{"nope", "arn:aws:sqs:us-east-1:000000000000:jobs.fifo"} {
		e.fails("GET", "/_sqsq/api/queues/"+name, nil, http.StatusNotFound, "QueueDoesNotExist")
	}
}

// WithBaseURL fixes the host of the URLs shown.
func TestBaseURL(t *testing.T) {
	t.Parallel()
	e := setup(t, false, console.WithBaseURL("http://sqs:9324/"))
	e.queue("q", nil)
	var got queueJSON
	e.ok("GET", "/_sqsq/api/queues/q", nil, &got)
	if got.URL != "http://sqs:9324/000000000000/q" {
		t.Errorf("URL %s", got.URL)
	}
}

func TestCreateQueue(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	var got queueJSON
	e.ok("POST", "/_sqsq/api/queues", map[string]any{"name": "jobs.fifo", "fifo": true}, &got)
	if got.Name != "jobs.fifo" || !got.FIFO || got.Attributes[sqsq.AttrFifoQueue] != "true" {
		t.Errorf("created %+v", got)
	}
	e.ok("POST", "/_sqsq/api/queues", map[string]any{"name": "slow", "attributes": map[string]string{"VisibilityTimeout": "90"}}, &got)
	if got.FIFO || got.Attributes[sqsq.AttrVisibilityTimeout] != "90" {
		t.Errorf("created %+v", got)
	}
	// Idempotent, as CreateQueue.
	e.ok("POST", "/_sqsq/api/queues", map[string]any{"name": "slow"}, nil)
	if got, want := e.names(), []string{"jobs.fifo", "slow"}; !slices.Equal(got, want) {
		t.Errorf("queues %v, want %v", got, want)
	}
}

func TestCreateQueueRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"no name", map[string]any{"fifo": true}, 400, "MissingParameter"},
		{"bad name", map[string]any{"name": "no spaces"}, 400, "InvalidParameterValue"},
		{"FIFO name without .fifo", map[string]any{"name": "jobs", "fifo": true}, 400, "InvalidParameterValue"},
		{".fifo name of a standard queue", map[string]any{"name": "jobs.fifo"}, 400, "InvalidParameterValue"},
		{"unknown attribute", map[string]any{"name": "q", "attributes": map[string]string{"Colour": "red"}}, 400, "InvalidAttributeName"},
		{"bad attribute value", map[string]any{"name": "q", "attributes": map[string]string{"VisibilityTimeout": "90000"}}, 400, "InvalidAttributeValue"},
		{"same name, other attributes", map[string]any{"name": "taken", "attributes": map[string]string{"VisibilityTimeout": "90"}}, 400, "QueueNameExists"},
		{"not JSON", "name=q", 400, "SerializationException"},
		{"unknown field", map[string]any{"name": "q", "fifoo": true}, 400, "SerializationException"},
		{"two values", `{"name":"q"} {"name":"r"}`, 400, "SerializationException"},
		{"too large", `{"name":"` + strings.Repeat("q", 5<<20) + `"}`, 413, "RequestEntityTooLarge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, false)
			e.queue("taken", nil)
			e.fails("POST", "/_sqsq/api/queues", tc.body, tc.status, tc.code)
			if got := e.names(); !slices.Equal(got, []string{"taken"}) {
				t.Errorf("a refused create changed the queues: %v", got)
			}
			if v, _ := mustGet(t, e, "taken").GetAttributes(context.Background(), sqsq.AttrVisibilityTimeout); v[sqsq.AttrVisibilityTimeout] != "30" {
				t.Errorf("the existing queue changed: %v", v)
			}
		})
	}
}

func TestPurge(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	q := e.queue("q", nil)
	e.send(q, sqsq.SendInput{MessageBody: "a"})
	e.send(q, sqsq.SendInput{MessageBody: "b"})
	e.ok("POST", "/_sqsq/api/queues/q/purge", nil, nil)
	if st := e.stats(q); st.Visible != 0 || st.Purged != 2 {
		t.Fatalf("after the purge: %+v", st)
	}
	// SQS's 60-second rule: a second purge within it is refused, and
	// changes nothing.
	e.send(q, sqsq.SendInput{MessageBody: "c"})
	e.fails("POST", "/_sqsq/api/queues/q/purge", nil, http.StatusForbidden, "PurgeQueueInProgress")
	if st := e.stats(q); st.Visible != 1 || st.Purged != 2 {
		t.Errorf("a refused purge changed the queue: %+v", st)
	}
	e.clk.Add(time.Minute)
	e.ok("POST", "/_sqsq/api/queues/q/purge", nil, nil)
	e.fails("POST", "/_sqsq/api/queues/nope/purge", nil, http.StatusNotFound, "QueueDoesNotExist")
	if !slices.Equal(e.names(), []string{"q"}) {
		t.Errorf("queues %v", e.names())
	}
}
