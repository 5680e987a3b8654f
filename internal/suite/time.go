package suite

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// The time group runs on every clock with short waits: a mock moves by
// Add, the real clock by itself (the test sleeps alongside), a bubble by
// sleeping. Elapsed times are read on the harness clock: exact on virtual
// clocks, within [Slack] on the real one.
var timeTests = []test{
	{"LongPollWokenBySend", testTimeLongPollWokenBySend},
	{"LongPollEndsEmpty", testTimeLongPollEndsEmpty},
	{"VisibilityTimeoutExpires", testTimeVisibilityExpires},
	{"DelayEnds", testTimeDelayEnds},
	{"MoveTaskAtItsRate", testTimeMoveTask},
}

// polled is what a receive in the background returned, and when on the
// harness clock.
type polled struct {
	msgs []types.Message
	err  error
	at   time.Time
}

// poll starts a receive in a goroutine; the channel gets its result.
func (e *env) poll(in *sqs.ReceiveMessageInput) <-chan polled {
	ch := make(chan polled, 1)
	go func() {
		out, err := e.api().ReceiveMessage(e.ctx, in)
		p := polled{err: err, at: e.h.Clock.Now()}
		if out != nil {
			p.msgs = out.Messages
		}
		ch <- p
	}()
	return ch
}

func (e *env) result(ch <-chan polled) polled {
	e.t.Helper()
	p := <-ch
	if p.err != nil {
		e.t.Fatalf("ReceiveMessage: %v", p.err)
	}
	return p
}

// parkedOr waits until a receive is parked on the queue or the one on ch
// has returned (the real clock may have brought its message first), and
// reports which.
func (e *env) parkedOr(url string, ch <-chan polled) (polled, bool) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute) // a hang guard, not a timing
	defer cancel()
	parked := make(chan error, 1)
	go func() { parked <- e.h.WaitForReceivers(ctx, url, 1) }()
	select {
	case p := <-ch:
		cancel()
		<-parked
		if p.err != nil {
			e.t.Fatalf("ReceiveMessage: %v", p.err)
		}
		return p, true
	case err := <-parked:
		if err != nil {
			e.t.Fatalf("waiting for a parked receive: %v", err)
		}
		return polled{}, false
	}
}

// elapsed checks that d passed between from and to on the harness clock:
// exactly on a virtual clock, up to Slack more on the real one.
func (e *env) elapsed(what string, from, to time.Time, d time.Duration) {
	e.t.Helper()
	got := to.Sub(from)
	if e.h.Features.RealTime {
		if got < d || got > d+Slack {
			e.t.Errorf("%s: %v passed, want %v (+%v at most)", what, got, d, Slack)
		}
		return
	}
	if got != d {
		e.t.Errorf("%s: %v passed, want exactly %v", what, got, d)
	}
}

func longPoll(url string, wait int32) *sqs.ReceiveMessageInput {
	return &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: wait, MaxNumberOfMessages: 10}
}

func testTimeLongPollWokenBySend(e *env) {
	url := e.createQueue("woken", nil)
	ch := e.poll(longPoll(url, 20))
	e.waitParked(url, 1)
	sent := e.h.Clock.Now()
	e.send(url, "hi")
	p := e.result(ch)
	e.diff([]string{"hi"}, bodies(p.msgs), "a send wakes a parked long poll (§3.9)")
	e.elapsed("from the send to the woken long poll", sent, p.at, 0)
}

func testTimeLongPollEndsEmpty(e *env) {
	url := e.createQueue("empty", nil)
	start := e.h.Clock.Now()
	ch := e.poll(longPoll(url, 1))
	e.waitParked(url, 1)
	e.h.Clock.Advance(time.Second)
	p := e.result(ch)
	e.diff([]string(nil), bodies(p.msgs), "nothing came")
	e.elapsed("a 1 s long poll on an empty queue", start, p.at, time.Second)
}

func testTimeVisibilityExpires(e *env) {
	url := e.createQueue("expires", nil)
	e.send(url, "again")
	start := e.h.Clock.Now()
	first := e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url), VisibilityTimeout: 1})
	e.diff([]string{"again"}, bodies(first), "the first receive")
	ch := e.poll(longPoll(url, 20))
	e.waitParked(url, 1)
	e.h.Clock.Advance(time.Second)
	p := e.result(ch)
	e.diff([]string{"again"}, bodies(p.msgs), "visible again when its 1 s visibility timeout ends, to a parked long poll (§4.1)")
	e.elapsed("the redelivery", start, p.at, time.Second)
}

func testTimeDelayEnds(e *env) {
	url := e.createQueue("delayed", nil)
	start := e.h.Clock.Now()
	e.sendIn(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("later"), DelaySeconds: 1})
	ch := e.poll(longPoll(url, 20))
	e.waitParked(url, 1)
	e.h.Clock.Advance(time.Second)
	p := e.result(ch)
	e.diff([]string{"later"}, bodies(p.msgs), "a delayed message reaches a parked long poll when its delay ends (§6)")
	e.elapsed("the delayed receive", start, p.at, time.Second)
}

// A move task of 3 messages at 10 a second: the first moves as soon as the
// clock passes the start and wakes a receiver parked on the source, the
// others follow 100 ms apart.
func testTimeMoveTask(e *env) {
	dlq := e.createQueue("moves-dlq", nil)
	src := e.createQueue("moves", map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"` + e.arn(dlq) + `","maxReceiveCount":"1"}`,
	})
	for _, b := range []string{"m1", "m2", "m3"} {
		e.send(src, b)
	}
	// Each is received once and made visible at once; the next receive
	// dead-letters them, with no clock move.
	for _, m := range e.receiveN(src, 10) {
		_, err := e.api().ChangeMessageVisibility(e.ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(src), ReceiptHandle: m.ReceiptHandle})
		e.must(err, "ChangeMessageVisibility 0")
	}
	e.diff([]types.Message(nil), e.receiveN(src, 10), "the receive dead-letters them")
	e.diff(3, e.counts(dlq)[0], "the DLQ holds them")

	ch := e.poll(longPoll(src, 20))
	e.waitParked(src, 1)
	start := e.h.Clock.Now()
	_, err := e.api().StartMessageMoveTask(e.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(e.arn(dlq)),
		MaxNumberOfMessagesPerSecond: aws.Int32(10)})
	e.must(err, "StartMessageMoveTask")
	e.h.Clock.Advance(time.Nanosecond)
	p := e.result(ch)
	e.diff([]string{"m1"}, bodies(p.msgs), "the first message moves once the clock passes the start, and wakes the parked receiver (§8.3)")
	e.elapsed("the first move", start, p.at, time.Nanosecond)

	got := bodies(p.msgs)
	for range 2 {
		if len(got) == 3 {
			break // the real clock may bring two to one receive
		}
		ch = e.poll(longPoll(src, 20))
		p, done := e.parkedOr(src, ch)
		if !done {
			e.h.Clock.Advance(100 * time.Millisecond)
			p = e.result(ch)
		}
		got = append(got, bodies(p.msgs)...)
	}
	e.diff([]string{"m1", "m2", "m3"}, got, "one message every 100 ms, in order")
	tasks := e.moveTasks(e.arn(dlq), 1)
	e.diff([]any{"COMPLETED", int64(3)}, []any{aws.ToString(tasks[0].Status), tasks[0].ApproximateNumberOfMessagesMoved},
		"the task is done once the last message moved (§8.4)")
}
