package sqsq_test

// Black-box tests of dead-letter queues: ListDeadLetterSourceQueues
// (docs/sqs-semantics.md §3.15). The fixture (setupDLQ) and helpers are in
// redrive_helpers_test.go.

import (
	"reflect"
	"testing"

	"github.com/sqsq/sqsq"
)

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
			wantErr(t, err, tt.code, tt.msg, tt.reason)
			if out.QueueURLs != nil {
				t.Errorf("URLs %v returned with an error", out.QueueURLs)
			}
			f.unchanged(t, before, tt.reason, src)
		})
	}
}
