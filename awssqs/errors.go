package awssqs

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strconv"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/google/uuid"

	"github.com/sqsq/sqsq"
)

// serviceID is the ServiceID of the SDK's operation errors.
const serviceID = "SQS"

// modeled builds the service/sqs/types error of every error shape SQS
// models, keyed by the shape name: the __type of the AWS JSON protocol,
// which is [sqsq.CodeInfo.WireType]. It is the one table from sqsq's codes
// to the SDK's errors; codes without an entry become a
// smithy.GenericAPIError, as the SDK makes them. The SDK sets
// ErrorCodeOverride to the legacy code of the x-amzn-query-error header,
// so ErrorCode() returns that code ("AWS.SimpleQueueService.NonExistentQueue"
// for QueueDoesNotExist); so does this table.
var modeled = map[string]func(msg, code *string) smithy.APIError{
	"BatchEntryIdsNotDistinct": func(m, c *string) smithy.APIError {
		return &types.BatchEntryIdsNotDistinct{Message: m, ErrorCodeOverride: c}
	},
	"BatchRequestTooLong": func(m, c *string) smithy.APIError {
		return &types.BatchRequestTooLong{Message: m, ErrorCodeOverride: c}
	},
	"EmptyBatchRequest": func(m, c *string) smithy.APIError {
		return &types.EmptyBatchRequest{Message: m, ErrorCodeOverride: c}
	},
	"InvalidAddress": func(m, c *string) smithy.APIError {
		return &types.InvalidAddress{Message: m, ErrorCodeOverride: c}
	},
	"InvalidAttributeName": func(m, c *string) smithy.APIError {
		return &types.InvalidAttributeName{Message: m, ErrorCodeOverride: c}
	},
	"InvalidAttributeValue": func(m, c *string) smithy.APIError {
		return &types.InvalidAttributeValue{Message: m, ErrorCodeOverride: c}
	},
	"InvalidBatchEntryId": func(m, c *string) smithy.APIError {
		return &types.InvalidBatchEntryId{Message: m, ErrorCodeOverride: c}
	},
	"InvalidIdFormat": func(m, c *string) smithy.APIError {
		return &types.InvalidIdFormat{Message: m, ErrorCodeOverride: c}
	},
	"InvalidMessageContents": func(m, c *string) smithy.APIError {
		return &types.InvalidMessageContents{Message: m, ErrorCodeOverride: c}
	},
	"InvalidSecurity": func(m, c *string) smithy.APIError {
		return &types.InvalidSecurity{Message: m, ErrorCodeOverride: c}
	},
	"KmsAccessDenied": func(m, c *string) smithy.APIError {
		return &types.KmsAccessDenied{Message: m, ErrorCodeOverride: c}
	},
	"KmsDisabled": func(m, c *string) smithy.APIError {
		return &types.KmsDisabled{Message: m, ErrorCodeOverride: c}
	},
	"KmsInvalidKeyUsage": func(m, c *string) smithy.APIError {
		return &types.KmsInvalidKeyUsage{Message: m, ErrorCodeOverride: c}
	},
	"KmsInvalidState": func(m, c *string) smithy.APIError {
		return &types.KmsInvalidState{Message: m, ErrorCodeOverride: c}
	},
	"KmsNotFound": func(m, c *string) smithy.APIError {
		return &types.KmsNotFound{Message: m, ErrorCodeOverride: c}
	},
	"KmsOptInRequired": func(m, c *string) smithy.APIError {
		return &types.KmsOptInRequired{Message: m, ErrorCodeOverride: c}
	},
	"KmsThrottled": func(m, c *string) smithy.APIError {
		return &types.KmsThrottled{Message: m, ErrorCodeOverride: c}
	},
	"MessageNotInflight": func(m, c *string) smithy.APIError {
		return &types.MessageNotInflight{Message: m, ErrorCodeOverride: c}
	},
	"OverLimit": func(m, c *string) smithy.APIError {
		return &types.OverLimit{Message: m, ErrorCodeOverride: c}
	},
	"PurgeQueueInProgress": func(m, c *string) smithy.APIError {
		return &types.PurgeQueueInProgress{Message: m, ErrorCodeOverride: c}
	},
	"QueueDeletedRecently": func(m, c *string) smithy.APIError {
		return &types.QueueDeletedRecently{Message: m, ErrorCodeOverride: c}
	},
	"QueueDoesNotExist": func(m, c *string) smithy.APIError {
		return &types.QueueDoesNotExist{Message: m, ErrorCodeOverride: c}
	},
	"QueueNameExists": func(m, c *string) smithy.APIError {
		return &types.QueueNameExists{Message: m, ErrorCodeOverride: c}
	},
	"ReceiptHandleIsInvalid": func(m, c *string) smithy.APIError {
		return &types.ReceiptHandleIsInvalid{Message: m, ErrorCodeOverride: c}
	},
	"RequestThrottled": func(m, c *string) smithy.APIError {
		return &types.RequestThrottled{Message: m, ErrorCodeOverride: c}
	},
	"ResourceNotFoundException": func(m, c *string) smithy.APIError {
		return &types.ResourceNotFoundException{Message: m, ErrorCodeOverride: c}
	},
	"TooManyEntriesInBatchRequest": func(m, c *string) smithy.APIError {
		return &types.TooManyEntriesInBatchRequest{Message: m, ErrorCodeOverride: c}
	},
	"UnsupportedOperation": func(m, c *string) smithy.APIError {
		return &types.UnsupportedOperation{Message: m, ErrorCodeOverride: c}
	},
}

// APIError returns the error the AWS SDK for Go v2 deserializes from the
// wire error of e: the service/sqs/types error of e's shape (for example
// *types.QueueDoesNotExist) with Message and ErrorCodeOverride set, or a
// *smithy.GenericAPIError for codes SQS does not model (InvalidParameterValue,
// MissingParameter, …). Either way ErrorCode() is e.Code.Info().QueryCode,
// the legacy code AWS sends in the x-amzn-query-error header.
func APIError(e *sqsq.Error) smithy.APIError {
	info := e.Code.Info()
	code := info.QueryCode
	if build, ok := modeled[info.WireType]; ok {
		return build(optional(e.Message), &code)
	}
	fault := smithy.FaultClient
	if e.Receiver {
		fault = smithy.FaultServer
	}
	return &smithy.GenericAPIError{Code: code, Message: e.Message, Fault: fault}
}

// SDKError returns err as the AWS SDK for Go v2 returns the same failure of
// operation op (for example "SendMessage") from Amazon SQS:
//
//   - a *sqsq.Error becomes a *smithy.OperationError (ServiceID "SQS") around
//     an *awshttp.ResponseError (the HTTP status of the code, a request id)
//     around [APIError];
//   - context.Canceled and context.DeadlineExceeded become a
//     *smithy.OperationError around a status-0 response error around a
//     *smithy.CanceledError, as when the SDK's request is cancelled;
//   - any other error is wrapped in a *smithy.OperationError alone.
//
// nil stays nil. errors.As and errors.Is see through every layer, so
// errors.As(err, &qne) with qne a *types.QueueDoesNotExist and
// errors.Is(err, context.Canceled) work as against AWS.
func SDKError(op string, err error) error {
	return sdkError(op, err, uuid.NewString())
}

func sdkError(op string, err error, requestID string) error {
	if err == nil {
		return nil
	}
	var e *sqsq.Error
	switch {
	case errors.As(err, &e):
		info := e.Code.Info()
		fault := ";Sender"
		if e.Receiver {
			fault = ";Receiver"
		}
		err = responseError(info.HTTPStatus, requestID, info.QueryCode+fault, APIError(e))
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		err = responseError(0, "", "", &smithy.CanceledError{Err: err})
	}
	return &smithy.OperationError{ServiceID: serviceID, OperationName: op, Err: err}
}

// responseError is the SDK's HTTP response error around err.
func responseError(status int, requestID, queryError string, err error) error {
	h := http.Header{}
	resp := &http.Response{Header: h, Body: http.NoBody}
	if status != 0 {
		resp.Status = strconv.Itoa(status) + " " + http.StatusText(status)
		resp.StatusCode = status
		resp.Proto, resp.ProtoMajor, resp.ProtoMinor = "HTTP/1.1", 1, 1
		h.Set("Content-Type", "application/x-amz-json-1.0")
		h.Set("X-Amzn-Requestid", requestID)
		h.Set("X-Amzn-Query-Error", queryError)
	}
	return &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: resp}, Err: err},
		RequestID:     requestID,
	}
}

// CoreError recovers the sqsq error behind an error returned by a Client
// method or made by [SDKError] (or by the real SDK from a wire error): its
// Code, Message and fault. It reports false for errors that carry no API
// error, such as a cancelled context. The HTTP handler uses it to write the
// wire error of a failed call.
func CoreError(err error) (*sqsq.Error, bool) {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return nil, false
	}
	e := &sqsq.Error{Message: api.ErrorMessage(), Receiver: api.ErrorFault() == smithy.FaultServer}
	if _, generic := api.(*smithy.GenericAPIError); generic {
		// Unmodelled codes are named by their legacy code, as sqsq names them.
		e.Code = sqsq.Code(api.ErrorCode())
		return e, true
	}
	// Modelled shapes are named by their type, as sqsq names them.
	t := reflect.TypeOf(api)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	e.Code = sqsq.Code(t.Name())
	return e, true
}
