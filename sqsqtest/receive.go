package sqsqtest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqsq/sqsq"
)

// receive is a receive by the kit for a consumer of a kit-owned shape; the
// messages it gets go to the consumer's handler in a goroutine of its own.
func (r *run) receive(c *consumer) {
	if r.s.Lambda != nil {
		r.lambdaReceive(c) // the event source mapping's poll
		return
	}
	msgs, err := r.q.Receive(r.ctx, sqsq.ReceiveInput{
		MaxNumberOfMessages:         r.s.Batch,
		WaitTimeSeconds:             sqsq.Some(time.Duration(0)),
		MessageSystemAttributeNames: allSystemAttributes,
		MessageAttributeNames:       allMessageAttributes,
	})
	got := r.receivedLabels()
	r.process()
	notes := r.faultNotes()
	switch {
	case err != nil && len(got) > 0:
		r.logf("receive(%s) by %s: %s, response lost%s", strings.Join(got, ","), c.name, errText(err), notes)
		return
	case err != nil:
		r.logf("receive by %s: %s%s", c.name, errText(err), notes)
		return
	case len(msgs) == 0:
		r.log("receive by ", c.name, ": empty", notes)
		r.loggedEmpty(notes)
		return
	}
	ls := c.labels[:0] // only the kit reads them
	var batch []Msg
	if c.batchHandler != nil { // the handler may keep its batch
		batch = make([]Msg, len(msgs))
	} else {
		clear(c.batch) // drop the last batch's maps
		batch = slices.Grow(c.batch[:0], len(msgs))[:len(msgs)]
		c.batch = batch
	}
	for i, m := range msgs {
		batch[i] = r.msg(m)
		ls = append(ls, batch[i].Label)
	}
	if !r.skip() {
		r.log("receive(", strings.Join(ls, ","), ") by ", c.name, notes)
	}
	for _, m := range batch {
		r.ledger.Deliveries[m.Label]++
		for _, o := range r.slots {
			if o != c && o.busy && contains(o.inHand, m.Label) {
				r.ledger.Concurrent++
				r.concur = append(r.concur, m.Label)
				r.logf("%s handles %s while %s still does", c.name, m.Label, o.name)
			}
		}
	}
	c.busy, c.inHand, c.labels = true, ls, ls
	ctx := c.ctx
	if c.batchHandler != nil {
		r.sch.spawn(c, func() error { return c.batchHandler(ctx, batch) })
		return
	}
	if c.handleEach == nil {
		c.handleEach = func() error { return r.handleEach(c.ctx, c, c.batch) }
	}
	r.sch.spawn(c, c.handleEach)
}

// The names a kit receive asks for, shared by every receive (the broker
// only reads them).
var (
	allSystemAttributes  = []string{sqsq.SysAll}
	allMessageAttributes = []string{"All"}
)

// handleEach calls a per-message handler on each message of a batch in
// order. It runs in the consumer's goroutine, between the handler's kit
// calls, so it reports through notes, not the timeline itself. On a FIFO queue a failure stops the message's group for the rest
// of the batch, as an ordered consumer must: those messages stay in flight
// and come back after the failed one.
func (r *run) handleEach(ctx context.Context, c *consumer, batch []Msg) error {
	var stopped map[string]string // group → the label it stopped at
	for i := range batch {
		m := &batch[i] // nothing changes batch: c.current may point into it
		if first, ok := stopped[m.GroupId]; ok && r.s.FIFO {
			r.sch.note(c, fmt.Sprintf("%s leaves %s in flight: group %s stopped at %s", c.name, m.Label, m.GroupId, first), "", "")
			continue
		}
		c.current.Store(m)
		err := c.handler(ctx, *m)
		c.current.Store(nil)
		if c.crashed.Load() {
			return ErrCrashed
		}
		if err != nil {
			r.sch.note(c, fmt.Sprintf("%s failed on %s: %v", c.name, m.Label, err), "", "")
			if stopped == nil {
				stopped = map[string]string{}
			}
			stopped[m.GroupId] = m.Label
			continue
		}
		r.sch.note(c, c.name, " done with ", m.Label)
	}
	return nil
}

// msg turns a received message into a Msg.
func (r *run) msg(m sqsq.Message) Msg {
	rc, _ := strconv.Atoi(m.Attributes[sqsq.SysApproximateReceiveCount])
	out := Msg{MessageId: m.MessageId, ReceiptHandle: m.ReceiptHandle, Body: m.Body, ReceiveCount: rc,
		Label: r.labelOfBody(m.Body), Attributes: m.Attributes, MessageAttributes: m.MessageAttributes,
		GroupId: m.Attributes[sqsq.SysMessageGroupId], DeduplicationId: m.Attributes[sqsq.SysMessageDeduplicationId],
		SequenceNumber: m.Attributes[sqsq.SysSequenceNumber]}
	if ms, err := strconv.ParseInt(m.Attributes[sqsq.SysSentTimestamp], 10, 64); err == nil {
		out.SentAt = time.UnixMilli(ms)
	}
	if ms, err := strconv.ParseInt(m.Attributes[sqsq.SysApproximateFirstReceiveTimestamp], 10, 64); err == nil {
		out.FirstReceivedAt = time.UnixMilli(ms)
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
