package sqsq

import (
	"errors"
	"fmt"
)

// Code is an SQS error code: the short name of the error shape as the AWS
// JSON protocol's __type carries it (QueueDoesNotExist, OverLimit, …), or the
// common AWS code for errors SQS does not model (InvalidParameterValue,
// MissingParameter, …). [Code.Info] tells how each travels on the wire.
type Code string

// The error codes sqsq produces. They match the error types of the AWS SDK for
// Go v2 (service/sqs/types) and the common AWS error codes.
const (
	CodeQueueDoesNotExist            Code = "QueueDoesNotExist"
	CodeQueueNameExists              Code = "QueueNameExists"
	CodeQueueDeletedRecently         Code = "QueueDeletedRecently"
	CodePurgeQueueInProgress         Code = "PurgeQueueInProgress"
	CodeReceiptHandleIsInvalid       Code = "ReceiptHandleIsInvalid"
	CodeMessageNotInflight           Code = "MessageNotInflight"
	CodeOverLimit                    Code = "OverLimit"
	CodeBatchEntryIdsNotDistinct     Code = "BatchEntryIdsNotDistinct"
	CodeTooManyEntriesInBatchRequest Code = "TooManyEntriesInBatchRequest"
	CodeEmptyBatchRequest            Code = "EmptyBatchRequest"
	CodeInvalidBatchEntryID          Code = "InvalidBatchEntryId"
	CodeBatchRequestTooLong          Code = "BatchRequestTooLong"
	CodeInvalidAttributeName         Code = "InvalidAttributeName"
	CodeInvalidAttributeValue        Code = "InvalidAttributeValue"
	CodeInvalidMessageContents       Code = "InvalidMessageContents"
	CodeResourceNotFound             Code = "ResourceNotFoundException"
	CodeUnsupportedOperation         Code = "UnsupportedOperation"
	CodeRequestThrottled             Code = "RequestThrottled"
	CodeInvalidParameterValue        Code = "InvalidParameterValue"
	CodeMissingParameter             Code = "MissingParameter"
	CodeInvalidParameterCombination  Code = "InvalidParameterCombination"
	CodeServiceUnavailable           Code = "ServiceUnavailable"
)

// CodeInfo says how an error code travels on the wire. It is the one table
// that the awssqs adapter and the sqshttp handler share.
type CodeInfo struct {
	// WireType is the shape name of the AWS JSON protocol's __type, without
	// its namespace: "com.amazonaws.sqs#" for the shapes SQS models,
	// "com.amazon.coral.service#" for the common errors (sqshttp's table).
	WireType string
	// QueryCode is the legacy code of the Query protocol and of the
	// x-amzn-query-error header; the Go SDK's ErrorCode() returns it.
	QueryCode string
	// HTTPStatus is the status AWS answers with.
	HTTPStatus int
	// Modeled reports whether service/sqs/types has a Go type for the code.
	Modeled bool
}

var codeTable = map[Code]CodeInfo{
	CodeQueueDoesNotExist:            {"QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", 400, true},
	CodeQueueNameExists:              {"QueueNameExists", "QueueAlreadyExists", 400, true},
	CodeQueueDeletedRecently:         {"QueueDeletedRecently", "AWS.SimpleQueueService.QueueDeletedRecently", 400, true},
	CodePurgeQueueInProgress:         {"PurgeQueueInProgress", "AWS.SimpleQueueService.PurgeQueueInProgress", 403, true},
	CodeReceiptHandleIsInvalid:       {"ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", 400, true},
	CodeMessageNotInflight:           {"MessageNotInflight", "AWS.SimpleQueueService.MessageNotInflight", 400, true},
	CodeOverLimit:                    {"OverLimit", "OverLimit", 403, true},
	CodeBatchEntryIdsNotDistinct:     {"BatchEntryIdsNotDistinct", "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400, true},
	CodeTooManyEntriesInBatchRequest: {"TooManyEntriesInBatchRequest", "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400, true},
	CodeEmptyBatchRequest:            {"EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest", 400, true},
	CodeInvalidBatchEntryID:          {"InvalidBatchEntryId", "AWS.SimpleQueueService.InvalidBatchEntryId", 400, true},
	CodeBatchRequestTooLong:          {"BatchRequestTooLong", "AWS.SimpleQueueService.BatchRequestTooLong", 400, true},
	CodeInvalidAttributeName:         {"InvalidAttributeName", "InvalidAttributeName", 400, true},
	CodeInvalidAttributeValue:        {"InvalidAttributeValue", "InvalidAttributeValue", 400, true},
	CodeInvalidMessageContents:       {"InvalidMessageContents", "InvalidMessageContents", 400, true},
	CodeResourceNotFound:             {"ResourceNotFoundException", "ResourceNotFoundException", 404, true},
	CodeUnsupportedOperation:         {"UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", 400, true},
	CodeRequestThrottled:             {"RequestThrottled", "RequestThrottled", 400, true},
	CodeInvalidParameterValue:        {"InvalidParameterValueException", "InvalidParameterValue", 400, false},
	CodeMissingParameter:             {"MissingRequiredParameterException", "MissingParameter", 400, false},
	CodeInvalidParameterCombination:  {"InvalidParameterCombination", "InvalidParameterCombination", 400, false},
	CodeServiceUnavailable:           {"ServiceUnavailable", "ServiceUnavailable", 503, false},
}

// Info returns the wire facts of c. An unknown code reads as a sender error
// with HTTP status 400 whose wire names are the code itself.
func (c Code) Info() CodeInfo {
	if info, ok := codeTable[c]; ok {
		return info
	}
	return CodeInfo{WireType: string(c), QueryCode: string(c), HTTPStatus: 400}
}

// Error is the error every sqsq operation returns for a failure SQS would
// report. Compare with errors.Is against the Err… sentinels, which match on
// Code alone, or take it apart with errors.As.
type Error struct {
	Code    Code
	Message string
	// Receiver is true for faults on the service's side (HTTP 5xx); false
	// for the caller's errors, which SQS calls sender faults.
	Receiver bool
}

func (e *Error) Error() string {
	if e.Message == "" {
		return "sqsq: " + string(e.Code)
	}
	return "sqsq: " + string(e.Code) + ": " + e.Message
}

// Is reports whether target is an *Error with the same Code, so that
// errors.Is(err, ErrQueueDoesNotExist) works whatever the message.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) {
		return false
	}
	return t.Code == e.Code
}

// Sentinels for errors.Is. Do not return or modify them: they carry no message.
var (
	ErrQueueDoesNotExist        = &Error{Code: CodeQueueDoesNotExist}
	ErrQueueNameExists          = &Error{Code: CodeQueueNameExists}
	ErrQueueDeletedRecently     = &Error{Code: CodeQueueDeletedRecently}
	ErrPurgeQueueInProgress     = &Error{Code: CodePurgeQueueInProgress}
	ErrReceiptHandleIsInvalid   = &Error{Code: CodeReceiptHandleIsInvalid}
	ErrMessageNotInflight       = &Error{Code: CodeMessageNotInflight}
	ErrOverLimit                = &Error{Code: CodeOverLimit}
	ErrBatchEntryIdsNotDistinct = &Error{Code: CodeBatchEntryIdsNotDistinct}
	ErrTooManyEntriesInBatch    = &Error{Code: CodeTooManyEntriesInBatchRequest}
	ErrEmptyBatchRequest        = &Error{Code: CodeEmptyBatchRequest}
	ErrInvalidBatchEntryID      = &Error{Code: CodeInvalidBatchEntryID}
	ErrBatchRequestTooLong      = &Error{Code: CodeBatchRequestTooLong}
	ErrInvalidAttributeName     = &Error{Code: CodeInvalidAttributeName}
	ErrInvalidAttributeValue    = &Error{Code: CodeInvalidAttributeValue}
	ErrInvalidMessageContents   = &Error{Code: CodeInvalidMessageContents}
	ErrResourceNotFound         = &Error{Code: CodeResourceNotFound}
	ErrInvalidParameterValue    = &Error{Code: CodeInvalidParameterValue}
	ErrMissingParameter         = &Error{Code: CodeMissingParameter}
	ErrInvalidParameterCombo    = &Error{Code: CodeInvalidParameterCombination}
	ErrUnsupportedOperation     = &Error{Code: CodeUnsupportedOperation}
	ErrRequestThrottled         = &Error{Code: CodeRequestThrottled}
	ErrClosed                   = &Error{Code: CodeServiceUnavailable, Message: "the broker is closed", Receiver: true}
)

// newError builds a sender-fault error.
func newError(code Code, format string, args ...any) *Error {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return &Error{Code: code, Message: msg}
}

// InvalidParameter returns AWS's usual InvalidParameterValue error, "Value v
// for parameter p is invalid. Reason: r". The awssqs adapter and the HTTP
// handler use it for the checks they make before the core sees a request.
func InvalidParameter(param string, value any, reason string) *Error {
	return newError(CodeInvalidParameterValue, "Value %v for parameter %s is invalid. Reason: %s", value, param, reason)
}

// MissingParameter returns AWS's MissingParameter error for a required
// member left out: "The request must contain the parameter p."
func MissingParameter(param string) *Error {
	return &Error{Code: CodeMissingParameter, Message: "The request must contain the parameter " + param + "."}
}

func invalidValue(param string, value any, reason string) *Error {
	return InvalidParameter(param, value, reason)
}

func errQueueDoesNotExist() *Error {
	return newError(CodeQueueDoesNotExist, "The specified queue does not exist.")
}
