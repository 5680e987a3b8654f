package awssqs_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
)

// Queue is the slice of *sqs.Client a service typically depends on. Both
// *sqs.Client and *awssqs.Client satisfy it.
type Queue interface {
	SendMessage(context.Context, *sqs.SendMessageInput, ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	ReceiveMessage(context.Context, *sqs.ReceiveMessageInput, ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessage(context.Context, *sqs.DeleteMessageInput, ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
}

var (
	_ Queue = (*sqs.Client)(nil)
	_ Queue = (*awssqs.Client)(nil)
)

// The code under test takes the interface; the test wires in an
// awssqs.Client over a broker on a mock clock instead of the SDK's client.
func Example() {
	ctx := context.Background()
	clk := clock.NewMock()
	client := awssqs.New(sqsq.NewBroker(sqsq.WithClock(clk)))
	created, _ := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	url := created.QueueUrl

	var q Queue = client // production: var q Queue = sqs.NewFromConfig(cfg)
	sent, _ := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("order-1")})
	fmt.Println("sent, MD5OfMessageBody", *sent.MD5OfMessageBody)

	out, _ := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10})
	m := out.Messages[0]
	fmt.Println("received", *m.Body)

	clk.Add(30 * time.Second) // not deleted: visible again after the visibility timeout
	out, _ = q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount}})
	fmt.Println("received again, ApproximateReceiveCount", out.Messages[0].Attributes["ApproximateReceiveCount"])

	_, _ = q.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: out.Messages[0].ReceiptHandle})
	out, _ = q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url})
	fmt.Println("after delete, Messages is nil:", out.Messages == nil)
	// Output:
	// sent, MD5OfMessageBody 6e7f85a9d0fe9b5dfb504c6f2991d744
	// received order-1
	// received again, ApproximateReceiveCount 2
	// after delete, Messages is nil: true
}

// Errors come back as the SDK builds them from an AWS error response, so
// the checks written for Amazon SQS work unchanged.
func ExampleSDKError() {
	ctx := context.Background()
	client := awssqs.New(sqsq.NewBroker(), awssqs.WithRequestIDFunc(func() string { return "req-1" }))

	_, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	var qne *types.QueueDoesNotExist
	fmt.Println(errors.As(err, &qne))
	var api smithy.APIError
	if errors.As(err, &api) {
		fmt.Println(api.ErrorCode())
	}
	fmt.Println(err)

	created, _ := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	_, err = client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: created.QueueUrl, WaitTimeSeconds: 21})
	fmt.Println(err)
	// Output:
	// true
	// AWS.SimpleQueueService.NonExistentQueue
	// operation error SQS: GetQueueUrl, https response error StatusCode: 400, RequestID: req-1, AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist.
	// operation error SQS: ReceiveMessage, https response error StatusCode: 400, RequestID: req-1, api error InvalidParameterValue: Value 21 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided.
}

// A long poll parks on the broker's clock. Wait until it is parked, then
// send: the send wakes it.
func ExampleClient_ReceiveMessage_longPoll() {
	ctx := context.Background()
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))
	client := awssqs.New(b)
	created, _ := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	url := created.QueueUrl

	done := make(chan *sqs.ReceiveMessageOutput)
	go func() {
		out, _ := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, WaitTimeSeconds: 20})
		done <- out
	}()
	q, _ := b.GetQueue(ctx, *url)
	_ = q.WaitForReceivers(ctx, 1)
	_, _ = client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("wake up")})
	fmt.Println(*(<-done).Messages[0].Body)
	// Output:
	// wake up
}
