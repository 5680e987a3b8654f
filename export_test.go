package sqsq_test

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/state"
)

// TestImportKeepsReceiptHandles checks that the receipt handles a broker
// issued before a restart work after it, signed with the broker's random
// key: the same deletes and visibility changes give the same answers on
// the original and the restarted endpoint, stale and foreign handles
// included.
func TestImportKeepsReceiptHandles(t *testing.T) {
	t.Parallel()
	for _, fifo := range []bool{false, true} {
		name := map[bool]string{false: "standard", true: "fifo"}[fifo]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := setup(t) // random ids: handles are signed with a random key
			q := f.q
			if fifo {
				q = f.create(t, "handles.fifo", sqsq.QueueAttributes{FifoQueue: sqsq.Some(true), ContentBasedDeduplication: sqsq.Some(true)})
			}
			var h []string
			for i := range 4 {
				// One group each, so every message is receivable at once.
				f.sendInput(t, q, sqsq.SendInput{MessageBody: "m" + strconv.Itoa(i), MessageGroupId: fifoGroup(fifo, i)})
			}
			for _, m := range f.receive(t, q, sqsq.ReceiveInput{MaxNumberOfMessages: 10}) {
				h = append(h, m.ReceiptHandle)
			}
			if len(h) != 4 {
				t.Fatalf("received %d messages, want 4", len(h))
			}
			// h[3] goes stale: its message is received again.
			if err := q.ChangeVisibility(f.ctx, h[3], 0); err != nil {
				t.Fatalf("ChangeVisibility: %v", err)
			}
			newest := f.receiveOne(t, q, sqsq.ReceiveInput{}).ReceiptHandle

			restarted, _ := restart(t, exportOf(t, f.b), f.clk.Now())
			t.Cleanup(func() { restarted.Close() })
			rq, err := restarted.GetQueue(f.ctx, q.Name())
			if err != nil {
				t.Fatalf("GetQueue after the restart: %v", err)
			}
			other := setup(t) // another endpoint: its key signs other handles
			other.send(t, other.q, "x")
			foreign := other.receiveOne(t, other.q, sqsq.ReceiveInput{}).ReceiptHandle

			steps := []struct {
				name string
				op   func(q *sqsq.Queue) error
			}{
				{"delete with the latest handle", func(q *sqsq.Queue) error { return q.Delete(f.ctx, h[0]) }},
				{"extend a visibility timeout", func(q *sqsq.Queue) error { return q.ChangeVisibility(f.ctx, h[1], time.Minute) }},
				{"delete with a stale handle", func(q *sqsq.Queue) error { return q.Delete(f.ctx, h[3]) }},
				{"change visibility with a stale handle", func(q *sqsq.Queue) error { return q.ChangeVisibility(f.ctx, h[3], 10*time.Second) }},
				{"delete a deleted message again", func(q *sqsq.Queue) error { return q.Delete(f.ctx, h[0]) }},
				{"delete with another endpoint's handle", func(q *sqsq.Queue) error { return q.Delete(f.ctx, foreign) }},
				{"delete with the newest handle", func(q *sqsq.Queue) error { return q.Delete(f.ctx, newest) }},
			}
			got := make([]error, len(steps))
			for i, s := range steps {
				want := s.op(q)
				if got[i] = s.op(rq); errText(want) != errText(got[i]) {
					t.Errorf("%s: restarted endpoint says %v, the original %v", s.name, got[i], want)
				}
			}
			if got[0] != nil || got[6] != nil {
				t.Errorf("deletes with handles issued before the restart: %v, %v; want both to succeed", got[0], got[6])
			}
			if !errors.Is(got[5], sqsq.ErrReceiptHandleIsInvalid) {
				t.Errorf("a foreign handle: %v, want ReceiptHandleIsInvalid", got[5])
			}
			if d := worldDiff(exportOf(t, f.b), exportOf(t, restarted)); d != "" {
				t.Errorf("the endpoints differ after the same calls: %s", d)
			}

			// The saved key is what makes the handles good: a new broker with
			// a queue of the same id and name rejects them.
			fresh := setup(t)
			if fifo {
				fresh.create(t, "handles.fifo", sqsq.QueueAttributes{FifoQueue: sqsq.Some(true)})
			}
			fq, _ := fresh.b.GetQueue(fresh.ctx, q.Name())
			if err := fq.Delete(fresh.ctx, h[2]); !errors.Is(err, sqsq.ErrReceiptHandleIsInvalid) {
				t.Errorf("a broker without the saved key accepted a handle: %v", err)
			}
		})
	}
}

func fifoGroup(fifo bool, i int) string {
	if !fifo {
		return ""
	}
	return "g" + strconv.Itoa(i)
}

// TestImportAfterDowntime checks that an endpoint restarted an hour after
// its export is the endpoint that stayed up for that hour: in-flight
// messages whose 30 s timeout passed are visible, delays are over,
// messages past their retention are gone, and a running move task has
// moved what it would have, each step as of its own instant.
func TestImportAfterDowntime(t *testing.T) {
	t.Parallel()
	ids := 0
	f := setupDLQ(t, sqsq.WithIDFunc(func() string { ids++; return fmt.Sprintf("id-%04d", ids) }))
	work := f.queue(t, "work", sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(30 * time.Second)})
	short := f.queue(t, "short", sqsq.QueueAttributes{MessageRetentionPeriod: sqsq.Some(30 * time.Minute)})
	src, dlq := f.pair(t, "src", "dlq", 1)
	for i := range 3 {
		f.put(t, work, sqsq.SendInput{MessageBody: "flight-" + strconv.Itoa(i)})
	}
	if got := f.get(t, work, sqsq.ReceiveInput{MaxNumberOfMessages: 3}); len(got) != 3 {
		t.Fatalf("received %d, want 3", len(got))
	}
	for i := range 2 {
		f.put(t, work, sqsq.SendInput{MessageBody: "delayed-" + strconv.Itoa(i), DelaySeconds: sqsq.Some(10 * time.Second)})
	}
	f.put(t, work, sqsq.SendInput{MessageBody: "ready"})
	for i := range 4 {
		f.put(t, short, sqsq.SendInput{MessageBody: "brief-" + strconv.Itoa(i)})
	}
	bodies := make([]string, 100)
	for i := range bodies {
		bodies[i] = "dead-" + strconv.Itoa(i)
	}
	f.deadLetterAll(t, src, bodies...)
	f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
	f.clk.Add(5 * time.Second) // the task is under way

	w := exportOf(t, f.b)
	saved := ids
	f.clk.Add(time.Hour) // the original stays up meanwhile
	restarted, _ := restart(t, w, f.clk.Now(), sqsq.WithIDFunc(func() string { saved++; return fmt.Sprintf("id-%04d", saved) }))
	t.Cleanup(func() { restarted.Close() })

	get := func(name string) sqsq.Stats {
		q, err := restarted.GetQueue(f.ctx, name)
		if err != nil {
			t.Fatalf("GetQueue(%s): %v", name, err)
		}
		return stats(t, q)
	}
	if s := get("work"); s.Visible != 6 || s.InFlight != 0 || s.Delayed != 0 || s.VisibilityExpirations != 3 {
		t.Errorf("work after the downtime: %d visible, %d in flight, %d delayed, %d visibility expirations; want 6, 0, 0, 3",
			s.Visible, s.InFlight, s.Delayed, s.VisibilityExpirations)
	}
	if s := get("short"); s.Visible != 0 || s.Expired != 4 {
		t.Errorf("short after the downtime: %d visible, %d expired; want 0 and 4", s.Visible, s.Expired)
	}
	tasks, err := restarted.ListMoveTasks(f.ctx, dlq.ARN(), sqsq.Some(1))
	if err != nil || len(tasks) != 1 || tasks[0].Status != sqsq.MoveTaskCompleted || tasks[0].ApproximateNumberOfMessagesMoved != 100 {
		t.Errorf("the move task after the downtime: %+v, %v; want COMPLETED with 100 moved", tasks, err)
	}
	if s := get("src"); s.Visible != 100 {
		t.Errorf("src after the downtime: %d visible, want the 100 moved back", s.Visible)
	}
	if d := worldDiff(exportOf(t, f.b), exportOf(t, restarted)); d != "" {
		t.Errorf("the restarted endpoint differs from the one that stayed up: %s", d)
	}
}

// TestExportConservesMessages exports an endpoint over and over while
// receives move messages to a dead-letter queue and move tasks move them
// back, and the clock runs: every export holds every message exactly once.
// A snapshot taken queue by queue would catch a message in both queues, or
// in neither, in the middle of a move; one that took the locks in another
// order than the operations would deadlock.
func TestExportConservesMessages(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	const n = 200
	for i := 0; i < n; i += 10 {
		entries := make([]sqsq.SendBatchEntry, 10)
		for j := range entries {
			entries[j] = sqsq.SendBatchEntry{Id: strconv.Itoa(j), SendInput: sqsq.SendInput{MessageBody: strconv.Itoa(i + j)}}
		}
		if _, err := src.SendBatch(f.ctx, entries); err != nil {
			t.Fatalf("SendBatch: %v", err)
		}
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	loop := func(step func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					step()
					runtime.Gosched()
				}
			}
		}()
	}
	loop(func() { // visible again at once; the next receive dead-letters it
		_, _ = src.Receive(f.ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Duration(0))})
	})
	loop(func() { _, _ = f.b.StartMoveTask(f.ctx, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN()}) })
	loop(func() { f.clk.Add(5 * time.Millisecond) })

	moved := false
	for i := 0; i < 200 || !moved; i++ {
		w := exportOf(t, f.b)
		seen := map[string]int{}
		for _, q := range w.Scopes[0].Queues {
			for _, m := range q.Messages {
				seen[m.Body]++
			}
			moved = moved || q.Name == "dlq" && len(q.Messages) > 0 && len(w.Tasks) > 0
		}
		for k := 0; k < n; k++ {
			if c := seen[strconv.Itoa(k)]; c != 1 {
				close(stop)
				wg.Wait()
				t.Fatalf("export %d holds message %d %d times, want once", i, k, c)
			}
		}
		if i > 5000 {
			break // the test is about the exports, not the schedule
		}
	}
	close(stop)
	wg.Wait()
}

// TestImportDoesNotKeepItsInput checks that an imported endpoint shares no
// memory with the state it was built from: a store may reuse its buffers.
func TestImportDoesNotKeepItsInput(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.sendInput(t, f.q, sqsq.SendInput{
		MessageBody:       "x",
		MessageAttributes: map[string]sqsq.MessageAttribute{"b": {DataType: "Binary", BinaryValue: []byte{1, 2, 3}}},
	})
	w := exportOf(t, f.b)
	restarted, _ := restart(t, w, f.clk.Now())
	t.Cleanup(func() { restarted.Close() })
	want := exportOf(t, restarted)
	for i := range w.Scopes[0].Queues[0].Messages {
		m := &w.Scopes[0].Queues[0].Messages[i]
		m.Attributes["b"].BinaryValue[0] = 99
		m.Attributes["c"] = state.Attribute{DataType: "String", StringValue: "added"}
	}
	w.Scopes[0].Queues[0].Attributes["VisibilityTimeout"] = "7"
	w.Scopes[0].Queues[0].Tags = map[string]string{"k": "v"}
	if d := worldDiff(want, exportOf(t, restarted)); d != "" {
		t.Errorf("changing the imported state changed the endpoint: %s", d)
	}
}

// TestImportKeepsSavedNamespace checks that the restarted endpoint's first
// scope is the saved one, whatever account and region the options give:
// its queues' ARNs and URLs, and so every reference clients hold, name it.
func TestImportKeepsSavedNamespace(t *testing.T) {
	t.Parallel()
	f := setup(t, sqsq.WithAccountID("123456789012"), sqsq.WithRegion("eu-central-1"))
	restarted, _ := restart(t, exportOf(t, f.b), f.clk.Now(), sqsq.WithAccountID("000000000000"), sqsq.WithRegion("us-east-1"))
	t.Cleanup(func() { restarted.Close() })
	if restarted.AccountID() != "123456789012" || restarted.Region() != "eu-central-1" {
		t.Errorf("restarted as %s/%s, want the saved 123456789012/eu-central-1", restarted.AccountID(), restarted.Region())
	}
	q, err := restarted.GetQueue(f.ctx, f.q.URL())
	if err != nil || q.ARN() != f.q.ARN() {
		t.Errorf("GetQueue(%s) after the restart: %v, %v; want the queue %s", f.q.URL(), q, err, f.q.ARN())
	}
}
