package sqsq_test

// Black-box tests of message move tasks (docs/sqs-semantics.md §8): a rapid
// test that no message is lost or duplicated by any interleaving of sends,
// receives that dead-letter, deletes, clock advances and move tasks. The move
// task helpers are in movetask_helpers_test.go; the fixture (setupDLQ) and the
// dead-letter helpers in redrive_helpers_test.go.

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"pgregory.net/rapid"

	"github.com/sqsq/sqsq"
)

// TestMoveTaskConservation drives random interleavings of sends, receives
// that dead-letter, deletes, clock advances and move tasks started and
// cancelled over two standard sources sharing a DLQ and a FIFO pair, and
// checks after every step that every message sent is stored in exactly one
// queue, deleted or expired — counted with the Stats counters. At the end it
// drains every queue and checks that no body comes out twice.
func TestMoveTaskConservation(t *testing.T) {
	t.Parallel()
	t.Run("standard", func(t *testing.T) {
		t.Parallel()
		rapid.Check(t, conservationMachine(false))
	})
	t.Run("standard and FIFO", func(t *testing.T) {
		t.Parallel()
		rapid.Check(t, conservationMachine(true))
	})
}

// conservationMachine is the state machine of TestMoveTaskConservation; withFIFO
// adds a FIFO source, DLQ and destination to the standard ones.
func conservationMachine(withFIFO bool) func(*rapid.T) {
	return func(rt *rapid.T) {
		ctx := context.Background()
		clk := clock.NewMock()
		clk.Set(dlqEpoch)
		b := sqsq.NewBroker(sqsq.WithClock(clk))
		defer b.Close()
		mk := func(name string, a sqsq.QueueAttributes) *sqsq.Queue {
			if strings.HasSuffix(name, ".fifo") {
				a.FifoQueue = sqsq.Some(true)
			}
			q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: name, Attributes: a})
			if err != nil {
				rt.Fatalf("CreateQueue(%s): %v", name, err)
			}
			return q
		}
		retention := func(label string) sqsq.QueueAttributes {
			secs := rapid.SampledFrom([]int{60, 300, 3600, 345600}).Draw(rt, label)
			return sqsq.QueueAttributes{MessageRetentionPeriod: sqsq.Some(time.Duration(secs) * time.Second)}
		}
		redrive := func(dlq *sqsq.Queue, label string) sqsq.QueueAttributes {
			a := retention(label + "-retention")
			a.RedrivePolicy = sqsq.Some(&sqsq.RedrivePolicy{
				DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: rapid.IntRange(1, 3).Draw(rt, label+"-max")})
			return a
		}
		dlq := mk("dlq", retention("dlq-retention"))
		srcA := mk("src-a", redrive(dlq, "src-a"))
		srcB := mk("src-b", redrive(dlq, "src-b"))
		other := mk("other", sqsq.QueueAttributes{})
		sources := []*sqsq.Queue{srcA, srcB}
		dlqs := []*sqsq.Queue{dlq}
		others := []*sqsq.Queue{other}
		var fsrc, fother *sqsq.Queue
		if withFIFO {
			fdlq := mk("dlq.fifo", retention("fdlq-retention"))
			fsrc = mk("src.fifo", redrive(fdlq, "fsrc"))
			fother = mk("other.fifo", sqsq.QueueAttributes{})
			sources = append(sources, fsrc)
			dlqs = append(dlqs, fdlq)
			others = append(others, fother)
		}
		all := append(append(append([]*sqsq.Queue(nil), sources...), dlqs...), others...)
		// pick draws one of qs by name, so failure logs stay readable.
		pick := func(rt *rapid.T, qs []*sqsq.Queue, label string) *sqsq.Queue {
			return qs[rapid.IntRange(0, len(qs)-1).Draw(rt, label+" (index)")]
		}

		type held struct {
			q *sqsq.Queue
			h string
		}
		var handles []held
		var taskHandles, taskSources []string // in start order
		sent := 0
		bodies := map[string]bool{}

		totals := func() (st sqsq.Stats) {
			for _, q := range all {
				s, err := q.Stats()
				if err != nil {
					rt.Fatalf("Stats(%s): %v", q.Name(), err)
				}
				st.Visible += s.Visible + s.InFlight + s.Delayed
				st.Sent += s.Sent
				st.Deleted += s.Deleted
				st.Expired += s.Expired
				st.Purged += s.Purged
				st.MovedToDLQ += s.MovedToDLQ
				st.DeadLettered += s.DeadLettered
				st.RedrivenOut += s.RedrivenOut
				st.RedrivenIn += s.RedrivenIn
			}
			return st
		}
		check := func(rt *rapid.T) {
			st := totals()
			if st.Sent != int64(sent) {
				rt.Fatalf("Sent counters sum to %d, %d sends succeeded", st.Sent, sent)
			}
			if got := int64(st.Visible) + st.Deleted + st.Expired + st.Purged; got != st.Sent {
				rt.Fatalf("stored %d + deleted %d + expired %d + purged %d = %d, want sent %d: a message was lost or duplicated",
					st.Visible, st.Deleted, st.Expired, st.Purged, got, st.Sent)
			}
			if st.MovedToDLQ != st.DeadLettered {
				rt.Fatalf("MovedToDLQ %d != DeadLettered %d", st.MovedToDLQ, st.DeadLettered)
			}
			if st.RedrivenOut != st.RedrivenIn {
				rt.Fatalf("RedrivenOut %d != RedrivenIn %d", st.RedrivenOut, st.RedrivenIn)
			}
		}

		rt.Repeat(map[string]func(*rapid.T){
			"Send": func(rt *rapid.T) {
				q := pick(rt, all, "send to")
				body := "m" + strconv.Itoa(len(bodies))
				in := sqsq.SendInput{MessageBody: body}
				if q.FIFO() {
					in.MessageGroupId = rapid.SampledFrom([]string{"g1", "g2"}).Draw(rt, "group")
					in.MessageDeduplicationId = body
				}
				if _, err := q.Send(ctx, in); err != nil {
					rt.Fatalf("Send to %s: %v", q.Name(), err)
				}
				bodies[body] = true
				sent++
			},
			"Receive": func(rt *rapid.T) {
				q := pick(rt, all, "receive from")
				vis := rapid.SampledFrom([]time.Duration{0, time.Second, 5 * time.Second, 30 * time.Second}).Draw(rt, "visibility")
				max := rapid.IntRange(1, 10).Draw(rt, "max")
				msgs, err := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: max, VisibilityTimeout: sqsq.Some(vis)})
				if err != nil {
					rt.Fatalf("Receive from %s: %v", q.Name(), err)
				}
				seen := map[string]bool{}
				for _, m := range msgs {
					if seen[m.Body] {
						rt.Fatalf("one receive returned %s twice", m.Body)
					}
					seen[m.Body] = true
					handles = append(handles, held{q, m.ReceiptHandle})
				}
			},
			"Delete": func(rt *rapid.T) {
				if len(handles) == 0 {
					rt.Skip("no handle")
				}
				h := handles[rapid.IntRange(0, len(handles)-1).Draw(rt, "handle (index)")]
				err := h.q.Delete(ctx, h.h)
				var e *sqsq.Error
				if err != nil && !(asSQSErr(err, &e) && e.Code == sqsq.CodeInvalidParameterValue && h.q.FIFO()) {
					rt.Fatalf("Delete on %s: %v", h.q.Name(), err)
				}
			},
			"Advance": func(rt *rapid.T) {
				d := rapid.SampledFrom([]time.Duration{time.Millisecond, time.Second, 7 * time.Second, 30 * time.Second, 5 * time.Minute, time.Hour}).Draw(rt, "advance")
				clk.Add(d)
			},
			"StartMoveTask": func(rt *rapid.T) {
				src := pick(rt, dlqs, "task source")
				in := sqsq.StartMoveTaskInput{SourceArn: src.ARN()}
				if rapid.Bool().Draw(rt, "rated") {
					in.MaxNumberOfMessagesPerSecond = sqsq.Some(rapid.IntRange(1, 5).Draw(rt, "rate"))
				}
				switch rapid.IntRange(0, 2).Draw(rt, "destination") {
				case 1: // another queue
					in.DestinationArn = other.ARN()
					if src.FIFO() {
						in.DestinationArn = fother.ARN()
					}
				case 2: // one of the sources, explicitly
					if src.FIFO() {
						in.DestinationArn = fsrc.ARN()
					} else {
						in.DestinationArn = pick(rt, []*sqsq.Queue{srcA, srcB}, "to source").ARN()
					}
				}
				h, err := b.StartMoveTask(ctx, in)
				var e *sqsq.Error
				switch {
				case err == nil:
					taskHandles = append(taskHandles, h)
					taskSources = append(taskSources, in.SourceArn)
				case asSQSErr(err, &e) && e.Code == sqsq.CodeInvalidParameterValue: // one already active
				default:
					rt.Fatalf("StartMoveTask(%+v): %v", in, err)
				}
			},
			"CancelMoveTask": func(rt *rapid.T) {
				if len(taskHandles) == 0 {
					rt.Skip("no task")
				}
				i := rapid.IntRange(0, len(taskHandles)-1).Draw(rt, "task (index)")
				newer := 0 // tasks of the same source started after it
				for _, s := range taskSources[i+1:] {
					if s == taskSources[i] {
						newer++
					}
				}
				_, err := b.CancelMoveTask(ctx, taskHandles[i])
				var e *sqsq.Error
				switch {
				case err == nil, asSQSErr(err, &e) && e.Code == sqsq.CodeInvalidParameterValue: // not running
				case newer >= 11 && e != nil && e.Code == sqsq.CodeResourceNotFound && e.Message == "Task does not exist.":
					// sqsq keeps the 11 most recent tasks of a source
				default:
					rt.Fatalf("CancelMoveTask of a task with %d newer of its source: %v", newer, err)
				}
			},
			"": check,
		})

		// Stop every task, let every visibility timeout end, and drain:
		// sources first (their receives may still dead-letter), then the
		// rest. Every body comes out once at most.
		for _, h := range taskHandles {
			_, _ = b.CancelMoveTask(ctx, h)
		}
		check(rt)
		before := totals()
		drained := map[string]bool{}
		// Rounds, each a minute apart, until nothing is left: a message
		// still in flight (30 s at most) is visible in the next round.
		for round := 0; round < 5 && totals().Visible > 0; round++ {
			clk.Add(time.Minute)
			for _, q := range all { // sources, then DLQs, then the rest
				drainAndCheck(rt, ctx, q, bodies, drained)
			}
		}
		after := totals()
		check(rt)
		if after.Visible != 0 {
			rt.Fatalf("%d messages left after the drain", after.Visible)
		}
		if got, want := int64(len(drained)), after.Deleted-before.Deleted; got != want {
			rt.Fatalf("drained %d bodies, %d deletes", got, want)
		}
	}
}

// drainAndCheck receives and deletes every available message of q, failing if
// a body comes out twice or was never sent.
func drainAndCheck(rt *rapid.T, ctx context.Context, q *sqsq.Queue, sent, drained map[string]bool) {
	for {
		msgs, err := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Hour)})
		if err != nil {
			rt.Fatalf("drain %s: %v", q.Name(), err)
		}
		if len(msgs) == 0 {
			break
		}
		for _, m := range msgs {
			if drained[m.Body] {
				rt.Fatalf("%s came out twice (again from %s)", m.Body, q.Name())
			}
			if !sent[m.Body] {
				rt.Fatalf("%s was never sent", m.Body)
			}
			drained[m.Body] = true
			if err := q.Delete(ctx, m.ReceiptHandle); err != nil {
				rt.Fatalf("drain delete: %v", err)
			}
		}
	}
}

func asSQSErr(err error, target **sqsq.Error) bool { return errors.As(err, target) }
