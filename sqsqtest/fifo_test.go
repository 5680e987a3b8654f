package sqsqtest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqsqtest"
)

// fifoChecker watches a FIFO queue's deliveries and records every breach of
// FIFO's guarantees: a message delivered while it is in flight (a duplicate
// within the group's lock), twice in one receive, or before an earlier
// message of its group was deleted (out of order).
type fifoChecker struct {
	mu       sync.Mutex
	call     int
	seen     map[string]int // body → call that last received it
	until    map[string]time.Time
	deleted  map[string]bool
	breaches []string
}

func (c *fifoChecker) Observe(e sqsq.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e.Kind {
	case sqsq.EventReceived:
		if c.seen[e.Body] == c.call {
			c.breaches = append(c.breaches, e.Body+" twice in one receive")
		}
		if u, ok := c.until[e.Body]; ok && e.At.Before(u) {
			c.breaches = append(c.breaches, e.Body+" delivered while in flight")
		}
		group, idx := parseBody(e.Body)
		for j := 0; j < idx; j++ {
			prev := group + "-" + strconv.Itoa(j)
			if !c.deleted[prev] && c.seen[prev] != c.call {
				c.breaches = append(c.breaches, fmt.Sprintf("%s delivered before %s was deleted", e.Body, prev))
			}
		}
		c.seen[e.Body] = c.call
		c.until[e.Body] = e.At.Add(e.Timeout)
	case sqsq.EventDeleted:
		if e.Removed {
			c.deleted[e.Body] = true
			delete(c.until, e.Body)
		}
	case sqsq.EventVisibilityChanged:
		if e.Applied {
			c.until[e.Body] = e.At.Add(e.Timeout)
		}
	}
}

func parseBody(body string) (string, int) {
	i := strings.LastIndexByte(body, '-')
	n, _ := strconv.Atoi(body[i+1:])
	return body[:i], n
}

// FIFO guarantees hold under every fault at once: the broker never lets
// the policy duplicate, reorder or sample a FIFO queue, and the faults it
// does allow (lost responses, failed deletes and changes, throttling) only
// delay delivery.
func TestPolicyFIFOGuaranteesUnderEveryFault(t *testing.T) {
	t.Parallel()
	seeds := 20
	if testing.Short() {
		seeds = 4
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		ctx := context.Background()
		p := sqsqtest.SeedFaults(t, seed, sqsqtest.AllFaults(25))
		chk := &fifoChecker{seen: map[string]int{}, until: map[string]time.Time{}, deleted: map[string]bool{}}
		b, clk := sqsqtest.NewBroker(t, sqsq.WithFaults(p), sqsq.WithObserver(chk))
		q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q.fifo",
			Attributes: sqsq.QueueAttributes{FifoQueue: sqsq.Some(true), ContentBasedDeduplication: sqsq.Some(true)}})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			for _, g := range []string{"g1", "g2"} {
				if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: g + "-" + strconv.Itoa(i), MessageGroupId: g}); err != nil {
					t.Fatal(err)
				}
			}
		}
		r := rand.New(rand.NewPCG(seed, 1))
		var handles []string
		for op := 0; op < 120; op++ {
			switch r.IntN(5) {
			case 0, 1:
				chk.mu.Lock()
				chk.call++
				chk.mu.Unlock()
				msgs, _ := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 1 + r.IntN(10), WaitTimeSeconds: sqsq.Some(time.Duration(0))})
				for _, m := range msgs {
					handles = append(handles, m.ReceiptHandle)
				}
			case 2:
				if len(handles) > 0 {
					i := r.IntN(len(handles))
					_ = q.Delete(ctx, handles[i])
				}
			case 3:
				if len(handles) > 0 {
					_ = q.ChangeVisibility(ctx, handles[r.IntN(len(handles))], time.Duration(r.IntN(3)*10)*time.Second)
				}
			case 4:
				if op%3 == 0 { // the mock sleeps 1 ms per move: keep them few
					clk.Add(time.Duration(5+r.IntN(40)) * time.Second)
				}
			}
		}
		if len(chk.breaches) > 0 {
			t.Fatalf("seed %d: FIFO guarantees broken: %v", seed, chk.breaches)
		}
		if len(p.Injected()) == 0 {
			t.Fatalf("seed %d: no fault fired", seed)
		}
		for _, in := range p.Injected() {
			switch in.Fault {
			case sqsqtest.ShortPoll, sqsqtest.Duplicate, sqsqtest.Reorder:
				t.Fatalf("seed %d: %v injected on a FIFO queue", seed, in.Fault)
			}
		}
	}
}
