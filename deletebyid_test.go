package sqsq_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

// DeleteMessageById removes a message in any state and counts it as a
// delete that removed a message.
func TestDeleteMessageByIdStates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		fifo   bool
		state  sqsq.MessageState
	}{
		{"an available message", false, sqsq.StateAvailable},
		{"a delayed message", false, sqsq.StateDelayed},
		{"a message in flight", false, sqsq.StateInFlight},
		{"a FIFO message in flight", true, sqsq.StateInFlight},
		{"a held FIFO message", true, sqsq.StateHeld},
		{"an available FIFO message", true, sqsq.StateAvailable},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			if tt.fifo {
				f = setupFIFO(t, sqsq.QueueAttributes{})
				f.fifoSend(t, "g1", "m1")
				f.fifoSend(t, "g1", "m2")
				f.fifoSend(t, "g2", "n1")
				f.fifoRecv(t, 1, time.Minute) // m1 in flight, m2 held
			} else {
				f.send(t, f.q, "a")
				f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "d", DelaySeconds: sqsq.Some(time.Minute)})
				f.send(t, f.q, "b")
				f.receive(t, f.q, sqsq.ReceiveInput{}) // a in flight
			}
			var target sqsq.PeekedMessage
			for _, p := range peekAll(t, f.q, sqsq.PeekInput{States: []sqsq.MessageState{tt.state}}) {
				target = p
				break
			}
			if target.MessageId == "" {
				t.Fatalf("no message in state %s", tt.state)
			}
			before := stats(t, f.q)
			ok, err := f.q.DeleteMessageById(f.ctx, target.MessageId)
			if err != nil || !ok {
				t.Fatalf("DeleteMessageById = %v, %v; want true, nil", ok, err)
			}
			after := stats(t, f.q)
			if after.Deleted != before.Deleted+1 || after.DeleteRequests != before.DeleteRequests+1 {
				t.Errorf("Deleted %d→%d, DeleteRequests %d→%d; want each counted once",
					before.Deleted, after.Deleted, before.DeleteRequests, after.DeleteRequests)
			}
			total := func(s sqsq.Stats) int { return s.Visible + s.InFlight + s.Delayed }
			if total(after) != total(before)-1 {
				t.Errorf("stored %d→%d, want one less", total(before), total(after))
			}
			for _, p := range peekAll(t, f.q, sqsq.PeekInput{}) {
				if p.MessageId == target.MessageId {
					t.Errorf("%s is still there", target.Body)
				}
			}
			if ok, err := f.q.DeleteMessageById(f.ctx, target.MessageId); ok || err != nil {
				t.Errorf("second DeleteMessageById = %v, %v; want false, nil", ok, err)
			}
		})
	}
}

// A message that is not there: false, and nothing changes, counters
// included.
func TestDeleteMessageByIdMissing(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "a")
	other := f.create(t, "other", sqsq.QueueAttributes{})
	elsewhere := f.send(t, other, "b")
	before := f.peekSnap(t, f.q)
	for _, id := range []string{"no-such-id", elsewhere.MessageId} {
		ok, err := f.q.DeleteMessageById(f.ctx, id)
		if ok || err != nil {
			t.Errorf("DeleteMessageById(%q) = %v, %v; want false, nil", id, ok, err)
		}
	}
	if d := diff(before, f.peekSnap(t, f.q)); d != "" {
		t.Errorf("a delete of nothing changed the queue:\n%s", d)
	}
}

func TestDeleteMessageByIdErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		id     string
		setup  func(f *fixture, ctx *context.Context)
		code   sqsq.Code
		err    error
	}{
		{reason: "an empty id", id: "", code: sqsq.CodeMissingParameter},
		{reason: "a deleted queue fails first", id: "",
			setup: func(f *fixture, _ *context.Context) { _ = f.q.DeleteQueue(f.ctx) }, code: sqsq.CodeQueueDoesNotExist},
		{reason: "a closed broker", id: "x",
			setup: func(f *fixture, _ *context.Context) { _ = f.b.Close() }, err: sqsq.ErrClosed},
		{reason: "a canceled context", id: "x",
			setup: func(f *fixture, ctx *context.Context) {
				c, cancel := context.WithCancel(*ctx)
				cancel()
				*ctx = c
			}, err: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			sent := f.send(t, f.q, "a")
			before := f.peekSnap(t, f.q)
			ctx := f.ctx
			if tt.setup != nil {
				tt.setup(f, &ctx)
			}
			id := tt.id
			if id == "x" {
				id = sent.MessageId
			}
			ok, err := f.q.DeleteMessageById(ctx, id)
			if ok {
				t.Errorf("a failed DeleteMessageById reported a delete")
			}
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("got %v, want %v", err, tt.err)
				}
			} else {
				wantErr(t, err, tt.code, "", tt.reason)
			}
			if tt.code == sqsq.CodeQueueDoesNotExist || errors.Is(tt.err, sqsq.ErrClosed) {
				return
			}
			if d := diff(before, f.peekSnap(t, f.q)); d != "" {
				t.Errorf("a failed DeleteMessageById changed the queue:\n%s", d)
			}
		})
	}
}

// The handles of a message deleted by id answer as those of a message
// deleted with its handle.
func TestDeleteMessageByIdHandles(t *testing.T) {
	t.Parallel()
	for _, fifo := range []bool{false, true} {
		f := setup(t)
		if fifo {
			f = setupFIFO(t, sqsq.QueueAttributes{})
		}
		for _, b := range []string{"by-handle", "by-id"} {
			f.sendInput(t, f.q, sqsq.SendInput{MessageBody: b, MessageGroupId: map[bool]string{true: b}[fifo], MessageDeduplicationId: map[bool]string{true: b}[fifo]})
		}
		msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 2, VisibilityTimeout: sqsq.Some(time.Minute)})
		if len(msgs) != 2 {
			t.Fatalf("received %v", bodies(msgs))
		}
		if err := f.q.Delete(f.ctx, msgs[0].ReceiptHandle); err != nil {
			t.Fatal(err)
		}
		if ok, err := f.q.DeleteMessageById(f.ctx, msgs[1].MessageId); !ok || err != nil {
			t.Fatalf("DeleteMessageById = %v, %v", ok, err)
		}
		for _, call := range []struct {
			name string
			do   func(rh string) error
		}{
			{"ChangeVisibility", func(rh string) error { return f.q.ChangeVisibility(f.ctx, rh, time.Minute) }},
			{"Delete", func(rh string) error { return f.q.Delete(f.ctx, rh) }},
		} {
			// The errors quote the handle: compare them with it left out.
			answer := func(m sqsq.Message) string {
				err := call.do(m.ReceiptHandle)
				if err == nil {
					return "<nil>"
				}
				return strings.ReplaceAll(err.Error(), m.ReceiptHandle, "HANDLE")
			}
			want, got := answer(msgs[0]), answer(msgs[1])
			if want != got {
				t.Errorf("fifo=%v %s with the handle of a message deleted by id: %v; with a handle of one deleted with it: %v",
					fifo, call.name, got, want)
			}
		}
	}
}

// Deleting a FIFO group's message in flight unlocks the group: a long poll
// parked meanwhile gets the next message.
func TestDeleteMessageByIdUnlocksFIFOGroup(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{})
	m1 := f.fifoSend(t, "g", "m1")
	f.fifoSend(t, "g", "m2")
	f.fifoRecv(t, 1, time.Hour)
	done := make(chan []sqsq.Message, 1)
	go func() {
		msgs, _ := f.q.Receive(f.ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		done <- msgs
	}()
	if err := f.q.WaitForReceivers(f.ctx, 1); err != nil {
		t.Fatal(err)
	}
	if ok, err := f.q.DeleteMessageById(f.ctx, m1.MessageId); !ok || err != nil {
		t.Fatalf("DeleteMessageById = %v, %v", ok, err)
	}
	if got := bodies(<-done); diff([]string{"m2"}, got) != "" {
		t.Errorf("the parked receive got %v, want [m2]", got)
	}
	if s := stats(t, f.q); s.LockedGroups != 1 || s.InFlight != 1 || s.Deleted != 1 {
		t.Errorf("locked groups %d, in flight %d, deleted %d; want 1, 1, 1", s.LockedGroups, s.InFlight, s.Deleted)
	}
}

// Deleting a message in flight on a standard queue at its in-flight limit
// lets a parked long poll take the next one.
func TestDeleteMessageByIdFreesInFlightLimit(t *testing.T) {
	t.Parallel()
	f := setup(t, sqsq.WithInFlightLimit(1))
	a := f.send(t, f.q, "a")
	f.send(t, f.q, "b")
	f.receive(t, f.q, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Hour)})
	done := make(chan []sqsq.Message, 1)
	go func() {
		msgs, _ := f.q.Receive(f.ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		done <- msgs
	}()
	if err := f.q.WaitForReceivers(f.ctx, 1); err != nil {
		t.Fatal(err)
	}
	if ok, err := f.q.DeleteMessageById(f.ctx, a.MessageId); !ok || err != nil {
		t.Fatalf("DeleteMessageById = %v, %v", ok, err)
	}
	if got := bodies(<-done); diff([]string{"b"}, got) != "" {
		t.Errorf("the parked receive got %v, want [b]", got)
	}
}
