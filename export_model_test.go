package sqsq_test

// Round-trip property test of durable mode's core side (#21): a restart
// must be invisible. rapid draws operations on an endpoint of two scopes
// with pinned ids on a mock clock — queues created and deleted (standard,
// FIFO, dead-letter queues, a redrive policy across scopes), sends and
// batches, receives, deletes and visibility changes with good and stale
// handles, purges, tags and attributes, move tasks, clock advances — and
// now and then restarts: the endpoint is exported and imported into a new
// broker on a new mock clock at the same instant. From then on every
// operation runs on the original and on the restarted endpoint, and every
// result must be the same: message ids, receipt handles, errors, Peek,
// stats, attributes, listings, move tasks. After every step the two
// endpoints' exports must be equal too, and a restart's import must export
// exactly the state it was built from.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/testsize"
)

// The second scope is scope_test.go's other account and region.

// restartQueue is a queue the test may create: its scope (0 the broker
// NewBroker made, 1 the other) and name.
type restartQueue struct {
	scope int
	name  string
}

var restartQueues = []restartQueue{
	{0, "std"}, {0, "dlq"}, {0, "q.fifo"}, {0, "dlq.fifo"}, {1, "x"}, {1, "xdlq"},
}

func (r restartQueue) arn() string {
	if r.scope == 0 {
		return "arn:aws:sqs:us-east-1:000000000000:" + r.name
	}
	return "arn:aws:sqs:" + otherRegion + ":" + otherAccount + ":" + r.name
}

func (r restartQueue) fifo() bool { return strings.HasSuffix(r.name, ".fifo") }

// endpoint is one of the two endpoints under test.
type endpoint struct {
	clk *clock.Mock
	ids *int // the id counter of its IDFunc
	b   *sqsq.Broker
}

// newEndpoint returns an endpoint whose IDFunc goes on from next, and the
// option that installs it; the caller makes the broker and sets clk.
func newEndpoint(next int) (*endpoint, []sqsq.Option) {
	e := &endpoint{ids: new(int)}
	*e.ids = next
	return e, []sqsq.Option{sqsq.WithIDFunc(func() string { *e.ids++; return fmt.Sprintf("id-%05d", *e.ids) })}
}

func (e *endpoint) scope(i int) *sqsq.Broker {
	if i == 0 {
		return e.b
	}
	return e.b.Scope(otherAccount, otherRegion)
}

// heldHandle is a receipt handle a receive returned, and its queue.
type heldHandle struct {
	q      restartQueue
	handle string
}

type restartMachine struct {
	ctx   context.Context
	orig  *endpoint
	twin  *endpoint // the restarted endpoint; nil before the first restart
	old   []*sqsq.Broker
	held  []heldHandle
	tasks []string
	sent  int
	steps int
}

// both runs op on the original endpoint and, once there is one, on the
// restarted one, and fails unless the results read the same.
func (s *restartMachine) both(t *rapid.T, what string, op func(e *endpoint) string) string {
	t.Helper()
	got := op(s.orig)
	if s.twin != nil {
		if again := op(s.twin); again != got {
			t.Fatalf("%s after a restart:\noriginal:  %s\nrestarted: %s", what, got, again)
		}
	}
	return got
}

func (s *restartMachine) queue(e *endpoint, r restartQueue) (*sqsq.Queue, error) {
	return e.scope(r.scope).GetQueue(s.ctx, r.name)
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return "error " + err.Error()
}

func showMessages(msgs []sqsq.Message, err error) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "{%s %s %q %v %v %s %s} ", m.MessageId, m.ReceiptHandle, m.Body, m.Attributes, m.MessageAttributes, m.MD5OfBody(), m.MD5OfMessageAttributes())
	}
	return b.String() + errText(err)
}

func showSent(r sqsq.SendResult) string {
	return fmt.Sprintf("{%s %s %s %s %s}", r.MessageId, r.SequenceNumber, r.MD5OfMessageBody(), r.MD5OfMessageAttributes(), r.MD5OfMessageSystemAttributes())
}

func showBatch(ok []string, failed []sqsq.BatchResultError, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ok %v failed", ok)
	for _, f := range failed {
		fmt.Fprintf(&b, " %s:%v", f.Id, f.Err)
	}
	return b.String() + " " + errText(err)
}

func drawRestartQueue(t *rapid.T, label string) restartQueue {
	return rapid.SampledFrom(restartQueues).Draw(t, label)
}

func drawSeconds(t *rapid.T, label string, secs ...int) sqsq.Optional[time.Duration] {
	i := rapid.IntRange(-1, len(secs)-1).Draw(t, label)
	if i < 0 {
		return sqsq.Optional[time.Duration]{}
	}
	return sqsq.Some(time.Duration(secs[i]) * time.Second)
}

// drawAttributes draws attributes for CreateQueue or SetAttributes of r.
func drawAttributes(t *rapid.T, r restartQueue) sqsq.QueueAttributes {
	a := sqsq.QueueAttributes{
		VisibilityTimeout:      drawSeconds(t, "visibility", 0, 1, 30),
		MessageRetentionPeriod: drawSeconds(t, "retention", 60, 3600),
		DelaySeconds:           drawSeconds(t, "delay", 0, 2),
	}
	redrive := func(dlq string, arns ...string) {
		switch i := rapid.IntRange(0, len(arns)).Draw(t, "redrive"); {
		case i == len(arns):
		case arns[i] == "":
			a.RedrivePolicy = sqsq.Some[*sqsq.RedrivePolicy](nil)
		default:
			a.RedrivePolicy = sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: arns[i], MaxReceiveCount: rapid.IntRange(1, 3).Draw(t, "maxReceiveCount")})
		}
	}
	switch r.name {
	case "std":
		redrive("dlq", "", restartQueue{0, "dlq"}.arn(), restartQueue{1, "xdlq"}.arn())
	case "x":
		redrive("xdlq", "", restartQueue{1, "xdlq"}.arn())
	case "q.fifo":
		redrive("dlq.fifo", "", restartQueue{0, "dlq.fifo"}.arn())
	case "dlq":
		if rapid.IntRange(0, 3).Draw(t, "denyAll") == 0 { // receives then fail to dead-letter
			a.RedriveAllowPolicy = sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveDenyAll})
		}
	case "xdlq": // a dead-letter queue of another scope must list its sources
		a.RedriveAllowPolicy = sqsq.Some(&sqsq.RedriveAllowPolicy{
			RedrivePermission: sqsq.RedriveByQueue,
			SourceQueueArns:   []string{restartQueue{0, "std"}.arn(), restartQueue{1, "x"}.arn()},
		})
	}
	if r.fifo() {
		a.FifoQueue = sqsq.Some(true)
		if rapid.Bool().Draw(t, "contentDedup") {
			a.ContentBasedDeduplication = sqsq.Some(true)
		}
		if rapid.Bool().Draw(t, "groupScope") {
			a.DeduplicationScope = sqsq.Some("messageGroup")
		}
	}
	return a
}

func (s *restartMachine) create(t *rapid.T, r restartQueue, initial bool) {
	in := sqsq.CreateQueueInput{QueueName: r.name, Attributes: drawAttributes(t, r)}
	if initial {
		in.Attributes.RedriveAllowPolicy = sqsq.Optional[*sqsq.RedriveAllowPolicy]{}
		if r.name == "xdlq" {
			in.Attributes = drawAttributes(t, r) // its allow policy lets the sources in
		}
		if dlq := initialDLQ[r.name]; dlq != "" {
			in.Attributes.RedrivePolicy = sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq, MaxReceiveCount: rapid.IntRange(1, 2).Draw(t, "maxReceiveCount")})
		}
	}
	if rapid.IntRange(0, 3).Draw(t, "tagged") == 0 {
		in.Tags = map[string]string{"team": rapid.SampledFrom([]string{"a", "b"}).Draw(t, "team")}
	}
	s.both(t, "CreateQueue "+r.name, func(e *endpoint) string {
		q, err := e.scope(r.scope).CreateQueue(s.ctx, in)
		if err != nil {
			return errText(err)
		}
		return q.URL()
	})
}

// initialDLQ is each source queue's first dead-letter queue.
var initialDLQ = map[string]string{
	"std":    restartQueue{1, "xdlq"}.arn(), // across scopes
	"x":      restartQueue{1, "xdlq"}.arn(),
	"q.fifo": restartQueue{0, "dlq.fifo"}.arn(),
}

func (s *restartMachine) CreateQueue(t *rapid.T) { s.create(t, drawRestartQueue(t, "queue"), false) }

func (s *restartMachine) DeleteQueue(t *rapid.T) {
	r := drawRestartQueue(t, "queue")
	s.both(t, "DeleteQueue "+r.name, func(e *endpoint) string {
		return errText(e.scope(r.scope).DeleteQueue(s.ctx, r.name))
	})
}

func (s *restartMachine) drawSend(t *rapid.T, r restartQueue) sqsq.SendInput {
	s.sent++
	in := sqsq.SendInput{MessageBody: "body-" + strconv.Itoa(s.sent)}
	if !r.fifo() || rapid.IntRange(0, 9).Draw(t, "fifoDelay") == 0 {
		in.DelaySeconds = drawSeconds(t, "delaySeconds", 0, 1, 3)
	}
	switch rapid.IntRange(0, 5).Draw(t, "attributes") {
	case 0:
		in.MessageAttributes = map[string]sqsq.MessageAttribute{"a": {DataType: "String", StringValue: "x"}}
	case 1:
		in.MessageAttributes = map[string]sqsq.MessageAttribute{"bin": {DataType: "Binary", BinaryValue: []byte{1, 2}}}
	case 2:
		in.MessageSystemAttributes = map[string]sqsq.MessageAttribute{"AWSTraceHeader": {DataType: "String", StringValue: "Root=1-2-3"}}
	}
	if r.fifo() || rapid.IntRange(0, 3).Draw(t, "fairGroup") == 0 {
		in.MessageGroupId = rapid.SampledFrom([]string{"g1", "g1", "g2", "g3", ""}).Draw(t, "group")
	}
	if r.fifo() {
		in.MessageDeduplicationId = rapid.SampledFrom([]string{"", "d1", "d2", "d3"}).Draw(t, "dedup")
	}
	return in
}

func (s *restartMachine) Send(t *rapid.T) {
	r := drawRestartQueue(t, "queue")
	in := s.drawSend(t, r)
	s.both(t, "Send to "+r.name, func(e *endpoint) string {
		q, err := s.queue(e, r)
		if err != nil {
			return errText(err)
		}
		res, err := q.Send(s.ctx, in)
		return showSent(res) + " " + errText(err)
	})
}

func (s *restartMachine) SendBatch(t *rapid.T) {
	r := drawRestartQueue(t, "queue")
	entries := make([]sqsq.SendBatchEntry, rapid.IntRange(1, 10).Draw(t, "entries"))
	for i := range entries {
		entries[i] = sqsq.SendBatchEntry{Id: "e" + strconv.Itoa(i), SendInput: s.drawSend(t, r)}
	}
	s.both(t, "SendBatch to "+r.name, func(e *endpoint) string {
		q, err := s.queue(e, r)
		if err != nil {
			return errText(err)
		}
		res, err := q.SendBatch(s.ctx, entries)
		var ok []string
		for _, x := range res.Successful {
			ok = append(ok, x.Id+showSent(x.SendResult))
		}
		return showBatch(ok, res.Failed, err)
	})
}

func (s *restartMachine) Receive(t *rapid.T) {
	r := drawRestartQueue(t, "queue")
	in := sqsq.ReceiveInput{
		MaxNumberOfMessages: rapid.IntRange(1, 10).Draw(t, "max"),
		VisibilityTimeout:   drawSeconds(t, "visibilityTimeout", 0, 1, 5, 30),
		WaitTimeSeconds:     sqsq.Some(time.Duration(0)),
	}
	if rapid.Bool().Draw(t, "allAttributes") {
		in.MessageSystemAttributeNames = []string{"All"}
		in.MessageAttributeNames = []string{"All"}
	}
	if r.fifo() {
		in.ReceiveRequestAttemptId = rapid.SampledFrom([]string{"", "a1", "a2"}).Draw(t, "attempt")
	}
	var got []sqsq.Message
	s.both(t, "Receive from "+r.name, func(e *endpoint) string {
		q, err := s.queue(e, r)
		if err != nil {
			return errText(err)
		}
		msgs, err := q.Receive(s.ctx, in)
		if e == s.orig {
			got = msgs
		}
		return showMessages(msgs, err)
	})
	for _, m := range got {
		s.held = append(s.held, heldHandle{r, m.ReceiptHandle})
	}
	if n := len(s.held); n > 40 {
		s.held = append(s.held[:0], s.held[n-40:]...)
	}
}

// Redeliver receives twice from a source queue with visibility 0: the
// second receive redelivers what the first returned, or moves it to the
// dead-letter queue once it has used its deliveries.
func (s *restartMachine) Redeliver(t *rapid.T) {
	r := rapid.SampledFrom([]restartQueue{{0, "std"}, {0, "q.fifo"}, {1, "x"}}).Draw(t, "source")
	in := sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Duration(0)), WaitTimeSeconds: sqsq.Some(time.Duration(0))}
	for range 2 {
		s.both(t, "Receive from "+r.name, func(e *endpoint) string {
			q, err := s.queue(e, r)
			if err != nil {
				return errText(err)
			}
			return showMessages(q.Receive(s.ctx, in))
		})
	}
}

// drawHandle draws a handle some receive returned, of the queue it names
// or of another, or one no broker issued.
func (s *restartMachine) drawHandle(t *rapid.T) (restartQueue, string) {
	if len(s.held) == 0 || rapid.IntRange(0, 9).Draw(t, "bogus") == 0 {
		return drawRestartQueue(t, "queue"), "AQEBnot-a-handle"
	}
	h := s.held[rapid.IntRange(0, len(s.held)-1).Draw(t, "handle")]
	if rapid.IntRange(0, 9).Draw(t, "otherQueue") == 0 {
		h.q = drawRestartQueue(t, "queue")
	}
	return h.q, h.handle
}

func (s *restartMachine) Delete(t *rapid.T) {
	r, h := s.drawHandle(t)
	s.both(t, "Delete from "+r.name, func(e *endpoint) string {
		q, err := s.queue(e, r)
		if err != nil {
			return errText(err)
		}
		return errText(q.Delete(s.ctx, h))
	})
}

func (s *restartMachine) DeleteBatch(t *rapid.T) {
	r, _ := s.drawHandle(t)
	entries := make([]sqsq.DeleteBatchEntry, rapid.IntRange(1, 3).Draw(t, "entries"))
	for i := range entries {
		_, h := s.drawHandle(t)
		entries[i] = sqsq.DeleteBatchEntry{Id: "d" + strconv.Itoa(i), ReceiptHandle: h}
	}
	s.both(t, "DeleteBatch from "+r.name, func(e *endpoint) string {
		q, err := s.queue(e, r)
		if err != nil {
			return errText(err)
		}
		res, err := q.DeleteBatch(s.ctx, entries)
		return showBatch(res.Successful, res.Failed, err)
	})
}

func (s *restartMachine) ChangeVisibility(t *rapid.T) {
	r, h := s.drawHandle(t)
	d := time.Duration(rapid.SampledFrom([]int{0, 5, 60, 43201}).Draw(t, "timeout")) * time.Second
	s.both(t, "ChangeVisibility on "+r.name, func(e *endpoint) string {
		q, err := s.queue(e, r)
		if err != nil {
			return errText(err)
		}
		return errText(q.ChangeVisibility(s.ctx, h, d))
	})
}

func (s *restartMachine) ChangeVisibilityBatch(t *rapid.T) {
	r, _ := s.drawHandle(t)
	entries := make([]sqsq.ChangeVisibilityBatchEntry, rapid.IntRange(1, 3).Draw(t, "entries"))
	for i := range entries {
		_, h := s.drawHandle(t)
		d := time.Duration(rapid.SampledFrom([]int{0, 5, 60}).Draw(t, "timeout")) * time.Second
		entries[i] = sqsq.ChangeVisibilityBatchEntry{Id: "c" + strconv.Itoa(i), ReceiptHandle: h, VisibilityTimeout: d}
	}
	s.both(t, "ChangeVisibilityBatch on "+r.name, func(e *endpoint) string {
		q, err := s.queue(e, r)
		if err != nil {
			return errText(err)
		}
		res, err := q.ChangeVisibilityBatch(s.ctx, entries)
		return showBatch(res.Successful, res.Failed, err)
	})
}

func (s *restartMachine) Purge(t *rapid.T) {
	r := drawRestartQueue(t, "queue")
	s.both(t, "Purge "+r.name, func(e *endpoint) string {
		q, err := s.queue(e, r)
		if err != nil {
			return errText(err)
		}
		return errText(q.Purge(s.ctx))
	})
}

func (s *restartMachine) SetAttributes(t *rapid.T) {
	r := drawRestartQueue(t, "queue")
	a := drawAttributes(t, r)
	a.FifoQueue = sqsq.Optional[bool]{}
	s.both(t, "SetAttributes of "+r.name, func(e *endpoint) string {
		q, err := s.queue(e, r)
		if err != nil {
			return errText(err)
		}
		return errText(q.SetAttributes(s.ctx, a))
	})
}

func (s *restartMachine) Tag(t *rapid.T) {
	r := drawRestartQueue(t, "queue")
	key := rapid.SampledFrom([]string{"team", "env"}).Draw(t, "key")
	untag := rapid.Bool().Draw(t, "untag")
	s.both(t, "Tag "+r.name, func(e *endpoint) string {
		q, err := s.queue(e, r)
		if err != nil {
			return errText(err)
		}
		if untag {
			return errText(q.Untag(s.ctx, key))
		}
		return errText(q.Tag(s.ctx, map[string]string{key: "v"}))
	})
}

var restartDLQs = []restartQueue{{0, "dlq"}, {0, "dlq.fifo"}, {1, "xdlq"}}

func (s *restartMachine) StartMoveTask(t *rapid.T) {
	in := sqsq.StartMoveTaskInput{SourceArn: rapid.SampledFrom(restartDLQs).Draw(t, "source").arn()}
	if rapid.IntRange(0, 3).Draw(t, "destination") == 0 {
		in.DestinationArn = rapid.SampledFrom([]restartQueue{{0, "std"}, {0, "q.fifo"}, {1, "x"}}).Draw(t, "dest").arn()
	}
	// Slow tasks mostly, so that restarts find them running.
	if r := rapid.IntRange(0, 4).Draw(t, "rate"); r > 0 {
		in.MaxNumberOfMessagesPerSecond = sqsq.Some([]int{1, 1, 2, 500}[r-1])
	}
	handle := s.both(t, "StartMoveTask", func(e *endpoint) string {
		h, err := e.b.StartMoveTask(s.ctx, in)
		if err != nil {
			return errText(err)
		}
		return h
	})
	if !strings.HasPrefix(handle, "error") {
		s.tasks = append(s.tasks, handle)
	}
}

func (s *restartMachine) CancelMoveTask(t *rapid.T) {
	h := "bm90IGEgaGFuZGxl"
	if len(s.tasks) > 0 && rapid.IntRange(0, 5).Draw(t, "bogusTask") > 0 {
		h = rapid.SampledFrom(s.tasks).Draw(t, "task")
	}
	s.both(t, "CancelMoveTask", func(e *endpoint) string {
		n, err := e.b.CancelMoveTask(s.ctx, h)
		return strconv.FormatInt(n, 10) + " " + errText(err)
	})
}

func (s *restartMachine) Advance(t *rapid.T) {
	// Mostly short steps, so that messages pile up; now and then past a
	// visibility timeout, a dedup window, a retention period.
	d := rapid.SampledFrom([]time.Duration{
		0, 500 * time.Millisecond, time.Second, time.Second, 2 * time.Second, 5 * time.Second,
		31 * time.Second, 61 * time.Second, 301 * time.Second, time.Hour, 4 * 24 * time.Hour,
	}).Draw(t, "advance")
	s.orig.clk.Add(d)
	if s.twin != nil {
		s.twin.clk.Add(d)
	}
}

// Restart exports one endpoint (the restarted one, now and then, so that
// restarts chain) and imports it on a new clock at the same instant: its
// export must be the state it was built from, and it replaces the twin.
func (s *restartMachine) Restart(t *rapid.T) {
	from := s.orig
	if s.twin != nil && rapid.Bool().Draw(t, "fromTwin") {
		from = s.twin
	}
	w := exportOf(t, from.b)
	e, opts := newEndpoint(*from.ids)
	e.b, e.clk = restart(t, w, from.clk.Now(), opts...)
	if d := worldDiff(w, exportOf(t, e.b)); d != "" {
		t.Fatalf("Export(Import(w)) differs from w: %s", d)
	}
	if s.twin != nil {
		s.old = append(s.old, s.twin.b)
	}
	s.twin = e
}

// Observe compares everything a caller can read without changing state.
func (s *restartMachine) Observe(t *rapid.T) {
	r := drawRestartQueue(t, "queue")
	s.both(t, "Observe "+r.name, func(e *endpoint) string {
		var b strings.Builder
		for i := range 2 {
			out, err := e.scope(i).ListQueues(s.ctx, sqsq.ListQueuesInput{})
			fmt.Fprintf(&b, "queues %v %s; ", out.QueueURLs, errText(err))
		}
		for _, d := range restartDLQs {
			ts, err := e.b.ListMoveTasks(s.ctx, d.arn(), sqsq.Some(10))
			fmt.Fprintf(&b, "tasks of %s %+v %s; ", d.name, ts, errText(err))
		}
		q, err := s.queue(e, r)
		if err != nil {
			return b.String() + errText(err)
		}
		page, err := q.Peek(s.ctx, sqsq.PeekInput{Limit: 1000})
		fmt.Fprintf(&b, "peek %+v %s; ", page, errText(err))
		st, err := q.Stats()
		fmt.Fprintf(&b, "stats %+v %s; ", st, errText(err))
		attrs, err := q.GetAttributes(s.ctx, "All")
		fmt.Fprintf(&b, "attributes %v %s; ", attrs, errText(err))
		tags, err := q.Tags(s.ctx)
		fmt.Fprintf(&b, "tags %v %s; ", tags, errText(err))
		src, err := q.ListDeadLetterSourceQueues(s.ctx, sqsq.ListDeadLetterSourceQueuesInput{})
		fmt.Fprintf(&b, "sources %v %s", src.QueueURLs, errText(err))
		return b.String()
	})
}

// Check compares the two endpoints' whole states.
func (s *restartMachine) Check(t *rapid.T) {
	if s.twin == nil {
		return
	}
	if d := worldDiff(exportOf(t, s.orig.b), exportOf(t, s.twin.b)); d != "" {
		t.Fatalf("the restarted endpoint's state differs: %s", d)
	}
}

func (s *restartMachine) close() {
	s.orig.b.Close()
	if s.twin != nil {
		s.twin.b.Close()
	}
	for _, b := range s.old {
		b.Close()
	}
}

func runRestartModel(t *rapid.T) {
	s := newRestartMachine(t)
	defer s.close()
	for range testsize.Scale(1, 12) {
		t.Repeat(s.actions(s.Check))
	}
}

// newRestartMachine makes the original endpoint, with opts after the
// model's own, and its first queues.
func newRestartMachine(t *rapid.T, opts ...sqsq.Option) *restartMachine {
	e, idOpts := newEndpoint(0)
	e.clk = clock.NewMock()
	e.b = sqsq.NewBroker(append(append([]sqsq.Option{sqsq.WithClock(e.clk)}, idOpts...), opts...)...)
	s := &restartMachine{ctx: context.Background(), orig: e}
	// The dead-letter queues first, so the sources' policies can name
	// them; the sources start with a policy, so messages dead-letter
	// early (the operations may change or drop it).
	for _, i := range []int{1, 3, 5, 0, 2, 4} {
		s.create(t, restartQueues[i], true)
	}
	return s
}

// actions are the model's operations for t.Repeat, with check as the
// invariant run after each.
func (s *restartMachine) actions(check func(*rapid.T)) map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"CreateQueue": s.CreateQueue, "DeleteQueue": s.DeleteQueue,
		"Send": s.Send, "Send#2": s.Send, "Send#3": s.Send, "SendBatch": s.SendBatch, "SendBatch#2": s.SendBatch,
		"Receive": s.Receive, "Receive#2": s.Receive, "Receive#3": s.Receive, "Redeliver": s.Redeliver,
		"Delete": s.Delete, "DeleteBatch": s.DeleteBatch,
		"ChangeVisibility": s.ChangeVisibility, "ChangeVisibilityBatch": s.ChangeVisibilityBatch,
		"Purge": s.Purge, "SetAttributes": s.SetAttributes, "Tag": s.Tag,
		"StartMoveTask": s.StartMoveTask, "StartMoveTask#2": s.StartMoveTask, "CancelMoveTask": s.CancelMoveTask,
		"Advance": s.Advance, "Advance#2": s.Advance, "Observe": s.Observe,
		"Restart": s.Restart, "Restart#2": s.Restart,
		"": check,
	}
}

// TestRestartModel checks that an exported and imported endpoint behaves
// exactly as the original from then on (see the top of this file).
func TestRestartModel(t *testing.T) {
	t.Parallel()
	rapid.Check(t, runRestart)
}
