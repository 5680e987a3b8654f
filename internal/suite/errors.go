package suite

import (
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

var errorTests = []test{
	{"the error catalogue", testErrorCatalogue},
	{"error text", testErrorText},
}

// testErrorCatalogue produces every error of semantics §3.0 that sqsq
// produces, each through the operation that produces it, and checks it as
// a caller of the real SDK would.
func testErrorCatalogue(e *env) {
	url := e.createQueue("errors", nil)
	e.send(url, "x")
	dlq := e.createQueue("errors-dlq", nil)
	gone := e.createQueue("gone", nil)
	_, err := e.api().DeleteQueue(e.ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(gone)})
	e.must(err, "DeleteQueue")
	_, err = e.api().PurgeQueue(e.ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(dlq)})
	e.must(err, "PurgeQueue")

	batch := func(entries ...types.SendMessageBatchRequestEntry) error {
		if entries == nil {
			entries = []types.SendMessageBatchRequestEntry{} // present but empty; nil would be missing
		}
		_, err := e.api().SendMessageBatch(e.ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
		return err
	}
	tests := []struct {
		err  error
		want wantErr
	}{
		{first(e.api().GetQueueUrl(e.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("nope")})),
			wantErr{op: "GetQueueUrl", is: isA[*types.QueueDoesNotExist], code: "AWS.SimpleQueueService.NonExistentQueue", status: 400}},
		{first(e.api().CreateQueue(e.ctx, &sqs.CreateQueueInput{QueueName: aws.String("errors"), Attributes: map[string]string{"DelaySeconds": "1"}})),
			wantErr{op: "CreateQueue", is: isA[*types.QueueNameExists], code: "QueueAlreadyExists", status: 400}},
		{first(e.api().CreateQueue(e.ctx, &sqs.CreateQueueInput{QueueName: aws.String("gone")})),
			wantErr{op: "CreateQueue", is: isA[*types.QueueDeletedRecently], code: "AWS.SimpleQueueService.QueueDeletedRecently", status: 400}},
		{first(e.api().PurgeQueue(e.ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(dlq)})),
			wantErr{op: "PurgeQueue", is: isA[*types.PurgeQueueInProgress], code: "AWS.SimpleQueueService.PurgeQueueInProgress", status: 403}},
		{first(e.api().DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String("garbage")})),
			wantErr{op: "DeleteMessage", is: isA[*types.ReceiptHandleIsInvalid], code: "ReceiptHandleIsInvalid", status: 400}},
		{batch(entry("a", "x"), entry("a", "y")),
			wantErr{op: "SendMessageBatch", is: isA[*types.BatchEntryIdsNotDistinct], code: "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", status: 400}},
		{batch(entry("0", "x"), entry("1", "x"), entry("2", "x"), entry("3", "x"), entry("4", "x"), entry("5", "x"),
			entry("6", "x"), entry("7", "x"), entry("8", "x"), entry("9", "x"), entry("10", "x")),
			wantErr{op: "SendMessageBatch", is: isA[*types.TooManyEntriesInBatchRequest], code: "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", status: 400}},
		{batch(),
			wantErr{op: "SendMessageBatch", is: isA[*types.EmptyBatchRequest], code: "AWS.SimpleQueueService.EmptyBatchRequest", status: 400}},
		{batch(entry("", "x")),
			wantErr{op: "SendMessageBatch", is: isA[*types.InvalidBatchEntryId], code: "AWS.SimpleQueueService.InvalidBatchEntryId", status: 400}},
		{batch(entry("a", strings.Repeat("x", 1<<19+1)), entry("b", strings.Repeat("x", 1<<19))),
			wantErr{op: "SendMessageBatch", is: isA[*types.BatchRequestTooLong], code: "AWS.SimpleQueueService.BatchRequestTooLong", status: 400}},
		{first(e.api().GetQueueAttributes(e.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{"Nope"}})),
			wantErr{op: "GetQueueAttributes", is: isA[*types.InvalidAttributeName], code: "InvalidAttributeName", status: 400}},
		{first(e.api().SetQueueAttributes(e.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url), Attributes: map[string]string{"DelaySeconds": "x"}})),
			wantErr{op: "SetQueueAttributes", is: isA[*types.InvalidAttributeValue], code: "InvalidAttributeValue", status: 400}},
		{first(e.api().SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("\uffff")})),
			wantErr{op: "SendMessage", is: isA[*types.InvalidMessageContents], code: "InvalidMessageContents", status: 400}},
		{first(e.api().ListMessageMoveTasks(e.ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(e.arn(url) + "x")})),
			wantErr{op: "ListMessageMoveTasks", is: isA[*types.ResourceNotFoundException], code: "ResourceNotFoundException", status: 404}},
		{first(e.api().ChangeMessageVisibility(e.ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String("x"), VisibilityTimeout: -1})),
			wantErr{op: "ChangeMessageVisibility", code: "InvalidParameterValue", status: 400}},
		{first(e.api().SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("")})),
			wantErr{op: "SendMessage", code: "MissingParameter", status: 400}},
	}
	for _, tt := range tests {
		e.wantErr(tt.err, tt.want, tt.want.code)
	}
	// OverLimit needs the in-flight limit filled: see testOverLimit.
}

// first returns the error of a call's result pair.
func first[T any](_ T, err error) error { return err }

// testErrorText checks err.Error(), which callers log and sometimes match:
// the SDK's text for a modelled code and for a generic one.
func testErrorText(e *env) {
	_, err := e.api().GetQueueUrl(e.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("nope")})
	modelled := regexp.MustCompile(`^operation error SQS: GetQueueUrl, https response error StatusCode: 400, RequestID: [^,]+, ` +
		`AWS\.SimpleQueueService\.NonExistentQueue: The specified queue does not exist\.$`)
	if e.h.Features.QueryProtocol {
		modelled = regexp.MustCompile(`^operation error SQS: GetQueueUrl, https response error StatusCode: 400, RequestID: [^,]+, ` +
			`QueueDoesNotExist: The specified queue does not exist for this wsdl version\.$`)
	}
	if err == nil || !modelled.MatchString(err.Error()) {
		e.t.Errorf("error text %q, want it to match %s (§13.2)", err, modelled)
	}
	url := e.createQueue("text", nil)
	_, err = e.api().ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 11})
	generic := regexp.MustCompile(`^operation error SQS: ReceiveMessage, https response error StatusCode: 400, RequestID: [^,]+, ` +
		`api error InvalidParameterValue: Value 11 for parameter MaxNumberOfMessages is invalid\. Reason: Must be between 1 and 10, if provided\.$`)
	if err == nil || !generic.MatchString(err.Error()) {
		e.t.Errorf("error text %q, want it to match %s (§13.2)", err, generic)
	}
}
