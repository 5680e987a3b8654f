package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// The queues every client uses; admin.go adds scratch queues.
const (
	qStd  = "crash-std"       // standard
	qFIFO = "crash-fifo.fifo" // FIFO, content-based deduplication, groups per client
	qSrc  = "crash-src"       // standard, dead-letters to qDLQ after maxReceiveCount receives
	qDLQ  = "crash-dlq"       // its dead-letter queue; move tasks send messages back
)

const maxReceiveCount = 1

// margin is how far before the end of its visibility window a delete must
// have answered to count as acknowledged (the handle surely the latest):
// the server's deadline is its clock at the receive plus the timeout, and
// the receive reached it after the driver sent it. The margin covers the
// wall clock the server reads against the monotonic one the driver does.
// A handle with less than minLeft left is dropped unused.
const (
	margin  = 100 * time.Millisecond
	minLeft = 300 * time.Millisecond
)

// maxBacklog bounds the messages stored per queue, so each check stays
// fast: past it clients receive and delete rather than send there. (FIFO
// receives drain slowest: a group is locked while a message of it is in
// flight.)
const maxBacklog = 1000

// env is what a round's clients share: the server of the round.
type env struct {
	sqs         *sqs.Client
	base        string // http://127.0.0.1:port
	accountPath string // /000000000000, the path of queue URLs before the name
	l           *ledger
	dlqArn      string
	calls       *atomic.Int64
	fails       *failures
}

func (e *env) url(queue string) *string { return aws.String(e.base + e.accountPath + "/" + queue) }

// held is a receipt handle a client holds.
type held struct {
	queue, body, handle string
	// until is when the visibility window surely still runs: before it, no
	// one else can have received the message, so the handle is the latest.
	until time.Time
}

// client is one goroutine of the workload; its state (message numbers,
// handles held) carries over restarts, as a real client's would: a handle
// received before a crash must still work after it, within its window.
type client struct {
	id     int
	rng    *rand.Rand
	n      int
	held   []held
	groups []string // the FIFO groups it alone sends to, so their send order is its order
}

func newClient(id int, seed uint64) *client {
	c := &client{id: id, rng: rand.New(rand.NewPCG(seed, uint64(id)+1))}
	for g := range 3 {
		c.groups = append(c.groups, fmt.Sprintf("g%d-%d", id, g))
	}
	return c
}

func (c *client) body() string {
	c.n++
	return "c" + strconv.Itoa(c.id) + "-" + strconv.Itoa(c.n)
}

// run drives the mix until ctx ends (the round's server is gone).
func (c *client) run(ctx context.Context, e *env) {
	for ctx.Err() == nil {
		var err error
		sent, r := false, c.rng.IntN(100)
		if r < 45 {
			sent, err = c.send(ctx, e, r)
		}
		switch {
		case sent:
		case r < 70 || len(c.held) == 0:
			err = c.receive(ctx, e)
		case r < 92:
			err = c.delete(ctx, e)
		default:
			err = c.changeVisibility(ctx, e)
		}
		e.calls.Add(1)
		if err != nil {
			e.fails.add(err)
			// The server is going down (or restarting): do not spin on it.
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}

// send sends one message or a batch, to the standard queue, the redrive
// source or the FIFO queue, r picking which, and reports whether it did:
// not to a queue whose backlog is full.
func (c *client) send(ctx context.Context, e *env, r int) (bool, error) {
	queue, group, batch := qStd, "", false
	switch {
	case r < 10:
	case r < 18:
		queue = qSrc
	case r < 25:
		queue, batch = []string{qStd, qSrc}[c.rng.IntN(2)], true
	default:
		queue, group, batch = qFIFO, c.groups[c.rng.IntN(len(c.groups))], r >= 38
	}
	switch {
	case e.l.backlog(queue) >= maxBacklog:
		return false, nil
	case batch:
		return true, c.sendBatch(ctx, e, queue, group)
	default:
		return true, c.sendOne(ctx, e, queue, group)
	}
}

// dedupID is an explicit deduplication id for half of the FIFO sends (the
// queue deduplicates the others by content); bodies are unique, so neither
// ever drops a send.
func (c *client) dedupID(group, body string) *string {
	if group == "" || c.rng.IntN(2) == 0 {
		return nil
	}
	return aws.String("d-" + body)
}

func groupID(group string) *string {
	if group == "" {
		return nil
	}
	return aws.String(group)
}

func (c *client) sendOne(ctx context.Context, e *env, queue, group string) error {
	body := c.body()
	e.l.sending(body, queue, group)
	out, err := e.sqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: e.url(queue), MessageBody: aws.String(body),
		MessageGroupId: groupID(group), MessageDeduplicationId: c.dedupID(group, body)})
	if err != nil {
		return err
	}
	e.l.sent(body, aws.ToString(out.MessageId), aws.ToString(out.SequenceNumber))
	return nil
}

func (c *client) sendBatch(ctx context.Context, e *env, queue, group string) error {
	n := 2 + c.rng.IntN(9)
	entries := make([]types.SendMessageBatchRequestEntry, n)
	bodies := map[string]string{}
	for i := range entries {
		body := c.body()
		id := "e" + strconv.Itoa(i)
		bodies[id] = body
		e.l.sending(body, queue, group)
		entries[i] = types.SendMessageBatchRequestEntry{Id: aws.String(id), MessageBody: aws.String(body),
			MessageGroupId: groupID(group), MessageDeduplicationId: c.dedupID(group, body)}
	}
	out, err := e.sqs.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: e.url(queue), Entries: entries})
	if err != nil {
		return err
	}
	for _, ok := range out.Successful {
		e.l.sent(bodies[aws.ToString(ok.Id)], aws.ToString(ok.MessageId), aws.ToString(ok.SequenceNumber))
	}
	return nil
}

// keepShare is the per cent of the messages received from each queue that
// a client keeps to delete (or change the visibility of); it lets the
// others' visibility run out. On the redrive source that dead-letters them
// at the next receive; on the dead-letter queue the move tasks send them
// back.
var keepShare = map[string]int{qStd: 90, qFIFO: 90, qSrc: 30, qDLQ: 50}

var receiveQueues = []string{qStd, qStd, qFIFO, qFIFO, qSrc, qSrc, qDLQ}

func (c *client) receive(ctx context.Context, e *env) error {
	queue := receiveQueues[c.rng.IntN(len(receiveQueues))]
	vis := 1 + c.rng.IntN(2)
	wait := 0 // mostly short polls: a client in a long poll sends nothing the kill could cut off
	if c.rng.IntN(10) == 0 {
		wait = 1
	}
	start := time.Now()
	out, err := e.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: e.url(queue),
		MaxNumberOfMessages: int32(1 + c.rng.IntN(10)), VisibilityTimeout: int32(vis), WaitTimeSeconds: int32(wait)})
	if err != nil {
		return err
	}
	until := start.Add(time.Duration(vis) * time.Second)
	for _, m := range out.Messages {
		body := aws.ToString(m.Body)
		e.l.received(queue, body, aws.ToString(m.MessageId))
		if c.rng.IntN(100) < keepShare[queue] {
			c.held = append(c.held, held{queue: queue, body: body, handle: aws.ToString(m.ReceiptHandle), until: until})
		}
	}
	return nil
}

// take removes and returns a held handle with time left in its window, and
// drops those without: a delete with them would prove nothing.
func (c *client) take() (held, bool) {
	for len(c.held) > 0 {
		i := c.rng.IntN(len(c.held))
		h := c.held[i]
		c.held[i] = c.held[len(c.held)-1]
		c.held = c.held[:len(c.held)-1]
		if time.Until(h.until) > minLeft {
			return h, true
		}
	}
	return held{}, false
}

// current reports whether a call that answered at end did so while h's
// handle was surely the latest.
func current(h held, end time.Time) bool { return end.Before(h.until.Add(-margin)) }

func (c *client) delete(ctx context.Context, e *env) error {
	h, ok := c.take()
	if !ok {
		return nil
	}
	if c.rng.IntN(2) == 0 {
		_, err := e.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: e.url(h.queue), ReceiptHandle: aws.String(h.handle)})
		e.l.deleted(h.body, err == nil, current(h, time.Now()))
		return err
	}
	// A batch of the handles held for the same queue.
	batch := []held{h}
	for len(batch) < 10 {
		more, ok := c.take()
		if !ok {
			break
		}
		if more.queue != h.queue {
			c.held = append(c.held, more)
			break
		}
		batch = append(batch, more)
	}
	entries := make([]types.DeleteMessageBatchRequestEntry, len(batch))
	for i, b := range batch {
		entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String("d" + strconv.Itoa(i)), ReceiptHandle: aws.String(b.handle)}
	}
	out, err := e.sqs.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: e.url(h.queue), Entries: entries})
	end := time.Now()
	okIDs := map[string]bool{}
	if err == nil {
		for _, s := range out.Successful {
			okIDs[aws.ToString(s.Id)] = true
		}
	}
	for i, b := range batch {
		e.l.deleted(b.body, okIDs["d"+strconv.Itoa(i)], current(b, end))
	}
	return err
}

// changeVisibility extends a held message's window (then keeps it), or
// gives it back at once (then drops it: someone else may receive it).
func (c *client) changeVisibility(ctx context.Context, e *env) error {
	h, ok := c.take()
	if !ok {
		return nil
	}
	vis := 0
	if c.rng.IntN(10) < 7 {
		vis = 2 + c.rng.IntN(3)
	}
	start := time.Now()
	_, err := e.sqs.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: e.url(h.queue),
		ReceiptHandle: aws.String(h.handle), VisibilityTimeout: int32(vis)})
	if vis == 0 {
		return err
	}
	// Applied, the window ends vis after the change reached the server;
	// perhaps applied, the earlier of the two ends.
	ext := start.Add(time.Duration(vis) * time.Second)
	switch {
	case err == nil && current(h, time.Now()):
		h.until = ext
	case ext.Before(h.until):
		h.until = ext
	}
	c.held = append(c.held, h)
	return err
}
