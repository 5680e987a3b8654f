package sqsq_test

// Black-box tests of FIFO queues: creation and attributes
// (docs/sqs-semantics.md §2.1, §6.1). The FIFO helpers are in
// fifo_helpers_test.go; the shared ones (setup, fixture, wantErr, diff,
// bodies, stats) in broker_test.go.

import (
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

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
