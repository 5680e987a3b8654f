package console_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/sqsq/sqsq"
)

type namespacesJSON struct {
	Namespaces []struct {
		Account string `json:"account"`
		Region  string `json:"region"`
		Queues  int    `json:"queues"`
		Default bool   `json:"default"`
	} `json:"namespaces"`
}

// inScope creates a queue in the namespace of account and region.
func (e *env) inScope(account, region, name string, attrs map[string]string) *sqsq.Queue {
	e.t.Helper()
	a, err := sqsq.ParseQueueAttributes(attrs)
	if err != nil {
		e.t.Fatal(err)
	}
	q, err := e.b.Scope(account, region).CreateQueue(context.Background(), sqsq.CreateQueueInput{QueueName: name, Attributes: a})
	if err != nil {
		e.t.Fatal(err)
	}
	return q
}

// listed is the names GET target lists.
func (e *env) listed(target string) []string {
	e.t.Helper()
	var got struct {
		Queues []queueJSON `json:"queues"`
	}
	e.ok("GET", target, nil, &got)
	names := []string{}
	for _, q := range got.Queues {
		names = append(names, q.Name)
	}
	return names
}

// The namespaces listed are the default, with or without queues, then
// those with queues in order of account and region; a namespace without
// queues (an SDK request made it) is left out.
func TestNamespaces(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	var got namespacesJSON
	e.ok("GET", "/_sqsq/api/namespaces", nil, &got)
	if want := `[{000000000000 us-east-1 0 true}]`; fmt.Sprint(got.Namespaces) != want {
		t.Errorf("a new broker's namespaces %v, want %s", got.Namespaces, want)
	}

	e.inScope("000000000000", "eu-west-1", "orders", nil)
	e.inScope("000000000000", "eu-west-1", "jobs", nil)
	e.inScope("111111111111", "ap-south-1", "x", nil)
	e.b.Scope("000000000000", "us-west-2") // no queue
	e.inScope("000000000000", "aa-test-1", "gone", nil)
	if err := e.b.Scope("000000000000", "aa-test-1").DeleteQueue(context.Background(), "gone"); err != nil {
		t.Fatal(err)
	}
	got = namespacesJSON{}
	e.ok("GET", "/_sqsq/api/namespaces", nil, &got)
	want := `[{000000000000 us-east-1 0 true} {000000000000 eu-west-1 2 false} {111111111111 ap-south-1 1 false}]`
	if fmt.Sprint(got.Namespaces) != want {
		t.Errorf("namespaces %v, want %s", got.Namespaces, want)
	}
}

// A queue of eu-west-1 is listed there only, with its URL, which names its
// region; every endpoint reaches it with ?region=eu-west-1, none without.
func TestNamespaceParameters(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	e.queue("home", nil)
	eu := e.inScope("000000000000", "eu-west-1", "orders", nil)
	dlq := e.inScope("000000000000", "eu-west-1", "orders-dlq", nil)
	if err := eu.SetAttributes(context.Background(), mustAttrs(t, map[string]string{
		sqsq.AttrRedrivePolicy: `{"deadLetterTargetArn":"` + dlq.ARN() + `","maxReceiveCount":1}`})); err != nil {
		t.Fatal(err)
	}

	if got := e.listed("/_sqsq/api/queues"); !slices.Equal(got, []string{"home"}) {
		t.Errorf("the default namespace lists %v, want [home]", got)
	}
	const ns = "?region=eu-west-1"
	if got := e.listed("/_sqsq/api/queues" + ns); !slices.Equal(got, []string{"orders", "orders-dlq"}) {
		t.Errorf("eu-west-1 lists %v, want [orders orders-dlq]", got)
	}
	if got := e.listed("/_sqsq/api/queues?account=000000000000&region=eu-west-1"); !slices.Equal(got, []string{"orders", "orders-dlq"}) {
		t.Errorf("eu-west-1, account given: %v", got)
	}

	var q queueJSON
	e.ok("GET", "/_sqsq/api/queues/orders"+ns, nil, &q)
	if q.URL != "http://example.com/queue/eu-west-1/000000000000/orders" || q.ARN != "arn:aws:sqs:eu-west-1:000000000000:orders" {
		t.Errorf("orders of eu-west-1: URL %s, ARN %s", q.URL, q.ARN)
	}
	if d := q.DeadLetterQueue; d == nil || d.queueRefJSON != (queueRefJSON{Name: "orders-dlq", URL: "http://example.com/queue/eu-west-1/000000000000/orders-dlq",
		Account: "000000000000", Region: "eu-west-1", Local: true}) {
		t.Errorf("its dead-letter queue %+v", d)
	}
	e.ok("GET", "/_sqsq/api/queues/home", nil, &q)
	if q.URL != "http://example.com/000000000000/home" {
		t.Errorf("a queue of the default region: URL %s", q.URL)
	}

	var sent struct {
		MessageID string `json:"messageId"`
	}
	e.ok("POST", "/_sqsq/api/queues/orders/messages"+ns, map[string]any{"body": "hello"}, &sent)
	e.ok("POST", "/_sqsq/api/queues/orders/messages"+ns, map[string]any{"body": "bye"}, nil)
	var page pageJSON
	e.ok("GET", "/_sqsq/api/queues/orders/messages"+ns, nil, &page)
	if len(page.Messages) != 2 || page.Messages[0].MessageID != sent.MessageID {
		t.Errorf("messages of orders %+v", page.Messages)
	}
	var m messageJSON
	e.ok("GET", "/_sqsq/api/queues/orders/messages/"+sent.MessageID+ns, nil, &m)
	if m.Body != "hello" {
		t.Errorf("the message %+v", m)
	}
	e.ok("DELETE", "/_sqsq/api/queues/orders/messages/"+sent.MessageID+ns, nil, nil)
	e.ok("POST", "/_sqsq/api/queues/orders/purge"+ns, nil, nil)
	if st := e.stats(eu); st.Visible != 0 {
		t.Errorf("after the delete and purge: %+v", st)
	}
	deadLetter(e, eu, 1)
	var tasks tasksJSON
	e.ok("POST", "/_sqsq/api/queues/orders-dlq/redrive"+ns, nil, nil)
	e.ok("GET", "/_sqsq/api/queues/orders-dlq/tasks"+ns, nil, &tasks)
	if len(tasks.Tasks) != 1 || tasks.Tasks[0].SourceArn != dlq.ARN() {
		t.Errorf("tasks of orders-dlq: %+v", tasks.Tasks)
	}

	// The default namespace has no orders: each endpoint says so.
	for _, tc := range []struct{ method, path string }{
		{"GET", "/queues/orders"}, {"GET", "/queues/orders/messages"}, {"POST", "/queues/orders/messages"},
		{"GET", "/queues/orders/messages/x"}, {"DELETE", "/queues/orders/messages/x"}, {"POST", "/queues/orders/purge"},
		{"POST", "/queues/orders-dlq/redrive"}, {"GET", "/queues/orders-dlq/tasks"},
	} {
		e.fails(tc.method, "/_sqsq/api"+tc.path, nil, http.StatusNotFound, "QueueDoesNotExist")
	}
}

// A namespace the endpoint does not have answers 404 on every endpoint but
// create, and nothing creates it.
func TestUnknownNamespace(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	e.queue("q", nil)
	for _, query := range []string{"?region=eu-west-1", "?account=111111111111", "?account=111111111111&region=us-east-1",
		"?region=../x", "?account=a:b"} {
		for _, tc := range []struct{ method, path string }{
			{"GET", "/queues"}, {"GET", "/queues/q"}, {"GET", "/queues/q/messages"}, {"POST", "/queues/q/messages"},
			{"GET", "/queues/q/messages/x"}, {"DELETE", "/queues/q/messages/x"}, {"POST", "/queues/q/purge"},
			{"POST", "/queues/q/redrive"}, {"GET", "/queues/q/tasks"},
		} {
			e.fails(tc.method, "/_sqsq/api"+tc.path+query, nil, http.StatusNotFound, "ResourceNotFoundException")
		}
	}
	if n := len(e.b.Scopes()); n != 1 {
		t.Errorf("%d namespaces after the reads, want 1", n)
	}
}

// Creating a queue in a namespace that does not exist yet creates it, as a
// signed SDK request would, when the account and region are AWS-shaped;
// and within the endpoint's bound.
func TestCreateQueueInNamespace(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	var q queueJSON
	e.ok("POST", "/_sqsq/api/queues?account=123456789012&region=eu-central-1", map[string]any{"name": "orders"}, &q)
	if q.ARN != "arn:aws:sqs:eu-central-1:123456789012:orders" || q.URL != "http://example.com/queue/eu-central-1/123456789012/orders" {
		t.Errorf("created %s at %s", q.ARN, q.URL)
	}
	if got := e.listed("/_sqsq/api/queues?account=123456789012&region=eu-central-1"); !slices.Equal(got, []string{"orders"}) {
		t.Errorf("the new namespace lists %v", got)
	}
	e.ok("POST", "/_sqsq/api/queues?region=eu-central-1", map[string]any{"name": "jobs"}, &q) // the default account
	if q.ARN != "arn:aws:sqs:eu-central-1:000000000000:jobs" {
		t.Errorf("created %s", q.ARN)
	}
	for _, tc := range []struct{ query, reason string }{
		{"?region=local", "not an AWS region"},
		{"?region=EU-WEST-1", "regions are lower case"},
		{"?account=12345", "not 12 digits"},
		{"?account=abcdefghijkl", "not digits"},
		{"?region=eu-west-1&account=1/2", "a slash would reach another path"},
	} {
		if rec := e.do("POST", "/_sqsq/api/queues"+tc.query, map[string]any{"name": "x"}); rec.Code != http.StatusBadRequest {
			t.Errorf("%s (%s): %d %s, want 400", tc.query, tc.reason, rec.Code, rec.Body)
		}
	}
	if n := len(e.b.Scopes()); n != 3 {
		t.Errorf("%d namespaces, want 3: the refused ones made none", n)
	}

	for i := len(e.b.Scopes()); i < 65; i++ {
		e.b.Scope(fmt.Sprintf("%012d", i), "us-east-1")
	}
	e.fails("POST", "/_sqsq/api/queues?account=999999999999", map[string]any{"name": "x"}, http.StatusForbidden, "OverLimit")
	e.ok("POST", "/_sqsq/api/queues?account=123456789012&region=eu-central-1", map[string]any{"name": "more"}, nil) // an existing one
}

// A dead-letter link to another namespace names it, with the URL of the
// queue there; the dead-letter queue lists its source the same way.
func TestDeadLetterAcrossNamespaces(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	dlq := e.inScope("000000000000", "eu-west-1", "dlq", map[string]string{
		sqsq.AttrRedriveAllowPolicy: `{"redrivePermission":"byQueue","sourceQueueArns":["arn:aws:sqs:us-east-1:000000000000:orders"]}`})
	e.queue("orders", map[string]string{sqsq.AttrRedrivePolicy: `{"deadLetterTargetArn":"` + dlq.ARN() + `","maxReceiveCount":1}`})

	var src queueJSON
	e.ok("GET", "/_sqsq/api/queues/orders", nil, &src)
	want := queueRefJSON{Name: "dlq", URL: "http://example.com/queue/eu-west-1/000000000000/dlq", Account: "000000000000", Region: "eu-west-1"}
	if src.DeadLetterQueue == nil {
		t.Fatal("no dead-letter queue")
	}
	if got := src.DeadLetterQueue.queueRefJSON; got != want {
		t.Errorf("the dead-letter queue %+v, want %+v", got, want)
	}
	var d queueJSON
	e.ok("GET", "/_sqsq/api/queues/dlq?region=eu-west-1", nil, &d)
	wantSources := []queueRefJSON{{Name: "orders", URL: "http://example.com/000000000000/orders", Account: "000000000000", Region: "us-east-1"}}
	if !slices.Equal(d.Sources, wantSources) {
		t.Errorf("the sources %+v, want %+v", d.Sources, wantSources)
	}
}

func mustAttrs(t *testing.T, attrs map[string]string) sqsq.QueueAttributes {
	t.Helper()
	a, err := sqsq.ParseQueueAttributes(attrs)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
