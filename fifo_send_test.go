package sqsq_test

// Black-box tests of FIFO queues: send validation (docs/sqs-semantics.md §3.8
// step 7, §3.9). The FIFO helpers are in fifo_helpers_test.go; the shared ones
// (setup, fixture, wantErr, diff, bodies, stats) in broker_test.go.

import (
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

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
