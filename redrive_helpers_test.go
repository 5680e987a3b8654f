package sqsq_test

// Helpers shared by the black-box tests of dead-letter queues
// (redrive_*_test.go) and of message move tasks (movetask_*_test.go).
//
// The package already has a setup(t) for a single-queue fixture
// (broker_test.go); these tests need a broker with several queues, so their
// helper is setupDLQ(t).

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// dlqEpoch is where the mock clock of every redrive test starts; its
// millisecond part shows timestamp truncation.
var dlqEpoch = time.Date(2024, time.June, 1, 8, 0, 0, 250_000_000, time.UTC)

// dlqFixture is the per-test bundle: a broker on a mock clock.
type dlqFixture struct {
	ctx context.Context
	clk *clock.Mock
	b   *sqsq.Broker
}

// setupDLQ builds a broker on a mock clock set to dlqEpoch. The broker is
// closed when the test ends, which stops its move tasks and releases any
// receive a failed test left parked.
func setupDLQ(t *testing.T, opts ...sqsq.Option) *dlqFixture {
	t.Helper()
	clk := clock.NewMock()
	clk.Set(dlqEpoch)
	b := sqsq.NewBroker(append([]sqsq.Option{sqsq.WithClock(clk)}, opts...)...)
	t.Cleanup(func() { _ = b.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &dlqFixture{ctx: ctx, clk: clk, b: b}
}

// arn is the ARN the fixture's broker gives a queue named name.
func (f *dlqFixture) arn(name string) string {
	return "arn:aws:sqs:" + f.b.Region() + ":" + f.b.AccountID() + ":" + name
}

// queue creates a queue and fails the test on error.
func (f *dlqFixture) queue(t *testing.T, name string, attrs sqsq.QueueAttributes) *sqsq.Queue {
	t.Helper()
	if strings.HasSuffix(name, ".fifo") {
		attrs.FifoQueue = sqsq.Some(true)
	}
	q, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: name, Attributes: attrs})
	if err != nil {
		t.Fatalf("CreateQueue(%q): %v", name, err)
	}
	return q
}

// pair creates the dead-letter queue dlqName and then the queue srcName whose
// RedrivePolicy sends messages there after maxReceiveCount deliveries.
func (f *dlqFixture) pair(t *testing.T, srcName, dlqName string, maxReceiveCount int) (src, dlq *sqsq.Queue) {
	t.Helper()
	dlq = f.queue(t, dlqName, sqsq.QueueAttributes{})
	src = f.queue(t, srcName, sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
		DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: maxReceiveCount,
	})})
	return src, dlq
}

// put sends a message and fails the test on error.
func (f *dlqFixture) put(t *testing.T, q *sqsq.Queue, in sqsq.SendInput) sqsq.SendResult {
	t.Helper()
	res, err := q.Send(f.ctx, in)
	if err != nil {
		t.Fatalf("Send(%q) to %s: %v", in.MessageBody, q.Name(), err)
	}
	return res
}

// putBody sends a message with just a body.
func (f *dlqFixture) putBody(t *testing.T, q *sqsq.Queue, body string) sqsq.SendResult {
	t.Helper()
	return f.put(t, q, sqsq.SendInput{MessageBody: body})
}

// get receives from q and fails the test on error.
func (f *dlqFixture) get(t *testing.T, q *sqsq.Queue, in sqsq.ReceiveInput) []sqsq.Message {
	t.Helper()
	msgs, err := q.Receive(f.ctx, in)
	if err != nil {
		t.Fatalf("Receive from %s: %v", q.Name(), err)
	}
	return msgs
}

// getBodies receives from q and returns the bodies, nil for none.
func (f *dlqFixture) getBodies(t *testing.T, q *sqsq.Queue, in sqsq.ReceiveInput) []string {
	t.Helper()
	return msgBodies(f.get(t, q, in))
}

func msgBodies(msgs []sqsq.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Body)
	}
	return out
}

// attrs returns GetAttributes("All") of q.
func (f *dlqFixture) attrs(t *testing.T, q *sqsq.Queue) map[string]string {
	t.Helper()
	m, err := q.GetAttributes(f.ctx, sqsq.AttrAll)
	if err != nil {
		t.Fatalf("GetAttributes(All) of %s: %v", q.Name(), err)
	}
	return m
}

// dlqStats returns q's Stats and fails the test on error.
func dlqStats(t *testing.T, q *sqsq.Queue) sqsq.Stats {
	t.Helper()
	s, err := q.Stats()
	if err != nil {
		t.Fatalf("Stats of %s: %v", q.Name(), err)
	}
	return s
}

// storedIn is how many messages q holds in any state.
func storedIn(t *testing.T, q *sqsq.Queue) int {
	t.Helper()
	s := dlqStats(t, q)
	return s.Visible + s.InFlight + s.Delayed
}

// dlqQueueState is what an error path must leave unchanged.
type dlqQueueState struct {
	Name  string
	Attrs map[string]string
	Stats sqsq.Stats
}

// snapshot records the attributes and stats of qs.
func (f *dlqFixture) snapshot(t *testing.T, qs ...*sqsq.Queue) []dlqQueueState {
	t.Helper()
	out := make([]dlqQueueState, 0, len(qs))
	for _, q := range qs {
		out = append(out, dlqQueueState{q.Name(), f.attrs(t, q), dlqStats(t, q)})
	}
	return out
}

// unchanged fails the test when qs differ from the snapshot before.
func (f *dlqFixture) unchanged(t *testing.T, before []dlqQueueState, reason string, qs ...*sqsq.Queue) {
	t.Helper()
	after := f.snapshot(t, qs...)
	if !reflect.DeepEqual(before, after) {
		t.Errorf("state changed by a failed call\n-before %+v\n+after  %+v\nreason: %s", before, after, reason)
	}
}

// recvAll asks a receive for every system and message attribute.
var recvAll = sqsq.ReceiveInput{MessageSystemAttributeNames: []string{sqsq.SysAll}, MessageAttributeNames: []string{"All"}}

// recvVisZero receives with visibility 0, so the message is visible again at
// once and the next receive selects it again.
var recvVisZero = sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Duration(0)),
	MessageSystemAttributeNames: []string{sqsq.SysAll}}

// invalidRedrive is the text of every invalid-RedrivePolicy error (§2.1).
func invalidRedrive(policy, reason string) string {
	return "Value " + policy + " for parameter RedrivePolicy is invalid. Reason: " + reason
}
