package durable

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// BenchmarkCommit is durable mode's cost per call: a send of 1 KiB and a
// Sync, on 16 goroutines, so that calls share commits as a server's do.
// On a FIFO queue the deduplication window holds about -window ids (the
// clock moves so that older ones expire). It reports the disk's bytes per
// message sent. The cycle case is the HTTP load test's loop without HTTP:
// a batch of ten sent, received and deleted, each call followed by a Sync;
// its op is one message; cycle-memory is the same without durable mode.
func BenchmarkCommit(b *testing.B) {
	for _, c := range []struct {
		name   string
		fifo   bool
		window int
		cycle  bool
		memory bool
	}{{"standard", false, 0, false, false}, {"fifo-window-1k", true, 1000, false, false}, {"fifo-window-10k", true, 10000, false, false},
		{"cycle", false, 0, true, false}, {"cycle-memory", false, 0, true, true}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			s, err := Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			clk := clock.NewMock()
			clk.Set(time.Unix(1_700_000_000, 0))
			opts := []sqsq.Option{sqsq.WithClock(clk), s.Journal()}
			if c.memory {
				opts = opts[:1]
			}
			br := sqsq.NewBroker(opts...)
			defer br.Close()
			if err := s.Attach(br); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			in := sqsq.CreateQueueInput{QueueName: "q"}
			if c.fifo {
				in = sqsq.CreateQueueInput{QueueName: "q.fifo", Attributes: sqsq.QueueAttributes{FifoQueue: sqsq.Some(true)}}
			}
			q, err := br.CreateQueue(ctx, in)
			if err != nil {
				b.Fatal(err)
			}
			body := strings.Repeat("x", 1024)
			var n atomicCounter
			send := func() {
				i := n.next()
				m := sqsq.SendInput{MessageBody: body}
				if c.fifo {
					m.MessageGroupId = fmt.Sprint("g", i%16)
					m.MessageDeduplicationId = fmt.Sprint("d", i)
					if i%(c.window/300+1) == 0 {
						clk.Add(time.Second) // 5 min of window ≈ c.window sends
					}
				}
				if _, err := q.Send(ctx, m); err != nil {
					b.Error(err)
				}
			}
			for range c.window {
				send()
			}
			if err := s.Sync(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetParallelism(8) // 16 goroutines on 2 cores
			s.c.mu.Lock()
			commits0 := s.c.attempts
			s.c.mu.Unlock()
			cpu0 := cpuTime()
			b.ResetTimer()
			sync := func() bool {
				if err := s.Sync(ctx); err != nil {
					b.Error(err)
					return false
				}
				return true
			}
			cycle := func() bool { // ten messages
				var batch []sqsq.SendBatchEntry
				for i := range 10 {
					batch = append(batch, sqsq.SendBatchEntry{Id: fmt.Sprint(i), SendInput: sqsq.SendInput{MessageBody: body}})
				}
				n.v.Add(10)
				if _, err := q.SendBatch(ctx, batch); err != nil || !sync() {
					b.Error(err)
					return false
				}
				ms, err := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
				if err != nil || !sync() {
					b.Error(err)
					return false
				}
				var del []sqsq.DeleteBatchEntry
				for i, m := range ms {
					del = append(del, sqsq.DeleteBatchEntry{Id: fmt.Sprint(i), ReceiptHandle: m.ReceiptHandle})
				}
				if len(del) > 0 {
					if _, err := q.DeleteBatch(ctx, del); err != nil || !sync() {
						b.Error(err)
						return false
					}
				}
				return true
			}
			b.RunParallel(func(pb *testing.PB) {
				for c.cycle && pb.Next() {
					for i := 0; i < 9 && pb.Next(); i++ {
					}
					if !cycle() {
						return
					}
				}
				for !c.cycle && pb.Next() {
					send()
					if err := s.Sync(ctx); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			s.c.mu.Lock()
			commits := s.c.attempts - commits0
			s.c.mu.Unlock()
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(b.N)/float64(max(commits, 1)), "ops/commit")
			b.ReportMetric(float64(fileSize(b, filepath.Join(dir, FileName)))/float64(n.load()), "disk-B/msg")
		})
	}
}

// atomicCounter numbers the sends of the benchmark's goroutines.
type atomicCounter struct{ v atomic.Int64 }

func (c *atomicCounter) next() int   { return int(c.v.Add(1)) }
func (c *atomicCounter) load() int64 { return c.v.Load() }

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
