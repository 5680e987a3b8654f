package sqsq_test

// Proof of the change journal (journal.go, #21): the restart model's
// operations (export_model_test.go) run on an endpoint with a collecting
// journal, and after every step the records since the last step, applied
// to the state exported then, must give the state exported now.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/state"
	"github.com/sqsq/sqsq/internal/testsize"
)

// collector is a journal that keeps every record.
type collector struct {
	mu   sync.Mutex
	recs []state.Change
}

func (c *collector) option() sqsq.Option {
	return state.Journal(func(ch state.Change) {
		c.mu.Lock()
		ch.Changes = slices.Clone(ch.Changes) // a Group's is the broker's
		c.recs = append(c.recs, ch)
		c.mu.Unlock()
	}).(sqsq.Option)
}

// take returns the records so far and forgets them.
func (c *collector) take() []state.Change {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.recs
	c.recs = nil
	return out
}

// journalCheck returns the step invariant: Apply(last, journal) equals
// the export. World.Now is the snapshot's instant, not a change, so it is
// taken from the export.
func journalCheck(s *restartMachine, c *collector) func(*rapid.T) {
	var last *state.World
	return func(t *rapid.T) {
		got := exportOf(t, s.orig.b) // an export brings queues up to date: its records count
		recs := c.take()
		if last == nil {
			last = got
			return
		}
		if err := state.Apply(last, recs); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		last.Now = got.Now
		if d := worldDiff(got, last); d != "" {
			t.Fatalf("Apply(last, journal) differs from the export (%d records): %s", len(recs), d)
		}
		last = exportOf(t, s.orig.b) // a fresh copy: Apply shares records' maps
		c.take()
	}
}

func runJournalModel(t *rapid.T) {
	c := &collector{}
	s := newRestartMachine(t, c.option())
	defer s.close()
	check := journalCheck(s, c)
	check(t)
	actions := s.actions(func(t *rapid.T) { check(t); s.Check(t) })
	extra := journalActions(s)
	for k, v := range extra {
		actions[k] = v
	}
	for range testsize.Scale(1, 12) {
		t.Repeat(actions)
	}
}

// TestJournalModel checks that the journal misses no change and writes
// none that did not happen (see the top of this file).
func TestJournalModel(t *testing.T) {
	t.Parallel()
	rapid.Check(t, runJournal)
}

// journalActions are operations the restart model leaves out, each a
// mutation the journal must see.
func journalActions(s *restartMachine) map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"DeleteMessageById": func(t *rapid.T) {
			r := drawRestartQueue(t, "queue")
			id := fmt.Sprintf("id-%05d", rapid.IntRange(1, max(1, *s.orig.ids)).Draw(t, "id"))
			s.both(t, "DeleteMessageById "+r.name, func(e *endpoint) string {
				q, err := s.queue(e, r)
				if err != nil {
					return errText(err)
				}
				ok, err := q.DeleteMessageById(s.ctx, id)
				return fmt.Sprint(ok, errText(err))
			})
		},
		"Permission": func(t *rapid.T) {
			r := drawRestartQueue(t, "queue")
			label := rapid.SampledFrom([]string{"a", "b"}).Draw(t, "label")
			add := rapid.Bool().Draw(t, "add")
			s.both(t, "Permission "+r.name, func(e *endpoint) string {
				q, err := s.queue(e, r)
				if err != nil {
					return errText(err)
				}
				if add {
					return errText(q.AddPermission(s.ctx, label, []string{"123456789012"}, []string{"SendMessage"}))
				}
				return errText(q.RemovePermission(s.ctx, label))
			})
		},
		"Untag": func(t *rapid.T) {
			r := drawRestartQueue(t, "queue")
			s.both(t, "Untag "+r.name, func(e *endpoint) string {
				q, err := s.queue(e, r)
				if err != nil {
					return errText(err)
				}
				return errText(q.Untag(s.ctx, "team", "env"))
			})
		},
		"Release": func(t *rapid.T) {
			s.both(t, "Release", func(e *endpoint) string { return fmt.Sprint(e.scope(1).Release()) })
		},
		"Reset": func(t *rapid.T) {
			if rapid.IntRange(0, 9).Draw(t, "reset") != 0 {
				t.Skip("resets are rare: they empty the endpoint")
			}
			s.both(t, "Reset", func(e *endpoint) string { return errText(e.b.Reset(s.ctx)) })
		},
	}
}

// TestJournalConcurrent checks the journal's order under concurrent
// calls: records of one queue are written under its lock, so whatever the
// interleaving, the records applied to the first export give the last.
func TestJournalConcurrent(t *testing.T) {
	t.Parallel()
	c := &collector{}
	clk := clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk), c.option())
	defer b.Close()
	ctx := context.Background()
	dlq, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "dlq"})
	if err != nil {
		t.Fatal(err)
	}
	first := exportOf(t, b)
	c.take() // the export's own records are in first
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: fmt.Sprint("q", g%2), Attributes: sqsq.QueueAttributes{
				RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 2}),
			}})
			if err != nil {
				t.Error(err)
				return
			}
			for i := range 200 {
				if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: fmt.Sprint(g, i)}); err != nil {
					t.Error(err)
					return
				}
				msgs, err := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 3, VisibilityTimeout: sqsq.Some(time.Duration(i%2) * time.Second)})
				if err != nil {
					t.Error(err)
					return
				}
				if len(msgs) > 0 && i%3 == 0 {
					_ = q.Delete(ctx, msgs[0].ReceiptHandle)
				}
				if g == 0 && i%50 == 0 {
					clk.Add(time.Second)
				}
			}
		}()
	}
	wg.Wait()
	got := exportOf(t, b)
	if err := state.Apply(first, c.take()); err != nil {
		t.Fatal(err)
	}
	first.Now = got.Now
	if d := worldDiff(got, first); d != "" {
		t.Fatalf("Apply(first, journal) differs from the export: %s", d)
	}
}
