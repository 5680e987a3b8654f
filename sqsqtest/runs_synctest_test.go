//go:build go1.25

package sqsqtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Test plays Runs() schedules too, each in a bubble of its own.
func TestTestPlaysRuns(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	counted(&n).Test(t)
	if got, want := int(n.Load()), wantRuns(); got != want {
		t.Errorf("played %d runs, want %d (Runs() = %d)", got, want, Runs())
	}
}

// A consumer's context ends with the run: a loop that, once it has
// nothing more to do, waits only for its context (no kit call) returns
// when the run is over, crashed generations or not.
func TestConsumerContextEndsWithTheRun(t *testing.T) {
	t.Parallel()
	var ended atomic.Int64
	s := Scenario{Messages: []string{"a", "b"}, Crash: 10, Faults: AllFaults(10),
		Loop: func(ctx context.Context, env *Env) {
			api, url := env.SQS(), env.QueueURL()
			for ctx.Err() == nil {
				out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url})
				if errors.Is(err, ErrCrashed) {
					return
				}
				if err != nil {
					continue
				}
				if len(out.Messages) == 0 {
					<-ctx.Done() // the run may be over: only the context says so
					ended.Add(1)
					return
				}
				for _, m := range out.Messages {
					if _, err := api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: m.ReceiptHandle}); errors.Is(err, ErrCrashed) {
						return
					}
				}
			}
		}}
	s.Test(t)
	if ended.Load() == 0 {
		t.Error("no loop ever waited for its context to end")
	}
}

// In bubbles too, as Scenario.Test plays them, a silent run is the told
// run but for its timeline (see TestSilentRunsTellTheSameRun): here with a
// handler whose goroutine works on a timer of its own while the handler
// extends the message's visibility.
func TestSilentRunsInBubbles(t *testing.T) {
	t.Parallel()
	ticking := Scenario{
		Messages: []string{"a", "b"}, Crash: 10, Faults: AllFaults(5), Visibility: 30 * time.Second,
		Consumer: func(env *Env) Handler {
			q := env.Queue()
			return func(ctx context.Context, m Msg) error {
				done := make(chan struct{})
				go func() {
					defer close(done)
					time.Sleep(40 * time.Second)
				}()
				if err := q.ChangeVisibility(ctx, m.ReceiptHandle, time.Minute); err != nil {
					<-done
					return err
				}
				<-done
				if err := env.Commit("charge", func(tx *Tx) error { tx.Effect("charge:" + m.Body); return nil }); err != nil {
					return err
				}
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
		Invariants: []Invariant{EffectOnce(func(b string) string { return "charge:" + b }), NothingLeft()},
	}
	for name, s := range map[string]Scenario{"charge": chargeThenDelete("a", "b", "c"), "declined": declinedEveryTime("a", "b"), "ticking": ticking} {
		play := s.inBubbles(t)
		for seed := uint64(1); seed <= 40; seed++ {
			a, b := &recorder{src: Seed(seed)}, &recorder{src: Seed(seed)}
			silent, told := play(a, true), play(b, false)
			if !slices.Equal(a.seq, b.seq) || silent.lines != told.lines || told.lines != len(told.Timeline) ||
				silent.Steps != told.Steps || fmt.Sprint(silent.Err) != fmt.Sprint(told.Err) || !reflect.DeepEqual(silent.Ledger, told.Ledger) {
				t.Fatalf("%s, seed %d: silent %d draws, %d lines, %d steps, %v; told %d draws, %d lines (%d written), %d steps, %v",
					name, seed, len(a.seq), silent.lines, silent.Steps, silent.Err, len(b.seq), told.lines, len(told.Timeline), told.Steps, told.Err)
			}
		}
	}
}
