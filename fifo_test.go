package sqsq_test

// Black-box tests of FIFO queues: creation and attributes (semantics §2.1,
// §6.1), send validation (§3.8 step 7, §3.9), ordering and group locking
// (§6.3–6.4, §4.4), deduplication (§6.5), sequence numbers (§6.7),
// retroactive queue delays (§5.1), receipt handles (§4.5), receive attempt
// ids (§6.8) and the in-flight limit (§4.6). They use the shared helpers of
// broker_test.go (setup, fixture, wantErr, diff, bodies, stats).

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/big"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

// setupFIFO is setup with f.q replaced by the FIFO queue "test.fifo",
// created with attrs (FifoQueue is set here). The standard queue setup made
// is still there as "test-queue".
func setupFIFO(t *testing.T, attrs sqsq.QueueAttributes, opts ...sqsq.Option) *fixture {
	t.Helper()
	f := setup(t, opts...)
	attrs.FifoQueue = sqsq.Some(true)
	f.q = f.create(t, "test.fifo", attrs)
	return f
}

// fifoSend sends body to group of f.q, using the body as its explicit
// deduplication id, and fails the test on error.
func (f *fixture) fifoSend(t *testing.T, group, body string) sqsq.SendResult {
	t.Helper()
	return f.sendInput(t, f.q, sqsq.SendInput{MessageBody: body, MessageGroupId: group, MessageDeduplicationId: body})
}

// fifoRecv short-polls up to max messages from f.q. vis < 0 uses the
// queue's visibility timeout.
func (f *fixture) fifoRecv(t *testing.T, max int, vis time.Duration) []sqsq.Message {
	t.Helper()
	in := sqsq.ReceiveInput{MaxNumberOfMessages: max, WaitTimeSeconds: sqsq.Some(time.Duration(0))}
	if vis >= 0 {
		in.VisibilityTimeout = sqsq.Some(vis)
	}
	return f.receive(t, f.q, in)
}

// fifoDelete deletes with rh and fails the test on error.
func (f *fixture) fifoDelete(t *testing.T, rh string) {
	t.Helper()
	if err := f.q.Delete(f.ctx, rh); err != nil {
		t.Fatalf("Delete: %v", err)
	}
}

// fifoDeleteAll deletes every message of msgs with its handle.
func (f *fixture) fifoDeleteAll(t *testing.T, msgs []sqsq.Message) {
	t.Helper()
	for _, m := range msgs {
		f.fifoDelete(t, m.ReceiptHandle)
	}
}

// fifoSnapshot is what a failed operation must leave as it was: all of
// Stats, except the counter of refused expired handles (which counts the
// refusal itself), and every attribute. The clock does not move between two
// snapshots, so the ages in Stats compare too.
type fifoSnapshot struct {
	Stats sqsq.Stats
	Attrs map[string]string
}

func (f *fixture) fifoSnap(t *testing.T, q *sqsq.Queue) fifoSnapshot {
	t.Helper()
	s := stats(t, q)
	s.ExpiredHandleRejections = 0
	return fifoSnapshot{Stats: s, Attrs: f.allAttrs(t, q)}
}

// fifoUnchanged fails unless q is as it was when before was taken.
func (f *fixture) fifoUnchanged(t *testing.T, q *sqsq.Queue, before fifoSnapshot, reason string) {
	t.Helper()
	if d := diff(before, f.fifoSnap(t, q)); d != "" {
		t.Errorf("a failed call changed the queue:\n%s\nreason: %s", d, reason)
	}
}

// fifoSysAll asks a receive for every system attribute.
var fifoSysAll = []string{sqsq.SysAll}

func TestFIFOCreateQueue(t *testing.T) {
	t.Parallel()
	fifo := sqsq.Some(true)
	tests := []struct {
		reason string
		name   string
		attrs  sqsq.QueueAttributes
		code   sqsq.Code
		msg    string
	}{
		{
			reason: "a .fifo name with FifoQueue=true makes a FIFO queue",
			name:   "orders.fifo", attrs: sqsq.QueueAttributes{FifoQueue: fifo},
		},
		{
			reason: "a .fifo name without FifoQueue is a standard queue's name, which cannot contain a dot (§1.1)",
			name:   "orders.fifo", code: sqsq.CodeInvalidParameterValue,
		},
		{
			reason: "FifoQueue=true needs the .fifo suffix (§1.1)",
			name:   "orders", attrs: sqsq.QueueAttributes{FifoQueue: fifo}, code: sqsq.CodeInvalidParameterValue,
		},
		{
			reason: "FifoQueue=false on a standard queue is an unknown attribute (§2.1)",
			name:   "orders", attrs: sqsq.QueueAttributes{FifoQueue: sqsq.Some(false)},
			code: sqsq.CodeInvalidAttributeName, msg: "Unknown Attribute FifoQueue.",
		},
		{
			reason: "ContentBasedDeduplication on a standard queue is an unknown attribute (§2.1)",
			name:   "orders", attrs: sqsq.QueueAttributes{ContentBasedDeduplication: sqsq.Some(true)},
			code: sqsq.CodeInvalidAttributeName, msg: "Unknown Attribute ContentBasedDeduplication.",
		},
		{
			reason: "even ContentBasedDeduplication=false is refused on a standard queue (§2.1)",
			name:   "orders", attrs: sqsq.QueueAttributes{ContentBasedDeduplication: sqsq.Some(false)},
			code: sqsq.CodeInvalidAttributeName, msg: "Unknown Attribute ContentBasedDeduplication.",
		},
		{
			reason: "DeduplicationScope on a standard queue has its own text (§2.1)",
			name:   "orders", attrs: sqsq.QueueAttributes{DeduplicationScope: sqsq.Some("queue")},
			code: sqsq.CodeInvalidAttributeName, msg: "You can specify the DeduplicationScope only when FifoQueue is set to true.",
		},
		{
			reason: "FifoThroughputLimit on a standard queue has its own text (§2.1)",
			name:   "orders", attrs: sqsq.QueueAttributes{FifoThroughputLimit: sqsq.Some("perQueue")},
			code: sqsq.CodeInvalidAttributeName, msg: "You can specify the FifoThroughputLimit only when FifoQueue is set to true.",
		},
		{
			reason: "perMessageGroupId needs DeduplicationScope=messageGroup; the default scope is queue (§2.1)",
			name:   "orders.fifo", attrs: sqsq.QueueAttributes{FifoQueue: fifo, FifoThroughputLimit: sqsq.Some("perMessageGroupId")},
			code: sqsq.CodeInvalidAttributeValue,
		},
		{
			reason: "perMessageGroupId needs DeduplicationScope=messageGroup, explicit queue scope too (§2.1)",
			name:   "orders.fifo",
			attrs: sqsq.QueueAttributes{FifoQueue: fifo, FifoThroughputLimit: sqsq.Some("perMessageGroupId"),
				DeduplicationScope: sqsq.Some("queue")},
			code: sqsq.CodeInvalidAttributeValue,
		},
		{
			reason: "perMessageGroupId with DeduplicationScope=messageGroup is high-throughput mode (§2.1)",
			name:   "orders.fifo",
			attrs: sqsq.QueueAttributes{FifoQueue: fifo, FifoThroughputLimit: sqsq.Some("perMessageGroupId"),
				DeduplicationScope: sqsq.Some("messageGroup")},
		},
		{
			reason: "DeduplicationScope=messageGroup works without perMessageGroupId (§6.5)",
			name:   "orders.fifo", attrs: sqsq.QueueAttributes{FifoQueue: fifo, DeduplicationScope: sqsq.Some("messageGroup")},
		},
		{
			reason: "DeduplicationScope is queue or messageGroup (§2.1)",
			name:   "orders.fifo", attrs: sqsq.QueueAttributes{FifoQueue: fifo, DeduplicationScope: sqsq.Some("group")},
			code: sqsq.CodeInvalidAttributeValue, msg: "Invalid value for the parameter DeduplicationScope.",
		},
		{
			reason: "FifoThroughputLimit is perQueue or perMessageGroupId (§2.1)",
			name:   "orders.fifo", attrs: sqsq.QueueAttributes{FifoQueue: fifo, FifoThroughputLimit: sqsq.Some("perGroup")},
			code: sqsq.CodeInvalidAttributeValue, msg: "Invalid value for the parameter FifoThroughputLimit.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			q, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: tt.name, Attributes: tt.attrs})
			wantErr(t, err, tt.code, tt.msg, tt.reason)
			if tt.code != "" {
				if _, err := f.b.GetQueue(f.ctx, tt.name); !errors.Is(err, sqsq.ErrQueueDoesNotExist) {
					t.Errorf("after a failed CreateQueue, GetQueue(%q) = %v, want QueueDoesNotExist\nreason: %s", tt.name, err, tt.reason)
				}
				return
			}
			if q == nil || !q.FIFO() {
				t.Fatalf("CreateQueue(%q) = %v, want a FIFO queue\nreason: %s", tt.name, q, tt.reason)
			}
			got := f.allAttrs(t, q)
			if got[sqsq.AttrFifoQueue] != "true" {
				t.Errorf("FifoQueue = %q, want \"true\"\nreason: %s", got[sqsq.AttrFifoQueue], tt.reason)
			}
			if v, ok := tt.attrs.DeduplicationScope.Get(); ok && got[sqsq.AttrDeduplicationScope] != v {
				t.Errorf("DeduplicationScope = %q, want %q\nreason: %s", got[sqsq.AttrDeduplicationScope], v, tt.reason)
			}
			if v, ok := tt.attrs.FifoThroughputLimit.Get(); ok && got[sqsq.AttrFifoThroughputLimit] != v {
				t.Errorf("FifoThroughputLimit = %q, want %q\nreason: %s", got[sqsq.AttrFifoThroughputLimit], v, tt.reason)
			}
		})
	}
}

func TestFIFOSetAttributes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		fifo   bool                 // set on the FIFO queue, else on the standard one
		prior  sqsq.QueueAttributes // applied first, must succeed
		attrs  sqsq.QueueAttributes
		code   sqsq.Code
		msg    string
		want   map[string]string // attributes after a success
	}{
		{
			reason: "ContentBasedDeduplication on a standard queue is an unknown attribute (§2.1)",
			attrs:  sqsq.QueueAttributes{ContentBasedDeduplication: sqsq.Some(true)},
			code:   sqsq.CodeInvalidAttributeName, msg: "Unknown Attribute ContentBasedDeduplication.",
		},
		{
			reason: "DeduplicationScope on a standard queue (§2.1)",
			attrs:  sqsq.QueueAttributes{DeduplicationScope: sqsq.Some("messageGroup")},
			code:   sqsq.CodeInvalidAttributeName, msg: "You can specify the DeduplicationScope only when FifoQueue is set to true.",
		},
		{
			reason: "FifoThroughputLimit on a standard queue (§2.1)",
			attrs:  sqsq.QueueAttributes{FifoThroughputLimit: sqsq.Some("perQueue")},
			code:   sqsq.CodeInvalidAttributeName, msg: "You can specify the FifoThroughputLimit only when FifoQueue is set to true.",
		},
		{
			reason: "FifoQueue=true on a standard queue is an unknown attribute, not a conversion (§2.1)",
			attrs:  sqsq.QueueAttributes{FifoQueue: sqsq.Some(true)},
			code:   sqsq.CodeInvalidAttributeName, msg: "Unknown Attribute FifoQueue.",
		},
		{
			reason: "FifoQueue=false on a standard queue is an unknown attribute too (§2.1)",
			attrs:  sqsq.QueueAttributes{FifoQueue: sqsq.Some(false)},
			code:   sqsq.CodeInvalidAttributeName, msg: "Unknown Attribute FifoQueue.",
		},
		{
			reason: "a FIFO-only attribute fails the whole call: the valid VisibilityTimeout is not applied (§3.6)",
			attrs:  sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(60 * time.Second), ContentBasedDeduplication: sqsq.Some(true)},
			code:   sqsq.CodeInvalidAttributeName, msg: "Unknown Attribute ContentBasedDeduplication.",
		},
		{
			reason: "FifoQueue=false on a FIFO queue: the type cannot change (§2.1)",
			fifo:   true, attrs: sqsq.QueueAttributes{FifoQueue: sqsq.Some(false)},
			code: sqsq.CodeInvalidAttributeValue, msg: "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.",
		},
		{
			reason: "FifoQueue=false fails the whole call: the valid VisibilityTimeout is not applied (§3.6)",
			fifo:   true, attrs: sqsq.QueueAttributes{FifoQueue: sqsq.Some(false), VisibilityTimeout: sqsq.Some(60 * time.Second)},
			code: sqsq.CodeInvalidAttributeValue, msg: "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.",
		},
		{
			reason: "perMessageGroupId alone: the queue's DeduplicationScope is still queue (§2.1)",
			fifo:   true, attrs: sqsq.QueueAttributes{FifoThroughputLimit: sqsq.Some("perMessageGroupId")},
			code: sqsq.CodeInvalidAttributeValue,
		},
		{
			reason: "scope back to queue while perMessageGroupId is set breaks the combination (§2.1)",
			fifo:   true,
			prior: sqsq.QueueAttributes{FifoThroughputLimit: sqsq.Some("perMessageGroupId"),
				DeduplicationScope: sqsq.Some("messageGroup")},
			attrs: sqsq.QueueAttributes{DeduplicationScope: sqsq.Some("queue")},
			code:  sqsq.CodeInvalidAttributeValue,
		},
		{
			reason: "DeduplicationScope has two values (§2.1)",
			fifo:   true, attrs: sqsq.QueueAttributes{DeduplicationScope: sqsq.Some("MessageGroup")},
			code: sqsq.CodeInvalidAttributeValue, msg: "Invalid value for the parameter DeduplicationScope.",
		},
		{
			reason: "FifoQueue=true on a FIFO queue is a no-op (§2.1)",
			fifo:   true, attrs: sqsq.QueueAttributes{FifoQueue: sqsq.Some(true)},
			want: map[string]string{sqsq.AttrFifoQueue: "true"},
		},
		{
			reason: "perMessageGroupId together with messageGroup scope is accepted (§2.1)",
			fifo:   true,
			attrs: sqsq.QueueAttributes{FifoThroughputLimit: sqsq.Some("perMessageGroupId"),
				DeduplicationScope: sqsq.Some("messageGroup")},
			want: map[string]string{sqsq.AttrFifoThroughputLimit: "perMessageGroupId", sqsq.AttrDeduplicationScope: "messageGroup"},
		},
		{
			reason: "both back to the defaults in one call is consistent (§2.1)",
			fifo:   true,
			prior: sqsq.QueueAttributes{FifoThroughputLimit: sqsq.Some("perMessageGroupId"),
				DeduplicationScope: sqsq.Some("messageGroup")},
			attrs: sqsq.QueueAttributes{FifoThroughputLimit: sqsq.Some("perQueue"), DeduplicationScope: sqsq.Some("queue")},
			want:  map[string]string{sqsq.AttrFifoThroughputLimit: "perQueue", sqsq.AttrDeduplicationScope: "queue"},
		},
		{
			reason: "ContentBasedDeduplication can be switched on later (§2.1)",
			fifo:   true, attrs: sqsq.QueueAttributes{ContentBasedDeduplication: sqsq.Some(true)},
			want: map[string]string{sqsq.AttrContentBasedDeduplication: "true"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupFIFO(t, sqsq.QueueAttributes{})
			q := f.q
			if !tt.fifo {
				q = f.create(t, "test-queue", sqsq.QueueAttributes{})
			}
			if err := q.SetAttributes(f.ctx, tt.prior); err != nil {
				t.Fatalf("prior SetAttributes: %v", err)
			}
			f.clk.Add(2 * time.Second) // a change would move LastModifiedTimestamp
			before := f.fifoSnap(t, q)
			err := q.SetAttributes(f.ctx, tt.attrs)
			wantErr(t, err, tt.code, tt.msg, tt.reason)
			if tt.code != "" {
				f.fifoUnchanged(t, q, before, tt.reason)
				return
			}
			got := f.allAttrs(t, q)
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q\nreason: %s", k, got[k], v, tt.reason)
				}
			}
		})
	}
}

func TestFIFOGetAttributesAll(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{})
	got := f.allAttrs(t, f.q)
	wantKeys := []string{
		"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesDelayed", "ApproximateNumberOfMessagesNotVisible",
		"ContentBasedDeduplication", "CreatedTimestamp", "DeduplicationScope", "DelaySeconds", "FifoQueue",
		"FifoThroughputLimit", "LastModifiedTimestamp", "MaximumMessageSize", "MessageRetentionPeriod", "QueueArn",
		"ReceiveMessageWaitTimeSeconds", "SqsManagedSseEnabled", "VisibilityTimeout",
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if d := diff(wantKeys, keys); d != "" {
		t.Errorf("All on a fresh FIFO queue: the standard twelve plus the four FIFO attributes (§2.3)\n%s", d)
	}
	wantFIFO := map[string]string{
		"FifoQueue": "true", "ContentBasedDeduplication": "false",
		"DeduplicationScope": "queue", "FifoThroughputLimit": "perQueue",
	}
	for k, v := range wantFIFO {
		if got[k] != v {
			t.Errorf("%s = %q, want the default %q (§2.1)", k, got[k], v)
		}
	}

	std := f.allAttrs(t, f.create(t, "test-queue", sqsq.QueueAttributes{}))
	for k := range wantFIFO {
		if _, ok := std[k]; ok {
			t.Errorf("All on a standard queue includes %s; it is FIFO only (§2.3)", k)
		}
	}
	_, err := f.create(t, "test-queue", sqsq.QueueAttributes{}).GetAttributes(f.ctx, sqsq.AttrFifoQueue)
	wantErr(t, err, sqsq.CodeInvalidAttributeName, "Unknown Attribute FifoQueue.",
		"asking a standard queue for a FIFO attribute is an unknown name (§2.1)")
}

func TestFIFOSendErrors(t *testing.T) {
	t.Parallel()
	const missingDedup = "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"
	tests := []struct {
		reason string
		cbd    bool
		in     sqsq.SendInput
		code   sqsq.Code
		msg    string
	}{
		{
			reason: "a per-message delay is not allowed on FIFO queues (§3.8 step 7)",
			in:     sqsq.SendInput{MessageBody: "x", MessageGroupId: "g", MessageDeduplicationId: "d", DelaySeconds: sqsq.Some(5 * time.Second)},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    "Value 5 for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.",
		},
		{
			reason: "a delay out of 0–900 fails the general range check first (§3.8 step 5 before 7)",
			in:     sqsq.SendInput{MessageBody: "x", MessageGroupId: "g", MessageDeduplicationId: "d", DelaySeconds: sqsq.Some(901 * time.Second)},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    "Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.",
		},
		{
			reason: "MessageGroupId is required: MissingParameter in SendMessage (§3.8 step 7)",
			in:     sqsq.SendInput{MessageBody: "x", MessageDeduplicationId: "d"},
			code:   sqsq.CodeMissingParameter, msg: "The request must contain the parameter MessageGroupId.",
		},
		{
			reason: "MessageGroupId is required even with content-based deduplication (§3.8 step 7)",
			cbd:    true, in: sqsq.SendInput{MessageBody: "x"},
			code: sqsq.CodeMissingParameter, msg: "The request must contain the parameter MessageGroupId.",
		},
		{
			reason: "no dedup id and no content-based deduplication (§3.8 step 7)",
			in:     sqsq.SendInput{MessageBody: "x", MessageGroupId: "g"},
			code:   sqsq.CodeInvalidParameterValue, msg: missingDedup,
		},
		{
			reason: "a MessageGroupId with a space fails the format check (§3.8 step 6)",
			in:     sqsq.SendInput{MessageBody: "x", MessageGroupId: "g 1", MessageDeduplicationId: "d"},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    "Value g 1 for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.",
		},
		{
			reason: "a MessageDeduplicationId over 128 characters fails the format check (§3.8 step 6)",
			in:     sqsq.SendInput{MessageBody: "x", MessageGroupId: "g", MessageDeduplicationId: strings.Repeat("d", 129)},
			code:   sqsq.CodeInvalidParameterValue,
		},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupFIFO(t, sqsq.QueueAttributes{ContentBasedDeduplication: sqsq.Some(tt.cbd)})
			f.fifoSend(t, "g", "existing") // the failed send must not disturb stored messages either
			before := f.fifoSnap(t, f.q)
			_, err := f.q.Send(f.ctx, tt.in)
			wantErr(t, err, tt.code, tt.msg, tt.reason)
			f.fifoUnchanged(t, f.q, before, tt.reason)
		})
	}
}

func TestFIFOSendBatchErrors(t *testing.T) {
	t.Parallel()
	ok := func(id string) sqsq.SendBatchEntry {
		return sqsq.SendBatchEntry{Id: id, SendInput: sqsq.SendInput{MessageBody: id, MessageGroupId: "g", MessageDeduplicationId: id}}
	}
	tests := []struct {
		reason  string
		entries []sqsq.SendBatchEntry
		code    sqsq.Code
		msg     string
	}{
		{
			reason:  "one entry without MessageGroupId fails the whole batch with InvalidParameterValue, not MissingParameter (§3.9 step 5)",
			entries: []sqsq.SendBatchEntry{ok("a"), {Id: "b", SendInput: sqsq.SendInput{MessageBody: "b", MessageDeduplicationId: "b"}}, ok("c")},
			code:    sqsq.CodeInvalidParameterValue, msg: "The request must contain the parameter MessageGroupId.",
		},
		{
			reason:  "one entry without a dedup id on a queue without content-based deduplication fails the whole batch (§3.9 step 5)",
			entries: []sqsq.SendBatchEntry{ok("a"), {Id: "b", SendInput: sqsq.SendInput{MessageBody: "b", MessageGroupId: "g"}}},
			code:    sqsq.CodeInvalidParameterValue,
			msg:     "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
		},
		{
			reason:  "the entry-id checks come before the FIFO checks (§3.9 steps 3 and 5)",
			entries: []sqsq.SendBatchEntry{{Id: "bad id", SendInput: sqsq.SendInput{MessageBody: "b"}}},
			code:    sqsq.CodeInvalidBatchEntryID,
		},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupFIFO(t, sqsq.QueueAttributes{})
			f.fifoSend(t, "g", "existing")
			before := f.fifoSnap(t, f.q)
			res, err := f.q.SendBatch(f.ctx, tt.entries)
			wantErr(t, err, tt.code, tt.msg, tt.reason)
			if len(res.Successful)+len(res.Failed) != 0 {
				t.Errorf("a failed batch reported entries: %+v\nreason: %s", res, tt.reason)
			}
			f.fifoUnchanged(t, f.q, before, tt.reason)
		})
	}
}

func TestFIFOSendBatchEntryDelay(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{})
	res, err := f.q.SendBatch(f.ctx, []sqsq.SendBatchEntry{
		{Id: "a", SendInput: sqsq.SendInput{MessageBody: "a", MessageGroupId: "g", MessageDeduplicationId: "a"}},
		{Id: "b", SendInput: sqsq.SendInput{MessageBody: "b", MessageGroupId: "g", MessageDeduplicationId: "b", DelaySeconds: sqsq.Some(5 * time.Second)}},
		{Id: "c", SendInput: sqsq.SendInput{MessageBody: "c", MessageGroupId: "g", MessageDeduplicationId: "c", DelaySeconds: sqsq.Some(time.Duration(0))}},
	})
	if err != nil {
		t.Fatalf("SendBatch: %v", err)
	}
	if len(res.Successful) != 2 || len(res.Failed) != 1 || res.Failed[0].Id != "b" {
		t.Fatalf("SendBatch = %+v, want a and c sent and b failed: a per-message delay fails only its entry (§3.9)", res)
	}
	wantErr(t, res.Failed[0].Err, sqsq.CodeInvalidParameterValue,
		"Value 5 for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.",
		"the entry fails like SendMessage would (§3.8 step 7)")
	if got := bodies(f.fifoRecv(t, 10, -1)); diff([]string{"a", "c"}, got) != "" {
		t.Errorf("received %v, want [a c] in request order (§6.3)", got)
	}
}

func TestFIFOSendDelaySecondsZero(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(10 * time.Second)})
	_, err := f.q.Send(f.ctx, sqsq.SendInput{
		MessageBody: "x", MessageGroupId: "g", MessageDeduplicationId: "d",
		DelaySeconds: sqsq.Some(time.Duration(0)),
	})
	wantErr(t, err, "", "", "an explicit DelaySeconds of 0 is accepted on FIFO queues (§3.8 step 7)")
	if s := stats(t, f.q); s.Delayed != 1 || s.Visible != 0 {
		t.Fatalf("after the send: delayed=%d visible=%d, want 1 and 0: the queue delay still applies (§3.8)", s.Delayed, s.Visible)
	}
	f.clk.Add(10*time.Second - time.Millisecond)
	if got := f.fifoRecv(t, 10, -1); len(got) != 0 {
		t.Fatalf("received %v before the queue delay ended", bodies(got))
	}
	f.clk.Add(time.Millisecond)
	if got := bodies(f.fifoRecv(t, 10, -1)); diff([]string{"x"}, got) != "" {
		t.Fatalf("received %v when the 10 s queue delay ended, want [x]", got)
	}
}

// TestFIFOOrdering covers §6.3–6.4 and §4.4: order within a group, group
// locking, and which group goes first.
func TestFIFOOrdering(t *testing.T) {
	t.Parallel()

	t.Run("one receive returns as much of one group as it can, in order, then other groups", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		for _, s := range [][2]string{{"g1", "g1-m1"}, {"g2", "g2-m1"}, {"g1", "g1-m2"}, {"g1", "g1-m3"}} {
			f.fifoSend(t, s[0], s[1])
		}
		got := bodies(f.fifoRecv(t, 10, -1))
		if d := diff([]string{"g1-m1", "g1-m2", "g1-m3", "g2-m1"}, got); d != "" {
			t.Errorf("§6.4 example:\n%s", d)
		}
	})

	t.Run("after the head's group-mates are deleted, a group whose head was sent earlier goes first", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		for _, s := range [][2]string{{"g1", "g1-m1"}, {"g2", "g2-m1"}, {"g1", "g1-m2"}, {"g1", "g1-m3"}} {
			f.fifoSend(t, s[0], s[1])
		}
		first := f.fifoRecv(t, 2, -1)
		if d := diff([]string{"g1-m1", "g1-m2"}, bodies(first)); d != "" {
			t.Fatalf("first receive of 2:\n%s", d)
		}
		f.fifoDeleteAll(t, first)
		// g1's head is now g1-m3 (sent 4th); g2's head g2-m1 was sent 2nd.
		// Both have been available since the sends: the earlier head wins.
		if d := diff([]string{"g2-m1"}, bodies(f.fifoRecv(t, 1, -1))); d != "" {
			t.Errorf("§6.4 example, second part:\n%s", d)
		}
		if d := diff([]string{"g1-m3"}, bodies(f.fifoRecv(t, 1, -1))); d != "" {
			t.Errorf("then g1:\n%s", d)
		}
	})

	t.Run("a group is locked while an earlier message is in flight", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		f.fifoSend(t, "g", "b")
		a := f.fifoRecv(t, 1, -1)
		if d := diff([]string{"a"}, bodies(a)); d != "" {
			t.Fatalf("first receive:\n%s", d)
		}
		if got := f.fifoRecv(t, 10, -1); len(got) != 0 {
			t.Fatalf("received %v while a is in flight; b must wait (§6.4)", bodies(got))
		}
		if s := stats(t, f.q); s.Visible != 1 || s.InFlight != 1 || s.LockedGroups != 1 || s.Groups != 1 {
			t.Errorf("stats %+v: want b counted visible though its group is locked (§2.2), 1 locked group of 1", s)
		}
		f.clk.Add(29 * time.Second)
		if got := f.fifoRecv(t, 10, -1); len(got) != 0 {
			t.Fatalf("received %v 29 s into a's 30 s visibility", bodies(got))
		}
		f.fifoDelete(t, a[0].ReceiptHandle)
		if d := diff([]string{"b"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("after deleting a the lock is released (§6.4):\n%s", d)
		}
	})

	t.Run("a hot group blocks only itself", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "hot", "hot-1")
		f.fifoSend(t, "hot", "hot-2")
		head := f.fifoRecv(t, 1, time.Hour) // a slow worker holds the head
		if d := diff([]string{"hot-1"}, bodies(head)); d != "" {
			t.Fatalf("head:\n%s", d)
		}
		for round := 1; round <= 5; round++ {
			a := "a-" + string(rune('0'+round))
			b := "b-" + string(rune('0'+round))
			f.fifoSend(t, "cool-a", a)
			f.fifoSend(t, "cool-b", b)
			got := f.fifoRecv(t, 10, -1)
			if d := diff([]string{a, b}, bodies(got)); d != "" {
				t.Fatalf("round %d: other groups keep flowing (§6.9):\n%s", round, d)
			}
			f.fifoDeleteAll(t, got)
			f.clk.Add(time.Minute)
		}
		if s := stats(t, f.q); s.Visible != 1 || s.InFlight != 1 || s.LockedGroups != 1 || s.Groups != 1 {
			t.Errorf("stats %+v: want only hot-2 waiting behind hot-1", s)
		}
		f.fifoDelete(t, head[0].ReceiptHandle)
		if d := diff([]string{"hot-2"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("after the slow head is deleted:\n%s", d)
		}
	})

	t.Run("a receive with visibility 0 does not lock the group", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		f.fifoSend(t, "g", "b")
		if d := diff([]string{"a"}, bodies(f.fifoRecv(t, 1, 0))); d != "" {
			t.Fatalf("visibility-0 receive:\n%s", d)
		}
		if s := stats(t, f.q); s.Visible != 2 || s.InFlight != 0 || s.LockedGroups != 0 {
			t.Errorf("stats %+v: want both visible and no locked group (§6.4)", s)
		}
		if d := diff([]string{"a", "b"}, bodies(f.fifoRecv(t, 10, 0))); d != "" {
			t.Errorf("the group is still receivable from its head:\n%s", d)
		}
		msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 1, MessageSystemAttributeNames: []string{sqsq.SysApproximateReceiveCount}})
		if len(msgs) != 1 || msgs[0].Body != "a" || msgs[0].Attributes[sqsq.SysApproximateReceiveCount] != "3" {
			t.Errorf("third receive = %+v, want a with ApproximateReceiveCount 3", msgs)
		}
	})

	t.Run("a message extended in the middle of a batch blocks itself and later ones, earlier ones are redelivered", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		for _, b := range []string{"m1", "m2", "m3"} {
			f.fifoSend(t, "g", b)
		}
		batch := f.fifoRecv(t, 10, 30*time.Second)
		if d := diff([]string{"m1", "m2", "m3"}, bodies(batch)); d != "" {
			t.Fatalf("batch:\n%s", d)
		}
		f.clk.Add(10 * time.Second)
		if err := f.q.ChangeVisibility(f.ctx, batch[1].ReceiptHandle, 120*time.Second); err != nil {
			t.Fatalf("ChangeVisibility(m2): %v", err)
		}
		f.clk.Add(20 * time.Second) // m1 and m3 time out; m2 is hidden until +130 s
		again := f.fifoRecv(t, 10, 30*time.Second)
		if d := diff([]string{"m1"}, bodies(again)); d != "" {
			t.Fatalf("only the prefix before the extended message comes back (§6.4):\n%s", d)
		}
		f.fifoDelete(t, again[0].ReceiptHandle)
		if got := f.fifoRecv(t, 10, -1); len(got) != 0 {
			t.Fatalf("received %v: m3 must wait behind the extended m2 (§4.4)", bodies(got))
		}
		if s := stats(t, f.q); s.Visible != 1 || s.InFlight != 1 {
			t.Errorf("stats %+v: want m3 visible (but blocked) and m2 in flight", s)
		}
		f.clk.Add(100 * time.Second) // +130 s: m2's extension ends
		if d := diff([]string{"m2", "m3"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("when m2 is visible again, m2 and m3 come in order:\n%s", d)
		}
	})

	t.Run("a drained group takes new messages normally", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		f.fifoDeleteAll(t, f.fifoRecv(t, 10, -1))
		if s := stats(t, f.q); s.Groups != 0 || s.LockedGroups != 0 {
			t.Fatalf("stats %+v after draining: want no groups", s)
		}
		f.fifoSend(t, "g", "b")
		if d := diff([]string{"b"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("after a group is drained new messages are delivered (§6.4):\n%s", d)
		}
	})

	t.Run("sending to a locked group does not unlock it", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		a := f.fifoRecv(t, 10, -1)
		f.fifoSend(t, "g", "b")
		f.fifoSend(t, "g", "c")
		if got := f.fifoRecv(t, 10, -1); len(got) != 0 {
			t.Fatalf("received %v: new sends do not unlock a group (§6.4)", bodies(got))
		}
		if s := stats(t, f.q); s.LockedGroups != 1 || s.Visible != 2 {
			t.Errorf("stats %+v: want 1 locked group and 2 visible", s)
		}
		f.fifoDelete(t, a[0].ReceiptHandle)
		if d := diff([]string{"b", "c"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("after the delete:\n%s", d)
		}
	})

	t.Run("redelivery after a timeout keeps the order", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		for _, b := range []string{"m0", "m1", "m2"} {
			f.fifoSend(t, "g", b)
		}
		f.fifoRecv(t, 10, -1)
		f.clk.Add(30 * time.Second)
		msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, MessageSystemAttributeNames: []string{sqsq.SysApproximateReceiveCount}})
		if d := diff([]string{"m0", "m1", "m2"}, bodies(msgs)); d != "" {
			t.Fatalf("redelivery (§6.3):\n%s", d)
		}
		for _, m := range msgs {
			if c := m.Attributes[sqsq.SysApproximateReceiveCount]; c != "2" {
				t.Errorf("%s: ApproximateReceiveCount %s, want 2", m.Body, c)
			}
		}
	})

	t.Run("groups are served by when their head became available", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g1", "g1-a")
		f.fifoRecv(t, 1, 30*time.Second) // g1-a visible again at +30 s
		f.clk.Add(20 * time.Second)
		f.fifoSend(t, "g2", "g2-b") // never received, available since +20 s
		f.clk.Add(20 * time.Second)
		f.fifoSend(t, "g3", "g3-c") // available since +40 s
		var got []string
		for i := 0; i < 3; i++ {
			got = append(got, bodies(f.fifoRecv(t, 1, -1))...)
		}
		if d := diff([]string{"g2-b", "g1-a", "g3-c"}, got); d != "" {
			t.Errorf("a never-received group sent before the timeout beats the timed-out group, one sent after it does not (§6.4 step 3):\n%s", d)
		}
	})

	t.Run("a batch send is enqueued in request order", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		var entries []sqsq.SendBatchEntry
		for _, b := range []string{"e1", "e2", "e3", "e4"} {
			entries = append(entries, sqsq.SendBatchEntry{Id: b, SendInput: sqsq.SendInput{MessageBody: b, MessageGroupId: "g", MessageDeduplicationId: b}})
		}
		if _, err := f.q.SendBatch(f.ctx, entries); err != nil {
			t.Fatalf("SendBatch: %v", err)
		}
		if d := diff([]string{"e1", "e2", "e3", "e4"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("§6.3:\n%s", d)
		}
	})

	t.Run("ChangeVisibility 0 on the head releases the lock at once", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		f.fifoSend(t, "g", "b")
		a := f.fifoRecv(t, 1, -1)
		if err := f.q.ChangeVisibility(f.ctx, a[0].ReceiptHandle, 0); err != nil {
			t.Fatalf("ChangeVisibility: %v", err)
		}
		if d := diff([]string{"a", "b"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("after CMV 0 (§6.4):\n%s", d)
		}
	})
}

func TestFIFODeduplication(t *testing.T) {
	t.Parallel()
	send := func(t *testing.T, f *fixture, in sqsq.SendInput) sqsq.SendResult {
		t.Helper()
		return f.sendInput(t, f.q, in)
	}

	t.Run("a duplicate within 5 minutes succeeds with the original's ids and stores nothing", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		orig := send(t, f, sqsq.SendInput{MessageBody: "first", MessageGroupId: "g", MessageDeduplicationId: "d"})
		f.clk.Add(5*time.Minute - time.Millisecond)
		dup := send(t, f, sqsq.SendInput{MessageBody: "second", MessageGroupId: "g", MessageDeduplicationId: "d"})
		if dup.MessageId != orig.MessageId || dup.SequenceNumber != orig.SequenceNumber {
			t.Errorf("duplicate = (%s, %s), want the original's (%s, %s) (§6.5)", dup.MessageId, dup.SequenceNumber, orig.MessageId, orig.SequenceNumber)
		}
		if want := fifoMD5("second"); dup.MD5OfMessageBody() != want {
			t.Errorf("duplicate MD5OfMessageBody = %s, want %s, the MD5 of this request's body (§6.5)", dup.MD5OfMessageBody(), want)
		}
		s := stats(t, f.q)
		if s.Visible != 1 || s.Sent != 1 || s.DuplicatesSuppressed != 1 {
			t.Errorf("stats: visible=%d sent=%d duplicates=%d, want 1, 1, 1", s.Visible, s.Sent, s.DuplicatesSuppressed)
		}
		if d := diff([]string{"first"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("stored:\n%s", d)
		}
	})

	t.Run("exactly 5 minutes later the same id is a new message", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		orig := send(t, f, sqsq.SendInput{MessageBody: "first", MessageGroupId: "g", MessageDeduplicationId: "d"})
		f.clk.Add(5 * time.Minute)
		again := send(t, f, sqsq.SendInput{MessageBody: "second", MessageGroupId: "g", MessageDeduplicationId: "d"})
		if again.MessageId == orig.MessageId || fifoSeqCmp(t, again.SequenceNumber, orig.SequenceNumber) <= 0 {
			t.Errorf("resend after the interval = (%s, %s), want a new id and a larger sequence number than (%s, %s)",
				again.MessageId, again.SequenceNumber, orig.MessageId, orig.SequenceNumber)
		}
		if s := stats(t, f.q); s.Visible != 2 || s.DuplicatesSuppressed != 0 {
			t.Errorf("stats: visible=%d duplicates=%d, want 2, 0", s.Visible, s.DuplicatesSuppressed)
		}
	})

	t.Run("the id is still remembered after the original is deleted", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		orig := send(t, f, sqsq.SendInput{MessageBody: "first", MessageGroupId: "g", MessageDeduplicationId: "d"})
		f.fifoDeleteAll(t, f.fifoRecv(t, 10, -1))
		f.clk.Add(time.Minute)
		dup := send(t, f, sqsq.SendInput{MessageBody: "first", MessageGroupId: "g", MessageDeduplicationId: "d"})
		if dup.MessageId != orig.MessageId {
			t.Errorf("resend after delete got id %s, want the original %s (§6.5)", dup.MessageId, orig.MessageId)
		}
		if s := stats(t, f.q); s.Visible+s.InFlight+s.Delayed != 0 || s.Groups != 0 {
			t.Errorf("stats %+v: the duplicate must not be stored", s)
		}
	})

	t.Run("content-based: the SHA-256 of the body only, attributes excluded", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{ContentBasedDeduplication: sqsq.Some(true)})
		orig := send(t, f, sqsq.SendInput{MessageBody: "hello", MessageGroupId: "g",
			MessageAttributes: map[string]sqsq.MessageAttribute{"k": {DataType: "String", StringValue: "1"}}})
		dup := send(t, f, sqsq.SendInput{MessageBody: "hello", MessageGroupId: "g",
			MessageAttributes: map[string]sqsq.MessageAttribute{"k": {DataType: "String", StringValue: "2"}}})
		if dup.MessageId != orig.MessageId {
			t.Errorf("same body, other attributes: id %s, want the original %s (§6.5)", dup.MessageId, orig.MessageId)
		}
		other := send(t, f, sqsq.SendInput{MessageBody: "hello!", MessageGroupId: "g"})
		if other.MessageId == orig.MessageId {
			t.Error("a different body was deduplicated")
		}
		msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, MessageSystemAttributeNames: fifoSysAll})
		if d := diff([]string{"hello", "hello!"}, bodies(msgs)); d != "" {
			t.Fatalf("stored:\n%s", d)
		}
		sum := sha256.Sum256([]byte("hello"))
		if got, want := msgs[0].Attributes[sqsq.SysMessageDeduplicationId], hex.EncodeToString(sum[:]); got != want {
			t.Errorf("MessageDeduplicationId = %q, want the hex SHA-256 of the body %q (§6.5)", got, want)
		}
	})

	t.Run("an explicit id overrides content-based deduplication", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{ContentBasedDeduplication: sqsq.Some(true)})
		gen := send(t, f, sqsq.SendInput{MessageBody: "x", MessageGroupId: "g"})
		explicit := send(t, f, sqsq.SendInput{MessageBody: "x", MessageGroupId: "g", MessageDeduplicationId: "mine"})
		if explicit.MessageId == gen.MessageId {
			t.Error("same body with an explicit id was deduplicated against the generated id")
		}
		sum := sha256.Sum256([]byte("x"))
		same := send(t, f, sqsq.SendInput{MessageBody: "y", MessageGroupId: "g", MessageDeduplicationId: hex.EncodeToString(sum[:])})
		if same.MessageId != gen.MessageId {
			t.Errorf("an explicit id equal to a generated one is a duplicate of it (§6.5): got %s, want %s", same.MessageId, gen.MessageId)
		}
		msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, MessageSystemAttributeNames: []string{sqsq.SysMessageDeduplicationId}})
		if len(msgs) != 2 || msgs[1].Attributes[sqsq.SysMessageDeduplicationId] != "mine" {
			t.Errorf("received %+v, want two messages, the second with MessageDeduplicationId mine", msgs)
		}
	})

	t.Run("scope", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			reason      string
			scope       string
			group2      string
			wantStored  int
			wantDupOfG1 bool
		}{
			{"queue scope: the same id in another group is a duplicate (§6.5)", "queue", "g2", 1, true},
			{"queue scope: the same id in the same group is a duplicate", "queue", "g1", 1, true},
			{"messageGroup scope: the same id in another group is a new message (§6.5)", "messageGroup", "g2", 2, false},
			{"messageGroup scope: the same id in the same group is a duplicate", "messageGroup", "g1", 1, true},
		}
		for _, tt := range tests {
			t.Run(tt.reason, func(t *testing.T) {
				t.Parallel()
				f := setupFIFO(t, sqsq.QueueAttributes{DeduplicationScope: sqsq.Some(tt.scope)})
				a := send(t, f, sqsq.SendInput{MessageBody: "a", MessageGroupId: "g1", MessageDeduplicationId: "d"})
				b := send(t, f, sqsq.SendInput{MessageBody: "b", MessageGroupId: tt.group2, MessageDeduplicationId: "d"})
				if (a.MessageId == b.MessageId) != tt.wantDupOfG1 {
					t.Errorf("second send id %s, first %s: duplicate = %v, want %v\nreason: %s",
						b.MessageId, a.MessageId, a.MessageId == b.MessageId, tt.wantDupOfG1, tt.reason)
				}
				if s := stats(t, f.q); s.Visible != tt.wantStored {
					t.Errorf("stored %d, want %d\nreason: %s", s.Visible, tt.wantStored, tt.reason)
				}
			})
		}
	})

	t.Run("a DeduplicationScope change applies at once to the ids already remembered", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			reason   string
			from, to string
			group2   string
		}{
			{"queue → messageGroup: the same id in the same group is a duplicate under both scopes", "queue", "messageGroup", "g1"},
			{"messageGroup → queue: the same id in another group is now a duplicate", "messageGroup", "queue", "g2"},
		}
		for _, tt := range tests {
			f := setupFIFO(t, sqsq.QueueAttributes{DeduplicationScope: sqsq.Some(tt.from)})
			a := send(t, f, sqsq.SendInput{MessageBody: "a", MessageGroupId: "g1", MessageDeduplicationId: "d"})
			f.set(t, sqsq.QueueAttributes{DeduplicationScope: sqsq.Some(tt.to)})
			b := send(t, f, sqsq.SendInput{MessageBody: "b", MessageGroupId: tt.group2, MessageDeduplicationId: "d"})
			if b.MessageId != a.MessageId {
				t.Errorf("second send got a new id %s, want the original %s\nreason: %s", b.MessageId, a.MessageId, tt.reason)
			}
			if s := stats(t, f.q); s.Visible != 1 {
				t.Errorf("stored %d, want 1\nreason: %s", s.Visible, tt.reason)
			}
		}
	})

	t.Run("PurgeQueue clears the deduplication cache", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		orig := send(t, f, sqsq.SendInput{MessageBody: "a", MessageGroupId: "g", MessageDeduplicationId: "d"})
		if err := f.q.Purge(f.ctx); err != nil {
			t.Fatalf("Purge: %v", err)
		}
		again := send(t, f, sqsq.SendInput{MessageBody: "a", MessageGroupId: "g", MessageDeduplicationId: "d"})
		if again.MessageId == orig.MessageId {
			t.Error("a resend right after PurgeQueue was deduplicated (§3.7)")
		}
		if d := diff([]string{"a"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("stored after the purge:\n%s", d)
		}
	})

	t.Run("duplicates inside one SendBatch", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		res, err := f.q.SendBatch(f.ctx, []sqsq.SendBatchEntry{
			{Id: "one", SendInput: sqsq.SendInput{MessageBody: "a", MessageGroupId: "g", MessageDeduplicationId: "d"}},
			{Id: "two", SendInput: sqsq.SendInput{MessageBody: "b", MessageGroupId: "g", MessageDeduplicationId: "d"}},
		})
		if err != nil || len(res.Successful) != 2 {
			t.Fatalf("SendBatch = %+v, %v; want both entries successful", res, err)
		}
		if res.Successful[0].MessageId != res.Successful[1].MessageId || res.Successful[0].SequenceNumber != res.Successful[1].SequenceNumber {
			t.Errorf("entries %+v and %+v: the second is a duplicate of the first", res.Successful[0], res.Successful[1])
		}
		if s := stats(t, f.q); s.Visible != 1 || s.DuplicatesSuppressed != 1 {
			t.Errorf("stats: visible=%d duplicates=%d, want 1, 1", s.Visible, s.DuplicatesSuppressed)
		}
	})
}

// fifoSeqCmp compares two SequenceNumbers as the decimal integers they are.
func fifoSeqCmp(t *testing.T, a, b string) int {
	t.Helper()
	x, ok1 := new(big.Int).SetString(a, 10)
	y, ok2 := new(big.Int).SetString(b, 10)
	if !ok1 || !ok2 {
		t.Fatalf("sequence numbers %q, %q are not decimal integers", a, b)
	}
	return x.Cmp(y)
}

// fifoMD5 is the hex MD5 of s, as MD5OfMessageBody reports it (§5.8).
func fifoMD5(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestFIFOSequenceNumber(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{})
	var seqs []string
	for i, g := range []string{"g1", "g2", "g1", "g3"} {
		res := f.fifoSend(t, g, "m"+string(rune('0'+i)))
		seqs = append(seqs, res.SequenceNumber)
	}
	dup := f.fifoSend(t, "g2", "m1")
	if dup.SequenceNumber != seqs[1] {
		t.Errorf("duplicate's SequenceNumber %s, want the original's %s", dup.SequenceNumber, seqs[1])
	}
	res, err := f.q.SendBatch(f.ctx, []sqsq.SendBatchEntry{
		{Id: "a", SendInput: sqsq.SendInput{MessageBody: "b1", MessageGroupId: "g1", MessageDeduplicationId: "b1"}},
		{Id: "b", SendInput: sqsq.SendInput{MessageBody: "b2", MessageGroupId: "g1", MessageDeduplicationId: "b2"}},
	})
	if err != nil || len(res.Successful) != 2 {
		t.Fatalf("SendBatch = %+v, %v", res, err)
	}
	for _, e := range res.Successful {
		seqs = append(seqs, e.SequenceNumber)
	}
	one := big.NewInt(1)
	for i, s := range seqs {
		if len(s) != 20 || strings.Trim(s, "0123456789") != "" {
			t.Errorf("SequenceNumber %q is not 20 decimal digits (§5.4)", s)
		}
		if i == 0 {
			continue
		}
		prev, _ := new(big.Int).SetString(seqs[i-1], 10)
		cur, _ := new(big.Int).SetString(s, 10)
		if cur == nil || prev == nil || new(big.Int).Sub(cur, prev).Cmp(one) != 0 {
			t.Errorf("SequenceNumber %s after %s: want the next number; the duplicate must not use one (§6.7)", s, seqs[i-1])
		}
	}

	msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, MessageSystemAttributeNames: []string{sqsq.SysSequenceNumber}})
	got := map[string]string{}
	for _, m := range msgs {
		got[m.Body] = m.Attributes[sqsq.SysSequenceNumber]
	}
	want := map[string]string{"m0": seqs[0], "m1": seqs[1], "m2": seqs[2], "m3": seqs[3], "b1": seqs[4], "b2": seqs[5]}
	if d := diff(want, got); d != "" {
		t.Errorf("SequenceNumber system attributes (by body):\n%s", d)
	}

	std := f.create(t, "test-queue", sqsq.QueueAttributes{})
	sres := f.sendInput(t, std, sqsq.SendInput{MessageBody: "s", MessageGroupId: "g"})
	if sres.SequenceNumber != "" {
		t.Errorf("standard queue send returned SequenceNumber %q, want none (§3.8)", sres.SequenceNumber)
	}
	smsgs := f.receive(t, std, sqsq.ReceiveInput{MessageSystemAttributeNames: fifoSysAll})
	if len(smsgs) != 1 {
		t.Fatalf("standard receive: %d messages", len(smsgs))
	}
	if v, ok := smsgs[0].Attributes[sqsq.SysSequenceNumber]; ok {
		t.Errorf("standard queue message has SequenceNumber %q, want none (§5.4)", v)
	}
}

func TestFIFORetroactiveDelay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason    string
		fifo      bool
		delay     time.Duration // queue delay when the message is sent
		newDelay  time.Duration // set 5 s after the send
		available time.Duration // when the message becomes available, from the send
	}{
		{"FIFO: shortening the queue delay applies to a delayed message (§5.1)", true, 60 * time.Second, 10 * time.Second, 10 * time.Second},
		{"FIFO: lengthening it does too", true, 10 * time.Second, 60 * time.Second, 60 * time.Second},
		{"FIFO: a delay shortened below the time already waited releases the message at once", true, 60 * time.Second, 2 * time.Second, 5 * time.Second},
		{"FIFO: shortened to 0", true, 60 * time.Second, 0, 5 * time.Second},
		{"standard: a queue delay change is not retroactive (§5.1)", false, 60 * time.Second, 10 * time.Second, 60 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			var f *fixture
			in := sqsq.SendInput{MessageBody: "x"}
			if tt.fifo {
				f = setupFIFO(t, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(tt.delay)})
				in.MessageGroupId, in.MessageDeduplicationId = "g", "d"
			} else {
				f = setup(t)
				f.set(t, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(tt.delay)})
			}
			sent := f.clk.Now()
			f.sendInput(t, f.q, in)
			f.clk.Add(5 * time.Second)
			f.set(t, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(tt.newDelay)})
			if tt.available > 5*time.Second {
				f.clk.Set(sent.Add(tt.available - time.Millisecond))
				if s := stats(t, f.q); s.Delayed != 1 || s.Visible != 0 {
					t.Fatalf("1 ms before %v: delayed=%d visible=%d, want 1, 0\nreason: %s", tt.available, s.Delayed, s.Visible, tt.reason)
				}
			}
			f.clk.Set(sent.Add(tt.available))
			if s := stats(t, f.q); s.Delayed != 0 || s.Visible != 1 {
				t.Fatalf("at %v: delayed=%d visible=%d, want 0, 1\nreason: %s", tt.available, s.Delayed, s.Visible, tt.reason)
			}
			if d := diff([]string{"x"}, bodies(f.receive(t, f.q, sqsq.ReceiveInput{}))); d != "" {
				t.Errorf("receive:\n%s\nreason: %s", d, tt.reason)
			}
		})
	}

	t.Run("FIFO: a shortened delay wakes a parked long poll", func(t *testing.T) {
		t.Parallel()
		// With the bug the receive below stays parked until its 20 s wait
		// ends on the clock, so the final read would block: skipped.
		f := setupFIFO(t, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(60 * time.Second)})
		f.fifoSend(t, "g", "x")
		f.clk.Add(time.Second)
		done := make(chan []sqsq.Message, 1)
		go func() {
			msgs, _ := f.q.Receive(f.ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
			done <- msgs
		}()
		if err := f.q.WaitForReceivers(f.ctx, 1); err != nil {
			t.Fatal(err)
		}
		f.set(t, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(10 * time.Second)})
		if err := f.q.WaitForReceivers(f.ctx, 1); err != nil { // parked again, armed for the new deadline
			t.Fatal(err)
		}
		f.clk.Add(9 * time.Second) // +10 s: the new end of the delay, 11 s before the wait ends
		if d := diff([]string{"x"}, bodies(<-done)); d != "" {
			t.Errorf("long poll:\n%s", d)
		}
	})

	t.Run("FIFO: a delay change leaves available messages alone", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "x")
		f.set(t, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(60 * time.Second)})
		if s := stats(t, f.q); s.Visible != 1 || s.Delayed != 0 {
			t.Errorf("stats %+v: the available message must stay available", s)
		}
	})
}

// TestFIFOReceiptHandleErrors covers the FIFO column of §4.5: handles whose
// visibility ended are refused, and the refusal changes nothing.
func TestFIFOReceiptHandleErrors(t *testing.T) {
	t.Parallel()
	const expired = "The receipt handle has expired."
	type op int
	const (
		opDelete op = iota
		opCMV
	)
	tests := []struct {
		reason string
		op     op
		// prepare leaves the queue in the state under test and returns the
		// handle to use.
		prepare func(t *testing.T, f *fixture) string
		code    sqsq.Code
		reason2 string // the Reason part of the message, "" to not check
	}{
		{
			reason: "delete after the visibility timeout ended (§4.5)",
			op:     opDelete,
			prepare: func(t *testing.T, f *fixture) string {
				m := f.fifoRecv(t, 1, -1)
				f.clk.Add(31 * time.Second)
				return m[0].ReceiptHandle
			},
			code: sqsq.CodeInvalidParameterValue, reason2: expired,
		},
		{
			reason: "delete at the very instant the visibility timeout ends (the end is inclusive, §4.1)",
			op:     opDelete,
			prepare: func(t *testing.T, f *fixture) string {
				m := f.fifoRecv(t, 1, -1)
				f.clk.Add(30 * time.Second)
				return m[0].ReceiptHandle
			},
			code: sqsq.CodeInvalidParameterValue, reason2: expired,
		},
		{
			reason: "delete with the handle of a visibility-0 receive (§4.5: practically undeletable)",
			op:     opDelete,
			prepare: func(t *testing.T, f *fixture) string {
				return f.fifoRecv(t, 1, 0)[0].ReceiptHandle
			},
			code: sqsq.CodeInvalidParameterValue, reason2: expired,
		},
		{
			reason: "delete with a stale handle after the message was received again (§4.5)",
			op:     opDelete,
			prepare: func(t *testing.T, f *fixture) string {
				m := f.fifoRecv(t, 1, -1)
				f.clk.Add(30 * time.Second)
				f.fifoRecv(t, 1, -1)
				return m[0].ReceiptHandle
			},
			code: sqsq.CodeInvalidParameterValue, reason2: expired,
		},
		{
			reason: "ChangeVisibility with a handle whose visibility ended (§4.5)",
			op:     opCMV,
			prepare: func(t *testing.T, f *fixture) string {
				m := f.fifoRecv(t, 1, -1)
				f.clk.Add(30 * time.Second)
				return m[0].ReceiptHandle
			},
			code: sqsq.CodeInvalidParameterValue, reason2: expired,
		},
		{
			reason: "ChangeVisibility with a stale handle (§4.5)",
			op:     opCMV,
			prepare: func(t *testing.T, f *fixture) string {
				m := f.fifoRecv(t, 1, -1)
				f.clk.Add(30 * time.Second)
				f.fifoRecv(t, 1, -1)
				return m[0].ReceiptHandle
			},
			code: sqsq.CodeInvalidParameterValue, reason2: expired,
		},
		{
			reason: "ChangeVisibility of a deleted message (§3.13)",
			op:     opCMV,
			prepare: func(t *testing.T, f *fixture) string {
				m := f.fifoRecv(t, 1, -1)
				f.fifoDelete(t, m[0].ReceiptHandle)
				return m[0].ReceiptHandle
			},
			code: sqsq.CodeInvalidParameterValue, reason2: "Message does not exist or is not available for visibility timeout change.",
		},
		{
			reason: "a handle sqsq never issued (§4.5)",
			op:     opDelete,
			prepare: func(t *testing.T, f *fixture) string {
				f.fifoRecv(t, 1, -1)
				return "AQEBnotahandle"
			},
			code: sqsq.CodeReceiptHandleIsInvalid,
		},
		{
			reason: "a handle of another FIFO queue (§4.5)",
			op:     opDelete,
			prepare: func(t *testing.T, f *fixture) string {
				f.fifoRecv(t, 1, -1)
				other := f.create(t, "other.fifo", sqsq.QueueAttributes{FifoQueue: sqsq.Some(true)})
				f.sendInput(t, other, sqsq.SendInput{MessageBody: "o", MessageGroupId: "g", MessageDeduplicationId: "o"})
				return f.receive(t, other, sqsq.ReceiveInput{})[0].ReceiptHandle
			},
			code: sqsq.CodeReceiptHandleIsInvalid,
		},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupFIFO(t, sqsq.QueueAttributes{})
			f.fifoSend(t, "g", "a")
			f.fifoSend(t, "g", "b")
			rh := tt.prepare(t, f)
			before := f.fifoSnap(t, f.q)
			rejected := stats(t, f.q).ExpiredHandleRejections
			var err error
			if tt.op == opDelete {
				err = f.q.Delete(f.ctx, rh)
			} else {
				err = f.q.ChangeVisibility(f.ctx, rh, 60*time.Second)
			}
			msg := ""
			if tt.reason2 != "" {
				msg = "Value " + rh + " for parameter ReceiptHandle is invalid. Reason: " + tt.reason2
			}
			wantErr(t, err, tt.code, msg, tt.reason)
			f.fifoUnchanged(t, f.q, before, tt.reason)
			want := rejected
			if tt.reason2 == expired {
				want++
			}
			if got := stats(t, f.q).ExpiredHandleRejections; got != want {
				t.Errorf("ExpiredHandleRejections = %d, want %d (§11.2 expired_handle_rejections)\nreason: %s", got, want, tt.reason)
			}
		})
	}

	t.Run("DeleteBatch reports an expired handle in Failed and deletes the rest", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g1", "a")
		f.fifoSend(t, "g2", "b")
		a := f.fifoRecv(t, 1, 10*time.Second)
		f.clk.Add(10 * time.Second)
		b := f.fifoRecv(t, 10, -1) // b, then a again: a's first handle is now stale
		var bh string
		for _, m := range b {
			if m.Body == "b" {
				bh = m.ReceiptHandle
			}
		}
		res, err := f.q.DeleteBatch(f.ctx, []sqsq.DeleteBatchEntry{{Id: "a", ReceiptHandle: a[0].ReceiptHandle}, {Id: "b", ReceiptHandle: bh}})
		if err != nil {
			t.Fatalf("DeleteBatch: %v", err)
		}
		if d := diff([]string{"b"}, res.Successful); d != "" || len(res.Failed) != 1 || res.Failed[0].Id != "a" {
			t.Fatalf("DeleteBatch = %+v, want b deleted and a failed", res)
		}
		wantErr(t, res.Failed[0].Err, sqsq.CodeInvalidParameterValue,
			"Value "+a[0].ReceiptHandle+" for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.",
			"the entry fails like DeleteMessage (§3.12)")
	})
}

func TestFIFOReceiptHandles(t *testing.T) {
	t.Parallel()

	t.Run("delete after extending with ChangeVisibility, within the extension", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		m := f.fifoRecv(t, 1, -1)
		f.clk.Add(20 * time.Second)
		if err := f.q.ChangeVisibility(f.ctx, m[0].ReceiptHandle, 60*time.Second); err != nil {
			t.Fatalf("ChangeVisibility: %v", err)
		}
		f.clk.Add(50 * time.Second) // +70 s: past the original 30 s, inside the extension (until +80 s)
		if err := f.q.Delete(f.ctx, m[0].ReceiptHandle); err != nil {
			t.Fatalf("Delete inside the extended window: %v (§4.5)", err)
		}
		if s := stats(t, f.q); s.Visible+s.InFlight != 0 {
			t.Errorf("stats %+v: want the message deleted", s)
		}
	})

	t.Run("deleting an already deleted message succeeds", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		m := f.fifoRecv(t, 1, -1)
		for i := 0; i < 3; i++ {
			if err := f.q.Delete(f.ctx, m[0].ReceiptHandle); err != nil {
				t.Fatalf("Delete #%d: %v (§4.5: success, no-op)", i+1, err)
			}
		}
		f.clk.Add(time.Hour) // even after its visibility would have ended
		if err := f.q.Delete(f.ctx, m[0].ReceiptHandle); err != nil {
			t.Fatalf("Delete an hour later: %v", err)
		}
		if s := stats(t, f.q); s.Deleted != 1 {
			t.Errorf("Deleted = %d, want 1", s.Deleted)
		}
	})

	t.Run("the handle of a purged message deletes nothing and succeeds", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		m := f.fifoRecv(t, 1, -1)
		if err := f.q.Purge(f.ctx); err != nil {
			t.Fatal(err)
		}
		if err := f.q.Delete(f.ctx, m[0].ReceiptHandle); err != nil {
			t.Errorf("Delete of a purged message: %v (§3.7: like a deleted message)", err)
		}
	})

	t.Run("a received message deleted by its latest handle while in flight", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g", "a")
		f.fifoRecv(t, 1, -1)
		f.clk.Add(30 * time.Second)
		m := f.fifoRecv(t, 1, -1)
		f.clk.Add(29 * time.Second)
		if err := f.q.Delete(f.ctx, m[0].ReceiptHandle); err != nil {
			t.Fatalf("Delete with the latest handle: %v", err)
		}
		if s := stats(t, f.q); s.Groups != 0 || s.Visible+s.InFlight != 0 {
			t.Errorf("stats %+v after the delete", s)
		}
	})
}

func TestFIFOReceiveRequestAttemptId(t *testing.T) {
	t.Parallel()
	recv := func(t *testing.T, f *fixture, id string, vis time.Duration) []sqsq.Message {
		t.Helper()
		return f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(vis), ReceiveRequestAttemptId: id})
	}
	handles := func(msgs []sqsq.Message) []string {
		var out []string
		for _, m := range msgs {
			out = append(out, m.ReceiptHandle)
		}
		return out
	}

	t.Run("a retry within 5 minutes returns the same messages and handles and resets visibility", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g1", "a")
		f.fifoSend(t, "g1", "b")
		f.fifoSend(t, "g2", "c")
		first := recv(t, f, "try-1", 30*time.Second)
		if d := diff([]string{"a", "b", "c"}, bodies(first)); d != "" {
			t.Fatalf("first receive:\n%s", d)
		}
		f.fifoSend(t, "g3", "d") // a fresh receive would return d
		f.clk.Add(20 * time.Second)
		retry := recv(t, f, "try-1", 30*time.Second)
		if d := diff(bodies(first), bodies(retry)); d != "" {
			t.Errorf("retry bodies (§6.8):\n%s", d)
		}
		if d := diff(handles(first), handles(retry)); d != "" {
			t.Errorf("retry receipt handles (§6.8):\n%s", d)
		}
		f.clk.Add(20 * time.Second) // +40 s: past the first deadline, inside the reset one (+50 s)
		if s := stats(t, f.q); s.InFlight != 3 {
			t.Errorf("in flight at +40 s = %d, want 3: the retry reset the visibility timeout", s.InFlight)
		}
		for _, m := range retry {
			if err := f.q.Delete(f.ctx, m.ReceiptHandle); err != nil {
				t.Errorf("Delete(%s) with the replayed handle: %v", m.Body, err)
			}
		}
	})

	t.Run("after a returned message is deleted a retry is a fresh receive", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g1", "a")
		f.fifoSend(t, "g2", "b")
		first := recv(t, f, "try-1", 30*time.Second)
		f.fifoDelete(t, first[0].ReceiptHandle)
		f.fifoSend(t, "g3", "c")
		if d := diff([]string{"c"}, bodies(recv(t, f, "try-1", 30*time.Second))); d != "" {
			t.Errorf("retry after a delete (§6.8 [EMU]):\n%s", d)
		}
	})

	t.Run("after a returned message's visibility is changed a retry is a fresh receive", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g1", "a")
		first := recv(t, f, "try-1", 30*time.Second)
		if err := f.q.ChangeVisibility(f.ctx, first[0].ReceiptHandle, 60*time.Second); err != nil {
			t.Fatal(err)
		}
		if got := recv(t, f, "try-1", 30*time.Second); len(got) != 0 {
			t.Errorf("retry after a visibility change returned %v, want a fresh (empty) receive (§6.8)", bodies(got))
		}
	})

	t.Run("after 5 minutes a retry is a fresh receive", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g1", "a")
		first := recv(t, f, "try-1", time.Hour)
		f.fifoSend(t, "g2", "b")
		f.clk.Add(5 * time.Minute)
		retry := recv(t, f, "try-1", time.Hour)
		if d := diff([]string{"b"}, bodies(retry)); d != "" {
			t.Errorf("retry at exactly 5 minutes (§6.8):\n%s", d)
		}
		if s := stats(t, f.q); s.InFlight != 2 {
			t.Errorf("in flight %d, want 2", s.InFlight)
		}
		if err := f.q.Delete(f.ctx, first[0].ReceiptHandle); err != nil {
			t.Errorf("the first receive's handle still deletes: %v", err)
		}
	})

	t.Run("after the visibility timeout ended a retry is a fresh receive with new handles", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g1", "a")
		first := recv(t, f, "try-1", 30*time.Second)
		f.clk.Add(30 * time.Second)
		retry := recv(t, f, "try-1", 30*time.Second)
		if len(retry) != 1 || retry[0].Body != "a" || retry[0].ReceiptHandle == first[0].ReceiptHandle {
			t.Errorf("retry = %+v, want a again with a new handle", retry)
		}
	})

	t.Run("another attempt id does not replay", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		f.fifoSend(t, "g1", "a")
		recv(t, f, "try-1", 30*time.Second)
		if got := recv(t, f, "try-2", 30*time.Second); len(got) != 0 {
			t.Errorf("a different attempt id returned %v", bodies(got))
		}
	})
}

func TestFIFOInFlightLimit(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{}, sqsq.WithInFlightLimit(2))
	for i, g := range []string{"g1", "g2", "g3", "g4"} {
		f.fifoSend(t, g, "m"+string(rune('1'+i)))
	}
	got := f.fifoRecv(t, 10, -1)
	if d := diff([]string{"m1", "m2"}, bodies(got)); d != "" {
		t.Errorf("at a limit of 2 a receive returns 2 (§4.6):\n%s", d)
	}
	for _, wait := range []time.Duration{0, time.Second} {
		done := make(chan []sqsq.Message, 1)
		errc := make(chan error, 1)
		go func() {
			msgs, err := f.q.Receive(f.ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, WaitTimeSeconds: sqsq.Some(wait)})
			done <- msgs
			errc <- err
		}()
		if wait > 0 {
			if err := f.q.WaitForReceivers(f.ctx, 1); err != nil {
				t.Fatal(err)
			}
			f.clk.Add(wait)
		}
		if msgs, err := <-done, <-errc; err != nil || len(msgs) != 0 {
			t.Errorf("wait %v at the limit: %v, %v; want no messages and no error, never OverLimit on FIFO (§4.6)", wait, bodies(msgs), err)
		}
	}
	f.fifoDelete(t, got[0].ReceiptHandle)
	if d := diff([]string{"m3"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
		t.Errorf("one slot free:\n%s", d)
	}
}

func TestFIFOStatsGroups(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{})
	for _, s := range [][2]string{{"g1", "a1"}, {"g1", "a2"}, {"g2", "b1"}, {"g2", "b2"}, {"g3", "c1"}, {"g3", "c2"}} {
		f.fifoSend(t, s[0], s[1])
	}
	check := func(step string, groups, locked int) {
		t.Helper()
		if s := stats(t, f.q); s.Groups != groups || s.LockedGroups != locked {
			t.Errorf("%s: Groups=%d LockedGroups=%d, want %d, %d", step, s.Groups, s.LockedGroups, groups, locked)
		}
	}
	check("after the sends", 3, 0)
	a := f.fifoRecv(t, 1, -1)
	b := f.fifoRecv(t, 1, -1)
	if d := diff([]string{"a1", "b1"}, bodies(append(a, b...))); d != "" {
		t.Fatalf("one from each of two groups:\n%s", d)
	}
	check("one message in flight in each of two groups", 3, 2)
	attrs, err := f.q.GetAttributes(f.ctx, sqsq.AttrApproximateNumberOfMessages, sqsq.AttrApproximateNumberOfMessagesNotVisible)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{sqsq.AttrApproximateNumberOfMessages: "4", sqsq.AttrApproximateNumberOfMessagesNotVisible: "2"}
	if d := diff(want, attrs); d != "" {
		t.Errorf("§2.2 example: 6 messages in 3 groups, one received from each of 2 groups:\n%s", d)
	}
	f.fifoDelete(t, a[0].ReceiptHandle)
	check("g1's head deleted", 3, 1)
	f.clk.Add(30 * time.Second)
	check("g2's head visible again", 3, 0)
	f.fifoDeleteAll(t, f.fifoRecv(t, 10, -1))
	check("all deleted", 0, 0)
}

func TestFIFOMessageGroupIdOnStandardQueue(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, s := range [][2]string{{"g1", "a"}, {"g1", "b"}, {"g2", "c"}} {
		f.sendInput(t, f.q, sqsq.SendInput{MessageBody: s[1], MessageGroupId: s[0]})
	}
	var got []string
	for i := 0; i < 3; i++ {
		m := f.receiveOne(t, f.q, sqsq.ReceiveInput{MessageSystemAttributeNames: []string{sqsq.SysMessageGroupId}})
		got = append(got, m.Body+"@"+m.Attributes[sqsq.SysMessageGroupId])
	}
	if d := diff([]string{"a@g1", "b@g1", "c@g2"}, got); d != "" {
		t.Errorf("a standard queue does not lock groups; MessageGroupId comes back as a system attribute (§3.8 step 8):\n%s", d)
	}
	if s := stats(t, f.q); s.Groups != 0 || s.LockedGroups != 0 || s.InFlight != 3 {
		t.Errorf("stats %+v: standard queues keep no groups", s)
	}
	_, err := f.q.Send(f.ctx, sqsq.SendInput{MessageBody: "d", MessageGroupId: "g1", MessageDeduplicationId: "d"})
	wantErr(t, err, sqsq.CodeInvalidParameterValue, "",
		"MessageDeduplicationId stays FIFO-only even though MessageGroupId is allowed (§3.8 step 8)")
}
