package awssqs_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
)

// coreCodes are the codes sqsq declares.
var coreCodes = []sqsq.Code{
	sqsq.CodeQueueDoesNotExist, sqsq.CodeQueueNameExists, sqsq.CodeQueueDeletedRecently, sqsq.CodePurgeQueueInProgress,
	sqsq.CodeReceiptHandleIsInvalid, sqsq.CodeMessageNotInflight, sqsq.CodeOverLimit, sqsq.CodeBatchEntryIdsNotDistinct,
	sqsq.CodeTooManyEntriesInBatchRequest, sqsq.CodeEmptyBatchRequest, sqsq.CodeInvalidBatchEntryID, sqsq.CodeBatchRequestTooLong,
	sqsq.CodeInvalidAttributeName, sqsq.CodeInvalidAttributeValue, sqsq.CodeInvalidMessageContents, sqsq.CodeResourceNotFound,
	sqsq.CodeUnsupportedOperation, sqsq.CodeRequestThrottled, sqsq.CodeInvalidParameterValue, sqsq.CodeMissingParameter,
	sqsq.CodeInvalidParameterCombination, sqsq.CodeServiceUnavailable,
}

// TestErrorTableMatchesTheSDK checks the mapping against the SDK's own:
// for every error shape in the SDK's type registry, APIError builds the Go
// type the SDK deserializes from that __type.
func TestErrorTableMatchesTheSDK(t *testing.T) {
	t.Parallel()
	n := 0
	for id, entry := range sqs.TypeRegistry.Entries {
		if _, ok := entry.New().(error); !ok {
			continue
		}
		n++
		shape := id[strings.IndexByte(id, '#')+1:]
		want := reflect.TypeOf(entry.New())
		got := reflect.TypeOf(awssqs.APIError(&sqsq.Error{Code: sqsq.Code(shape), Message: "m"}))
		if got != want {
			t.Errorf("shape %s: APIError gives %v, the SDK deserializes %v", shape, got, want)
		}
	}
	if n < 28 {
		t.Errorf("the SDK registry has %d error shapes, want at least the 28 of v1.53.0", n)
	}
}

// TestAPIError checks every sqsq code: the type the SDK would give, the
// legacy code from ErrorCode(), the message, the fault, and the way back.
func TestAPIError(t *testing.T) {
	t.Parallel()
	for _, code := range coreCodes {
		info := code.Info()
		e := &sqsq.Error{Code: code, Message: "text of " + string(code), Receiver: info.HTTPStatus >= 500}
		api := awssqs.APIError(e)
		_, generic := api.(*smithy.GenericAPIError)
		if generic == info.Modeled {
			t.Errorf("%s: APIError is %T; Modeled is %v", code, api, info.Modeled)
		}
		if api.ErrorCode() != info.QueryCode || api.ErrorMessage() != e.Message {
			t.Errorf("%s: ErrorCode %q, ErrorMessage %q; want %q, %q", code, api.ErrorCode(), api.ErrorMessage(), info.QueryCode, e.Message)
		}
		wantFault := smithy.FaultClient
		if e.Receiver {
			wantFault = smithy.FaultServer
		}
		if api.ErrorFault() != wantFault {
			t.Errorf("%s: fault %v, want %v", code, api.ErrorFault(), wantFault)
		}
		back, ok := awssqs.CoreError(awssqs.SDKError("Op", e))
		if !ok || !reflect.DeepEqual(back, e) {
			t.Errorf("%s: CoreError(SDKError(e)) = %+v, %v; want %+v", code, back, ok, e)
		}
	}
}

func TestSDKErrorChain(t *testing.T) {
	t.Parallel()
	c, _ := newClient(t, awssqs.WithRequestIDFunc(func() string { return "req-1" }))
	_, err := c.PurgeQueue(context.Background(), &sqs.PurgeQueueInput{QueueUrl: new(string)})
	const want = "operation error SQS: PurgeQueue, https response error StatusCode: 400, RequestID: req-1, " +
		"AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist."
	if err == nil || err.Error() != want {
		t.Fatalf("error text\n%v\nwant\n%s", err, want)
	}
	var op *smithy.OperationError
	var re *awshttp.ResponseError
	var qne *types.QueueDoesNotExist
	switch {
	case !errors.As(err, &op) || op.Service() != "SQS" || op.Operation() != "PurgeQueue":
		t.Errorf("no OperationError of SQS PurgeQueue in %#v", err)
	case !errors.As(err, &re) || re.HTTPStatusCode() != 400 || re.ServiceRequestID() != "req-1":
		t.Errorf("response error %+v", re)
	case re.Response.Header.Get("X-Amzn-Query-Error") != "AWS.SimpleQueueService.NonExistentQueue;Sender" ||
		re.Response.Header.Get("X-Amzn-RequestId") != "req-1":
		t.Errorf("response headers %v: want the query error and request id headers AWS sends", re.Response.Header)
	case !errors.As(err, &qne) || qne.ErrorCodeOverride == nil || *qne.ErrorCodeOverride != "AWS.SimpleQueueService.NonExistentQueue":
		t.Errorf("typed error %+v: want ErrorCodeOverride set as the SDK sets it", qne)
	}
	if errors.Is(err, sqsq.ErrQueueDoesNotExist) {
		t.Errorf("the chain holds the sqsq error; the real SDK's cannot, so callers must not rely on it (use CoreError)")
	}
}

func TestSDKErrorContext(t *testing.T) {
	t.Parallel()
	for _, cause := range []error{context.Canceled, context.DeadlineExceeded} {
		err := awssqs.SDKError("ReceiveMessage", cause)
		want := fmt.Sprintf("operation error SQS: ReceiveMessage, https response error StatusCode: 0, RequestID: , canceled, %v", cause)
		if err.Error() != want || !errors.Is(err, cause) {
			t.Errorf("SDKError(%v) = %q; want %q, matching errors.Is", cause, err, want)
		}
		if _, ok := awssqs.CoreError(err); ok {
			t.Errorf("CoreError(%v) reports an API error", err)
		}
	}
	if awssqs.SDKError("X", nil) != nil {
		t.Error("SDKError(nil) is not nil")
	}
	other := errors.New("boom")
	if err := awssqs.SDKError("X", other); !errors.Is(err, other) || err.Error() != "operation error SQS: X, boom" {
		t.Errorf("SDKError(other) = %v", err)
	}
}
