package sqsqtest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqsqtest"
)

// always draws the largest value, so every fault whose rate is positive
// fires and a shuffle is never the identity.
type always struct{}

func (always) Draw(label string, n int) int { return n - 1 }

var short = sqsq.ReceiveInput{MaxNumberOfMessages: 10, WaitTimeSeconds: sqsq.Some(time.Duration(0))}

type policyBundle struct {
	ctx context.Context
	q   *sqsq.Queue
	p   *sqsqtest.Policy
}

func setupPolicy(t *testing.T, src sqsqtest.Source, rates sqsqtest.Rates, bodies ...string) policyBundle {
	t.Helper()
	ctx := context.Background()
	p := sqsqtest.NewPolicy(src, rates)
	b, _ := sqsqtest.NewBroker(t, sqsq.WithFaults(p))
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q"})
	if err != nil {
		t.Fatal(err)
	}
	p.SetEnabled(false) // sends are not faulted, but keep setup quiet anyway
	for _, body := range bodies {
		if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: body}); err != nil {
			t.Fatal(err)
		}
	}
	p.SetEnabled(true)
	return policyBundle{ctx, q, p}
}

func isCode(err error, code sqsq.Code) bool {
	var e *sqsq.Error
	return errors.As(err, &e) && e.Code == code
}

// Each fault, when drawn, has its effect; the table says what the effect is.
func TestPolicyFaultOccursWhenDrawn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fault  sqsqtest.Fault
		reason string
		check  func(t *testing.T, s policyBundle)
	}{
		{sqsqtest.ShortPoll, "a sampled short poll returns fewer than the 3 available", func(t *testing.T, s policyBundle) {
			msgs, err := s.q.Receive(s.ctx, short)
			if err != nil || len(msgs) >= 3 {
				t.Errorf("got %d messages, %v", len(msgs), err)
			}
		}},
		{sqsqtest.Duplicate, "a message in flight is delivered again", func(t *testing.T, s policyBundle) {
			first, _ := s.q.Receive(s.ctx, sqsq.ReceiveInput{})
			again, _ := s.q.Receive(s.ctx, sqsq.ReceiveInput{})
			if len(again) != 1 || again[0].MessageId != first[0].MessageId || again[0].ReceiptHandle == first[0].ReceiptHandle {
				t.Errorf("first %v, again %v", first, again)
			}
		}},
		{sqsqtest.Reorder, "a batch comes out of send order", func(t *testing.T, s policyBundle) {
			msgs, _ := s.q.Receive(s.ctx, short)
			if len(msgs) != 3 || msgs[0].Body == "a" && msgs[1].Body == "b" {
				t.Errorf("got %v", msgs)
			}
		}},
		{sqsqtest.LoseReceive, "the messages go in flight, the caller gets ServiceUnavailable", func(t *testing.T, s policyBundle) {
			_, err := s.q.Receive(s.ctx, short)
			st, _ := s.q.Stats()
			if !isCode(err, sqsq.CodeServiceUnavailable) || st.InFlight != 3 {
				t.Errorf("err %v, in flight %d", err, st.InFlight)
			}
		}},
		{sqsqtest.LoseDelete, "the delete is applied, the caller gets ServiceUnavailable", func(t *testing.T, s policyBundle) {
			s.p.SetEnabled(false)
			msgs, _ := s.q.Receive(s.ctx, sqsq.ReceiveInput{})
			s.p.SetEnabled(true)
			err := s.q.Delete(s.ctx, msgs[0].ReceiptHandle)
			st, _ := s.q.Stats()
			if !isCode(err, sqsq.CodeServiceUnavailable) || st.Deleted != 1 {
				t.Errorf("err %v, deleted %d", err, st.Deleted)
			}
		}},
		{sqsqtest.FailDelete, "the delete fails and is not applied", func(t *testing.T, s policyBundle) {
			s.p.SetEnabled(false)
			msgs, _ := s.q.Receive(s.ctx, sqsq.ReceiveInput{})
			s.p.SetEnabled(true)
			err := s.q.Delete(s.ctx, msgs[0].ReceiptHandle)
			st, _ := s.q.Stats()
			if !isCode(err, sqsq.CodeServiceUnavailable) || st.Deleted != 0 || st.InFlight != 1 {
				t.Errorf("err %v, stats %+v", err, st)
			}
		}},
		{sqsqtest.LoseVisibility, "the change is applied, the caller gets ServiceUnavailable", func(t *testing.T, s policyBundle) {
			s.p.SetEnabled(false)
			msgs, _ := s.q.Receive(s.ctx, sqsq.ReceiveInput{})
			s.p.SetEnabled(true)
			err := s.q.ChangeVisibility(s.ctx, msgs[0].ReceiptHandle, 0)
			st, _ := s.q.Stats()
			if !isCode(err, sqsq.CodeServiceUnavailable) || st.Visible != 3 {
				t.Errorf("err %v, stats %+v", err, st)
			}
		}},
		{sqsqtest.FailVisibility, "the change fails and is not applied", func(t *testing.T, s policyBundle) {
			s.p.SetEnabled(false)
			msgs, _ := s.q.Receive(s.ctx, sqsq.ReceiveInput{})
			s.p.SetEnabled(true)
			err := s.q.ChangeVisibility(s.ctx, msgs[0].ReceiptHandle, 0)
			st, _ := s.q.Stats()
			if !isCode(err, sqsq.CodeServiceUnavailable) || st.InFlight != 1 {
				t.Errorf("err %v, stats %+v", err, st)
			}
		}},
		{sqsqtest.Throttle, "the call fails with RequestThrottled and changes nothing", func(t *testing.T, s policyBundle) {
			_, err := s.q.Receive(s.ctx, short)
			st, _ := s.q.Stats()
			if !isCode(err, sqsq.CodeRequestThrottled) || st.Visible != 3 {
				t.Errorf("err %v, stats %+v", err, st)
			}
		}},
		{sqsqtest.OverLimit, "the receive fails with OverLimit and changes nothing", func(t *testing.T, s policyBundle) {
			_, err := s.q.Receive(s.ctx, short)
			st, _ := s.q.Stats()
			if !isCode(err, sqsq.CodeOverLimit) || st.Visible != 3 {
				t.Errorf("err %v, stats %+v", err, st)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fault.String(), func(t *testing.T) {
			t.Parallel()
			s := setupPolicy(t, always{}, sqsqtest.Rates{tt.fault: 100}, "a", "b", "c")
			tt.check(t, s)
			if s.p.Count(tt.fault) == 0 {
				t.Errorf("%v was not logged (%s)", tt.fault, tt.reason)
			}
		})
	}
}

// A fault that is not drawn never happens, however busy the queue and
// however likely every other fault.
func TestPolicyFaultNeverWhenNotDrawn(t *testing.T) {
	t.Parallel()
	for f := sqsqtest.ShortPoll; f <= sqsqtest.OverLimit; f++ {
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			rates := sqsqtest.AllFaults(30)
			delete(rates, f)
			s := setupPolicy(t, sqsqtest.Seed(uint64(f)+1), rates, "a", "b", "c", "d")
			churn(s, 200)
			for _, in := range s.p.Injected() {
				if in.Fault == f {
					t.Fatalf("%v injected though not drawn", f)
				}
			}
			if len(s.p.Injected()) == 0 {
				t.Fatal("no other fault fired either: the churn exercised nothing")
			}
		})
	}
}

// churn runs a fixed mix of receives, deletes and visibility changes and
// returns a transcript of results.
func churn(s policyBundle, n int) []string {
	var out []string
	var handles []string
	for i := 0; i < n; i++ {
		switch i % 4 {
		case 0, 1:
			msgs, err := s.q.Receive(s.ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 2, WaitTimeSeconds: sqsq.Some(time.Duration(0)), VisibilityTimeout: sqsq.Some(time.Duration(0))})
			out = append(out, fmt.Sprintf("receive %v %v", bodies(msgs), err))
			for _, m := range msgs {
				handles = append(handles, m.ReceiptHandle)
			}
		case 2:
			if len(handles) > 0 {
				err := s.q.ChangeVisibility(s.ctx, handles[len(handles)-1], 0)
				out = append(out, fmt.Sprintf("cmv %v", err))
			}
		case 3:
			if len(handles) > 0 && i%16 == 15 {
				err := s.q.Delete(s.ctx, handles[0])
				handles = handles[1:]
				out = append(out, fmt.Sprintf("delete %v", err))
			}
		}
	}
	return out
}

func bodies(msgs []sqsq.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Body)
	}
	return out
}

// The same seed gives the same faults, the same results and the same
// harness timeline.
func TestPolicySameSeedSameRun(t *testing.T) {
	t.Parallel()
	transcript := func() ([]string, []sqsqtest.Injection) {
		s := setupPolicy(t, sqsqtest.Seed(42), sqsqtest.AllFaults(20), "a", "b", "c", "d")
		out := churn(s, 200)
		return out, s.p.Injected()
	}
	out1, inj1 := transcript()
	out2, inj2 := transcript()
	if fmt.Sprint(out1) != fmt.Sprint(out2) || fmt.Sprint(inj1) != fmt.Sprint(inj2) {
		t.Fatalf("two runs of seed 42 differ:\n%v\n%v", out1, out2)
	}
	if len(inj1) == 0 {
		t.Fatal("no fault fired")
	}
	sc := chargeScenario(false)
	for seed := uint64(1); seed <= 20; seed++ {
		a, b := sc.Run(sqsqtest.Seed(seed)), sc.Run(sqsqtest.Seed(seed))
		if a.Timeline.String() != b.Timeline.String() || fmt.Sprint(a.Err) != fmt.Sprint(b.Err) {
			t.Fatalf("seed %d: two runs differ:\n%v\n---\n%v", seed, a, b)
		}
	}
}
