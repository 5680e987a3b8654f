package history_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/history"
)

// bundle is a broker on a mock clock that reports to a recorder.
type bundle struct {
	t   *testing.T
	ctx context.Context
	clk *clock.Mock
	b   *sqsq.Broker
	rec *history.Recorder
}

func setup(t *testing.T, opts ...sqsq.Option) *bundle {
	t.Helper()
	clk := clock.NewMock()
	clk.Set(t0)
	rec := history.New()
	b := sqsq.NewBroker(append([]sqsq.Option{sqsq.WithClock(clk), sqsq.WithObserver(rec)}, opts...)...)
	t.Cleanup(func() { _ = b.Close() })
	return &bundle{t: t, ctx: context.Background(), clk: clk, b: b, rec: rec}
}

func (x *bundle) queue(name string, attrs sqsq.QueueAttributes) *sqsq.Queue {
	x.t.Helper()
	q, err := x.b.CreateQueue(x.ctx, sqsq.CreateQueueInput{QueueName: name, Attributes: attrs})
	if err != nil {
		x.t.Fatal(err)
	}
	return q
}

func (x *bundle) send(q *sqsq.Queue, body string) string {
	x.t.Helper()
	res, err := q.Send(x.ctx, sqsq.SendInput{MessageBody: body})
	if err != nil {
		x.t.Fatal(err)
	}
	return res.MessageId
}

func (x *bundle) receive(q *sqsq.Queue, vis time.Duration) sqsq.Message {
	x.t.Helper()
	msgs, err := q.Receive(x.ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(vis)})
	if err != nil || len(msgs) != 1 {
		x.t.Fatalf("receive: %d messages, %v", len(msgs), err)
	}
	return msgs[0]
}

// history is the history of id, which must exist.
func (x *bundle) history(id string) history.MessageHistory {
	x.t.Helper()
	h, ok := x.rec.Message(id)
	if !ok {
		x.t.Fatalf("no history of %s", id)
	}
	return h
}

// The story of one message through a real broker: sent, received, its
// visibility shortened, received again once that ended, a delete with the
// first (stale) handle that removes nothing, the delete that removes it, and
// one more with the stale handle, once the message is gone (the broker
// then names no message: the recorder finds it by the handle).
func TestBrokerStory(t *testing.T) {
	t.Parallel()
	x := setup(t)
	q := x.queue("orders", sqsq.QueueAttributes{})
	id := x.send(q, `{"order":1}`)
	first := x.receive(q, 30*time.Second)
	x.clk.Add(time.Second)
	if err := q.ChangeVisibility(x.ctx, first.ReceiptHandle, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	x.clk.Add(10 * time.Second)
	second := x.receive(q, 30*time.Second)
	x.clk.Add(time.Second)
	for _, h := range []string{first.ReceiptHandle, second.ReceiptHandle, first.ReceiptHandle} {
		if err := q.Delete(x.ctx, h); err != nil {
			t.Fatal(err)
		}
	}

	h := x.history(id)
	if h.Queue != "orders" || h.Account != x.b.AccountID() || h.Region != x.b.Region() || h.Body != `{"order":1}` || h.Dropped != 0 {
		t.Errorf("history header %+v", h)
	}
	want := []history.Entry{
		{Kind: history.KindSent, At: at(0), Queue: "orders"},
		{Kind: history.KindReceived, At: at(0), Queue: "orders", ReceiveCount: 1, ReceiptHandle: first.ReceiptHandle, TimeoutMs: 30000},
		{Kind: history.KindVisibilityChanged, At: at(1), Queue: "orders", ReceiveCount: 1, ReceiptHandle: first.ReceiptHandle, TimeoutMs: 10000, Applied: true},
		{Kind: history.KindReceived, At: at(11), Queue: "orders", ReceiveCount: 2, ReceiptHandle: second.ReceiptHandle, TimeoutMs: 30000},
		{Kind: history.KindDeleted, At: at(12), Queue: "orders", ReceiveCount: 2, ReceiptHandle: first.ReceiptHandle, Applied: true},
		{Kind: history.KindDeleted, At: at(12), Queue: "orders", ReceiveCount: 2, ReceiptHandle: second.ReceiptHandle, Applied: true, Removed: true},
		{Kind: history.KindDeleted, At: at(12), Queue: "orders", ReceiptHandle: first.ReceiptHandle, Applied: true},
	}
	if d := diff(want, h.Entries); d != "" {
		t.Error(d)
	}
	if got := ids(x.rec.Queue(x.b.AccountID(), x.b.Region(), "orders")); len(got) != 1 || got[0] != id {
		t.Errorf("orders lists %v", got)
	}
}

// policy is a fault policy the test steers between calls.
type policy struct {
	dup   int           // Duplicate's answer
	lose  bool          // LoseResponse's
	short time.Duration // the visibility timeout a receive really sets, 0 for the one asked
	code  sqsq.Code     // Reject's
}

func (p *policy) Reject(sqsq.Call) sqsq.Code             { return p.code }
func (p *policy) Sample(_ sqsq.Call, n int) int          { return n }
func (p *policy) Duplicate(sqsq.Call, int) int           { return p.dup }
func (p *policy) Shuffle(sqsq.Call, int, func(i, j int)) {}
func (p *policy) LoseResponse(sqsq.Call) bool            { return p.lose }
func (p *policy) VisibilityTimeout(_ sqsq.Call, d time.Duration) time.Duration {
	if p.short > 0 {
		return p.short
	}
	return d
}

// Faults a policy injects are marked in the history: a receive whose
// response was lost, a visibility timeout ended early, a duplicate
// delivery and a delete rejected.
func TestBrokerFaults(t *testing.T) {
	t.Parallel()
	p := &policy{dup: -1}
	x := setup(t, sqsq.WithFaults(p))
	q := x.queue("orders", sqsq.QueueAttributes{})
	id := x.send(q, "charge")

	p.lose = true
	var lost *sqsq.Error
	if _, err := q.Receive(x.ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(30 * time.Second)}); !errors.As(err, &lost) || lost.Code != sqsq.CodeServiceUnavailable {
		t.Fatalf("a lost receive returned %v", err)
	}
	p.lose = false
	x.clk.Add(30 * time.Second)
	p.short = 3 * time.Second
	early := x.receive(q, 30*time.Second)
	p.short, p.dup = 0, 0
	dup := x.receive(q, 30*time.Second) // the one message, in flight, delivered again
	p.code = sqsq.CodeServiceUnavailable
	if err := q.Delete(x.ctx, dup.ReceiptHandle); err == nil {
		t.Fatal("a rejected delete succeeded")
	}

	var got []string
	for _, e := range x.history(id).Entries {
		s := string(e.Kind)
		if e.Injected {
			s += " injected"
		}
		if e.EndsEarlyMs > 0 {
			s += fmt.Sprintf(" ends early after %dms", e.EndsEarlyMs)
		}
		if e.Duplicate {
			s += " duplicate"
		}
		if e.Error != "" {
			s += " " + e.Error
		}
		got = append(got, s)
	}
	want := "sent; receiveLost injected; received ends early after 3000ms; received duplicate; deleted injected ServiceUnavailable"
	if strings.Join(got, "; ") != want {
		t.Errorf("history\n%s\nwant\n%s", strings.Join(got, "; "), want)
	}
	if early.ReceiptHandle == dup.ReceiptHandle {
		t.Errorf("the duplicate came with the same handle")
	}
}

// A message dead-lettered and redriven: its first id's history follows it
// into the dead-letter queue and out, and names the new id, whose history
// names the old.
func TestBrokerRedrive(t *testing.T) {
	t.Parallel()
	x := setup(t)
	dlq := x.queue("orders-dlq", sqsq.QueueAttributes{})
	q := x.queue("orders", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})})
	id := x.send(q, "poison")
	x.receive(q, 30*time.Second)
	x.clk.Add(30 * time.Second)
	if msgs, err := q.Receive(x.ctx, sqsq.ReceiveInput{}); err != nil || len(msgs) != 0 {
		t.Fatalf("the receive that dead-letters: %v, %v", msgs, err)
	}
	if _, err := x.b.StartMoveTask(x.ctx, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()}); err != nil {
		t.Fatal(err)
	}
	var moved sqsq.Message
	for i := 0; i < 10 && moved.MessageId == ""; i++ { // the task moves on the clock
		x.clk.Add(time.Second)
		if msgs, _ := q.Receive(x.ctx, sqsq.ReceiveInput{}); len(msgs) == 1 {
			moved = msgs[0]
		}
	}
	if moved.MessageId == "" || moved.MessageId == id {
		t.Fatalf("redriven message %+v", moved)
	}

	old := x.history(id).Entries
	if n := len(old); n != 4 || old[2].Kind != history.KindDeadLettered || old[2].DeadLetterQueue != "orders-dlq" ||
		old[3].Kind != history.KindRedriven || old[3].Queue != "orders-dlq" || old[3].Destination != "orders" || old[3].NewMessageID != moved.MessageId {
		t.Errorf("the old id's history: %+v", old)
	}
	h := x.history(moved.MessageId)
	if h.Queue != "orders" || h.Body != "poison" || len(h.Entries) != 2 || h.Entries[0].Kind != history.KindRedriven ||
		h.Entries[0].FromMessageID != id || h.Entries[1].Kind != history.KindReceived {
		t.Errorf("the new id's history: %+v", h)
	}
	if got := ids(x.rec.Queue(x.b.AccountID(), x.b.Region(), "orders-dlq")); len(got) != 1 || got[0] != id {
		t.Errorf("orders-dlq lists %v", got)
	}
}
