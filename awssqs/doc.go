// Package awssqs is a drop-in for the AWS SDK for Go v2 SQS client
// (github.com/aws/aws-sdk-go-v2/service/sqs) over a [sqsq.Broker] in the
// same process. [Client] has every operation method of *sqs.Client with the
// same signature, takes the same inputs, and returns the same outputs and
// the same errors, so code that reaches SQS through an interface of its own
// runs against sqsq with no change but the wiring.
//
// # Swap it in
//
// Real services hold the client behind a small interface:
//
//	type Queue interface {
//		SendMessage(context.Context, *sqs.SendMessageInput, ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
//		ReceiveMessage(context.Context, *sqs.ReceiveMessageInput, ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
//	}
//
//	// Production: Amazon SQS.
//	svc := orders.NewService(sqs.NewFromConfig(cfg), queueURL)
//
//	// Tests: sqsq on a mock clock, the same service code.
//	clk := clock.NewMock()
//	client := awssqs.New(sqsq.NewBroker(sqsq.WithClock(clk)))
//	out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
//	svc := orders.NewService(client, *out.QueueUrl)
//
// # Inputs as the SDK sends them
//
// Attributes are the wire strings ("VisibilityTimeout": "30", RedrivePolicy
// JSON). A QueueUrl may be any URL whose path ends in account/name, whatever
// its scheme and host (the broker's, "https://sqs.us-east-1.amazonaws.com/…",
// "http://localhost:4566/…"; a regional host or a /queue/{region}/ path
// names the region, see sqsq.Queue.URLAt), a bare queue name or a queue
// ARN. A nil
// pointer member is absent; a required member left nil fails with
// MissingParameter, as the service answers a request without it. The SDK
// never sends a zero for ReceiveMessage's MaxNumberOfMessages,
// VisibilityTimeout and WaitTimeSeconds nor for SendMessage's DelaySeconds,
// so a Client reads 0 there as "not set", exactly as SQS does; the zero of
// ChangeMessageVisibility is sent, and is a real 0. (Other SDKs can send
// those zeros over HTTP; the sqshttp handler, which translates requests
// with these same methods, marks the ones a request sent in the call's
// context, and there a 0 means 0.)
//
// # Outputs and errors as AWS returns them
//
// Members AWS omits are nil (an empty receive has nil Messages, a queue
// without tags nil Tags), digests are MD5s of what is returned, and
// timestamps are in AWS's units. A failure is the chain the SDK builds from
// an AWS error response: a *smithy.OperationError around an
// *awshttp.ResponseError (HTTP status, request id) around the typed error of
// service/sqs/types (*types.QueueDoesNotExist, *types.OverLimit, …) or a
// *smithy.GenericAPIError for InvalidParameterValue, MissingParameter and
// the other unmodelled codes. ErrorCode() returns AWS's legacy code
// ("AWS.SimpleQueueService.NonExistentQueue"). [SDKError] and [APIError]
// make that mapping from one table, and [CoreError] reads it back, so the
// HTTP handler, which calls these same methods, writes the same errors.
//
// # What differs from *sqs.Client
//
// The optFns of every method are accepted and ignored: they configure a
// transport a Client does not have. The SDK checks required members
// before it sends a request and fails with a smithy.InvalidParamsError; a
// Client answers as the service would, with MissingParameter. Outputs carry
// no ResultMetadata, which the SDK fills from HTTP responses. AddPermission
// and RemovePermission record statements in the queue's Policy attribute;
// sqsq never enforces policies.
package awssqs
