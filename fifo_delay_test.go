package sqsq_test

// Black-box tests of FIFO queues: per-message and queue delays
// (docs/sqs-semantics.md §3.8 step 7, §3.9), including retroactive queue
// delays (§5.1). The FIFO helpers are in fifo_helpers_test.go; the shared ones
// (setup, fixture, wantErr, diff, bodies, stats) in broker_test.go.

import (
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

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
