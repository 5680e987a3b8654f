package sqsq_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/receipt"
)

// pinnedIDs is a WithIDFunc counter, as the golden tests and sqsqtest use.
func pinnedIDs() sqsq.Option {
	n := 0
	return sqsq.WithIDFunc(func() string { n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) })
}

// forgedCase turns the handle f issued (rh) into one f never issued.
type forgedCase struct {
	reason string
	fifo   bool
	forge  func(t *testing.T, rh string) string
}

// forgedCases are handles a broker must reject as not valid, as AWS rejects
// any handle it never issued: every one-character edit, a longer or shorter
// string, a handle of another broker and one guessed from the layout.
func forgedCases() []forgedCase {
	var cases []forgedCase
	for i := range receipt.MaxLen {
		cases = append(cases, forgedCase{
			reason: fmt.Sprintf("character %d changed", i),
			forge: func(t *testing.T, rh string) string {
				// The next character of the alphabet: for the last one this
				// used to touch only unused bits and decode to the same handle.
				const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_A"
				for j := range len(alphabet) - 1 {
					if alphabet[j] == rh[i] {
						return rh[:i] + alphabet[j+1:j+2] + rh[i+1:]
					}
				}
				t.Fatalf("handle %q has %q at %d, outside base64url", rh, rh[i], i)
				return ""
			},
		})
	}
	cases = append(cases,
		forgedCase{reason: "a character appended", forge: func(_ *testing.T, rh string) string { return rh + "A" }},
		forgedCase{reason: "padding appended", forge: func(_ *testing.T, rh string) string { return rh + "=" }},
		forgedCase{reason: "the last character removed", forge: func(_ *testing.T, rh string) string { return rh[:len(rh)-1] }},
		forgedCase{reason: "a newline inserted", forge: func(_ *testing.T, rh string) string { return rh[:20] + "\n" + rh[20:] }},
		forgedCase{reason: "the same receive on another broker", forge: func(t *testing.T, _ string) string { return sameReceiveOn(t, false) }},
		forgedCase{reason: "the same receive on another broker, FIFO", fifo: true,
			forge: func(t *testing.T, _ string) string { return sameReceiveOn(t, true) }},
		forgedCase{reason: "guessed: the right fields and layout, a wrong key", forge: func(t *testing.T, _ string) string {
			// A broker with pinned ids signs with the public zero key, so
			// its handle for the same calls is exactly that guess.
			guess := sameReceiveOn(t, false, pinnedIDs())
			if _, ok := (receipt.Key{}).Decode(guess); !ok {
				t.Fatalf("%q is not signed with the zero key", guess)
			}
			return guess
		}},
	)
	return cases
}

// sameReceiveOn makes a new broker, repeats the calls the test fixture made
// (one queue, one send, one receive) and returns the handle: the same queue,
// message and receive, from another broker.
func sameReceiveOn(t *testing.T, fifo bool, opts ...sqsq.Option) string {
	t.Helper()
	f := setup(t, opts...)
	if fifo {
		f = setupFIFO(t, sqsq.QueueAttributes{ContentBasedDeduplication: sqsq.Some(true)}, opts...)
		f.fifoSend(t, "g", "m")
	} else {
		f.send(t, f.q, "m")
	}
	return f.receiveOne(t, f.q, sqsq.ReceiveInput{}).ReceiptHandle
}

// TestForgedHandles: a handle the broker did not issue is
// ReceiptHandleIsInvalid with AWS's text for Delete, ChangeVisibility and
// their batch forms, and changes nothing: the real handle works afterwards.
func TestForgedHandles(t *testing.T) {
	t.Parallel()
	for _, tc := range forgedCases() {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			if tc.fifo {
				f = setupFIFO(t, sqsq.QueueAttributes{ContentBasedDeduplication: sqsq.Some(true)})
				f.fifoSend(t, "g", "m")
			} else {
				f.send(t, f.q, "m")
			}
			rh := f.receiveOne(t, f.q, sqsq.ReceiveInput{}).ReceiptHandle
			bad := tc.forge(t, rh)
			if bad == rh {
				t.Fatalf("forge returned the real handle %q", rh)
			}
			before := stats(t, f.q)
			wantErr(t, f.q.Delete(f.ctx, bad), sqsq.CodeReceiptHandleIsInvalid, invalidHandleMsg(bad), tc.reason)
			wantErr(t, f.q.ChangeVisibility(f.ctx, bad, 0), sqsq.CodeReceiptHandleIsInvalid, invalidHandleMsg(bad), tc.reason)
			res, err := f.q.DeleteBatch(f.ctx, []sqsq.DeleteBatchEntry{{Id: "x", ReceiptHandle: bad}})
			if err != nil || len(res.Failed) != 1 || res.Failed[0].Err.Code != sqsq.CodeReceiptHandleIsInvalid {
				t.Errorf("DeleteBatch(%q) = %+v, %v; want entry x ReceiptHandleIsInvalid\nreason: %s", bad, res, err, tc.reason)
			}
			res, err = f.q.ChangeVisibilityBatch(f.ctx, []sqsq.ChangeVisibilityBatchEntry{{Id: "x", ReceiptHandle: bad}})
			if err != nil || len(res.Failed) != 1 || res.Failed[0].Err.Code != sqsq.CodeReceiptHandleIsInvalid {
				t.Errorf("ChangeVisibilityBatch(%q) = %+v, %v; want entry x ReceiptHandleIsInvalid\nreason: %s", bad, res, err, tc.reason)
			}
			if d := diff(before, stats(t, f.q)); d != "" {
				t.Errorf("a rejected handle changed the queue:\n%s\nreason: %s", d, tc.reason)
			}
			wantErr(t, f.q.Delete(f.ctx, rh), "", "", "the real handle still deletes: "+tc.reason)
			if s := stats(t, f.q); s.Deleted != 1 {
				t.Errorf("Deleted = %d after the real handle, want 1\nreason: %s", s.Deleted, tc.reason)
			}
		})
	}
}

// TestHandleOfAnotherBrokerLeavesItsMessage: two brokers that made the same
// calls hold messages with the same queue, position and receive; a handle of
// one deletes nothing in the other, and still deletes in its own.
func TestHandleOfAnotherBrokerLeavesItsMessage(t *testing.T) {
	t.Parallel()
	a, b := setup(t), setup(t)
	for _, f := range []*fixture{a, b} {
		f.send(t, f.q, "m")
	}
	rhA := a.receiveOne(t, a.q, sqsq.ReceiveInput{}).ReceiptHandle
	rhB := b.receiveOne(t, b.q, sqsq.ReceiveInput{}).ReceiptHandle
	if rhA == rhB {
		t.Fatalf("two brokers issued the same handle %q", rhA)
	}
	wantErr(t, b.q.Delete(b.ctx, rhA), sqsq.CodeReceiptHandleIsInvalid, invalidHandleMsg(rhA), "a's handle on b")
	wantErr(t, a.q.Delete(a.ctx, rhB), sqsq.CodeReceiptHandleIsInvalid, invalidHandleMsg(rhB), "b's handle on a")
	for _, f := range []*fixture{a, b} {
		if s := stats(t, f.q); s.InFlight != 1 || s.Deleted != 0 {
			t.Errorf("after the foreign handles: %d in flight, %d deleted; want 1, 0", s.InFlight, s.Deleted)
		}
	}
	wantErr(t, a.q.Delete(a.ctx, rhA), "", "", "a's handle on a")
	wantErr(t, b.q.Delete(b.ctx, rhB), "", "", "b's handle on b")
}

// TestPinnedIDsPinHandles: with WithIDFunc the same calls give the same
// handles in every run (golden files hold them), and they stay handles of one
// receive: the first receipt goes stale on a re-receive as always.
func TestPinnedIDsPinHandles(t *testing.T) {
	t.Parallel()
	run := func() (first, second string) {
		f := setup(t, pinnedIDs())
		f.send(t, f.q, "m")
		first = f.receiveOne(t, f.q, sqsq.ReceiveInput{}).ReceiptHandle
		f.clk.Add(30 * time.Second)
		second = f.receiveOne(t, f.q, sqsq.ReceiveInput{}).ReceiptHandle
		wantErr(t, f.q.Delete(f.ctx, first), "", "", "a stale handle of a pinned broker succeeds")
		if s := stats(t, f.q); s.StaleHandleDeletes != 1 || s.InFlight != 1 {
			t.Errorf("stale delete: %d stale, %d in flight; want 1, 1", s.StaleHandleDeletes, s.InFlight)
		}
		wantErr(t, f.q.Delete(f.ctx, second), "", "", "the latest handle of a pinned broker deletes")
		return first, second
	}
	a1, a2 := run()
	b1, b2 := run()
	if a1 != b1 || a2 != b2 || a1 == a2 {
		t.Errorf("pinned runs gave handles %q, %q and %q, %q; want equal runs, distinct receives", a1, a2, b1, b2)
	}
}
