package sqsqtest_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/testsize"
	"github.com/sqsq/sqsq/sqsqtest"
)

func TestHelpers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("NewBrokerStartsAtEpoch", func(t *testing.T) {
		t.Parallel()
		_, clk := sqsqtest.NewBroker(t)
		if !clk.Now().Equal(sqsqtest.Epoch) {
			t.Errorf("clock at %v", clk.Now())
		}
	})
	t.Run("WaitParkedThenAdvance", func(t *testing.T) {
		t.Parallel()
		b, clk := sqsqtest.NewBroker(t)
		q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q"})
		done := make(chan []sqsq.Message)
		go func() {
			msgs, _ := q.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
			done <- msgs
		}()
		sqsqtest.WaitParked(t, q, 1)
		sqsqtest.Advance(t, clk, 20*time.Second)
		if msgs := <-done; len(msgs) != 0 {
			t.Errorf("got %v", msgs)
		}
	})
	t.Run("CloseWakesParkedReceivers", func(t *testing.T) {
		t.Parallel()
		done := make(chan error, 1)
		t.Run("inner", func(t *testing.T) {
			b, _ := sqsqtest.NewBroker(t)
			q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q"})
			go func() {
				_, err := q.Receive(ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
				done <- err
			}()
			sqsqtest.WaitParked(t, q, 1)
		}) // cleanup closes the broker
		if err := <-done; err != sqsq.ErrClosed {
			t.Errorf("parked receive ended with %v", err)
		}
	})
	t.Run("DrainAndHistory", func(t *testing.T) {
		t.Parallel()
		b, clk := sqsqtest.NewBroker(t)
		dlq, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q-dlq"})
		q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q", Attributes: sqsq.QueueAttributes{
			RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})}})
		sent, _ := q.Send(ctx, sqsq.SendInput{MessageBody: "poison"})
		msgs, _ := q.Receive(ctx, sqsq.ReceiveInput{})
		_ = q.ChangeVisibility(ctx, msgs[0].ReceiptHandle, 10*time.Second)
		sqsqtest.Advance(t, clk, 10*time.Second)
		if got, _ := q.Receive(ctx, sqsq.ReceiveInput{}); len(got) != 0 { // moves it to the DLQ
			t.Fatalf("got %v", got)
		}
		if _, err := b.StartMoveTask(ctx, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()}); err != nil {
			t.Fatal(err)
		}
		sqsqtest.Advance(t, clk, time.Second)
		drained := sqsqtest.Drain(t, q)
		if len(drained) != 1 || drained[0].MessageId == sent.MessageId {
			t.Fatalf("drained %v", drained)
		}
		var kinds []string
		for _, r := range sqsqtest.History(q, sent.MessageId) {
			kinds = append(kinds, r.Kind)
		}
		want := "[sent received visibility moved to DLQ redriven]"
		if got := fmtSlice(kinds); got != want {
			t.Errorf("history %s, want %s", got, want)
		}
		var newKinds []string
		for _, r := range sqsqtest.History(q, drained[0].MessageId) {
			newKinds = append(newKinds, r.Kind)
		}
		if got := fmtSlice(newKinds); got != "[sent received deleted]" {
			t.Errorf("history of the redriven message %s", got)
		}
	})
}

// Concurrent Advances on one mock add up exactly, and Now read meanwhile
// never goes back (concurrent clock.Mock.Add calls lose time and do).
func TestAdvanceConcurrent(t *testing.T) {
	t.Parallel()
	_, clk := sqsqtest.NewBroker(t)
	// Each move sleeps a millisecond in clock.Mock.Add while the reader
	// spins: 50 moves each is plenty to interleave, SQSQ_LONG=1 does 200.
	const movers = 8
	moves := testsize.Scale(50, 200)

	done := make(chan struct{})
	read := make(chan int)
	go func() {
		last, n := clk.Now(), 0
		defer func() { read <- n }()
		for {
			select {
			case <-done:
				return
			default:
			}
			now := clk.Now()
			if now.Before(last) {
				t.Errorf("Now went back from %v to %v", last, now)
				return
			}
			last, n = now, n+1
			// Yield, or on a loaded 2-core machine the movers, woken from
			// the mock's 1 ms sleeps, wait out this loop's time slice.
			runtime.Gosched()
		}
	}()

	var wg sync.WaitGroup
	for range movers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := sqsqtest.Epoch
			for range moves {
				now := sqsqtest.Advance(t, clk, time.Second)
				if !now.After(last) {
					t.Errorf("Advance returned %v after %v", now, last)
					return
				}
				last = now
			}
		}()
	}
	wg.Wait()
	close(done)
	t.Logf("Now read %d times during the advances", <-read)

	want := sqsqtest.Epoch.Add(time.Duration(movers*moves) * time.Second)
	if got := clk.Now(); !got.Equal(want) {
		t.Errorf("the clock is at %v after %d Advances of 1s, want %v (lost %v)", got, movers*moves, want, want.Sub(got))
	}
}

// fatals records Fatalf calls instead of ending the test.
type fatals []string

func (f *fatals) Fatalf(format string, args ...any) { *f = append(*f, fmt.Sprintf(format, args...)) }

func TestAdvanceLimits(t *testing.T) {
	t.Parallel()
	// sqsq's times are int64 Unix nanoseconds: Advance keeps the clock
	// before 2262, with room for deadlines set ahead of it.
	limit := time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)
	near := limit.Add(-time.Hour)
	for _, tc := range []struct {
		name  string
		start time.Time
		d     time.Duration
		fail  string // in the failure; "" when the move is allowed
	}{
		{"zero", sqsqtest.Epoch, 0, ""},
		{"negative", sqsqtest.Epoch, -time.Nanosecond, "negative"},
		{"past 2262", sqsqtest.Epoch, 2562047 * time.Hour, "2262"},
		{"max Duration", sqsqtest.Epoch, time.Duration(1<<63 - 1), "2262"},
		{"up to the limit", near, time.Hour - time.Nanosecond, ""},
		{"to the limit", near, time.Hour, "must stay before"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := clock.NewMock()
			clk.Set(tc.start)
			var f fatals
			got := sqsqtest.Advance(&f, clk, tc.d)
			want := tc.start
			if tc.fail == "" {
				want = tc.start.Add(tc.d)
			}
			if !got.Equal(want) || !clk.Now().Equal(want) {
				t.Errorf("Advance returned %v, clock at %v; want %v", got, clk.Now(), want)
			}
			switch {
			case tc.fail == "" && len(f) > 0:
				t.Errorf("failed: %v", f)
			case tc.fail != "" && (len(f) != 1 || !strings.Contains(f[0], tc.fail)):
				t.Errorf("failures %q, want one mentioning %q", f, tc.fail)
			}
		})
	}
}

func fmtSlice(s []string) string {
	out := "["
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out + "]"
}
