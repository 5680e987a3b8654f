// Package suite is the SQS behaviour suite, written once against the
// operation method set of the AWS SDK's *sqs.Client and run against every
// front door of sqsq: the awssqs adapter, and the HTTP handler through the
// real SDK. A front door supplies a [Harness]; [Run] does the rest.
//
// Every test goes through [API] alone, so what passes here behaves the
// same whichever door a user comes through. The harness adds the two
// things the API cannot give: the mock clock to move, and a way to know a
// long poll is parked before the clock moves.
package suite

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// API is the operation method set of *sqs.Client (aws-sdk-go-v2
// service/sqs v1.53.0).
type API interface {
	AddPermission(context.Context, *sqs.AddPermissionInput, ...func(*sqs.Options)) (*sqs.AddPermissionOutput, error)
	CancelMessageMoveTask(context.Context, *sqs.CancelMessageMoveTaskInput, ...func(*sqs.Options)) (*sqs.CancelMessageMoveTaskOutput, error)
	ChangeMessageVisibility(context.Context, *sqs.ChangeMessageVisibilityInput, ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
	ChangeMessageVisibilityBatch(context.Context, *sqs.ChangeMessageVisibilityBatchInput, ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
	CreateQueue(context.Context, *sqs.CreateQueueInput, ...func(*sqs.Options)) (*sqs.CreateQueueOutput, error)
	DeleteMessage(context.Context, *sqs.DeleteMessageInput, ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
	DeleteMessageBatch(context.Context, *sqs.DeleteMessageBatchInput, ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
	DeleteQueue(context.Context, *sqs.DeleteQueueInput, ...func(*sqs.Options)) (*sqs.DeleteQueueOutput, error)
	GetQueueAttributes(context.Context, *sqs.GetQueueAttributesInput, ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
	GetQueueUrl(context.Context, *sqs.GetQueueUrlInput, ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error)
	ListDeadLetterSourceQueues(context.Context, *sqs.ListDeadLetterSourceQueuesInput, ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error)
	ListMessageMoveTasks(context.Context, *sqs.ListMessageMoveTasksInput, ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error)
	ListQueueTags(context.Context, *sqs.ListQueueTagsInput, ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error)
	ListQueues(context.Context, *sqs.ListQueuesInput, ...func(*sqs.Options)) (*sqs.ListQueuesOutput, error)
	PurgeQueue(context.Context, *sqs.PurgeQueueInput, ...func(*sqs.Options)) (*sqs.PurgeQueueOutput, error)
	ReceiveMessage(context.Context, *sqs.ReceiveMessageInput, ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	RemovePermission(context.Context, *sqs.RemovePermissionInput, ...func(*sqs.Options)) (*sqs.RemovePermissionOutput, error)
	SendMessage(context.Context, *sqs.SendMessageInput, ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	SendMessageBatch(context.Context, *sqs.SendMessageBatchInput, ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	SetQueueAttributes(context.Context, *sqs.SetQueueAttributesInput, ...func(*sqs.Options)) (*sqs.SetQueueAttributesOutput, error)
	StartMessageMoveTask(context.Context, *sqs.StartMessageMoveTaskInput, ...func(*sqs.Options)) (*sqs.StartMessageMoveTaskOutput, error)
	TagQueue(context.Context, *sqs.TagQueueInput, ...func(*sqs.Options)) (*sqs.TagQueueOutput, error)
	UntagQueue(context.Context, *sqs.UntagQueueInput, ...func(*sqs.Options)) (*sqs.UntagQueueOutput, error)
}

// The real client is the model of API.
var _ API = (*sqs.Client)(nil)

// Features are the known differences between front doors; the suite
// adapts to them instead of forking.
type Features struct {
	// ClientValidation is set when the front door is the real SDK, which
	// checks required members before sending and fails with a
	// smithy.InvalidParamsError; otherwise the service's MissingParameter
	// is expected.
	ClientValidation bool
	// QueryProtocol is set when the SDK speaks the legacy Query protocol
	// (sqs.Options.Protocol set to awsquery), which reads errors
	// differently from the JSON protocol: a modelled error's ErrorCode() is
	// its shape name ("QueueDoesNotExist"), as the SDK sets no
	// ErrorCodeOverride from an XML error; an unmodelled error has no fault;
	// and AWS words QueueDoesNotExist "... does not exist for this wsdl
	// version." there.
	QueryProtocol bool
	// RealTime is set when the broker runs on the real clock outside a
	// synctest bubble. Tests that move time by more than a short real wait
	// skip when they first try; the "time" group runs with real waits and
	// checks instants within [Slack]; timestamps are compared to the second.
	RealTime bool
}

// Clock is the time a harness runs on, as the suite sees it.
type Clock interface {
	Now() time.Time
	// Advance lets d pass: a mock's Add, a sleep on the real clock (or in a
	// synctest bubble, where a sleep is instant).
	Advance(d time.Duration)
}

// MockClock is a mock clock the suite moves with Add.
func MockClock(clk *clock.Mock) Clock { return mockClock{clk} }

type mockClock struct{ *clock.Mock }

func (c mockClock) Advance(d time.Duration) { c.Add(d) }

// WallClock is time itself: the real clock, or a synctest bubble's fake
// time when the test runs in one.
var WallClock Clock = wallClock{}

type wallClock struct{}

func (wallClock) Now() time.Time          { return time.Now() }
func (wallClock) Advance(d time.Duration) { time.Sleep(d) }

// Slack is how late the real clock may bring something on a busy machine.
const Slack = 5 * time.Second

// Harness is one front door over a fresh broker, made for one test.
type Harness struct {
	// API is the client under test.
	API API
	// Clock is the broker's time: [MockClock] for a mock, [WallClock] for
	// the real clock or a synctest bubble's.
	Clock Clock
	// WaitForReceivers blocks until n long-poll receives are parked on the
	// queue with this URL, or ctx ends. [WaitFunc] makes one from a broker.
	WaitForReceivers func(ctx context.Context, queueURL string, n int) error
	// InFlightLimit is the broker's in-flight limit for standard queues
	// ([InFlightLimit] when the broker comes from [NewBroker]); 0 skips the
	// OverLimit test.
	InFlightLimit int
	// Features are the front door's known differences.
	Features Features
	// Peek shows a queue's messages without touching them ([sqsq.Queue.Peek],
	// not an SQS operation): [PeekFunc] makes one from a broker. nil skips
	// the peek group.
	Peek func(ctx context.Context, queueURL string, in sqsq.PeekInput) (sqsq.PeekOutput, error)
}

// Epoch is the instant the suite's mock clocks start at.
var Epoch = time.Date(2024, time.March, 1, 12, 0, 0, 0, time.UTC)

// InFlightLimit is the in-flight limit of brokers from [NewBroker]: small,
// so the OverLimit test reaches it with a few receives.
const InFlightLimit = 20

// NewBroker returns the broker a harness should wrap: on a new mock clock
// set to [Epoch], with [InFlightLimit], plus opts. It is closed when the
// test ends.
func NewBroker(t testing.TB, opts ...sqsq.Option) (*sqsq.Broker, *clock.Mock) {
	t.Helper()
	clk := clock.NewMock()
	clk.Set(Epoch)
	base := []sqsq.Option{sqsq.WithClock(clk), sqsq.WithInFlightLimit(InFlightLimit)}
	b := sqsq.NewBroker(append(base, opts...)...)
	t.Cleanup(func() { _ = b.Close() })
	return b, clk
}

// NewRealBroker returns a broker on the default, real clock (in a synctest
// bubble, the bubble's time), with [InFlightLimit], plus opts. It is closed
// when the test ends.
func NewRealBroker(t testing.TB, opts ...sqsq.Option) *sqsq.Broker {
	t.Helper()
	b := sqsq.NewBroker(append([]sqsq.Option{sqsq.WithInFlightLimit(InFlightLimit)}, opts...)...)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// WaitFunc returns a Harness.WaitForReceivers over b's queues.
func WaitFunc(b *sqsq.Broker) func(ctx context.Context, queueURL string, n int) error {
	return func(ctx context.Context, queueURL string, n int) error {
		q, err := b.GetQueue(ctx, queueURL)
		if err != nil {
			return err
		}
		return q.WaitForReceivers(ctx, n)
	}
}

// test is one behaviour of the suite.
type test struct {
	name string
	run  func(e *env)
}

// Run runs the whole suite, each test in its own subtest (in parallel)
// with its own harness.
func Run(t *testing.T, newHarness func(t *testing.T) Harness) {
	RunIn(t, func(t *testing.T, f func(*testing.T)) { f(t) }, newHarness)
}

// RunIn is [Run] with each test's body, harness included, run by in: pass
// synctest.Test to run every test in a bubble of its own.
func RunIn(t *testing.T, in func(*testing.T, func(*testing.T)), newHarness func(t *testing.T) Harness) {
	groups := []struct {
		name  string
		tests []test
	}{
		{"queues", queueTests},
		{"messages", messageTests},
		{"batches", batchTests},
		{"fifo", fifoTests},
		{"redrive", redriveTests},
		{"errors", errorTests},
		{"time", timeTests},
		{"peek", peekTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, tt := range g.tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					in(t, func(t *testing.T) {
						ctx, cancel := context.WithCancel(context.Background())
						h := newHarness(t)
						// First of the cleanups: a call left waiting by a test that
						// failed or skipped ends before the harness closes.
						t.Cleanup(cancel)
						tt.run(&env{t: t, h: h, ctx: ctx})
					})
				})
			}
		})
	}
}
