//go:build go1.25

package sqsq_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sqsq/sqsq"
)

// The core on its default clock inside synctest bubbles: the code path of
// the real clock, with time that jumps when every goroutine waits, so the
// instants are exact. One bubble per test (t.Run is not allowed inside).

// bubble runs f in a synctest bubble with a fresh default broker and one
// standard queue; the broker is closed before the bubble ends.
func bubble(t *testing.T, f func(t *testing.T, f *fixture)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		b := sqsq.NewBroker()
		t.Cleanup(func() { _ = b.Close() })
		fx := &fixture{ctx: context.Background(), b: b}
		fx.q = fx.create(t, "bubble-queue", sqsq.QueueAttributes{})
		f(t, fx)
	})
}

func TestSynctestLongPollEndsAfterItsWait(t *testing.T) {
	t.Parallel()
	bubble(t, func(t *testing.T, f *fixture) {
		start := time.Now()
		msgs := f.receive(t, f.q, wait(20*time.Second))
		if len(msgs) != 0 || time.Since(start) != 20*time.Second {
			t.Errorf("got %d messages after %v; want none after exactly 20 s", len(msgs), time.Since(start))
		}
	})
}

func TestSynctestParkedReceiversAndSends(t *testing.T) {
	t.Parallel()
	bubble(t, func(t *testing.T, f *fixture) {
		var chs []<-chan receiveResult
		for range 3 {
			chs = append(chs, startReceive(f.ctx, f.q, wait(20*time.Second)))
		}
		synctest.Wait()
		stillParked(t, f.q, 3, "three long polls wait on an empty queue")
		time.Sleep(7 * time.Second)
		f.send(t, f.q, "one")
		synctest.Wait()
		stillParked(t, f.q, 2, "one message wakes one receiver; the others stay parked")
		f.send(t, f.q, "two")
		f.send(t, f.q, "three")
		var got []string
		for _, ch := range chs {
			r := <-ch
			got = append(got, bodies(r.msgs)...)
		}
		if len(got) != 3 || time.Since(f.b.Clock().Now()) != 0 {
			t.Errorf("received %v", got)
		}
	})
}

func TestSynctestVisibilityCap(t *testing.T) {
	t.Parallel()
	bubble(t, func(t *testing.T, f *fixture) {
		f.send(t, f.q, "long job")
		m := f.receiveOne(t, f.q, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(11 * time.Hour)})
		time.Sleep(11*time.Hour - time.Second)
		err := f.q.ChangeVisibility(f.ctx, m.ReceiptHandle, time.Hour+2*time.Second)
		wantErr(t, err, sqsq.CodeInvalidParameterValue,
			"Value 3602 for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]",
			"12 hours from the receive at most (§3.13)")
		if err := f.q.ChangeVisibility(f.ctx, m.ReceiptHandle, time.Hour+time.Second); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Hour - 10*time.Second)
		start := time.Now()
		r := <-startReceive(f.ctx, f.q, wait(20*time.Second))
		if time.Since(start) != 11*time.Second { // visible at 12 h
			t.Errorf("the parked receive got it after %v, want 11 s", time.Since(start))
		}
		if len(r.msgs) != 1 || r.msgs[0].Body != "long job" {
			t.Errorf("at the 12-hour mark a parked receive got %v", bodies(r.msgs))
		}
	})
}

func TestSynctestRetentionAndDelay(t *testing.T) {
	t.Parallel()
	bubble(t, func(t *testing.T, f *fixture) {
		f.send(t, f.q, "old")
		time.Sleep(time.Hour)
		f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "late", DelaySeconds: sqsq.Some(15 * time.Minute)})
		time.Sleep(15*time.Minute - time.Second)
		if s := stats(t, f.q); s.Visible != 1 || s.Delayed != 1 {
			t.Errorf("before the delay ends: %+v", s)
		}
		time.Sleep(4*24*time.Hour - time.Hour - 15*time.Minute + time.Second)
		s := stats(t, f.q)
		if s.Visible != 1 || s.Delayed != 0 || s.Expired != 1 {
			t.Errorf("4 days after its send the first message expired (the default retention), the later one not: %+v", s)
		}
		if got := bodies(f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10})); len(got) != 1 || got[0] != "late" {
			t.Errorf("received %v, want [late]", got)
		}
	})
}

func TestSynctestCloseEndsParkedReceives(t *testing.T) {
	t.Parallel()
	bubble(t, func(t *testing.T, f *fixture) {
		ch := startReceive(f.ctx, f.q, wait(20*time.Second))
		synctest.Wait()
		start := time.Now()
		_ = f.b.Close()
		if r := <-ch; r.err != sqsq.ErrClosed || time.Since(start) != 0 {
			t.Errorf("Close: the parked receive returned %v after %v", r.err, time.Since(start))
		}
	})
}
