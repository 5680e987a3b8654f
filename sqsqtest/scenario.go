package sqsqtest

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sqsq/sqsq"
)

// Handler is a consumer's message handler, written as ordinary code: it
// gets a received message, performs its effects through [Env.Commit] (or a
// store of yours backed by it) and deletes the message (or extends its
// visibility) through [Env.Queue] or [Env.SQS]. A non-nil error leaves the
// message in flight, to come back when its visibility timeout ends.
type Handler func(ctx context.Context, m Msg) error

// BatchHandler handles the messages of one receive, up to
// [Scenario.Batch] of them, as the SDK returns them. It may process them
// one by one or in goroutines it starts; it must not return before those
// goroutines are done with the kit. The kit deletes nothing: the handler
// deletes what it processed.
type BatchHandler func(ctx context.Context, msgs []Msg) error

// Scenario describes a consumer test: the queues, the messages to send,
// the consumers, the faults, crashes and passing time that may happen, and
// the invariants that must hold at the end. [Scenario.Run] plays one
// schedule drawn from a [Source]; [Scenario.Check] (rapid),
// [Scenario.Seeds] (PRNG) and [Scenario.Find] (search and shrink) play
// many.
//
// A consumer has one of four shapes. Consumer: the kit receives (up to
// Batch messages per receive) and calls the handler once per message, in
// order, stopping a FIFO group at its first failure. BatchConsumer: the
// kit receives and hands the whole batch to the handler. Loop: the
// consumer owns its receive loop and calls ReceiveMessage itself through
// [Env.SQS]. Lambda: an AWS Lambda SQS handler, which the kit invokes as
// Lambda's event source mapping does (see [LambdaConfig]).
//
// A run draws up to Steps actions (and may draw an early end), each among
// those enabled: send the next message; let a consumer receive; let one
// of the kit calls a consumer is waiting in go ahead (a delete, a
// visibility change, a commit, a send, a receive that has messages…);
// advance the clock to the next instant something is due (a visibility
// deadline, the end of a delay or of a consumer's sleep); let idle time
// pass (up to MaxGap); redrive a dead-letter queue. Before each kit call a
// crash may be drawn: the consumer dies right there and a new one, built
// afresh by the same function, takes its place; the dead one's goroutines
// find every later kit call failing with [ErrCrashed] and change nothing.
// One kit call happens at a time, in the drawn order, so a run is a pure
// function of its draws (see the package documentation for goroutines).
//
// After the drawn steps the run settles: faults, crashes and slowness
// stop, unsent messages are sent, dead-letter queues are redriven and the
// consumers run until every consumed queue is empty (or a bound is hit).
// Then the invariants are checked.
type Scenario struct {
	// Messages are the bodies to send to the source queue, distinct; they
	// are labelled A, B, …
	Messages []string
	// Consumers is the number of concurrent consumers (default 2).
	Consumers int
	// Consumer builds one consumer's per-message handler. The kit calls it
	// for each consumer at the start of a run, and again for the consumer
	// that replaces one that crashed, with that consumer's [Env].
	Consumer func(env *Env) Handler
	// BatchConsumer builds a handler of whole receives instead.
	BatchConsumer func(env *Env) BatchHandler
	// Loop is a consumer that owns its receive loop instead: it runs until
	// ctx ends (the run is over) or its consumer crashes, receiving with
	// env.SQS() from env.QueueURL().
	Loop func(ctx context.Context, env *Env)
	// Lambda is an AWS Lambda function fed by the source queue through an
	// event source mapping instead, which the kit plays as LambdaConfig
	// says: each consumer is an execution environment, built (the
	// function's init) by calling Lambda with its Env.
	Lambda func(env *Env) LambdaHandler
	// LambdaConfig configures the event source mapping and the timeout of
	// Lambda; the defaults are Lambda's.
	LambdaConfig LambdaConfig
	// Invariants are checked after the run settles.
	Invariants []Invariant

	// Visibility is the source queue's visibility timeout (default 30 s).
	Visibility time.Duration
	// MaxReceiveCount > 0 gives the source queue a dead-letter queue with
	// that redrive policy.
	MaxReceiveCount int
	// Redrive lets the schedule redrive the dead-letter queue (a move task,
	// which gives each message a new MessageId) before the run settles.
	Redrive bool
	// Batch is MaxNumberOfMessages per receive of the kit (default 1; a
	// Lambda's is LambdaConfig.BatchSize, up to 10).
	Batch int
	// FIFO makes the source queue and its dead-letter queue FIFO queues;
	// GroupOf gives a body's message group (default: one group).
	FIFO    bool
	GroupOf func(body string) string
	// Queues are more queues the consumers may send to (an outbox, a retry
	// queue), by name; a name ending in ".fifo" makes a FIFO queue. The
	// consumers' sends are in the timeline and in [Result.Sent].
	Queues []string

	// MaxGap > 0 lets the schedule draw idle time, up to MaxGap at a time:
	// seconds to days pass while no consumer is busy, so retention,
	// deduplication windows and late redrives come into play. Rapid
	// shrinks a gap towards the smallest that still fails.
	MaxGap time.Duration
	// Slowness > 0 lets the schedule delay any kit call of a consumer by up
	// to Slowness of virtual time (a slow network, a GC pause, a slow
	// database), drawn per call.
	Slowness time.Duration

	// Faults are the fault rates of the queues' [Policy].
	Faults Rates
	// Crash is the percent chance of a crash before each kit call.
	Crash int
	// Steps bounds the drawn actions of one run (default 40).
	Steps int
	// SettleSteps bounds the actions of the settle phase (default
	// 50·(messages+1)·(MaxReceiveCount+2)); a run that has not settled by
	// then ends with Result.Settled false.
	SettleSteps int

	spare *spares // what the runs of one loop reuse (see spares.go)
}

// Invariant is a named property checked at the end of every run. An error
// that names the messages involved by their labels ("A (order-1) charged
// twice", with r.Labels[i]) lets the report print their lines in full and
// fold the rest of the settle phase (see [Outcome.String]).
type Invariant struct {
	Name  string
	Check func(r *Result) error
}

// Result is what invariants see at the end of a run.
type Result struct {
	Ledger *Ledger
	// Labels and Bodies of the scenario's messages, in order.
	Labels, Bodies []string
	// Queue and DLQ are the final stats of the source queue and its
	// dead-letter queue (DLQ is zero without one).
	Queue, DLQ sqsq.Stats
	// Queues are the final stats of every queue, by name.
	Queues map[string]sqsq.Stats
	// Sent are the bodies the consumers sent, by queue name, in order.
	Sent map[string][]string
	// Settled reports that the run ended with every consumed queue empty and
	// no consumer busy.
	Settled bool
	// Faults are the scenario's fault rates, for invariants that are
	// meaningful only without some faults (see [NoConcurrentProcessing]).
	Faults Rates
	// FIFO reports that the source queue is a FIFO queue.
	FIFO bool
	// Groups are the messages' groups ([Scenario.GroupOf]), parallel to
	// Bodies.
	Groups []string
	// DeadLettered are the labels of the messages that were moved to the
	// dead-letter queue at least once, in label order.
	DeadLettered []string
	// Concurrent are the labels of the messages handed to a consumer while
	// another still handled them, once per such delivery
	// ([Ledger.Concurrent] counts them).
	Concurrent []string
	// Left are the labels of the messages still stored in the source queue
	// or its dead-letter queue when the run ended, in label order.
	Left []string
}

// Outcome is the result of one run.
type Outcome struct {
	// Err is the first invariant that failed (or the rule a consumer broke,
	// or a panic), nil if all held.
	Err error
	// Timeline is everything that happened, in order.
	Timeline Timeline
	// Steps is the number of drawn actions (the settle phase not counted).
	Steps  int
	Ledger *Ledger
	// History has every message's history, by MessageId.
	History *Recorder
	// Legend names the labels: A = order-1 (MessageId …).
	Legend []string

	// unsettled, for a run that did not settle, says so and names what
	// kept it going: "the run did not settle in 400 steps: A was received
	// 14 times and never deleted".
	unsettled string
	// lines is how many lines the run logged, written or not (see
	// run.silent).
	lines int
}

// String reports the run: for a failure, the error, the legend of the
// messages and the schedule, its settle phase summarised around the
// messages the error names (see [Timeline] for every line).
func (o *Outcome) String() string {
	if o.Err == nil {
		legend := ""
		if len(o.Legend) > 0 {
			legend = "messages: " + joinLegend(o.Legend) + "\n"
		}
		return fmt.Sprintf("passed after %d steps:\n%s%v", o.Steps, legend, o.Timeline)
	}
	return o.headline() + "\n" + o.details()
}

func (s *Scenario) defaults() {
	if s.Consumers <= 0 {
		s.Consumers = 2
	}
	if s.Visibility <= 0 {
		s.Visibility = 30 * time.Second
	}
	if s.Batch <= 0 {
		s.Batch = 1
	}
	if s.Steps <= 0 {
		s.Steps = 40
	}
	if s.SettleSteps <= 0 {
		s.SettleSteps = 50 * (len(s.Messages) + 1) * (s.MaxReceiveCount + 2)
	}
	if s.GroupOf == nil {
		s.GroupOf = func(string) string { return "g" }
	}
	if s.Lambda != nil {
		s.lambdaDefaults()
	}
}

// shapes counts the consumer shapes a scenario gives.
func (s *Scenario) shapes() int {
	n := 0
	for _, set := range []bool{s.Consumer != nil, s.BatchConsumer != nil, s.Loop != nil, s.Lambda != nil} {
		if set {
			n++
		}
	}
	return n
}

func label(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return "M" + strconv.Itoa(i)
}
