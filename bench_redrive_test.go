package sqsq_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// Benchmarks of dead-letter moves and move tasks:
//
//	go test -run '^$' -bench 'MoveTaskDrain|DeadLetterMove' -benchtime=1x -count=1 .
//	go test -run '^$' -bench 'DeadLetterMove' -benchtime=200000x -count=1 .
//
// BenchmarkMoveTaskDrain reports ns per moved message ("ns/msg") at three
// DLQ depths; the drain is linear when ns/msg stays flat as the depth grows.
// BenchmarkDeadLetterMove compares a receive that moves one message to the
// DLQ with a plain receive. BenchmarkMoveTaskAfterFinishedTasks compares the
// drain of 100,000 messages on a fresh broker with one after 20,000
// finished tasks.

// BenchmarkMoveTaskDrain drains a DLQ of n messages with a move task at the
// maximum rate, 500 messages per second: the clock is advanced at once far
// enough for every message (n/500 s), then, because a task may still be
// RUNNING after that (for instance if the clock was not where the benchmark
// put it), a second at a time until the task ends. The timed part is the
// StartMoveTask call, the advances and the ListMoveTasks calls that bring the
// task up to date; filling the DLQ and building the broker are not timed.
func BenchmarkMoveTaskDrain(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run("messages="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			var moved int64
			var elapsed time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				clk := clock.NewMock()
				clk.Set(dlqEpoch)
				broker := sqsq.NewBroker(sqsq.WithClock(clk))
				dlq := benchQueue(b, broker, "dlq", sqsq.QueueAttributes{})
				benchQueue(b, broker, "src", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
					DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1,
				})})
				dst := benchQueue(b, broker, "dst", sqsq.QueueAttributes{})
				benchFill(b, dlq, n)
				wall := time.Now()
				b.StartTimer()

				if _, err := broker.StartMoveTask(ctx, sqsq.StartMoveTaskInput{
					SourceArn: dlq.ARN(), DestinationArn: dst.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(500),
				}); err != nil {
					b.Fatal(err)
				}
				clk.Add(time.Duration(n/500+1) * time.Second)
				task := benchTask(b, broker, dlq)
				for steps := 0; task.Status == sqsq.MoveTaskRunning; steps++ {
					if steps > n {
						b.Fatalf("task still %s after %d extra seconds: %+v", task.Status, steps, task)
					}
					clk.Add(time.Second)
					task = benchTask(b, broker, dlq)
				}

				b.StopTimer()
				elapsed += time.Since(wall)
				if task.Status != sqsq.MoveTaskCompleted || task.ApproximateNumberOfMessagesMoved != int64(n) {
					b.Fatalf("task %+v, want COMPLETED with %d moved", task, n)
				}
				moved += task.ApproximateNumberOfMessagesMoved
				_ = broker.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(elapsed.Nanoseconds())/float64(moved), "ns/msg")
		})
	}
}

// BenchmarkMoveTaskAfterFinishedTasks is BenchmarkMoveTaskDrain of 100,000
// messages on a broker that has run none, or 20,000, move tasks before:
// finished tasks, all on the drained DLQ (sources=1), or 10 on each of
// 2,000 other DLQs (sources=2000, where the history keeps them all). A step
// costs the same however many tasks have finished (compare ns/msg):
//
//	go test -run '^$' -bench 'MoveTaskAfterFinishedTasks' -benchtime=3x -count=1 .
func BenchmarkMoveTaskAfterFinishedTasks(b *testing.B) {
	const n = 100_000
	for _, bc := range []struct{ finished, sources int }{{0, 1}, {20_000, 1}, {20_000, 2_000}} {
		b.Run("finished="+strconv.Itoa(bc.finished)+"/sources="+strconv.Itoa(bc.sources), func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			var moved int64
			var elapsed time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				clk := clock.NewMock()
				clk.Set(dlqEpoch)
				broker := sqsq.NewBroker(sqsq.WithClock(clk))
				dlq := benchQueue(b, broker, "dlq", sqsq.QueueAttributes{})
				benchQueue(b, broker, "src", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
					DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1,
				})})
				dst := benchQueue(b, broker, "dst", sqsq.QueueAttributes{})
				others := []*sqsq.Queue{dlq} // where the finished tasks ran
				if bc.sources > 1 {
					others = others[:0]
					for k := 0; k < bc.sources; k++ {
						other := benchQueue(b, broker, "dlq-"+strconv.Itoa(k), sqsq.QueueAttributes{})
						benchQueue(b, broker, "src-"+strconv.Itoa(k), sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
							DeadLetterTargetArn: other.ARN(), MaxReceiveCount: 1,
						})})
						others = append(others, other)
					}
				}
				// Tasks on empty DLQs: each completes on the next call.
				for k := 0; k < bc.finished; k++ {
					if _, err := broker.StartMoveTask(ctx, sqsq.StartMoveTaskInput{SourceArn: others[k%len(others)].ARN()}); err != nil {
						b.Fatalf("finished task %d: %v", k, err)
					}
				}
				benchFill(b, dlq, n)
				wall := time.Now()
				b.StartTimer()

				if _, err := broker.StartMoveTask(ctx, sqsq.StartMoveTaskInput{
					SourceArn: dlq.ARN(), DestinationArn: dst.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(500),
				}); err != nil {
					b.Fatal(err)
				}
				clk.Add(time.Duration(n/500+1) * time.Second)
				task := benchTask(b, broker, dlq)

				b.StopTimer()
				elapsed += time.Since(wall)
				if task.Status != sqsq.MoveTaskCompleted || task.ApproximateNumberOfMessagesMoved != n {
					b.Fatalf("task %+v, want COMPLETED with %d moved", task, n)
				}
				moved += task.ApproximateNumberOfMessagesMoved
				_ = broker.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(elapsed.Nanoseconds())/float64(moved), "ns/msg")
		})
	}
}

// BenchmarkDeadLetterMove compares receives of one message each from a
// standard queue, each followed by the delete of the message it returned:
//
//   - no-policy: the queue has no RedrivePolicy (the baseline);
//   - plain: the queue's maxReceiveCount is 1, but the oldest available
//     message has never been received, so the receive returns it (the cost
//     of having a policy: the receive also locks the DLQ);
//   - dead-letter: the oldest available message was received once already,
//     so the receive moves it to the DLQ and returns the next one, which is
//     new. The difference between the two is the cost of one move.
//
// Messages are prepared outside the timer in chunks of 400: in the
// dead-letter case received ones and new ones alternate in the order of
// availability.
func BenchmarkDeadLetterMove(b *testing.B) {
	for _, mode := range []string{"no-policy", "plain", "dead-letter"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			clk := clock.NewMock()
			clk.Set(dlqEpoch)
			broker := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithPurgeInterval(0))
			defer broker.Close()
			dlq := benchQueue(b, broker, "dlq", sqsq.QueueAttributes{})
			var attrs sqsq.QueueAttributes
			if mode != "no-policy" {
				attrs.RedrivePolicy = sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})
			}
			src := benchQueue(b, broker, "src", attrs)
			const chunk = 400
			in := sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Hour)}
			left := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if left == 0 {
					b.StopTimer()
					if err := dlq.Purge(ctx); err != nil {
						b.Fatal(err)
					}
					left = benchPrepare(b, clk, src, chunk, mode == "dead-letter")
					b.StartTimer()
				}
				msgs, err := src.Receive(ctx, in)
				if err != nil || len(msgs) != 1 {
					b.Fatalf("Receive = %d messages, %v; want 1", len(msgs), err)
				}
				if err := src.Delete(ctx, msgs[0].ReceiptHandle); err != nil {
					b.Fatal(err)
				}
				left--
			}
			b.StopTimer()
			if mode == "dead-letter" {
				if s, err := src.Stats(); err != nil || s.MovedToDLQ != int64(b.N) {
					b.Fatalf("MovedToDLQ = %d (%v), want %d: one move per receive", s.MovedToDLQ, err, b.N)
				}
			}
		})
	}
}

// benchPrepare leaves n messages available in src and returns how many
// one-message receives they serve: without poison, n new messages (n
// receives); with poison, received-once and new messages alternating in the
// order of availability (n/2 receives, each moving one and returning one).
// It moves the clock by up to n+1 seconds.
func benchPrepare(b *testing.B, clk *clock.Mock, src *sqsq.Queue, n int, poison bool) int {
	b.Helper()
	ctx := context.Background()
	if !poison {
		benchFill(b, src, n)
		return n
	}
	pairs := n / 2
	// Received-once message i becomes visible again at 2i+1 s, new message
	// i at 2i+2 s (a delay), so they alternate once the clock has moved.
	for i := 0; i < pairs; i++ {
		if _, err := src.Send(ctx, sqsq.SendInput{MessageBody: benchRedriveBody}); err != nil {
			b.Fatal(err)
		}
		msgs, err := src.Receive(ctx, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Duration(2*i+1) * time.Second)})
		if err != nil || len(msgs) != 1 {
			b.Fatalf("Receive = %d messages, %v", len(msgs), err)
		}
	}
	for i := 0; i < pairs; i++ {
		if _, err := src.Send(ctx, sqsq.SendInput{MessageBody: benchRedriveBody, DelaySeconds: sqsq.Some(time.Duration(2*i+2) * time.Second)}); err != nil {
			b.Fatal(err)
		}
	}
	clk.Add(time.Duration(2*pairs+1) * time.Second)
	return pairs
}

// benchRedriveBody is a 256-byte body.
var benchRedriveBody = strings.Repeat("x", 256)

func benchQueue(b *testing.B, broker *sqsq.Broker, name string, attrs sqsq.QueueAttributes) *sqsq.Queue {
	b.Helper()
	q, err := broker.CreateQueue(context.Background(), sqsq.CreateQueueInput{QueueName: name, Attributes: attrs})
	if err != nil {
		b.Fatal(err)
	}
	return q
}

// benchFill sends n messages to q in batches of 10.
func benchFill(b *testing.B, q *sqsq.Queue, n int) {
	b.Helper()
	batch := make([]sqsq.SendBatchEntry, 10)
	for i := range batch {
		batch[i] = sqsq.SendBatchEntry{Id: "e" + strconv.Itoa(i), SendInput: sqsq.SendInput{MessageBody: benchRedriveBody}}
	}
	for n > 0 {
		k := min(n, 10)
		res, err := q.SendBatch(context.Background(), batch[:k])
		if err != nil || len(res.Failed) > 0 {
			b.Fatalf("SendBatch: %v %v", err, res.Failed)
		}
		n -= k
	}
}

func benchTask(b *testing.B, broker *sqsq.Broker, dlq *sqsq.Queue) sqsq.MoveTask {
	b.Helper()
	tasks, err := broker.ListMoveTasks(context.Background(), dlq.ARN(), sqsq.Optional[int]{})
	if err != nil || len(tasks) != 1 {
		b.Fatalf("ListMoveTasks = %+v, %v", tasks, err)
	}
	return tasks[0]
}

// BenchmarkListDeadLetterSources lists the two sources of a dead-letter
// queue among n queues: the world indexes redrive policies by target, so
// the cost stays flat as n grows (a scan of every queue made the console's
// queue listing quadratic).
//
//	go test -run '^$' -bench 'ListDeadLetterSources' .
func BenchmarkListDeadLetterSources(b *testing.B) {
	for _, n := range []int{100, 1_000, 10_000} {
		b.Run("queues="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			br := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
			defer br.Close()
			dlq, _ := br.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "dlq"})
			policy := sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 3})
			for i := range n {
				in := sqsq.CreateQueueInput{QueueName: "q" + strconv.Itoa(i)}
				if i < 2 {
					in.Attributes.RedrivePolicy = policy
				}
				if _, err := br.CreateQueue(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for range b.N {
				out, err := dlq.ListDeadLetterSourceQueues(ctx, sqsq.ListDeadLetterSourceQueuesInput{})
				if err != nil || len(out.QueueURLs) != 2 {
					b.Fatal(out, err)
				}
			}
		})
	}
}
