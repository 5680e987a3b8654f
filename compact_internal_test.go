package sqsq

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

// Two paths leave a stale index entry per call without moving the clock: a
// receive with visibility 0 (the message goes back to avail with a new
// entry) and ChangeVisibility to 0 (its pending entry stays behind). Both
// must compact, or 100,000 calls on a 10-message queue hold 100,000 stale
// entries (about 39 MB) until a delete, on any clock.
func TestZeroVisibilityPathsCompact(t *testing.T) {
	t.Parallel()
	for _, fifo := range []bool{false, true} {
		for _, path := range []string{"receive", "change"} {
			name := path
			if fifo {
				name += "/fifo"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				b := NewBroker(WithClock(clock.NewMock())) // the clock never moves
				defer b.Close()
				in := CreateQueueInput{QueueName: "q"}
				if fifo {
					in = CreateQueueInput{QueueName: "q.fifo", Attributes: QueueAttributes{FifoQueue: Some(true), ContentBasedDeduplication: Some(true)}}
				}
				q, err := b.CreateQueue(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 10 {
					s := SendInput{MessageBody: strconv.Itoa(i)}
					if fifo {
						s.MessageGroupId = "g" + strconv.Itoa(i)
					}
					if _, err := q.Send(ctx, s); err != nil {
						t.Fatal(err)
					}
				}
				const calls = 20_000
				for range calls / 10 {
					if path == "receive" {
						msgs, err := q.Receive(ctx, ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: Some(time.Duration(0))})
						if err != nil || len(msgs) != 10 {
							t.Fatalf("receive: %d, %v", len(msgs), err)
						}
						continue
					}
					msgs, err := q.Receive(ctx, ReceiveInput{MaxNumberOfMessages: 10})
					if err != nil || len(msgs) != 10 {
						t.Fatalf("receive: %d, %v", len(msgs), err)
					}
					for _, m := range msgs {
						if err := q.ChangeVisibility(ctx, m.ReceiptHandle, 0); err != nil {
							t.Fatal(err)
						}
					}
				}
				q.mu.Lock()
				defer q.mu.Unlock()
				// compact's bound: twice the live entries plus 1,024.
				for idx, n := range map[string]int{"avail": q.avail.Len(), "pending": q.pending.Len(), "byEnqueue": q.byEnqueue.Len()} {
					if n > 2*10+1024 {
						t.Errorf("%s holds %d entries for 10 messages after %d calls", idx, n, calls)
					}
				}
			})
		}
	}
}
