package sqsq_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// Helpers shared by the black-box tests of the core (broker, attributes,
// send, receive, visibility, long poll, purge and tags).

// epoch is where every test's mock clock starts. It has a millisecond and a
// sub-millisecond part so that timestamp truncation shows.
var epoch = time.Date(2024, time.March, 1, 12, 0, 0, 123_456_789, time.UTC)

// fixture is the per-test bundle: a broker on a mock clock and one standard
// queue with default attributes.
type fixture struct {
	ctx context.Context
	clk *clock.Mock
	b   *sqsq.Broker
	q   *sqsq.Queue
}

// setup builds a broker on a mock clock set to epoch, with opts, and creates
// the standard queue "test-queue". The broker is closed when the test ends,
// which also releases any receive a failed test left parked.
func setup(t *testing.T, opts ...sqsq.Option) *fixture {
	t.Helper()
	clk := clock.NewMock()
	clk.Set(epoch)
	b := sqsq.NewBroker(append([]sqsq.Option{sqsq.WithClock(clk)}, opts...)...)
	t.Cleanup(func() { _ = b.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f := &fixture{ctx: ctx, clk: clk, b: b}
	f.q = f.create(t, "test-queue", sqsq.QueueAttributes{})
	return f
}

// create creates a queue and fails the test on error.
func (f *fixture) create(t *testing.T, name string, attrs sqsq.QueueAttributes) *sqsq.Queue {
	t.Helper()
	q, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: name, Attributes: attrs})
	if err != nil {
		t.Fatalf("CreateQueue(%q): %v", name, err)
	}
	return q
}

// set changes attributes of f.q and fails the test on error.
func (f *fixture) set(t *testing.T, attrs sqsq.QueueAttributes) {
	t.Helper()
	if err := f.q.SetAttributes(f.ctx, attrs); err != nil {
		t.Fatalf("SetAttributes: %v", err)
	}
}

// send sends body to q and fails the test on error.
func (f *fixture) send(t *testing.T, q *sqsq.Queue, body string) sqsq.SendResult {
	t.Helper()
	return f.sendInput(t, q, sqsq.SendInput{MessageBody: body})
}

func (f *fixture) sendInput(t *testing.T, q *sqsq.Queue, in sqsq.SendInput) sqsq.SendResult {
	t.Helper()
	res, err := q.Send(f.ctx, in)
	if err != nil {
		t.Fatalf("Send(%.20q): %v", in.MessageBody, err)
	}
	return res
}

// receive receives from q and fails the test on error.
func (f *fixture) receive(t *testing.T, q *sqsq.Queue, in sqsq.ReceiveInput) []sqsq.Message {
	t.Helper()
	msgs, err := q.Receive(f.ctx, in)
	if err != nil {
		t.Fatalf("Receive: %v", err)
	}
	return msgs
}

// receiveOne receives exactly one message from q (short poll).
func (f *fixture) receiveOne(t *testing.T, q *sqsq.Queue, in sqsq.ReceiveInput) sqsq.Message {
	t.Helper()
	msgs := f.receive(t, q, in)
	if len(msgs) != 1 {
		t.Fatalf("Receive returned %d messages (%v), want 1", len(msgs), bodies(msgs))
	}
	return msgs[0]
}

// stats returns q's Stats and fails the test on error.
func stats(t *testing.T, q *sqsq.Queue) sqsq.Stats {
	t.Helper()
	s, err := q.Stats()
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	return s
}

// allAttrs returns GetAttributes("All") of q.
func (f *fixture) allAttrs(t *testing.T, q *sqsq.Queue) map[string]string {
	t.Helper()
	m, err := q.GetAttributes(f.ctx, sqsq.AttrAll)
	if err != nil {
		t.Fatalf("GetAttributes(All): %v", err)
	}
	return m
}

// bodies lists the bodies of msgs, nil for none.
func bodies(msgs []sqsq.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Body)
	}
	return out
}

// diff returns "" when want and got are deeply equal, else a (-want +got)
// report of both values.
func diff(want, got any) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return fmt.Sprintf("-want %+v\n+got  %+v", want, got)
}

// wantErr fails unless err is an *sqsq.Error with code (nil when code is
// "") and, when msg is not empty, exactly message msg. It reports reason.
func wantErr(t *testing.T, err error, code sqsq.Code, msg, reason string) {
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
	case !errors.Is(err, &sqsq.Error{Code: code}):
		t.Errorf("errors.Is(err, code %s) = false\nreason: %s", code, reason)
	}
}

func TestCreateQueueNames(t *testing.T) {
	t.Parallel()
	const nameReason = "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
	tests := []struct {
		reason string
		name   string
		fifo   bool
		code   sqsq.Code
	}{
		{"letters, digits, hyphen and underscore are the alphabet", "Orders_2024-a", false, ""},
		{"a single character is the minimum", "a", false, ""},
		{"80 characters is the maximum", strings.Repeat("n", 80), false, ""},
		{"81 characters is one too many", strings.Repeat("n", 81), false, sqsq.CodeInvalidParameterValue},
		{"the name is required", "", false, sqsq.CodeInvalidParameterValue},
		{"space is not in the alphabet", "my queue", false, sqsq.CodeInvalidParameterValue},
		{"slash is not in the alphabet", "a/b", false, sqsq.CodeInvalidParameterValue},
		{"a dot is only allowed as the .fifo suffix", "a.b", false, sqsq.CodeInvalidParameterValue},
		{"punctuation is not in the alphabet", "bang!", false, sqsq.CodeInvalidParameterValue},
		{"non-ASCII letters are not in the alphabet", "queueä", false, sqsq.CodeInvalidParameterValue},
		{"a standard queue's name cannot end in .fifo", "orders.fifo", false, sqsq.CodeInvalidParameterValue},
		{"a FIFO queue's name must end in .fifo", "orders", true, sqsq.CodeInvalidParameterValue},
		{"a FIFO name of 80 characters including .fifo is allowed", strings.Repeat("f", 75) + ".fifo", true, ""},
		{"the .fifo suffix counts toward the 80 characters", strings.Repeat("f", 76) + ".fifo", true, sqsq.CodeInvalidParameterValue},
		{"a FIFO name needs a base before .fifo", ".fifo", true, sqsq.CodeInvalidParameterValue},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			in := sqsq.CreateQueueInput{QueueName: tt.name}
			if tt.fifo {
				in.Attributes.FifoQueue = sqsq.Some(true)
			}
			q, err := f.b.CreateQueue(f.ctx, in)
			wantErr(t, err, tt.code, "", tt.reason)
			if tt.code == "" {
				if q == nil || q.Name() != tt.name || q.FIFO() != tt.fifo {
					t.Fatalf("CreateQueue(%q) = %v, want a queue of that name (fifo %v)\nreason: %s", tt.name, q, tt.fifo, tt.reason)
				}
				return
			}
			if !tt.fifo {
				wantErr(t, err, tt.code, nameReason, tt.reason)
			}
			if _, err := f.b.GetQueue(f.ctx, tt.name); tt.name != "" && !errors.Is(err, sqsq.ErrQueueDoesNotExist) {
				t.Errorf("after a failed CreateQueue, GetQueue(%q) = %v, want QueueDoesNotExist\nreason: %s", tt.name, err, tt.reason)
			}
		})
	}
}

func TestCreateQueueNamesAreCaseSensitive(t *testing.T) {
	t.Parallel()
	f := setup(t)
	upper := f.create(t, "Test-queue", sqsq.QueueAttributes{})
	lower := f.create(t, "test-queue", sqsq.QueueAttributes{})
	if upper == lower {
		t.Fatal(`"Test-queue" and "test-queue" are the same queue; names are case-sensitive (§1.1)`)
	}
	if lower != f.q {
		t.Error(`CreateQueue("test-queue") did not return the existing queue`)
	}
	if upper.URL() == lower.URL() {
		t.Errorf("both queues have URL %s", upper.URL())
	}
}

func TestCreateQueueIdempotency(t *testing.T) {
	t.Parallel()
	const existsMsg = "A queue already exists with the same name and a different value for attribute "
	base := sqsq.QueueAttributes{
		VisibilityTimeout: sqsq.Some(60 * time.Second),
		DelaySeconds:      sqsq.Some(5 * time.Second),
	}
	tests := []struct {
		reason string
		again  sqsq.QueueAttributes
		code   sqsq.Code
		attr   string // the attribute QueueNameExists names
	}{
		{"no attributes returns the existing queue, whatever its attributes", sqsq.QueueAttributes{}, "", ""},
		{"the same attributes return the existing queue", base, "", ""},
		{"a subset with equal values is compared only on what it sets",
			sqsq.QueueAttributes{DelaySeconds: sqsq.Some(5 * time.Second)}, "", ""},
		{"an attribute equal to its default still equals the queue's value",
			sqsq.QueueAttributes{MaximumMessageSize: sqsq.Some(1048576)}, "", ""},
		{"a different VisibilityTimeout is named",
			sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(61 * time.Second)}, sqsq.CodeQueueNameExists, "VisibilityTimeout"},
		{"DelaySeconds 0 differs from the queue's current 5 s",
			sqsq.QueueAttributes{DelaySeconds: sqsq.Some(0 * time.Second)}, sqsq.CodeQueueNameExists, "DelaySeconds"},
		{"a setting the queue left at its default differs when given another value",
			sqsq.QueueAttributes{MessageRetentionPeriod: sqsq.Some(60 * time.Second)}, sqsq.CodeQueueNameExists, "MessageRetentionPeriod"},
		{"when several differ the first in alphabetical order is named",
			sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(1 * time.Second), DelaySeconds: sqsq.Some(1 * time.Second)},
			sqsq.CodeQueueNameExists, "DelaySeconds"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			q := f.create(t, "idem", base)
			before := f.allAttrs(t, q)
			got, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "idem", Attributes: tt.again})
			msg := ""
			if tt.code != "" {
				msg = existsMsg + tt.attr
			}
			wantErr(t, err, tt.code, msg, tt.reason)
			if tt.code == "" && got != q {
				t.Errorf("CreateQueue returned %p, want the existing queue %p\nreason: %s", got, q, tt.reason)
			}
			if d := diff(before, f.allAttrs(t, q)); d != "" {
				t.Errorf("a repeated CreateQueue changed the queue's attributes:\n%s\nreason: %s", d, tt.reason)
			}
		})
	}
}

func TestCreateQueueIdempotencyUsesCurrentValues(t *testing.T) {
	t.Parallel()
	f := setup(t)
	q := f.create(t, "idem", sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(60 * time.Second)})
	if err := q.SetAttributes(f.ctx, sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(90 * time.Second)}); err != nil {
		t.Fatal(err)
	}

	_, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "idem",
		Attributes: sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(60 * time.Second)}})
	wantErr(t, err, sqsq.CodeQueueNameExists,
		"A queue already exists with the same name and a different value for attribute VisibilityTimeout",
		"the creation-time value no longer matches after SetAttributes changed it (§3.2)")

	got, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "idem",
		Attributes: sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(90 * time.Second)}})
	wantErr(t, err, "", "", "the current value matches (§3.2)")
	if got != q {
		t.Errorf("CreateQueue with the current value returned %p, want the existing queue %p", got, q)
	}
}

func TestCreateQueueIgnoresTagsWhenItExists(t *testing.T) {
	t.Parallel()
	f := setup(t)
	q, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "tagged", Tags: map[string]string{"team": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "tagged", Tags: map[string]string{"team": "b"}}); err != nil {
		t.Fatalf("repeated CreateQueue with other tags: %v", err)
	}
	tags, err := q.Tags(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(map[string]string{"team": "a"}, tags); d != "" {
		t.Errorf("tags after a repeated CreateQueue (sqsq ignores tags then, §3.2):\n%s", d)
	}
}

func TestQueueDeletedRecently(t *testing.T) {
	t.Parallel()
	const msg = "You must wait 60 seconds after deleting a queue before you can create another with the same name."
	tests := []struct {
		reason string
		after  time.Duration
		code   sqsq.Code
	}{
		{"the same instant is within the 60 s", 0, sqsq.CodeQueueDeletedRecently},
		{"59 s is within the 60 s", 59 * time.Second, sqsq.CodeQueueDeletedRecently},
		{"just under 60 s is within the 60 s", 60*time.Second - time.Millisecond, sqsq.CodeQueueDeletedRecently},
		{"60 s of clock time ends the block", 60 * time.Second, ""},
		{"later is fine too", time.Hour, ""},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			old := f.create(t, "recycled", sqsq.QueueAttributes{})
			if err := f.b.DeleteQueue(f.ctx, old.URL()); err != nil {
				t.Fatal(err)
			}
			f.clk.Add(tt.after)
			q, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "recycled"})
			if tt.code != "" {
				wantErr(t, err, tt.code, msg, tt.reason)
				return
			}
			wantErr(t, err, "", "", tt.reason)
			if q == old {
				t.Errorf("the re-created queue is the deleted *Queue\nreason: %s", tt.reason)
			}
			if _, err := old.Stats(); !errors.Is(err, sqsq.ErrQueueDoesNotExist) {
				t.Errorf("the deleted *Queue works again after re-creation: %v\nreason: %s", err, tt.reason)
			}
		})
	}
}

func TestQueueDeletedRecentlyOnlyThatName(t *testing.T) {
	t.Parallel()
	f := setup(t)
	if err := f.q.DeleteQueue(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.create(t, "another-queue", sqsq.QueueAttributes{})
	f.create(t, "Test-queue", sqsq.QueueAttributes{}) // names are case-sensitive
}

func TestRecreateDelayOption(t *testing.T) {
	t.Parallel()
	f := setup(t, sqsq.WithRecreateDelay(0))
	if err := f.q.DeleteQueue(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.create(t, "test-queue", sqsq.QueueAttributes{})
}

func TestGetQueue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		ref    string
		found  bool
	}{
		{"a bare name resolves in the broker's account and region", "test-queue", true},
		{"the queue's own URL", "https://sqs.us-east-1.sqsq.invalid/000000000000/test-queue", true},
		{"a real-looking AWS URL: scheme and host are ignored", "https://sqs.us-east-1.amazonaws.com/000000000000/test-queue", true},
		{"a local emulator URL with a port", "http://localhost:9324/000000000000/test-queue", true},
		{"the legacy queue.amazonaws.com URL", "https://queue.amazonaws.com/000000000000/test-queue", true},
		{"the /queue/{region}/{account}/{name} path", "http://localhost:4566/queue/us-east-1/000000000000/test-queue", true},
		{"a trailing slash is ignored", "http://localhost:9324/000000000000/test-queue/", true},
		{"the queue's ARN", "arn:aws:sqs:us-east-1:000000000000:test-queue", true},
		{"names are case-sensitive", "Test-queue", false},
		{"an unknown name", "nope", false},
		{"an empty reference", "", false},
		{"a URL of another account", "https://sqs.us-east-1.amazonaws.com/123456789012/test-queue", false},
		{"a URL naming another queue", "https://sqs.us-east-1.amazonaws.com/000000000000/other", false},
		{"a URL without an account segment", "https://sqs.us-east-1.amazonaws.com/test-queue", false},
		{"an ARN of another region", "arn:aws:sqs:eu-west-1:000000000000:test-queue", false},
		{"an ARN of another account", "arn:aws:sqs:us-east-1:123456789012:test-queue", false},
		{"an ARN of another partition", "arn:aws-cn:sqs:us-east-1:000000000000:test-queue", false},
		{"an ARN of another service", "arn:aws:sns:us-east-1:000000000000:test-queue", false},
		{"a malformed ARN", "arn:aws:sqs:us-east-1:test-queue", false},
	}
	f := setup(t)
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			q, err := f.b.GetQueue(f.ctx, tt.ref)
			if !tt.found {
				wantErr(t, err, sqsq.CodeQueueDoesNotExist, "The specified queue does not exist.", tt.reason)
				return
			}
			wantErr(t, err, "", "", tt.reason)
			if q != f.q {
				t.Errorf("GetQueue(%q) = %v, want test-queue\nreason: %s", tt.ref, q, tt.reason)
			}
		})
	}
}

func TestQueueIdentity(t *testing.T) {
	t.Parallel()
	f := setup(t)
	want := []string{"test-queue", "https://sqs.us-east-1.sqsq.invalid/000000000000/test-queue",
		"arn:aws:sqs:us-east-1:000000000000:test-queue"}
	if d := diff(want, []string{f.q.Name(), f.q.URL(), f.q.ARN()}); d != "" {
		t.Errorf("name, URL, ARN of a default broker's queue (§1.3):\n%s", d)
	}
	attrs := f.allAttrs(t, f.q)
	if attrs[sqsq.AttrQueueArn] != f.q.ARN() {
		t.Errorf("QueueArn attribute = %q, want %q", attrs[sqsq.AttrQueueArn], f.q.ARN())
	}
}

func TestGetQueueConfiguredAccountRegion(t *testing.T) {
	t.Parallel()
	f := setup(t, sqsq.WithRegion("eu-west-2"), sqsq.WithAccountID("123456789012"),
		sqsq.WithBaseURL("http://127.0.0.1:9324/"))
	want := []string{"http://127.0.0.1:9324/123456789012/test-queue", "arn:aws:sqs:eu-west-2:123456789012:test-queue"}
	if d := diff(want, []string{f.q.URL(), f.q.ARN()}); d != "" {
		t.Errorf("URL and ARN with a configured account, region and base URL:\n%s", d)
	}
	tests := []struct {
		reason string
		ref    string
		found  bool
	}{
		{"own URL", f.q.URL(), true},
		{"own ARN", f.q.ARN(), true},
		{"the default account is not this broker's", "http://127.0.0.1:9324/000000000000/test-queue", false},
		{"the default region is not this broker's", "arn:aws:sqs:us-east-1:123456789012:test-queue", false},
	}
	for _, tt := range tests {
		_, err := f.b.GetQueue(f.ctx, tt.ref)
		if tt.found {
			wantErr(t, err, "", "", tt.reason)
		} else {
			wantErr(t, err, sqsq.CodeQueueDoesNotExist, "", tt.reason)
		}
	}
}

// createAll creates the named queues (beside test-queue).
func (f *fixture) createAll(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		f.create(t, n, sqsq.QueueAttributes{})
	}
}

func (f *fixture) urls(names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, "https://sqs.us-east-1.sqsq.invalid/000000000000/"+n)
	}
	return out
}

func TestListQueues(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.createAll(t, "b-2", "a-1", "b-1", "B-3", "c")
	tests := []struct {
		reason string
		prefix string
		want   []string
	}{
		{"no prefix lists every queue in name order", "", []string{"B-3", "a-1", "b-1", "b-2", "c", "test-queue"}},
		{"a prefix keeps matching names", "b-", []string{"b-1", "b-2"}},
		{"the prefix is case-sensitive", "B", []string{"B-3"}},
		{"a full name is a prefix of itself", "c", []string{"c"}},
		{"no match gives no URLs at all (nil, not empty)", "zzz", nil},
	}
	for _, tt := range tests {
		out, err := f.b.ListQueues(f.ctx, sqsq.ListQueuesInput{QueueNamePrefix: tt.prefix})
		if err != nil {
			t.Fatalf("ListQueues(%q): %v", tt.prefix, err)
		}
		if d := diff(sqsq.ListQueuesOutput{QueueURLs: f.urls(tt.want...)}, out); d != "" {
			t.Errorf("ListQueues(prefix %q):\n%s\nreason: %s", tt.prefix, d, tt.reason)
		}
	}
}

func TestListQueuesPagination(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.createAll(t, "p-1", "p-2", "p-3", "p-4", "p-5")

	var pages [][]string
	in := sqsq.ListQueuesInput{QueueNamePrefix: "p-", MaxResults: sqsq.Some(2)}
	for i := 0; ; i++ {
		if i > 5 {
			t.Fatalf("pagination does not end: pages %v", pages)
		}
		out, err := f.b.ListQueues(f.ctx, in)
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		pages = append(pages, out.QueueURLs)
		if out.NextToken == "" {
			break
		}
		in.NextToken = out.NextToken
	}
	want := [][]string{f.urls("p-1", "p-2"), f.urls("p-3", "p-4"), f.urls("p-5")}
	if d := diff(want, pages); d != "" {
		t.Errorf("pages of 2 (§3.4):\n%s", d)
	}

	t.Run("a last page that is exactly full has no NextToken", func(t *testing.T) {
		t.Parallel()
		out, err := f.b.ListQueues(f.ctx, sqsq.ListQueuesInput{QueueNamePrefix: "p-", MaxResults: sqsq.Some(5)})
		if err != nil {
			t.Fatal(err)
		}
		if d := diff(sqsq.ListQueuesOutput{QueueURLs: f.urls("p-1", "p-2", "p-3", "p-4", "p-5")}, out); d != "" {
			t.Error(d)
		}
	})
	t.Run("MaxResults 1 and 1000 are the bounds", func(t *testing.T) {
		t.Parallel()
		for _, n := range []int{1, 1000} {
			if _, err := f.b.ListQueues(f.ctx, sqsq.ListQueuesInput{MaxResults: sqsq.Some(n)}); err != nil {
				t.Errorf("MaxResults %d: %v", n, err)
			}
		}
	})
}

func TestListQueuesErrors(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tests := []struct {
		reason string
		in     sqsq.ListQueuesInput
	}{
		{"MaxResults 0 is below 1", sqsq.ListQueuesInput{MaxResults: sqsq.Some(0)}},
		{"MaxResults -1 is below 1", sqsq.ListQueuesInput{MaxResults: sqsq.Some(-1)}},
		{"MaxResults 1001 is above 1000", sqsq.ListQueuesInput{MaxResults: sqsq.Some(1001)}},
		{"a NextToken that is not base64 is malformed", sqsq.ListQueuesInput{MaxResults: sqsq.Some(1), NextToken: "!!not a token!!"}},
	}
	for _, tt := range tests {
		out, err := f.b.ListQueues(f.ctx, tt.in)
		wantErr(t, err, sqsq.CodeInvalidParameterValue, "", tt.reason)
		if d := diff(sqsq.ListQueuesOutput{}, out); d != "" {
			t.Errorf("a failed ListQueues returned a result:\n%s\nreason: %s", d, tt.reason)
		}
	}
}

func TestListQueuesWithoutMaxResultsNeverPages(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for i := 0; i < 1000; i++ {
		f.create(t, fmt.Sprintf("many-%04d", i), sqsq.QueueAttributes{})
	}
	// With test-queue that makes 1,001 queues.
	out, err := f.b.ListQueues(f.ctx, sqsq.ListQueuesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.QueueURLs) != 1000 || out.NextToken != "" {
		t.Errorf("ListQueues of 1,001 queues without MaxResults: %d URLs, NextToken %q; want 1000 URLs and no NextToken (§3.4)",
			len(out.QueueURLs), out.NextToken)
	}
	out, err = f.b.ListQueues(f.ctx, sqsq.ListQueuesInput{MaxResults: sqsq.Some(1000)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.QueueURLs) != 1000 || out.NextToken == "" {
		t.Errorf("with MaxResults 1000: %d URLs, NextToken %q; want 1000 URLs and a NextToken", len(out.QueueURLs), out.NextToken)
	}
	out, err = f.b.ListQueues(f.ctx, sqsq.ListQueuesInput{MaxResults: sqsq.Some(1000), NextToken: out.NextToken})
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(sqsq.ListQueuesOutput{QueueURLs: f.urls("test-queue")}, out); d != "" {
		t.Errorf("second page:\n%s", d)
	}
}

func TestListQueuesOmitsDeletedQueues(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.createAll(t, "keep")
	if err := f.q.DeleteQueue(f.ctx); err != nil {
		t.Fatal(err)
	}
	out, err := f.b.ListQueues(f.ctx, sqsq.ListQueuesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(sqsq.ListQueuesOutput{QueueURLs: f.urls("keep")}, out); d != "" {
		t.Error(d)
	}
}

// queueOps calls every Queue method once with otherwise valid input and
// returns the errors by method name.
func queueOps(ctx context.Context, q *sqsq.Queue, handle string) map[string]error {
	errs := map[string]error{}
	_, errs["Send"] = q.Send(ctx, sqsq.SendInput{MessageBody: "x"})
	_, errs["SendBatch"] = q.SendBatch(ctx, []sqsq.SendBatchEntry{{Id: "a", SendInput: sqsq.SendInput{MessageBody: "x"}}})
	_, errs["Receive"] = q.Receive(ctx, sqsq.ReceiveInput{})
	_, errs["Receive(long poll)"] = q.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
	errs["Delete"] = q.Delete(ctx, handle)
	_, errs["DeleteBatch"] = q.DeleteBatch(ctx, []sqsq.DeleteBatchEntry{{Id: "a", ReceiptHandle: handle}})
	errs["ChangeVisibility"] = q.ChangeVisibility(ctx, handle, 0)
	_, errs["ChangeVisibilityBatch"] = q.ChangeVisibilityBatch(ctx, []sqsq.ChangeVisibilityBatchEntry{{Id: "a", ReceiptHandle: handle}})
	_, errs["GetAttributes"] = q.GetAttributes(ctx, sqsq.AttrAll)
	errs["SetAttributes"] = q.SetAttributes(ctx, sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(time.Second)})
	errs["Purge"] = q.Purge(ctx)
	errs["Tag"] = q.Tag(ctx, map[string]string{"k": "v"})
	errs["Untag"] = q.Untag(ctx, "k")
	_, errs["Tags"] = q.Tags(ctx)
	_, errs["Stats"] = q.Stats()
	errs["DeleteQueue"] = q.DeleteQueue(ctx)
	return errs
}

func TestDeletedQueue(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "doomed")
	m := f.receiveOne(t, f.q, sqsq.ReceiveInput{})
	f.send(t, f.q, "doomed too")
	if err := f.b.DeleteQueue(f.ctx, f.q.ARN()); err != nil {
		t.Fatalf("DeleteQueue by ARN: %v", err)
	}
	for op, err := range queueOps(f.ctx, f.q, m.ReceiptHandle) {
		wantErr(t, err, sqsq.CodeQueueDoesNotExist, "", op+" on a deleted queue fails (§9.2)")
	}
	if _, err := f.b.GetQueue(f.ctx, "test-queue"); !errors.Is(err, sqsq.ErrQueueDoesNotExist) {
		t.Errorf("GetQueue after DeleteQueue: %v, want QueueDoesNotExist", err)
	}
	wantErr(t, f.b.DeleteQueue(f.ctx, "test-queue"), sqsq.CodeQueueDoesNotExist, "",
		"deleting a missing queue is QueueDoesNotExist, not success (§3.5, §12)")

	// A queue of the same name is a new queue: the old handle is foreign to it.
	f.clk.Add(60 * time.Second)
	q := f.create(t, "test-queue", sqsq.QueueAttributes{})
	if s := stats(t, q); s.Visible != 0 || s.InFlight != 0 {
		t.Errorf("the re-created queue holds messages: %+v", s)
	}
	wantErr(t, q.Delete(f.ctx, m.ReceiptHandle), sqsq.CodeReceiptHandleIsInvalid, "",
		"a handle of the deleted queue is not a handle of the new one")
	if _, err := f.q.Stats(); !errors.Is(err, sqsq.ErrQueueDoesNotExist) {
		t.Errorf("the old *Queue after re-creation: %v, want QueueDoesNotExist", err)
	}
}

func TestDeleteQueueByURL(t *testing.T) {
	t.Parallel()
	f := setup(t)
	if err := f.b.DeleteQueue(f.ctx, "http://localhost:9324/000000000000/test-queue"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.q.Stats(); !errors.Is(err, sqsq.ErrQueueDoesNotExist) {
		t.Errorf("after DeleteQueue by URL: %v, want QueueDoesNotExist", err)
	}
}

func TestClose(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "x")
	m := f.receiveOne(t, f.q, sqsq.ReceiveInput{})
	if err := f.b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := f.b.Close(); err != nil {
		t.Fatalf("second Close: %v, want nil (idempotent)", err)
	}
	brokerOps := map[string]error{}
	_, brokerOps["CreateQueue"] = f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "new"})
	_, brokerOps["GetQueue"] = f.b.GetQueue(f.ctx, "test-queue")
	_, brokerOps["ListQueues"] = f.b.ListQueues(f.ctx, sqsq.ListQueuesInput{})
	brokerOps["DeleteQueue"] = f.b.DeleteQueue(f.ctx, "test-queue")
	for op, err := range brokerOps {
		if !errors.Is(err, sqsq.ErrClosed) {
			t.Errorf("Broker.%s after Close: %v, want ErrClosed", op, err)
		}
	}
	for op, err := range queueOps(f.ctx, f.q, m.ReceiptHandle) {
		if !errors.Is(err, sqsq.ErrClosed) {
			t.Errorf("Queue.%s after Close: %v, want ErrClosed", op, err)
		}
	}
	var e *sqsq.Error
	if errors.As(sqsq.ErrClosed, &e); !e.Receiver || e.Code.Info().HTTPStatus != 503 {
		t.Errorf("ErrClosed = %+v, want a receiver fault with HTTP status 503", e)
	}
}

func TestDeletedQueueIsCheckedBeforeParameters(t *testing.T) {
	t.Parallel()
	f := setup(t)
	if err := f.q.DeleteQueue(f.ctx); err != nil {
		t.Fatal(err)
	}
	errs := map[string]error{}
	_, errs["Receive"] = f.q.Receive(f.ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 11})
	_, errs["GetAttributes"] = f.q.GetAttributes(f.ctx, "Bogus")
	errs["SetAttributes"] = f.q.SetAttributes(f.ctx, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(time.Hour)})
	errs["Tag"] = f.q.Tag(f.ctx, map[string]string{"aws:k": "v"})
	_, errs["SendBatch"] = f.q.SendBatch(f.ctx, nil)
	_, errs["DeleteBatch"] = f.q.DeleteBatch(f.ctx, nil)
	_, errs["ChangeVisibilityBatch"] = f.q.ChangeVisibilityBatch(f.ctx, nil)
	errs["Send"] = func() error { _, err := f.q.Send(f.ctx, sqsq.SendInput{}); return err }()
	errs["ChangeVisibility"] = f.q.ChangeVisibility(f.ctx, "INVALID", -time.Second)
	for op, err := range errs {
		wantErr(t, err, sqsq.CodeQueueDoesNotExist, "", op+" with bad input on a deleted queue (§3.1: resolve the queue first)")
	}
}
