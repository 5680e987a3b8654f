package sqsqtest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/sqsq/sqsq"
)

// LambdaHandler is an AWS Lambda function's handler for an Amazon SQS event
// source, as aws-lambda-go's lambda.Start takes it. With
// [LambdaConfig.ReportBatchItemFailures] the response's BatchItemFailures
// (ItemIdentifier = the record's MessageId) name the records that failed;
// a non-nil error fails the whole batch.
type LambdaHandler func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error)

// LambdaConfig configures the event source mapping that feeds a
// [Scenario.Lambda] function from the source queue, and the function's
// timeout. Zero values take Lambda's defaults; values Lambda would reject
// when the mapping is created make the run fail with an error saying why.
type LambdaConfig struct {
	// BatchSize is the most records one invocation gets (default 10). A
	// FIFO queue takes at most 10; a standard queue at most 10,000, and
	// more than 10 needs a MaximumBatchingWindow of at least 1 s.
	BatchSize int
	// MaximumBatchingWindow is how long the mapping goes on receiving
	// (whole seconds, at most 5 minutes; standard queues only) before it
	// invokes the function with fewer than BatchSize records. 0, the
	// default, invokes with what one receive returns.
	MaximumBatchingWindow time.Duration
	// ReportBatchItemFailures makes the mapping read the function's
	// response: the records it names stay in flight, to come back after
	// their visibility timeout, and the others are deleted. Without it the
	// response is ignored and every record of a batch whose invocation
	// returned no error is deleted.
	ReportBatchItemFailures bool
	// Timeout is the function's timeout (whole seconds, default 3 s, at
	// most 15 minutes). An invocation still running then is killed: its
	// execution environment is fenced like a crashed consumer (every later
	// kit call fails with [ErrCrashed], its context is done with
	// context.DeadlineExceeded) and a fresh one takes its place. AWS asks
	// for a visibility timeout of at least six times the function timeout,
	// and Lambda refuses to create or update a mapping whose function
	// timeout exceeds it; the kit accepts any (a queue's visibility timeout
	// can still be lowered later), and then a message comes back and is
	// handed to a second invocation while the first still runs.
	Timeout time.Duration
}

// How the kit plays Lambda's event source mapping (ESM), after the Lambda
// developer guide (docs.aws.amazon.com/lambda/latest/dg/with-sqs.html,
// services-sqs-errorhandling.html, services-sqs-parameters.html):
//
//   - Each consumer slot is one execution environment. The kit's receive
//     for an idle one is the mapping's poll: a long poll of up to BatchSize
//     (at most 10) messages. With a batching window the mapping goes on
//     polling until the batch is full or the window ends, then invokes.
//   - The mapping is a thread of the kit (generation 0 of the slot): it
//     never crashes and is never slowed, but its deletes meet the queue's
//     faults like anybody's.
//   - It invokes the handler in a goroutine of the environment's consumer
//     and waits for it, up to Timeout. A response deletes what succeeded,
//     in batches of 10; an error, an invalid partial response, a panic, a
//     crash or a timeout fails the whole batch: nothing is deleted.
//   - A panic or a timeout ends the execution environment (aws-lambda-go's
//     runtime exits after a panic; Lambda resets an environment after a
//     timeout): the consumer is fenced and rebuilt, as after a crash.

// lambdaDefaults fills in Lambda's defaults; a scenario with a Lambda
// receives up to BatchSize (at most 10) messages at a time.
func (s *Scenario) lambdaDefaults() {
	c := &s.LambdaConfig
	if c.BatchSize <= 0 {
		c.BatchSize = 10
	}
	if c.Timeout <= 0 {
		c.Timeout = 3 * time.Second
	}
	s.Batch = min(c.BatchSize, 10)
}

// check rejects what CreateEventSourceMapping (or the function's
// configuration) would reject.
func (c LambdaConfig) check(fifo bool) error {
	w := c.MaximumBatchingWindow
	switch {
	case c.BatchSize > 10000:
		return errors.New("sqsqtest: LambdaConfig.BatchSize is at most 10,000")
	case fifo && c.BatchSize > 10:
		return errors.New("sqsqtest: LambdaConfig.BatchSize is at most 10 on a FIFO queue")
	case c.BatchSize > 10 && w < time.Second:
		return errors.New("sqsqtest: LambdaConfig.BatchSize over 10 needs a MaximumBatchingWindow of at least 1s")
	case fifo && w > 0:
		return errors.New("sqsqtest: LambdaConfig.MaximumBatchingWindow is not supported for FIFO queues")
	case w < 0 || w > 5*time.Minute || w%time.Second != 0:
		return errors.New("sqsqtest: LambdaConfig.MaximumBatchingWindow is whole seconds from 0 to 5m")
	case c.Timeout > 15*time.Minute || c.Timeout%time.Second != 0:
		return errors.New("sqsqtest: LambdaConfig.Timeout is whole seconds from 1s to 15m")
	}
	return nil
}

// kitThread reports whether c is a thread of the kit itself (an event
// source mapping), not of a consumer: generation 0, which no slot ever
// has, so the schedule never draws a crash or a slowness for its calls.
func (c *consumer) kitThread() bool { return c.gen == 0 }

// record is a received message with the record Lambda makes of it.
type record struct {
	Msg
	rec events.SQSMessage
}

// invocation is one call of the function, shared by the mapping's thread
// and the handler's goroutine.
type invocation struct {
	done    atomic.Bool
	crashed bool   // the environment had crashed when the handler returned
	panic   string // what the handler panicked with
	resp    events.SQSEventResponse
	err     error
}

// lambdaReceive is the mapping's poll for c, an idle execution
// environment: what it gets is c's, and a thread of the mapping gathers
// the rest of the batch (batching window), invokes and deletes.
func (r *run) lambdaReceive(c *consumer) {
	batch := r.esmReceive(c, nil, r.s.Batch)
	if len(batch) == 0 {
		return
	}
	esm := &consumer{name: "lambda", slot: c.slot}
	r.all = append(r.all, esm)
	r.sch.spawn(esm, func() error { r.esm(esm, c, batch); return nil })
}

// esmReceive receives up to n messages for c, logs the receive and counts
// the deliveries. esm is the mapping's thread gathering a batching window
// (nil for the first poll, which the schedule draws).
func (r *run) esmReceive(c, esm *consumer, n int) []record {
	in := sqsq.ReceiveInput{
		MaxNumberOfMessages:         n,
		WaitTimeSeconds:             sqsq.Some(time.Duration(0)),
		MessageSystemAttributeNames: []string{sqsq.SysAll},
		MessageAttributeNames:       []string{"All"},
	}
	// "If your batch window is greater than 0, and (batch window) +
	// (function timeout) > (queue visibility timeout), then your effective
	// queue visibility timeout is (batch window) + (function timeout) +
	// 30s" (Lambda developer guide, with-sqs).
	cfg := r.s.LambdaConfig
	if w := cfg.MaximumBatchingWindow; w > 0 && w+cfg.Timeout > r.s.Visibility {
		in.VisibilityTimeout = sqsq.Some(w + cfg.Timeout + 30*time.Second)
	}
	// The mapping long-polls: no short-poll sampling.
	r.pol.setLongPoll(true)
	msgs, err := r.q.Receive(r.ctx, in)
	r.pol.setLongPoll(false)
	got := r.receivedLabels()
	r.process()
	notes := r.faultNotes()
	window := ""
	if esm != nil {
		window = " (batching window)"
	}
	switch {
	case err != nil && len(got) > 0:
		r.logf("receive(%s) by %s%s: %s, response lost%s", strings.Join(got, ","), c.name, window, errText(err), notes)
		return nil
	case err != nil:
		r.logf("receive by %s%s: %s%s", c.name, window, errText(err), notes)
		return nil
	case len(msgs) == 0:
		if esm != nil {
			esm.lastEmpty.Store(r.version)
			if notes != "" {
				r.logf("receive by %s%s: empty%s", c.name, window, notes)
			}
			return nil
		}
		r.logf("receive by %s: empty%s", c.name, notes)
		r.loggedEmpty(notes)
		return nil
	}
	batch := make([]record, len(msgs))
	var ls []string
	for i, m := range msgs {
		batch[i] = record{Msg: r.msg(m), rec: r.sqsRecord(m)}
		ls = append(ls, batch[i].Label)
	}
	r.logf("receive(%s) by %s%s%s", strings.Join(ls, ","), c.name, window, notes)
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
	c.busy, c.inHand = true, append(c.inHand, ls...)
	return batch
}

// sqsRecord is the record of the event Lambda builds for m.
func (r *run) sqsRecord(m sqsq.Message) events.SQSMessage {
	arn := r.q.ARN()
	rec := events.SQSMessage{
		MessageId: m.MessageId, ReceiptHandle: m.ReceiptHandle, Body: m.Body,
		Md5OfBody: m.MD5OfBody(), Md5OfMessageAttributes: m.MD5OfMessageAttributes(),
		Attributes:  map[string]string{},
		EventSource: "aws:sqs", EventSourceARN: arn, AWSRegion: arnField(arn, 3),
	}
	// The system attributes Lambda passes; the FIFO ones only on a FIFO
	// queue, where the broker sets them.
	for _, k := range []string{sqsq.SysApproximateReceiveCount, sqsq.SysSentTimestamp, sqsq.SysSenderId,
		sqsq.SysApproximateFirstReceiveTimestamp, sqsq.SysSequenceNumber, sqsq.SysMessageGroupId,
		sqsq.SysMessageDeduplicationId, sqsq.SysAWSTraceHeader} {
		if v, ok := m.Attributes[k]; ok {
			rec.Attributes[k] = v
		}
	}
	rec.MessageAttributes = map[string]events.SQSMessageAttribute{}
	for k, a := range m.MessageAttributes {
		ev := events.SQSMessageAttribute{DataType: a.DataType, StringListValues: []string{}, BinaryListValues: [][]byte{}}
		if a.BinaryValue != nil {
			ev.BinaryValue = a.BinaryValue
		} else {
			v := a.StringValue
			ev.StringValue = &v
		}
		rec.MessageAttributes[k] = ev
	}
	return rec
}

// arnField is the i-th colon-separated field of an ARN
// (arn:aws:sqs:region:account:name).
func arnField(arn string, i int) string {
	f := strings.Split(arn, ":")
	if i < len(f) {
		return f[i]
	}
	return ""
}

// esm is the mapping's thread for one batch: it gathers the batching
// window, invokes the function on c and acts on the outcome.
func (r *run) esm(esm, c *consumer, batch []record) {
	cfg := r.s.LambdaConfig
	if w := cfg.MaximumBatchingWindow; w > 0 {
		end := r.now().Add(w)
		for len(batch) < cfg.BatchSize && r.now().Before(end) {
			cl := &call{c: esm, text: "poll for " + c.name, receive: true, wake: end,
				ready: func() bool { st, _ := r.q.Stats(); return st.Visible > 0 }}
			if !r.sch.park(cl) {
				return
			}
			batch = append(batch, r.esmReceive(c, esm, min(10, cfg.BatchSize-len(batch)))...)
		}
	}
	r.invoke(esm, c, batch)
}

// invoke runs the handler of c on batch in a goroutine of c and waits for
// it to return, to crash or to time out.
func (r *run) invoke(esm, c *consumer, batch []record) {
	cfg := r.s.LambdaConfig
	r.invocations++
	deadline := r.now().Add(cfg.Timeout)
	ev := events.SQSEvent{Records: make([]events.SQSMessage, len(batch))}
	for i, m := range batch {
		ev.Records[i] = m.rec
	}
	base, cancel := context.WithCancelCause(r.ctx)
	arn := r.q.ARN()
	ctx := lambdacontext.NewContext(invocationCtx{base, deadline}, &lambdacontext.LambdaContext{
		AwsRequestID:       fmt.Sprintf("00000000-0000-4000-a000-%012d", r.invocations),
		InvokedFunctionArn: "arn:aws:lambda:" + arnField(arn, 3) + ":" + arnField(arn, 4) + ":function:sqsqtest",
	})
	inv := &invocation{}
	r.logf("lambda invokes %s with %s", c.name, strings.Join(labelsOf(batch), ","))
	h := c.lambda
	if h == nil {
		r.sch.fail(errors.New("sqsqtest: Scenario.Lambda returned a nil handler"))
		cancel(nil)
		return
	}
	r.sch.spawn(c, func() error {
		defer func() {
			if v := recover(); v != nil {
				inv.panic = fmt.Sprint(v)
			}
			inv.crashed = c.crashed.Load()
			inv.done.Store(true)
		}()
		inv.resp, inv.err = h(ctx, ev)
		return nil
	})
	wait := &call{c: esm, text: "wait for " + c.name, wake: deadline,
		ready: func() bool { return inv.done.Load() || c.crashed.Load() }}
	if !r.sch.park(wait) {
		cancel(nil)
		return
	}
	back := strings.Join(labelsOf(batch), ",") + " back after the visibility timeout"
	switch {
	case inv.done.Load() && inv.crashed, !inv.done.Load() && c.crashed.Load():
		cancel(ErrCrashed)
		r.logf("%s's invocation crashed: batch failed, %s", c.name, back)
	case inv.done.Load() && inv.panic != "":
		cancel(ErrCrashed)
		r.fence(c)
		r.logf("%s panicked: %s: batch failed, %s (the environment exits)", c.name, inv.panic, back)
	case inv.done.Load():
		cancel(nil)
		r.respond(esm, c, batch, inv.resp, inv.err)
	default:
		cancel(context.DeadlineExceeded)
		r.fence(c)
		r.logf("%s timed out after %v: killed, batch failed, %s", c.name, cfg.Timeout, back)
	}
}

// fence ends c's execution environment as a crash does: its parked calls
// and every later one fail with ErrCrashed, and a new generation takes the
// slot. It runs on the mapping's thread, the one goroutine of the run
// running kit code.
func (r *run) fence(c *consumer) {
	if c.crashed.Load() {
		return
	}
	c.crashed.Store(true)
	var keep []*call
	for _, o := range r.calls {
		if o.c == c {
			r.sch.grant(o, false)
		} else {
			keep = append(keep, o)
		}
	}
	r.calls = keep
	if r.slots[c.slot] == c {
		r.slots[c.slot] = r.newConsumer(c.slot, c.gen+1)
	}
}

// respond acts on what the handler returned, as the mapping does: an
// error fails the whole batch; otherwise everything is deleted but, with
// ReportBatchItemFailures, the records the response names. A response
// naming something that is not a MessageId of the batch (or nothing)
// fails the whole batch.
func (r *run) respond(esm, c *consumer, batch []record, resp events.SQSEventResponse, err error) {
	back := " back after the visibility timeout"
	if err != nil {
		r.logf("%s returned an error: %v: batch failed, %s%s", c.name, err, strings.Join(labelsOf(batch), ","), back)
		return
	}
	failed := map[string]bool{}
	var failedLabels []string
	if r.s.LambdaConfig.ReportBatchItemFailures {
		ids := map[string]string{}
		for _, m := range batch {
			ids[m.MessageId] = m.Label
		}
		for _, f := range resp.BatchItemFailures {
			l, ok := ids[f.ItemIdentifier]
			if !ok {
				r.logf("%s returned batchItemFailures naming %q, not a MessageId of the batch: batch failed, %s%s",
					c.name, f.ItemIdentifier, strings.Join(labelsOf(batch), ","), back)
				return
			}
			if !failed[f.ItemIdentifier] {
				failed[f.ItemIdentifier] = true
				failedLabels = append(failedLabels, l)
			}
		}
	}
	var del []record
	var notes []string
	stopped := map[string]string{} // group → its first failed record
	for _, m := range batch {
		if failed[m.MessageId] {
			if _, ok := stopped[m.GroupId]; !ok {
				stopped[m.GroupId] = m.Label
			}
			continue
		}
		if first, ok := stopped[m.GroupId]; ok && r.s.FIFO {
			notes = append(notes, fmt.Sprintf("%s is deleted though %s before it in group %s failed", m.Label, first, m.GroupId))
		}
		del = append(del, m)
	}
	text := c.name + " returned"
	switch {
	case len(failedLabels) > 0:
		text += " batchItemFailures " + strings.Join(failedLabels, ",") + ": they stay in flight," + back
	case len(resp.BatchItemFailures) > 0:
		text += fmt.Sprintf(" %d batchItemFailures, ignored: ReportBatchItemFailures is off", len(resp.BatchItemFailures))
	}
	if len(notes) > 0 {
		text += " (" + strings.Join(notes, "; ") + ")"
	}
	r.log(text)
	r.esmDelete(esm, del)
}

// esmDelete deletes records as the mapping does, 10 at a time, each call a
// step of the mapping's thread.
func (r *run) esmDelete(esm *consumer, del []record) {
	for i := 0; i < len(del); i += 10 {
		chunk := del[i:min(i+10, len(del))]
		cl := &call{c: esm, text: "delete batch(" + strings.Join(labelsOf(chunk), ",") + ")"}
		if !r.sch.park(cl) {
			return
		}
		entries := make([]sqsq.DeleteBatchEntry, len(chunk))
		for j, m := range chunk {
			entries[j] = sqsq.DeleteBatchEntry{Id: strconv.Itoa(j), ReceiptHandle: m.ReceiptHandle}
		}
		res, err := r.q.DeleteBatch(r.ctx, entries)
		if err == nil && len(res.Failed) > 0 {
			var parts []string
			for _, f := range res.Failed {
				j, _ := strconv.Atoi(f.Id)
				parts = append(parts, chunk[j].Label+" "+string(f.Err.Code))
			}
			err = errors.New("failed for " + strings.Join(parts, ", "))
		}
		r.logCall(esm, cl.text, err)
	}
}

func labelsOf(batch []record) []string {
	ls := make([]string, len(batch))
	for i, m := range batch {
		ls[i] = m.Label
	}
	return ls
}

// invocationCtx is an invocation's context: its deadline is the run's
// clock plus the function timeout, and it is done when the invocation is
// killed (Err: context.DeadlineExceeded), crashes, or the run ends.
type invocationCtx struct {
	context.Context
	deadline time.Time
}

func (c invocationCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c invocationCtx) Err() error {
	err := c.Context.Err()
	if err != nil && errors.Is(context.Cause(c.Context), context.DeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return err
}
