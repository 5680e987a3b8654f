package sqsq_test

// Black-box tests of FIFO queues: receive request attempt ids
// (docs/sqs-semantics.md §6.8). The FIFO helpers are in fifo_helpers_test.go;
// the shared ones (setup, fixture, wantErr, diff, bodies, stats) in
// broker_test.go.

import (
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

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
