package sqsq_test

// Black-box tests of dead-letter queues: RedrivePolicy and RedriveAllowPolicy
// (docs/sqs-semantics.md §2.1, §7.1, §7.4), the automatic move during a
// receive (§7.2, §7.3, §5.2) and ListDeadLetterSourceQueues (§3.15).
//
// The package already has a setup(t) for a single-queue fixture
// (broker_test.go); these tests need a broker with several queues, so their
// helper is setupDLQ(t). The helpers here are shared with movetask_test.go.

import (
	"context"
	"errors"
	"reflect"
	"strconv"
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

// wantSQSErr fails unless err is an *sqsq.Error with code and, when msg is
// not empty, exactly message msg; code "" wants no error.
func wantSQSErr(t *testing.T, err error, code sqsq.Code, msg, reason string) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Errorf("got error %v, want nil\nreason: %s", err, reason)
		}
		return
	}
	var e *sqsq.Error
	switch {
	case err == nil:
		t.Errorf("got nil error, want %s\nreason: %s", code, reason)
	case !errors.As(err, &e):
		t.Errorf("got %T %v, want *sqsq.Error %s\nreason: %s", err, err, code, reason)
	case e.Code != code:
		t.Errorf("got code %s (%q), want %s\nreason: %s", e.Code, e.Message, code, reason)
	case msg != "" && e.Message != msg:
		t.Errorf("message (-want +got):\n-%q\n+%q\nreason: %s", msg, e.Message, reason)
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

// ---------------------------------------------------------------------------
// Setting, reading and removing the policies.

func TestRedrivePolicySet(t *testing.T) {
	t.Parallel()
	const want = `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":3}`
	typed := sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
		DeadLetterTargetArn: "arn:aws:sqs:us-east-1:000000000000:dlq", MaxReceiveCount: 3,
	})}
	tests := []struct {
		reason string
		onSet  bool              // SetAttributes after creation instead of CreateQueue
		wire   map[string]string // parsed with ParseQueueAttributes; nil uses typed
	}{
		{reason: "a typed policy works on CreateQueue (§7.1: both Create and Set)"},
		{reason: "a typed policy works on SetAttributes", onSet: true},
		{reason: "the JSON form with a numeric maxReceiveCount works on CreateQueue",
			wire: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":3}`}},
		{reason: "the JSON form with a string maxReceiveCount (as the console sends it) works on CreateQueue",
			wire: map[string]string{"RedrivePolicy": `{"maxReceiveCount":"3","deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq"}`}},
		{reason: "the JSON form with a numeric maxReceiveCount works on SetAttributes", onSet: true,
			wire: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:dlq", "maxReceiveCount": 3}`}},
		{reason: "the JSON form with a string maxReceiveCount works on SetAttributes", onSet: true,
			wire: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":"3"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			dlq := f.queue(t, "dlq", sqsq.QueueAttributes{})
			attrs := typed
			if tt.wire != nil {
				var err error
				if attrs, err = sqsq.ParseQueueAttributes(tt.wire); err != nil {
					t.Fatalf("ParseQueueAttributes: %v\nreason: %s", err, tt.reason)
				}
			}
			var src *sqsq.Queue
			if tt.onSet {
				src = f.queue(t, "src", sqsq.QueueAttributes{})
				if err := src.SetAttributes(f.ctx, attrs); err != nil {
					t.Fatalf("SetAttributes: %v\nreason: %s", err, tt.reason)
				}
			} else {
				src = f.queue(t, "src", attrs)
			}
			got := f.attrs(t, src)[sqsq.AttrRedrivePolicy]
			if got != want {
				t.Errorf("RedrivePolicy = %s, want %s (maxReceiveCount a JSON number, §2.1)\nreason: %s", got, want, tt.reason)
			}
			sub, err := src.GetAttributes(f.ctx, sqsq.AttrRedrivePolicy)
			if err != nil || sub[sqsq.AttrRedrivePolicy] != want || len(sub) != 1 {
				t.Errorf("GetAttributes(RedrivePolicy) = %v, %v; want only the policy", sub, err)
			}
			out, err := dlq.ListDeadLetterSourceQueues(f.ctx, sqsq.ListDeadLetterSourceQueuesInput{})
			if err != nil || !reflect.DeepEqual(out.QueueURLs, []string{src.URL()}) {
				t.Errorf("ListDeadLetterSourceQueues = %v, %v; want [%s]", out.QueueURLs, err, src.URL())
			}
		})
	}
}

func TestRedrivePolicyTypedValueIsCopied(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	dlq := f.queue(t, "dlq", sqsq.QueueAttributes{})
	p := &sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 2}
	src := f.queue(t, "src", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(p)})
	p.MaxReceiveCount = 900
	want := `{"deadLetterTargetArn":"` + dlq.ARN() + `","maxReceiveCount":2}`
	if got := f.attrs(t, src)[sqsq.AttrRedrivePolicy]; got != want {
		t.Errorf("RedrivePolicy = %s, want %s: changing the caller's value later must change nothing", got, want)
	}
}

func TestRedrivePolicyRemove(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		attrs  func(t *testing.T) sqsq.QueueAttributes
	}{
		{"setting \"\" on the wire removes the policy (§2.1)", func(t *testing.T) sqsq.QueueAttributes {
			a, err := sqsq.ParseQueueAttributes(map[string]string{"RedrivePolicy": ""})
			if err != nil {
				t.Fatalf("ParseQueueAttributes: %v", err)
			}
			return a
		}},
		{"Some(nil) removes the policy in the typed API", func(*testing.T) sqsq.QueueAttributes {
			return sqsq.QueueAttributes{RedrivePolicy: sqsq.Some[*sqsq.RedrivePolicy](nil)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			src, dlq := f.pair(t, "src", "dlq", 1)
			if err := src.SetAttributes(f.ctx, tt.attrs(t)); err != nil {
				t.Fatalf("SetAttributes: %v", err)
			}
			if v, ok := f.attrs(t, src)[sqsq.AttrRedrivePolicy]; ok {
				t.Errorf("All still has RedrivePolicy %s after removal; removed attributes are omitted", v)
			}
			out, err := dlq.ListDeadLetterSourceQueues(f.ctx, sqsq.ListDeadLetterSourceQueuesInput{})
			if err != nil || out.QueueURLs != nil {
				t.Errorf("ListDeadLetterSourceQueues = %v, %v; want no sources", out.QueueURLs, err)
			}
			// Without a policy nothing is dead-lettered: delivered three times.
			f.putBody(t, src, "m")
			for i := 1; i <= 3; i++ {
				if got := f.getBodies(t, src, recvVisZero); !reflect.DeepEqual(got, []string{"m"}) {
					t.Fatalf("receive %d = %v, want [m]: no policy, no move", i, got)
				}
			}
			if s := dlqStats(t, dlq); s.Visible != 0 || s.DeadLettered != 0 {
				t.Errorf("DLQ stats %+v: nothing may be moved without a policy", s)
			}
		})
	}
}

func TestRedrivePolicyCreateQueueIdempotency(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 4)
	same := sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 4})}
	q, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "src", Attributes: same})
	if err != nil || q != src {
		t.Errorf("CreateQueue with the same policy = %v, %v; want the existing queue", q, err)
	}
	other := sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 5})}
	_, err = f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "src", Attributes: other})
	wantSQSErr(t, err, sqsq.CodeQueueNameExists,
		"A queue already exists with the same name and a different value for attribute RedrivePolicy",
		"a different maxReceiveCount is a different attribute value (§9.1)")
}

func TestRedrivePolicyErrors(t *testing.T) {
	t.Parallel()
	const (
		dlqArn     = "arn:aws:sqs:us-east-1:000000000000:dlq"
		missingArn = "arn:aws:sqs:us-east-1:000000000000:no-such-queue"
	)
	canon := func(arn string, n int) string {
		return `{"deadLetterTargetArn":"` + arn + `","maxReceiveCount":` + strconv.Itoa(n) + `}`
	}
	tests := []struct {
		reason string
		fifo   bool                // the source queue is FIFO
		wire   string              // RedrivePolicy JSON, through ParseQueueAttributes
		typed  *sqsq.RedrivePolicy // or the typed policy
		code   sqsq.Code
		msg    string
	}{
		{
			reason: "maxReceiveCount is mandatory despite the docs' default of 10",
			wire:   `{"deadLetterTargetArn":"` + dlqArn + `"}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{"deadLetterTargetArn":"`+dlqArn+`"}`, "Redrive policy does not contain mandatory attribute: maxReceiveCount."),
		},
		{
			reason: "an empty policy reports maxReceiveCount as the missing key",
			wire:   `{}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{}`, "Redrive policy does not contain mandatory attribute: maxReceiveCount."),
		},
		{
			reason: "deadLetterTargetArn is mandatory",
			wire:   `{"maxReceiveCount":3}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{"maxReceiveCount":3}`, "Redrive policy does not contain mandatory attribute: deadLetterTargetArn."),
		},
		{
			reason: "keys are case-sensitive: MaxReceiveCount counts as missing",
			wire:   `{"deadLetterTargetArn":"` + dlqArn + `","MaxReceiveCount":3}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{"deadLetterTargetArn":"`+dlqArn+`","MaxReceiveCount":3}`, "Redrive policy does not contain mandatory attribute: maxReceiveCount."),
		},
		{
			reason: "keys are case-sensitive: DeadLetterTargetArn counts as missing",
			wire:   `{"DeadLetterTargetArn":"` + dlqArn + `","maxReceiveCount":3}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{"DeadLetterTargetArn":"`+dlqArn+`","maxReceiveCount":3}`, "Redrive policy does not contain mandatory attribute: deadLetterTargetArn."),
		},
		{
			reason: "the dead-letter queue must exist first (wire form)",
			wire:   canon(missingArn, 3),
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(missingArn, 3), "Dead letter target does not exist."),
		},
		{
			reason: "the dead-letter queue must exist first (typed form)",
			typed:  &sqsq.RedrivePolicy{DeadLetterTargetArn: missingArn, MaxReceiveCount: 3},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(missingArn, 3), "Dead letter target does not exist."),
		},
		{
			reason: "a standard source cannot use a FIFO dead-letter queue",
			typed:  &sqsq.RedrivePolicy{DeadLetterTargetArn: "arn:aws:sqs:us-east-1:000000000000:dlq.fifo", MaxReceiveCount: 3},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon("arn:aws:sqs:us-east-1:000000000000:dlq.fifo", 3), "Dead-letter queue must be same type of queue as the source."),
		},
		{
			reason: "a FIFO source cannot use a standard dead-letter queue",
			fifo:   true,
			wire:   canon(dlqArn, 3),
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(dlqArn, 3), "Dead-letter queue must be same type of queue as the source."),
		},
		{
			reason: "maxReceiveCount 0 is below the range 1–1,000 (wire form)",
			wire:   canon(dlqArn, 0),
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(dlqArn, 0), "Invalid value for maxReceiveCount: 0, valid values are from 1 to 1000 both inclusive."),
		},
		{
			reason: "maxReceiveCount 1001 is above the range 1–1,000 (wire form)",
			wire:   canon(dlqArn, 1001),
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(dlqArn, 1001), "Invalid value for maxReceiveCount: 1001, valid values are from 1 to 1000 both inclusive."),
		},
		{
			reason: "maxReceiveCount 0 is below the range (typed form)",
			typed:  &sqsq.RedrivePolicy{DeadLetterTargetArn: dlqArn, MaxReceiveCount: 0},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(dlqArn, 0), "Invalid value for maxReceiveCount: 0, valid values are from 1 to 1000 both inclusive."),
		},
		{
			reason: "maxReceiveCount 1001 is above the range (typed form)",
			typed:  &sqsq.RedrivePolicy{DeadLetterTargetArn: dlqArn, MaxReceiveCount: 1001},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(dlqArn, 1001), "Invalid value for maxReceiveCount: 1001, valid values are from 1 to 1000 both inclusive."),
		},
		{
			reason: "a dead-letter queue of another account is rejected (§7.1; text of AWS-compatible implementations)",
			typed:  &sqsq.RedrivePolicy{DeadLetterTargetArn: "arn:aws:sqs:us-east-1:111111111111:dlq", MaxReceiveCount: 3},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon("arn:aws:sqs:us-east-1:111111111111:dlq", 3), "Dead-letter target owner should be same as the source."),
		},
		{
			reason: "a dead-letter queue of another region is rejected (§7.1; text of AWS-compatible implementations)",
			wire:   canon("arn:aws:sqs:eu-west-1:000000000000:dlq", 3),
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon("arn:aws:sqs:eu-west-1:000000000000:dlq", 3), "Dead-letter target must be in same region as the source."),
		},
		{
			reason: "a denyAll dead-letter queue accepts no source (§7.4)",
			typed:  &sqsq.RedrivePolicy{DeadLetterTargetArn: "arn:aws:sqs:us-east-1:000000000000:deny-dlq", MaxReceiveCount: 3},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon("arn:aws:sqs:us-east-1:000000000000:deny-dlq", 3), "Dead-letter target does not allow this queue as a source."),
		},
		{
			reason: "a byQueue dead-letter queue accepts only the sources it lists (§7.4)",
			wire:   canon("arn:aws:sqs:us-east-1:000000000000:byqueue-dlq", 3),
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon("arn:aws:sqs:us-east-1:000000000000:byqueue-dlq", 3), "Dead-letter target does not allow this queue as a source."),
		},
		{
			reason: "the error quotes the policy JSON as sent, key order and string count included (§2.1)",
			wire:   `{"maxReceiveCount":"3","deadLetterTargetArn":"` + missingArn + `"}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{"maxReceiveCount":"3","deadLetterTargetArn":"`+missingArn+`"}`, "Dead letter target does not exist."),
		},
		{
			reason: "a range error quotes the policy JSON as sent, string count included (§2.1)",
			wire:   `{"deadLetterTargetArn":"` + dlqArn + `","maxReceiveCount":"0"}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{"deadLetterTargetArn":"`+dlqArn+`","maxReceiveCount":"0"}`, "Invalid value for maxReceiveCount: 0, valid values are from 1 to 1000 both inclusive."),
		},
	}
	for _, tt := range tests {
		for _, op := range []string{"CreateQueue", "SetAttributes"} {
			t.Run(op+"/"+tt.reason, func(t *testing.T) {
				t.Parallel()
				f := setupDLQ(t)
				dlqs := []*sqsq.Queue{
					f.queue(t, "dlq", sqsq.QueueAttributes{}),
					f.queue(t, "dlq.fifo", sqsq.QueueAttributes{}),
					f.queue(t, "deny-dlq", sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{
						RedrivePermission: sqsq.RedriveDenyAll,
					})}),
					f.queue(t, "byqueue-dlq", sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{
						RedrivePermission: sqsq.RedriveByQueue,
						SourceQueueArns:   []string{f.arn("someone-else"), f.arn("someone-else.fifo")},
					})}),
				}
				name := "src"
				if tt.fifo {
					name = "src.fifo"
				}
				// The error may come from parsing the wire form already.
				apply := func(attrs func(sqsq.QueueAttributes) error) error {
					if tt.typed != nil {
						return attrs(sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(tt.typed)})
					}
					a, err := sqsq.ParseQueueAttributes(map[string]string{"RedrivePolicy": tt.wire})
					if err != nil {
						return err
					}
					return attrs(a)
				}
				if op == "SetAttributes" {
					src := f.queue(t, name, sqsq.QueueAttributes{})
					f.put(t, src, sqsq.SendInput{MessageBody: "kept", MessageGroupId: groupIf(tt.fifo), MessageDeduplicationId: groupIf(tt.fifo)})
					qs := append([]*sqsq.Queue{src}, dlqs...)
					before := f.snapshot(t, qs...)
					err := apply(func(a sqsq.QueueAttributes) error { return src.SetAttributes(f.ctx, a) })
					wantSQSErr(t, err, tt.code, tt.msg, tt.reason)
					f.unchanged(t, before, tt.reason, qs...)
				} else {
					before := f.snapshot(t, dlqs...)
					err := apply(func(a sqsq.QueueAttributes) error {
						if tt.fifo {
							a.FifoQueue = sqsq.Some(true)
						}
						_, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: name, Attributes: a})
						return err
					})
					wantSQSErr(t, err, tt.code, tt.msg, tt.reason)
					f.unchanged(t, before, tt.reason, dlqs...)
					_, err = f.b.GetQueue(f.ctx, name)
					wantSQSErr(t, err, sqsq.CodeQueueDoesNotExist, "", "a failed CreateQueue creates nothing")
				}
				for _, dlq := range dlqs {
					out, err := dlq.ListDeadLetterSourceQueues(f.ctx, sqsq.ListDeadLetterSourceQueuesInput{})
					if err != nil || out.QueueURLs != nil {
						t.Errorf("%s sources = %v, %v; a rejected policy is not stored", dlq.Name(), out.QueueURLs, err)
					}
				}
			})
		}
	}
}

func TestRedriveAllowPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		allow  *sqsq.RedriveAllowPolicy // on the DLQ; nil: none
		wire   string                   // or the JSON form
		want   string                   // RedriveAllowPolicy as GetAttributes returns it
		ok     bool                     // the source "src" may use the DLQ
	}{
		{reason: "without an allow policy every queue of the account may use the DLQ", ok: true},
		{reason: "allowAll lets any source in", allow: &sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveAllowAll},
			want: `{"redrivePermission":"allowAll"}`, ok: true},
		{reason: "denyAll keeps every source out", wire: `{"redrivePermission":"denyAll"}`,
			want: `{"redrivePermission":"denyAll"}`},
		{reason: "byQueue lets a listed source in",
			allow: &sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveByQueue, SourceQueueArns: []string{
				"arn:aws:sqs:us-east-1:000000000000:other", "arn:aws:sqs:us-east-1:000000000000:src"}},
			want: `{"redrivePermission":"byQueue","sourceQueueArns":["arn:aws:sqs:us-east-1:000000000000:other","arn:aws:sqs:us-east-1:000000000000:src"]}`,
			ok:   true},
		{reason: "byQueue keeps out a source it does not list",
			wire: `{"redrivePermission":"byQueue","sourceQueueArns":["arn:aws:sqs:us-east-1:000000000000:other"]}`,
			want: `{"redrivePermission":"byQueue","sourceQueueArns":["arn:aws:sqs:us-east-1:000000000000:other"]}`},
		{reason: "byQueue accepts 10 ARNs, the maximum",
			allow: &sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveByQueue, SourceQueueArns: tenArns("arn:aws:sqs:us-east-1:000000000000:src")},
			want:  `{"redrivePermission":"byQueue","sourceQueueArns":["` + strings.Join(tenArns("arn:aws:sqs:us-east-1:000000000000:src"), `","`) + `"]}`,
			ok:    true},
	}
	for _, tt := range tests {
		for _, op := range []string{"CreateQueue", "SetAttributes"} {
			t.Run(op+"/"+tt.reason, func(t *testing.T) {
				t.Parallel()
				f := setupDLQ(t)
				var a sqsq.QueueAttributes
				if tt.allow != nil {
					a.RedriveAllowPolicy = sqsq.Some(tt.allow)
				}
				if tt.wire != "" {
					var err error
					if a, err = sqsq.ParseQueueAttributes(map[string]string{"RedriveAllowPolicy": tt.wire}); err != nil {
						t.Fatalf("ParseQueueAttributes: %v", err)
					}
				}
				dlq := f.queue(t, "dlq", a)
				got, has := f.attrs(t, dlq)[sqsq.AttrRedriveAllowPolicy]
				if got != tt.want || has != (tt.want != "") {
					t.Errorf("RedriveAllowPolicy = %q (present %v), want %q", got, has, tt.want)
				}
				policy := sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 2})}
				var err error
				if op == "CreateQueue" {
					_, err = f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "src", Attributes: policy})
				} else {
					src := f.queue(t, "src", sqsq.QueueAttributes{})
					before := f.snapshot(t, src, dlq)
					err = src.SetAttributes(f.ctx, policy)
					if !tt.ok {
						f.unchanged(t, before, tt.reason, src, dlq)
					}
				}
				if tt.ok {
					wantSQSErr(t, err, "", "", tt.reason)
				} else {
					wantSQSErr(t, err, sqsq.CodeInvalidParameterValue,
						invalidRedrive(`{"deadLetterTargetArn":"`+dlq.ARN()+`","maxReceiveCount":2}`, "Dead-letter target does not allow this queue as a source."),
						tt.reason)
				}
			})
		}
	}
}

// groupIf is a group (and deduplication) id for a FIFO send, "" otherwise.
func groupIf(fifo bool) string {
	if fifo {
		return "g"
	}
	return ""
}

// tenArns is 10 distinct queue ARNs, the last one last.
func tenArns(last string) []string {
	var arns []string
	for i := 0; i < 9; i++ {
		arns = append(arns, "arn:aws:sqs:us-east-1:000000000000:q"+strconv.Itoa(i))
	}
	return append(arns, last)
}

func TestRedriveAllowPolicyErrors(t *testing.T) {
	t.Parallel()
	eleven := append(tenArns("arn:aws:sqs:us-east-1:000000000000:q9"), "arn:aws:sqs:us-east-1:000000000000:q10")
	tests := []struct {
		reason string
		wire   string                   // through ParseQueueAttributes
		typed  *sqsq.RedriveAllowPolicy // or typed
	}{
		{reason: "sourceQueueArns only go with byQueue, not allowAll (§7.4)",
			wire: `{"redrivePermission":"allowAll","sourceQueueArns":["arn:aws:sqs:us-east-1:000000000000:src"]}`},
		{reason: "sourceQueueArns only go with byQueue, not denyAll (typed)",
			typed: &sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveDenyAll, SourceQueueArns: []string{"arn:aws:sqs:us-east-1:000000000000:src"}}},
		{reason: "sourceQueueArns with allowAll (typed)",
			typed: &sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveAllowAll, SourceQueueArns: []string{"arn:aws:sqs:us-east-1:000000000000:src"}}},
		{reason: "byQueue takes at most 10 ARNs; use allowAll for more (§7.4)",
			typed: &sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveByQueue, SourceQueueArns: eleven}},
		{reason: "11 ARNs are too many on the wire too",
			wire: `{"redrivePermission":"byQueue","sourceQueueArns":["` + strings.Join(eleven, `","`) + `"]}`},
		{reason: "an unknown permission is invalid", wire: `{"redrivePermission":"allowSome"}`},
		{reason: "redrivePermission is mandatory", wire: `{"sourceQueueArns":[]}`},
	}
	for _, tt := range tests {
		for _, op := range []string{"CreateQueue", "SetAttributes"} {
			t.Run(op+"/"+tt.reason, func(t *testing.T) {
				t.Parallel()
				f := setupDLQ(t)
				apply := func(do func(sqsq.QueueAttributes) error) error {
					if tt.typed != nil {
						return do(sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(tt.typed)})
					}
					a, err := sqsq.ParseQueueAttributes(map[string]string{"RedriveAllowPolicy": tt.wire})
					if err != nil {
						return err
					}
					return do(a)
				}
				if op == "CreateQueue" {
					err := apply(func(a sqsq.QueueAttributes) error {
						_, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "dlq", Attributes: a})
						return err
					})
					wantSQSErr(t, err, sqsq.CodeInvalidParameterValue, "", tt.reason)
					_, err = f.b.GetQueue(f.ctx, "dlq")
					wantSQSErr(t, err, sqsq.CodeQueueDoesNotExist, "", "a failed CreateQueue creates nothing")
					return
				}
				dlq := f.queue(t, "dlq", sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveDenyAll})})
				before := f.snapshot(t, dlq)
				err := apply(func(a sqsq.QueueAttributes) error { return dlq.SetAttributes(f.ctx, a) })
				wantSQSErr(t, err, sqsq.CodeInvalidParameterValue, "", tt.reason)
				f.unchanged(t, before, tt.reason, dlq)
			})
		}
	}
}

func TestRedriveAllowPolicyRemove(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	dlq := f.queue(t, "dlq", sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveDenyAll})})
	a, err := sqsq.ParseQueueAttributes(map[string]string{"RedriveAllowPolicy": ""})
	if err != nil {
		t.Fatalf("ParseQueueAttributes: %v", err)
	}
	if err := dlq.SetAttributes(f.ctx, a); err != nil {
		t.Fatalf("SetAttributes: %v", err)
	}
	if v, ok := f.attrs(t, dlq)[sqsq.AttrRedriveAllowPolicy]; ok {
		t.Errorf("All still has RedriveAllowPolicy %s after removal", v)
	}
	f.queue(t, "src", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})})
}

// ---------------------------------------------------------------------------
// The automatic move (§7.2, §7.3).

func TestDeadLetterAfterMaxReceiveCount(t *testing.T) {
	t.Parallel()
	for _, fifo := range []bool{false, true} {
		name := map[bool]string{false: "standard", true: "FIFO"}[fifo]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			srcName, dlqName := "src", "dlq"
			in := sqsq.SendInput{MessageBody: "poison"}
			if fifo {
				srcName, dlqName = "src.fifo", "dlq.fifo"
				in.MessageGroupId, in.MessageDeduplicationId = "g", "d"
			}
			src, dlq := f.pair(t, srcName, dlqName, 2)
			sent := f.put(t, src, in)
			// Receives 1 and 2 deliver it; each time the consumer fails and
			// the 30 s visibility timeout ends.
			for i := 1; i <= 2; i++ {
				msgs := f.get(t, src, recvAll)
				if len(msgs) != 1 || msgs[0].MessageId != sent.MessageId {
					t.Fatalf("receive %d = %v, want the message: max 2 allows 2 deliveries", i, msgBodies(msgs))
				}
				if got := msgs[0].Attributes[sqsq.SysApproximateReceiveCount]; got != strconv.Itoa(i) {
					t.Errorf("receive %d: ApproximateReceiveCount %s, want %d", i, got, i)
				}
				f.clk.Add(30 * time.Second)
			}
			// Receive 3 moves it and does not return it.
			if got := f.getBodies(t, src, recvAll); got != nil {
				t.Fatalf("receive 3 = %v, want nothing: the receive that moves a message does not return it (§7.2)", got)
			}
			ss, ds := dlqStats(t, src), dlqStats(t, dlq)
			if ss.Visible+ss.InFlight+ss.Delayed != 0 || ss.MovedToDLQ != 1 || ss.DeadLetterFailures != 0 {
				t.Errorf("source stats %+v: want empty, MovedToDLQ 1", ss)
			}
			if ds.Visible != 1 || ds.DeadLettered != 1 || ds.Sent != 0 {
				t.Errorf("DLQ stats %+v: want 1 visible, DeadLettered 1, Sent 0 (a DLQ move is not a send, §7.3)", ds)
			}
			msgs := f.get(t, dlq, recvAll)
			if len(msgs) != 1 || msgs[0].MessageId != sent.MessageId || msgs[0].Body != "poison" {
				t.Fatalf("DLQ receive = %+v, want the same message (same MessageId)", msgs)
			}
			if got := msgs[0].Attributes[sqsq.SysApproximateReceiveCount]; got != "3" {
				t.Errorf("first DLQ receive: ApproximateReceiveCount %s, want 3 (the count carries over)", got)
			}
		})
	}
}

func TestDeadLetterPreservesTheMessage(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	attrs := map[string]sqsq.MessageAttribute{
		"tenant": {DataType: "String", StringValue: "acme"},
		"blob":   {DataType: "Binary", BinaryValue: []byte{1, 2, 3}},
	}
	const trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1"
	sent := f.put(t, src, sqsq.SendInput{
		MessageBody:             "poison",
		MessageAttributes:       attrs,
		MessageSystemAttributes: map[string]sqsq.MessageAttribute{"AWSTraceHeader": {DataType: "String", StringValue: trace}},
	})
	sentAt := f.clk.Now()
	first := f.get(t, src, recvAll)
	if len(first) != 1 {
		t.Fatalf("first receive = %d messages, want 1", len(first))
	}
	f.clk.Add(time.Minute)
	if got := f.getBodies(t, src, recvAll); got != nil {
		t.Fatalf("second receive = %v, want nothing: max 1 moves it on the next receive (§7.2)", got)
	}
	f.clk.Add(time.Minute)
	msgs := f.get(t, dlq, recvAll)
	if len(msgs) != 1 {
		t.Fatalf("DLQ receive = %d messages, want 1", len(msgs))
	}
	m := msgs[0]
	checks := []struct {
		reason    string
		got, want any
	}{
		{"MessageId is kept on a redrive-policy move", m.MessageId, sent.MessageId},
		{"the body is kept", m.Body, "poison"},
		{"MD5OfBody is kept", m.MD5OfBody(), sent.MD5OfMessageBody()},
		{"message attributes are kept", m.MessageAttributes, attrs},
		{"MD5OfMessageAttributes is kept", m.MD5OfMessageAttributes(), sent.MD5OfMessageAttributes()},
		{"ApproximateReceiveCount carries over: the first DLQ receive after a max=1 move reports 2",
			m.Attributes[sqsq.SysApproximateReceiveCount], "2"},
		{"DeadLetterQueueSourceArn is the source's ARN", m.Attributes[sqsq.SysDeadLetterQueueSourceArn], src.ARN()},
		{"SentTimestamp is kept", m.Attributes[sqsq.SysSentTimestamp], strconv.FormatInt(sentAt.UnixMilli(), 10)},
		{"ApproximateFirstReceiveTimestamp is the first receive, in the source",
			m.Attributes[sqsq.SysApproximateFirstReceiveTimestamp], first[0].Attributes[sqsq.SysApproximateFirstReceiveTimestamp]},
		{"AWSTraceHeader is kept", m.Attributes[sqsq.SysAWSTraceHeader], trace},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("got %v, want %v\nreason: %s", c.got, c.want, c.reason)
		}
	}
	if _, ok := first[0].Attributes[sqsq.SysDeadLetterQueueSourceArn]; ok {
		t.Errorf("a message in its source has no DeadLetterQueueSourceArn")
	}
}

func TestDeadLetterRetention(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	tests := []struct {
		reason string
		fifo   bool
		left   time.Duration // how long the message lives in the DLQ after the move
	}{
		{"standard: retention keeps counting from the original send, so a 1-day-old message lives 1 more day in a 2-day DLQ (§5.2)", false, day},
		{"FIFO: retention restarts at the move, so the message lives the DLQ's full 2 days (§5.2)", true, 2 * day},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			srcName, dlqName := "src", "dlq"
			in := sqsq.SendInput{MessageBody: "poison"}
			if tt.fifo {
				srcName, dlqName = "src.fifo", "dlq.fifo"
				in.MessageGroupId, in.MessageDeduplicationId = "g", "d"
			}
			dlq := f.queue(t, dlqName, sqsq.QueueAttributes{MessageRetentionPeriod: sqsq.Some(2 * day)})
			src := f.queue(t, srcName, sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
				DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1,
			})})
			f.put(t, src, in)
			if got := f.getBodies(t, src, sqsq.ReceiveInput{}); len(got) != 1 {
				t.Fatalf("first receive = %v, want the message", got)
			}
			f.clk.Add(day)
			if got := f.getBodies(t, src, sqsq.ReceiveInput{}); got != nil {
				t.Fatalf("receive after a day = %v, want nothing (moved)", got)
			}
			if s := dlqStats(t, dlq); s.Visible != 1 || s.OldestAge != 2*day-tt.left {
				// OldestAge is counted from the enqueue time retention uses.
				t.Errorf("DLQ just after the move: %d visible, OldestAge %v; want 1, %v", s.Visible, s.OldestAge, 2*day-tt.left)
			}
			f.clk.Add(tt.left - time.Second)
			if s := dlqStats(t, dlq); s.Visible != 1 || s.Expired != 0 {
				t.Fatalf("DLQ 1 s before the end of retention: %+v; want the message still there", s)
			}
			f.clk.Add(time.Second)
			if s := dlqStats(t, dlq); s.Visible != 0 || s.Expired != 1 {
				t.Errorf("DLQ at the end of retention: %+v; want it expired", s)
			}
		})
	}
}

func TestDeadLetterFIFO(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src.fifo", "dlq.fifo", 1)
	var sent []sqsq.SendResult
	for _, body := range []string{"A", "B", "C"} {
		sent = append(sent, f.put(t, src, sqsq.SendInput{MessageBody: body, MessageGroupId: "g", MessageDeduplicationId: "dedup-" + body}))
	}
	f.put(t, src, sqsq.SendInput{MessageBody: "X", MessageGroupId: "other", MessageDeduplicationId: "dedup-X"})

	// A, the head of g, is delivered once and its consumer fails; while it is
	// in flight the group is locked.
	if got := f.getBodies(t, src, sqsq.ReceiveInput{}); !reflect.DeepEqual(got, []string{"A"}) {
		t.Fatalf("first receive = %v, want [A]", got)
	}
	if got := f.getBodies(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Hour)}); !reflect.DeepEqual(got, []string{"X"}) {
		t.Fatalf("receive while A is in flight = %v, want [X]: group g is locked", got)
	}
	f.clk.Add(30 * time.Second)
	// The next receive moves A and goes on with B and C, in order.
	if got := f.getBodies(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"B", "C"}) {
		t.Fatalf("receive after A's timeout = %v, want [B C]: A moved, the group continues in order in the same receive (§6.4, §7.2)", got)
	}
	msgs := f.get(t, dlq, recvAll)
	if len(msgs) != 1 {
		t.Fatalf("DLQ receive = %v, want [A]", msgBodies(msgs))
	}
	m := msgs[0]
	checks := []struct {
		reason    string
		got, want string
	}{
		{"MessageId is kept", m.MessageId, sent[0].MessageId},
		{"the body is kept", m.Body, "A"},
		{"MessageGroupId is kept", m.Attributes[sqsq.SysMessageGroupId], "g"},
		{"MessageDeduplicationId is replaced by the MessageId (§7.3)", m.Attributes[sqsq.SysMessageDeduplicationId], sent[0].MessageId},
		{"DeadLetterQueueSourceArn is the source", m.Attributes[sqsq.SysDeadLetterQueueSourceArn], src.ARN()},
		{"ApproximateReceiveCount carries over", m.Attributes[sqsq.SysApproximateReceiveCount], "2"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("got %q, want %q\nreason: %s", c.got, c.want, c.reason)
		}
	}
	if m.Attributes[sqsq.SysSequenceNumber] == "" {
		t.Errorf("a message in a FIFO DLQ has a SequenceNumber")
	}
}

// TestDeadLetterFIFOHeadBeforeDeletedMessage: the receive that dead-letters
// a group's head must step over a later message of the group that is
// already deleted (found by TestMoveTaskConservation).
func TestDeadLetterFIFOHeadBeforeDeletedMessage(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src.fifo", "dlq.fifo", 1)
	f.put(t, src, sqsq.SendInput{MessageBody: "A", MessageGroupId: "g", MessageDeduplicationId: "a"})
	f.put(t, src, sqsq.SendInput{MessageBody: "B", MessageGroupId: "g", MessageDeduplicationId: "b"})
	msgs := f.get(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	if !reflect.DeepEqual(msgBodies(msgs), []string{"A", "B"}) {
		t.Fatalf("receive = %v, want [A B]", msgBodies(msgs))
	}
	if err := src.Delete(f.ctx, msgs[1].ReceiptHandle); err != nil {
		t.Fatal(err)
	}
	f.clk.Add(30 * time.Second)
	if got := f.getBodies(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); got != nil {
		t.Errorf("receive = %v, want nothing: A is moved, B is deleted", got)
	}
	if got := f.getBodies(t, dlq, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"A"}) {
		t.Errorf("DLQ holds %v, want [A]", got)
	}
}

func TestDeadLetterFIFOSharedDedupIDsStayApart(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src.fifo", "dlq.fifo", 1)
	// Two independent messages share a deduplication id (allowed in
	// different groups with messageGroup scope).
	if err := src.SetAttributes(f.ctx, sqsq.QueueAttributes{DeduplicationScope: sqsq.Some("messageGroup")}); err != nil {
		t.Fatal(err)
	}
	f.put(t, src, sqsq.SendInput{MessageBody: "one", MessageGroupId: "g1", MessageDeduplicationId: "same"})
	f.put(t, src, sqsq.SendInput{MessageBody: "two", MessageGroupId: "g2", MessageDeduplicationId: "same"})
	f.get(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	f.clk.Add(30 * time.Second)
	f.get(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	if got := f.getBodies(t, dlq, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); len(got) != 2 {
		t.Errorf("DLQ holds %v, want both: their deduplication ids became their MessageIds (§7.3)", got)
	}
}

func TestDeadLetterDLQDeleted(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.putBody(t, src, "poison")
	f.get(t, src, recvVisZero)
	if err := f.b.DeleteQueue(f.ctx, dlq.ARN()); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 3; i++ {
		msgs := f.get(t, src, recvVisZero)
		if len(msgs) != 1 || msgs[0].Attributes[sqsq.SysApproximateReceiveCount] != strconv.Itoa(i) {
			t.Fatalf("receive %d = %+v; want the message delivered normally: its DLQ is gone (§7.2 [EMU])", i, msgs)
		}
	}
	s := dlqStats(t, src)
	if s.DeadLetterFailures != 2 || s.MovedToDLQ != 0 {
		t.Errorf("source stats: DeadLetterFailures %d, MovedToDLQ %d; want 2, 0", s.DeadLetterFailures, s.MovedToDLQ)
	}
	if _, ok := f.attrs(t, src)[sqsq.AttrRedrivePolicy]; !ok {
		t.Errorf("the policy stays although its DLQ is gone")
	}
	// A new queue of the same name is a DLQ again.
	f.clk.Add(time.Minute)
	dlq2 := f.queue(t, "dlq", sqsq.QueueAttributes{})
	if got := f.getBodies(t, src, recvVisZero); got != nil {
		t.Errorf("receive with the DLQ back = %v, want nothing (moved)", got)
	}
	if got := storedIn(t, dlq2); got != 1 {
		t.Errorf("the recreated DLQ holds %d messages, want 1", got)
	}
}

func TestDeadLetterAllowPolicyChangedLater(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.putBody(t, src, "poison")
	f.get(t, src, recvVisZero)
	deny := sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveDenyAll})}
	if err := dlq.SetAttributes(f.ctx, deny); err != nil {
		t.Fatal(err)
	}
	if got := f.getBodies(t, src, recvVisZero); !reflect.DeepEqual(got, []string{"poison"}) {
		t.Fatalf("receive = %v, want the message delivered: the DLQ now forbids the source (§7.4 [EMU])", got)
	}
	if s := dlqStats(t, src); s.DeadLetterFailures != 1 || s.MovedToDLQ != 0 {
		t.Errorf("source: DeadLetterFailures %d, MovedToDLQ %d; want 1, 0", s.DeadLetterFailures, s.MovedToDLQ)
	}
	if got := storedIn(t, dlq); got != 0 {
		t.Errorf("DLQ holds %d messages, want 0", got)
	}
	// Allowing it again by name moves it.
	allow := sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{
		RedrivePermission: sqsq.RedriveByQueue, SourceQueueArns: []string{src.ARN()}})}
	if err := dlq.SetAttributes(f.ctx, allow); err != nil {
		t.Fatal(err)
	}
	if got := f.getBodies(t, src, recvVisZero); got != nil {
		t.Errorf("receive = %v, want nothing: the source is allowed again", got)
	}
	if got := storedIn(t, dlq); got != 1 {
		t.Errorf("DLQ holds %d messages, want 1", got)
	}
}

func TestDeadLetterCounters(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	dlq := f.queue(t, "dlq", sqsq.QueueAttributes{})
	policy := sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})}
	a := f.queue(t, "src-a", policy)
	b := f.queue(t, "src-b", policy)
	for i := 0; i < 3; i++ {
		f.putBody(t, a, "a"+strconv.Itoa(i))
	}
	f.putBody(t, b, "b0")
	f.putBody(t, dlq, "sent directly")
	for _, q := range []*sqsq.Queue{a, b} {
		f.get(t, q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Duration(0))})
		if got := f.getBodies(t, q, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); got != nil {
			t.Fatalf("%s: second receive = %v, want nothing (all moved)", q.Name(), got)
		}
	}
	sa, sb, sd := dlqStats(t, a), dlqStats(t, b), dlqStats(t, dlq)
	if sa.MovedToDLQ != 3 || sb.MovedToDLQ != 1 {
		t.Errorf("MovedToDLQ = %d, %d; want 3, 1", sa.MovedToDLQ, sb.MovedToDLQ)
	}
	if sd.DeadLettered != 4 || sd.Sent != 1 || sd.Visible != 5 {
		t.Errorf("DLQ: DeadLettered %d, Sent %d, Visible %d; want 4, 1 (only the explicit send), 5", sd.DeadLettered, sd.Sent, sd.Visible)
	}
	if sa.Received != 3 || sa.EmptyReceives != 1 {
		t.Errorf("source a: Received %d, EmptyReceives %d; want 3 and 1 (the moving receive returned nothing)", sa.Received, sa.EmptyReceives)
	}
}

func TestDeadLetterWakesLongPollOnDLQ(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.putBody(t, src, "poison")
	f.get(t, src, recvVisZero)

	type result struct {
		msgs []sqsq.Message
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		msgs, err := dlq.Receive(f.ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		ch <- result{msgs, err}
	}()
	if err := dlq.WaitForReceivers(f.ctx, 1); err != nil {
		t.Fatal(err)
	}
	start := f.clk.Now()
	if got := f.getBodies(t, src, recvVisZero); got != nil {
		t.Fatalf("source receive = %v, want nothing (moved)", got)
	}
	r := <-ch
	if r.err != nil || !reflect.DeepEqual(msgBodies(r.msgs), []string{"poison"}) {
		t.Fatalf("DLQ long poll = %v, %v; want [poison]: a DLQ move wakes it (§5.3)", msgBodies(r.msgs), r.err)
	}
	if d := f.clk.Now().Sub(start); d != 0 {
		t.Errorf("the long poll returned after %v of clock time, want 0", d)
	}
}

func TestDeadLetterTimeAloneNeverMoves(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.putBody(t, src, "poison")
	f.get(t, src, sqsq.ReceiveInput{})
	f.clk.Add(time.Hour)
	if s := dlqStats(t, src); s.Visible != 1 || s.MovedToDLQ != 0 {
		t.Errorf("source after an hour: %+v; want the message visible, not moved: only a receive moves (§7.2)", s)
	}
	if got := storedIn(t, dlq); got != 0 {
		t.Errorf("DLQ holds %d, want 0", got)
	}
}

// ---------------------------------------------------------------------------
// ListDeadLetterSourceQueues (§3.15).

func TestListDeadLetterSourceQueues(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	dlq := f.queue(t, "dlq", sqsq.QueueAttributes{})
	other := f.queue(t, "other-dlq", sqsq.QueueAttributes{})
	to := func(q *sqsq.Queue) sqsq.QueueAttributes {
		return sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: q.ARN(), MaxReceiveCount: 5})}
	}
	c := f.queue(t, "src-c", to(dlq))
	a := f.queue(t, "src-a", to(dlq))
	f.queue(t, "src-elsewhere", to(other))
	f.queue(t, "plain", sqsq.QueueAttributes{})
	b := f.queue(t, "src-b", sqsq.QueueAttributes{})
	if err := b.SetAttributes(f.ctx, to(dlq)); err != nil {
		t.Fatal(err)
	}
	gone := f.queue(t, "src-gone", to(dlq))
	if err := f.b.DeleteQueue(f.ctx, gone.URL()); err != nil {
		t.Fatal(err)
	}
	list := func(in sqsq.ListDeadLetterSourceQueuesInput) sqsq.ListQueuesOutput {
		t.Helper()
		out, err := dlq.ListDeadLetterSourceQueues(f.ctx, in)
		if err != nil {
			t.Fatalf("ListDeadLetterSourceQueues(%+v): %v", in, err)
		}
		return out
	}
	all := list(sqsq.ListDeadLetterSourceQueuesInput{})
	if want := []string{a.URL(), b.URL(), c.URL()}; !reflect.DeepEqual(all.QueueURLs, want) || all.NextToken != "" {
		t.Errorf("all sources = %v (token %q), want %v in name order, no token; deleted and unrelated queues are not listed", all.QueueURLs, all.NextToken, want)
	}
	p1 := list(sqsq.ListDeadLetterSourceQueuesInput{MaxResults: sqsq.Some(2)})
	if want := []string{a.URL(), b.URL()}; !reflect.DeepEqual(p1.QueueURLs, want) || p1.NextToken == "" {
		t.Fatalf("page 1 = %v (token %q), want %v and a token", p1.QueueURLs, p1.NextToken, want)
	}
	p2 := list(sqsq.ListDeadLetterSourceQueuesInput{MaxResults: sqsq.Some(2), NextToken: p1.NextToken})
	if want := []string{c.URL()}; !reflect.DeepEqual(p2.QueueURLs, want) || p2.NextToken != "" {
		t.Errorf("page 2 = %v (token %q), want %v and no token", p2.QueueURLs, p2.NextToken, want)
	}

	// Removing a policy removes the source from the list.
	if err := c.SetAttributes(f.ctx, sqsq.QueueAttributes{RedrivePolicy: sqsq.Some[*sqsq.RedrivePolicy](nil)}); err != nil {
		t.Fatal(err)
	}
	if got := list(sqsq.ListDeadLetterSourceQueuesInput{}).QueueURLs; !reflect.DeepEqual(got, []string{a.URL(), b.URL()}) {
		t.Errorf("after removing src-c's policy: %v", got)
	}
}

func TestListDeadLetterSourceQueuesEmpty(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	q := f.queue(t, "lonely", sqsq.QueueAttributes{})
	out, err := q.ListDeadLetterSourceQueues(f.ctx, sqsq.ListDeadLetterSourceQueuesInput{})
	if err != nil || out.QueueURLs != nil || out.NextToken != "" {
		t.Errorf("= %#v, %v; want nil URLs and no error: no source is not an error (§3.15)", out, err)
	}
}

func TestListDeadLetterSourceQueuesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		in     sqsq.ListDeadLetterSourceQueuesInput
		drop   bool // delete the DLQ first
		code   sqsq.Code
		msg    string
	}{
		{reason: "a deleted DLQ does not exist", drop: true, code: sqsq.CodeQueueDoesNotExist, msg: "The specified queue does not exist."},
		{reason: "MaxResults 0 is below 1–1,000", in: sqsq.ListDeadLetterSourceQueuesInput{MaxResults: sqsq.Some(0)}, code: sqsq.CodeInvalidParameterValue},
		{reason: "MaxResults 1001 is above 1–1,000", in: sqsq.ListDeadLetterSourceQueuesInput{MaxResults: sqsq.Some(1001)}, code: sqsq.CodeInvalidParameterValue},
		{reason: "a NextToken sqsq never issued is invalid", in: sqsq.ListDeadLetterSourceQueuesInput{NextToken: "!!not-a-token!!"}, code: sqsq.CodeInvalidParameterValue},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			src, dlq := f.pair(t, "src", "dlq", 3)
			if tt.drop {
				if err := f.b.DeleteQueue(f.ctx, dlq.URL()); err != nil {
					t.Fatal(err)
				}
			}
			before := f.snapshot(t, src)
			out, err := dlq.ListDeadLetterSourceQueues(f.ctx, tt.in)
			wantSQSErr(t, err, tt.code, tt.msg, tt.reason)
			if out.QueueURLs != nil {
				t.Errorf("URLs %v returned with an error", out.QueueURLs)
			}
			f.unchanged(t, before, tt.reason, src)
		})
	}
}
