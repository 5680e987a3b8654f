package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/console"
	"github.com/sqsq/sqsq/history"
)

// setupHistory is setup with a history recorder on the broker and the
// console.
func setupHistory(t *testing.T) (*env, *history.Recorder) {
	t.Helper()
	clk := clock.NewMock()
	clk.Set(start)
	rec := history.New()
	b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithObserver(rec))
	t.Cleanup(func() { _ = b.Close() })
	return &env{t: t, b: b, clk: clk, h: console.Handler(b, console.WithHistory(rec))}, rec
}

// receive receives one message of q.
func (e *env) receive(q *sqsq.Queue) sqsq.Message {
	e.t.Helper()
	msgs, err := q.Receive(context.Background(), sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(30 * time.Second)})
	if err != nil || len(msgs) != 1 {
		e.t.Fatalf("receive: %v, %v", msgs, err)
	}
	return msgs[0]
}

func TestMessageHistory(t *testing.T) {
	t.Parallel()
	e, _ := setupHistory(t)
	q := e.queue("orders", nil)
	id := e.send(q, sqsq.SendInput{MessageBody: `{"order":1}`})
	m := e.receive(q)
	e.clk.Add(time.Second)
	if err := q.Delete(context.Background(), m.ReceiptHandle); err != nil {
		t.Fatal(err)
	}

	var got struct {
		History history.MessageHistory `json:"history"`
	}
	e.ok("GET", "/_sqsq/api/queues/orders/messages/"+id+"/history", nil, &got)
	h := got.History
	if h.MessageID != id || h.Queue != "orders" || h.Account != e.b.AccountID() || h.Region != e.b.Region() || h.Body != `{"order":1}` ||
		len(h.Entries) != 3 {
		t.Fatalf("history %+v", h)
	}
	want := []history.Entry{
		{Kind: history.KindSent, At: start, Queue: "orders"},
		{Kind: history.KindReceived, At: start, Queue: "orders", ReceiveCount: 1, ReceiptHandle: m.ReceiptHandle, TimeoutMs: 30000},
		{Kind: history.KindDeleted, At: start.Add(time.Second), Queue: "orders", ReceiveCount: 1, ReceiptHandle: m.ReceiptHandle, Applied: true, Removed: true},
	}
	for i := range want {
		if !h.Entries[i].At.Equal(want[i].At) {
			t.Errorf("entry %d at %v, want %v", i, h.Entries[i].At, want[i].At)
		}
		h.Entries[i].At = want[i].At
		if h.Entries[i] != want[i] {
			t.Errorf("entry %d:\n%+v\nwant\n%+v", i, h.Entries[i], want[i])
		}
	}
	// The wire form: camelCase names, times in RFC 3339 UTC, empty fields left out.
	raw := e.do("GET", "/_sqsq/api/queues/orders/messages/"+id+"/history", nil).Body.String()
	if !strings.Contains(raw, `{"kind":"sent","at":"2026-11-29T21:00:00Z","queue":"orders"}`) || !strings.Contains(raw, `"removed":true`) {
		t.Errorf("wire form: %s", raw)
	}
}

// The history outlives its message and its queue; what the recorder never
// saw, or saw on another queue, is a 404.
func TestMessageHistoryNotFound(t *testing.T) {
	t.Parallel()
	e, _ := setupHistory(t)
	q := e.queue("orders", nil)
	e.queue("jobs", nil)
	id := e.send(q, sqsq.SendInput{MessageBody: "x"})
	if found, err := q.DeleteMessageById(context.Background(), id); err != nil || !found {
		t.Fatal(found, err)
	}
	e.ok("GET", "/_sqsq/api/queues/orders/messages/"+id+"/history", nil, nil)

	rec := e.fails("GET", "/_sqsq/api/queues/orders/messages/no-such-id/history", nil, http.StatusNotFound, "ResourceNotFoundException")
	if !strings.Contains(rec.Body.String(), "no history of message no-such-id") {
		t.Errorf("404 of an unknown message: %s", rec.Body)
	}
	e.fails("GET", "/_sqsq/api/queues/jobs/messages/"+id+"/history", nil, http.StatusNotFound, "ResourceNotFoundException")
	e.fails("GET", "/_sqsq/api/queues/nope/messages/"+id+"/history", nil, http.StatusNotFound, "QueueDoesNotExist")
	e.fails("GET", "/_sqsq/api/queues/a:b/messages/"+id+"/history", nil, http.StatusNotFound, "QueueDoesNotExist")

	if err := q.DeleteQueue(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.ok("GET", "/_sqsq/api/queues/orders/messages/"+id+"/history", nil, nil)
	e.ok("GET", "/_sqsq/api/queues/orders/history", nil, nil)
}

// queueHistoryJSON is the answer of …/history.
type queueHistoryJSON struct {
	Messages []history.MessageHistory `json:"messages"`
}

func (e *env) queueHistory(target string) []string {
	e.t.Helper()
	var got queueHistoryJSON
	e.ok("GET", target, nil, &got)
	if got.Messages == nil {
		e.t.Fatalf("GET %s: messages is not a list", target)
	}
	ids := []string{}
	for _, h := range got.Messages {
		ids = append(ids, h.MessageID)
	}
	return ids
}

func TestQueueHistory(t *testing.T) {
	t.Parallel()
	e, _ := setupHistory(t)
	q := e.queue("orders", nil)
	e.queue("jobs", nil)
	a := e.send(q, sqsq.SendInput{MessageBody: "a"})
	b := e.send(q, sqsq.SendInput{MessageBody: "b"})
	e.receive(q)
	if got := e.queueHistory("/_sqsq/api/queues/orders/history"); strings.Join(got, ",") != a+","+b {
		t.Errorf("orders: %v, want [%s %s]", got, a, b)
	}
	if got := e.queueHistory("/_sqsq/api/queues/jobs/history"); len(got) != 0 {
		t.Errorf("jobs, a queue without history: %v", got)
	}
	e.fails("GET", "/_sqsq/api/queues/nope/history", nil, http.StatusNotFound, "QueueDoesNotExist")
	rec := e.do("GET", "/_sqsq/api/queues/jobs/history", nil)
	if want := "{\"messages\":[]}\n"; rec.Body.String() != want {
		t.Errorf("an empty history: %q, want %q", rec.Body, want)
	}
}

// Each namespace has its own queues, and their histories: ?account= and
// ?region= choose, as on every queue endpoint.
func TestHistoryNamespaces(t *testing.T) {
	t.Parallel()
	e, _ := setupHistory(t)
	here := e.send(e.queue("orders", nil), sqsq.SendInput{MessageBody: "here"})
	there := e.send(e.inScope("000000000000", "eu-west-1", "orders", nil), sqsq.SendInput{MessageBody: "there"})

	if got := e.queueHistory("/_sqsq/api/queues/orders/history"); len(got) != 1 || got[0] != here {
		t.Errorf("orders of the default namespace: %v", got)
	}
	if got := e.queueHistory("/_sqsq/api/queues/orders/history?region=eu-west-1"); len(got) != 1 || got[0] != there {
		t.Errorf("orders of eu-west-1: %v", got)
	}
	var got struct {
		History history.MessageHistory `json:"history"`
	}
	e.ok("GET", "/_sqsq/api/queues/orders/messages/"+there+"/history?region=eu-west-1", nil, &got)
	if got.History.Region != "eu-west-1" || got.History.Body != "there" {
		t.Errorf("the message of eu-west-1: %+v", got.History)
	}
	e.fails("GET", "/_sqsq/api/queues/orders/messages/"+there+"/history", nil, http.StatusNotFound, "ResourceNotFoundException")
	e.fails("GET", "/_sqsq/api/queues/orders/history?region=ap-south-1", nil, http.StatusNotFound, "ResourceNotFoundException")
	e.fails("GET", "/_sqsq/api/queues/orders/messages/"+here+"/history?region=ap-south-1", nil, http.StatusNotFound, "ResourceNotFoundException")
}

// Without WithHistory, the history's paths say it is off.
func TestHistoryOff(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	q := e.queue("orders", nil)
	id := e.send(q, sqsq.SendInput{MessageBody: "x"})
	for _, target := range []string{"/_sqsq/api/queues/orders/history", "/_sqsq/api/queues/orders/messages/" + id + "/history"} {
		for _, method := range []string{"GET", "POST"} {
			rec := e.fails(method, target, nil, http.StatusNotFound, "UnknownOperationException")
			var body apiError
			_ = json.Unmarshal(rec.Body.Bytes(), &body)
			if !strings.Contains(body.Error, "history is off") {
				t.Errorf("%s %s: %q does not say the history is off", method, target, body.Error)
			}
		}
	}
}

func TestHistoryMethods(t *testing.T) {
	t.Parallel()
	e, _ := setupHistory(t)
	e.queue("orders", nil)
	for _, target := range []string{"/_sqsq/api/queues/orders/history", "/_sqsq/api/queues/orders/messages/m/history"} {
		rec := e.fails("POST", target, nil, http.StatusMethodNotAllowed, "InvalidAction")
		if got := rec.Header().Get("Allow"); got != "GET, HEAD" {
			t.Errorf("POST %s: Allow %q", target, got)
		}
	}
}
