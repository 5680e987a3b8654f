package gocdk

// Runs the Go CDK's pubsub conformance suite (gocloud.dev/pubsub/drivertest).

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	_ "unsafe" // go:linkname

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"gocloud.dev/pubsub"
	"gocloud.dev/pubsub/awssnssqs"
	"gocloud.dev/pubsub/driver"
	"gocloud.dev/pubsub/drivertest"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqshttp"
)

// The suite drives driver.Topic and driver.Subscription values directly, and
// awssnssqs exports its SQS drivers only wrapped in *pubsub.Topic and
// *pubsub.Subscription (OpenSQSTopicV2, OpenSubscriptionV2), so the unwrapped
// constructors those call are linked in by name. Both dereference their
// options: pass non-nil ones.

//go:linkname newSQSTopicDriver gocloud.dev/pubsub/awssnssqs.openSQSTopic
func newSQSTopicDriver(ctx context.Context, client *sqs.Client, queueURL string, opts *awssnssqs.TopicOptions) driver.Topic

//go:linkname newSQSSubscriptionDriver gocloud.dev/pubsub/awssnssqs.openSubscription
func newSQSSubscriptionDriver(ctx context.Context, client *sqs.Client, queueURL string, opts *awssnssqs.SubscriptionOptions) driver.Subscription

func TestDrivertestSQSQueues(t *testing.T) {
	drivertest.RunConformanceTests(t, newQueueHarness, []drivertest.AsTest{sqsTypesAsTest{}})
}

// queueHarness serves one test: a fresh broker behind sqshttp in an
// httptest.Server on the real clock, and an SDK client for it. A topic is an
// SQS queue the driver sends to; its subscription receives from that queue.
type queueHarness struct {
	broker *sqsq.Broker
	server *httptest.Server
	client *sqs.Client

	queues atomic.Int64 // numbers the queues made
	urls   sync.Map     // driver.Topic -> its queue URL
}

func newQueueHarness(ctx context.Context, t *testing.T) (drivertest.Harness, error) {
	b := sqsq.NewBroker()
	srv := httptest.NewServer(sqshttp.NewHandler(b))
	return &queueHarness{
		broker: b,
		server: srv,
		client: sqs.New(sqs.Options{
			Region:       "eu-west-1",
			BaseEndpoint: aws.String(srv.URL),
			Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		}),
	}, nil
}

func (h *queueHarness) CreateTopic(ctx context.Context, testName string) (driver.Topic, func(), error) {
	// Every test has a broker of its own, so a counter is name enough.
	name := fmt.Sprintf("conformance-%d", h.queues.Add(1))
	out, err := h.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: CreateQueue %s: %w", testName, name, err)
	}
	url := aws.ToString(out.QueueUrl)
	topic := newSQSTopicDriver(ctx, h.client, url, &awssnssqs.TopicOptions{})
	h.urls.Store(topic, url)
	deleteQueue := func() {
		_, _ = h.client.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
	}
	return topic, deleteQueue, nil
}

func (h *queueHarness) CreateSubscription(ctx context.Context, topic driver.Topic, testName string) (driver.Subscription, func(), error) {
	url, ok := h.urls.Load(topic)
	if !ok {
		return nil, nil, fmt.Errorf("%s: topic %v is not one of this harness's queues", testName, topic)
	}
	return newSQSSubscriptionDriver(ctx, h.client, url.(string), &awssnssqs.SubscriptionOptions{}), func() {}, nil
}

// missingQueueURL is the URL a queue would have on h.server, but none has.
func (h *queueHarness) missingQueueURL() string {
	return h.server.URL + "/000000000000/never-created"
}

func (h *queueHarness) MakeNonexistentTopic(ctx context.Context) (driver.Topic, error) {
	return newSQSTopicDriver(ctx, h.client, h.missingQueueURL(), &awssnssqs.TopicOptions{}), nil
}

func (h *queueHarness) MakeNonexistentSubscription(ctx context.Context) (driver.Subscription, func(), error) {
	return newSQSSubscriptionDriver(ctx, h.client, h.missingQueueURL(), &awssnssqs.SubscriptionOptions{}), func() {}, nil
}

func (h *queueHarness) Close() {
	h.server.Close()
	_ = h.broker.Close()
}

// MaxBatchSizes: SendMessageBatch and DeleteMessageBatch take at most 10
// entries.
func (h *queueHarness) MaxBatchSizes() (int, int) { return 10, 10 }

// SupportsMultipleSubscriptions: receivers of one queue share its messages.
func (h *queueHarness) SupportsMultipleSubscriptions() bool { return false }

// sqsTypesAsTest checks that the driver's As escapes reach the SDK's types
// and that they carry what sqsq sent: the client, message and batch entry
// ids, receipt handles, and the modeled error for a missing queue.
type sqsTypesAsTest struct{}

func (sqsTypesAsTest) Name() string { return "SDK types" }

func clientAs(as func(any) bool) error {
	var c *sqs.Client
	if !as(&c) || c == nil {
		return errors.New("As(**sqs.Client) failed")
	}
	return nil
}

func (sqsTypesAsTest) TopicCheck(topic *pubsub.Topic) error { return clientAs(topic.As) }

func (sqsTypesAsTest) SubscriptionCheck(sub *pubsub.Subscription) error { return clientAs(sub.As) }

func queueMissing(errorAs func(error, any) bool, err error) error {
	var missing *sqstypes.QueueDoesNotExist
	if !errorAs(err, &missing) {
		return fmt.Errorf("ErrorAs(%v, **types.QueueDoesNotExist) failed", err)
	}
	return nil
}

func (sqsTypesAsTest) TopicErrorCheck(topic *pubsub.Topic, err error) error {
	return queueMissing(topic.ErrorAs, err)
}

func (sqsTypesAsTest) SubscriptionErrorCheck(sub *pubsub.Subscription, err error) error {
	return queueMissing(sub.ErrorAs, err)
}

func (sqsTypesAsTest) BeforeSend(as func(any) bool) error {
	var entry *sqstypes.SendMessageBatchRequestEntry
	if !as(&entry) || entry == nil {
		return errors.New("BeforeSend: As(**types.SendMessageBatchRequestEntry) failed")
	}
	return nil
}

func (sqsTypesAsTest) AfterSend(as func(any) bool) error {
	var result sqstypes.SendMessageBatchResultEntry
	if !as(&result) {
		return errors.New("AfterSend: As(*types.SendMessageBatchResultEntry) failed")
	}
	if aws.ToString(result.Id) == "" || aws.ToString(result.MessageId) == "" || aws.ToString(result.MD5OfMessageBody) == "" {
		return fmt.Errorf("AfterSend: result entry lacks Id, MessageId or MD5OfMessageBody: %+v", result)
	}
	return nil
}

func (sqsTypesAsTest) MessageCheck(m *pubsub.Message) error {
	var raw sqstypes.Message
	if !m.As(&raw) {
		return errors.New("Message.As(*types.Message) failed")
	}
	if aws.ToString(raw.MessageId) == "" || aws.ToString(raw.ReceiptHandle) == "" {
		return fmt.Errorf("received message lacks MessageId or ReceiptHandle: %+v", raw)
	}
	if aws.ToString(raw.Body) != string(m.Body) {
		return fmt.Errorf("received Body %q, Message.Body %q", aws.ToString(raw.Body), m.Body)
	}
	return nil
}
