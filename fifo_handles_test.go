package sqsq_test

// Black-box tests of FIFO queues: receipt handles (docs/sqs-semantics.md
// §4.5). The FIFO helpers are in fifo_helpers_test.go; the shared ones (setup,
// fixture, wantErr, diff, bodies, stats) in broker_test.go.

import (
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

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
