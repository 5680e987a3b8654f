package sqsq_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// scripted is a Faults that answers from fixed values and counts how often
// each method is consulted.
type scripted struct {
	mu     sync.Mutex
	reject map[sqsq.Op]sqsq.Code
	sample int // -1: all
	dup    int
	swap   bool
	lose   map[sqsq.Op]bool
	calls  map[string]int
}

func newScripted() *scripted {
	return &scripted{reject: map[sqsq.Op]sqsq.Code{}, sample: -1, dup: -1, lose: map[sqsq.Op]bool{}, calls: map[string]int{}}
}

func (s *scripted) count(name string) {
	s.mu.Lock()
	s.calls[name]++
	s.mu.Unlock()
}

func (s *scripted) Reject(c sqsq.Call) sqsq.Code { s.count("Reject"); return s.reject[c.Op] }
func (s *scripted) Sample(c sqsq.Call, n int) int {
	s.count("Sample")
	if s.sample < 0 {
		return n
	}
	return s.sample
}
func (s *scripted) Duplicate(c sqsq.Call, n int) int { s.count("Duplicate"); return s.dup }
func (s *scripted) Shuffle(c sqsq.Call, n int, swap func(i, j int)) {
	s.count("Shuffle")
	if s.swap {
		swap(0, n-1)
	}
}
func (s *scripted) LoseResponse(c sqsq.Call) bool { s.count("LoseResponse"); return s.lose[c.Op] }

type faultBundle struct {
	ctx context.Context
	clk *clock.Mock
	f   *scripted
	q   *sqsq.Queue
}

func setupFaults(t *testing.T, fifo bool, bodies ...string) faultBundle {
	t.Helper()
	ctx := context.Background()
	clk := clock.NewMock()
	f := newScripted()
	b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithFaults(f))
	t.Cleanup(func() { _ = b.Close() })
	name, attrs := "q", sqsq.QueueAttributes{}
	if fifo {
		name, attrs = "q.fifo", sqsq.QueueAttributes{FifoQueue: sqsq.Some(true), ContentBasedDeduplication: sqsq.Some(true)}
	}
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: name, Attributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range bodies {
		in := sqsq.SendInput{MessageBody: body}
		if fifo {
			in.MessageGroupId = "g"
		}
		if _, err := q.Send(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	return faultBundle{ctx, clk, f, q}
}

func bodiesOf(msgs []sqsq.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Body)
	}
	return out
}

func TestFaults(t *testing.T) {
	t.Parallel()
	short := sqsq.ReceiveInput{MaxNumberOfMessages: 10, WaitTimeSeconds: sqsq.Some(time.Duration(0))}

	t.Run("RejectFailsWithTheCodeAndChangesNothing", func(t *testing.T) {
		t.Parallel()
		for _, code := range []sqsq.Code{sqsq.CodeRequestThrottled, sqsq.CodeOverLimit, sqsq.CodeServiceUnavailable} {
			s := setupFaults(t, false, "a")
			s.f.reject[sqsq.OpReceive] = code
			_, err := s.q.Receive(s.ctx, short)
			var e *sqsq.Error
			if !errors.As(err, &e) || e.Code != code {
				t.Fatalf("err = %v, want %s", err, code)
			}
			if st, _ := s.q.Stats(); st.Visible != 1 || st.ReceiveCalls != 0 {
				t.Errorf("stats after a rejected receive: %+v", st)
			}
		}
	})
	t.Run("FailedDeleteIsNotAppliedLostDeleteIs", func(t *testing.T) {
		t.Parallel()
		s := setupFaults(t, false, "a")
		msgs, _ := s.q.Receive(s.ctx, short)
		s.f.reject[sqsq.OpDelete] = sqsq.CodeServiceUnavailable
		if err := s.q.Delete(s.ctx, msgs[0].ReceiptHandle); !errors.Is(err, &sqsq.Error{Code: sqsq.CodeServiceUnavailable}) {
			t.Fatalf("failed delete: %v", err)
		}
		if st, _ := s.q.Stats(); st.InFlight != 1 {
			t.Fatalf("a failed delete removed the message: %+v", st)
		}
		s.f.reject[sqsq.OpDelete] = ""
		s.f.lose[sqsq.OpDelete] = true
		err := s.q.Delete(s.ctx, msgs[0].ReceiptHandle)
		var e *sqsq.Error
		if !errors.As(err, &e) || e.Code != sqsq.CodeServiceUnavailable || !e.Receiver {
			t.Fatalf("lost delete: %v", err)
		}
		if st, _ := s.q.Stats(); st.InFlight != 0 || st.Deleted != 1 {
			t.Fatalf("a lost delete response must still delete: %+v", st)
		}
	})
	t.Run("LostVisibilityChangeIsApplied", func(t *testing.T) {
		t.Parallel()
		s := setupFaults(t, false, "a")
		msgs, _ := s.q.Receive(s.ctx, short)
		s.f.lose[sqsq.OpChangeVisibility] = true
		if err := s.q.ChangeVisibility(s.ctx, msgs[0].ReceiptHandle, 0); err == nil {
			t.Fatal("want the lost response's error")
		}
		if st, _ := s.q.Stats(); st.Visible != 1 {
			t.Fatalf("CMV 0 with a lost response must still apply: %+v", st)
		}
	})
	t.Run("LostReceivePutsMessagesInFlight", func(t *testing.T) {
		t.Parallel()
		s := setupFaults(t, false, "a", "b")
		s.f.lose[sqsq.OpReceive] = true
		msgs, err := s.q.Receive(s.ctx, short)
		if err == nil || msgs != nil {
			t.Fatalf("got %v, %v; want a lost response", msgs, err)
		}
		if st, _ := s.q.Stats(); st.InFlight != 2 {
			t.Fatalf("stats: %+v", st)
		}
	})
	t.Run("SampleDuplicateShuffleOnStandardQueues", func(t *testing.T) {
		t.Parallel()
		s := setupFaults(t, false, "a", "b", "c")
		s.f.sample = 1
		if got := bodiesOf(must(s.q.Receive(s.ctx, short))); len(got) != 1 || got[0] != "a" {
			t.Fatalf("sampled receive got %v, want [a]", got)
		}
		s.f.sample, s.f.dup, s.f.swap = -1, 0, true
		got := bodiesOf(must(s.q.Receive(s.ctx, short)))
		// The duplicate of a comes first, then b and c; the swap exchanges ends.
		if want := []string{"c", "b", "a"}; !equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		if st, _ := s.q.Stats(); st.InFlight != 3 || st.Redelivered != 1 {
			t.Fatalf("stats: %+v", st)
		}
	})
	t.Run("FIFOQueuesNeverAskForSampleDuplicateShuffle", func(t *testing.T) {
		t.Parallel()
		s := setupFaults(t, true, "a", "b", "c")
		s.f.sample, s.f.dup, s.f.swap = 0, 0, true
		first := bodiesOf(must(s.q.Receive(s.ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 1})))
		rest := bodiesOf(must(s.q.Receive(s.ctx, short)))
		if !equal(first, []string{"a"}) || len(rest) != 0 {
			t.Fatalf("FIFO got %v then %v; want [a] then nothing (group locked)", first, rest)
		}
		for _, name := range []string{"Sample", "Duplicate", "Shuffle"} {
			if n := s.f.calls[name]; n != 0 {
				t.Errorf("%s consulted %d times on a FIFO queue", name, n)
			}
		}
	})
}

func must(msgs []sqsq.Message, err error) []sqsq.Message {
	if err != nil {
		panic(err)
	}
	return msgs
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
