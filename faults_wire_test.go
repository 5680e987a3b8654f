package sqsq_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// early is a scripted policy that also ends visibility timeouts early
// (sqsq.VisibilityFaults) and records the calls it was asked about.
type early struct {
	*scripted
	to    time.Duration // what VisibilityTimeout answers
	calls []sqsq.Call
}

func (e *early) VisibilityTimeout(c sqsq.Call, d time.Duration) time.Duration {
	e.mu.Lock()
	e.calls = append(e.calls, c)
	e.mu.Unlock()
	return e.to
}

func (e *early) Reject(c sqsq.Call) sqsq.Code {
	e.mu.Lock()
	e.calls = append(e.calls, c)
	e.mu.Unlock()
	return e.scripted.Reject(c)
}

type events struct {
	mu  sync.Mutex
	evs []sqsq.Event
}

func (o *events) Observe(e sqsq.Event) {
	o.mu.Lock()
	o.evs = append(o.evs, e)
	o.mu.Unlock()
}

func (o *events) kinds() []sqsq.EventKind {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []sqsq.EventKind
	for _, e := range o.evs {
		out = append(out, e.Kind)
	}
	return out
}

// The hooks a policy on the endpoint needs: calls and events name the
// queue's namespace; a visibility timeout ends early when the policy says
// so, on standard queues only, and the event says by how much; a lost
// receive response is an event of each message it put in flight.
func TestFaultHooksForTheEndpoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewMock()
	f := &early{scripted: newScripted(), to: 10 * time.Second}
	o := &events{}
	root := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithFaults(f), sqsq.WithObserver(o))
	t.Cleanup(func() { _ = root.Close() })
	b := root.Scope("111111111111", "eu-west-1")
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "a"}); err != nil {
		t.Fatal(err)
	}
	msgs := must(q.Receive(ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(30 * time.Second)}))
	if len(msgs) != 1 {
		t.Fatalf("received %d, want 1", len(msgs))
	}
	for _, c := range f.calls {
		if c.Account != "111111111111" || c.Region != "eu-west-1" || c.Queue != "orders" {
			t.Errorf("call %+v: want the queue's namespace", c)
		}
	}
	o.mu.Lock()
	got := o.evs[len(o.evs)-1]
	o.mu.Unlock()
	if got.Kind != sqsq.EventReceived || got.Account != "111111111111" || got.Region != "eu-west-1" ||
		got.Timeout != 30*time.Second || got.EndsEarly != 10*time.Second {
		t.Errorf("receive event %+v: want the namespace, Timeout 30s, EndsEarly 10s", got)
	}
	clk.Add(10 * time.Second) // visible again after 10 s, not 30
	again := must(q.Receive(ctx, sqsq.ReceiveInput{}))
	if len(again) != 1 || again[0].MessageId != msgs[0].MessageId {
		t.Fatalf("after 10 s: %v, want the message back", bodiesOf(again))
	}

	// A lost receive response: the message goes in flight and the
	// observer hears which.
	f.scripted.lose[sqsq.OpReceive] = true
	clk.Add(time.Minute)
	if _, err := q.Receive(ctx, sqsq.ReceiveInput{}); !errors.Is(err, &sqsq.Error{Code: sqsq.CodeServiceUnavailable}) {
		t.Fatalf("lost receive: %v, want ServiceUnavailable", err)
	}
	o.mu.Lock()
	lost := o.evs[len(o.evs)-1]
	o.mu.Unlock()
	if lost.Kind != sqsq.EventReceiveLost || !lost.Injected || lost.MessageID != msgs[0].MessageId || lost.ReceiveCount != 3 {
		t.Errorf("lost event %+v: want the message, receive count 3, injected", lost)
	}
	if st, _ := q.Stats(); st.InFlight != 1 {
		t.Errorf("after a lost receive: %+v, want the message in flight", st)
	}

	// FIFO queues keep their visibility timeouts.
	fq, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "jobs.fifo",
		Attributes: sqsq.QueueAttributes{FifoQueue: sqsq.Some(true), ContentBasedDeduplication: sqsq.Some(true)}})
	if err != nil {
		t.Fatal(err)
	}
	f.scripted.lose[sqsq.OpReceive] = false
	if _, err := fq.Send(ctx, sqsq.SendInput{MessageBody: "x", MessageGroupId: "g"}); err != nil {
		t.Fatal(err)
	}
	must(fq.Receive(ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(30 * time.Second)}))
	clk.Add(29 * time.Second)
	if st, _ := fq.Stats(); st.InFlight != 1 {
		t.Errorf("FIFO after 29 s of 30: %+v, want still in flight", st)
	}
}
