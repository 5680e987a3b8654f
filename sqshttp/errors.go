package sqshttp

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
	"github.com/sqsq/sqsq/internal/jsontext"
)

// Errors of the protocol layer, which SQS itself does not model. Their
// wire names come from [sqsq.Code.Info], which reads an unknown code as a
// 400 sender error named after itself; the status is set where it differs.
const (
	codeUnknownOperation      sqsq.Code = "UnknownOperationException"
	codeSerialization         sqsq.Code = "SerializationException"
	codeInvalidAction         sqsq.Code = "InvalidAction"
	codeMissingAction         sqsq.Code = "MissingAction"
	codeMalformedQueryString  sqsq.Code = "MalformedQueryString"
	codeRequestEntityTooLarge sqsq.Code = "RequestEntityTooLarge"
	codeRequestCanceled       sqsq.Code = "RequestCanceled"
	codeInternalFailure       sqsq.Code = "InternalFailure"
	codeInvalidClientTokenId  sqsq.Code = "InvalidClientTokenId"
)

// wireError is an error as the handler writes it: the core error plus the
// HTTP status, which differs from the code's for a few protocol errors.
type wireError struct {
	err    *sqsq.Error
	status int
}

const (
	sqsNamespace   = "com.amazonaws.sqs#"
	coralNamespace = "com.amazon.coral.service#"
)

// coralTypes is the JSON protocol's __type of the errors that AWS's service
// framework (Coral) answers rather than SQS's model: the common errors.
// Every other code is "com.amazonaws.sqs#" + its [sqsq.CodeInfo.WireType],
// as the recordings show for the shapes SQS models (QueueDoesNotExist,
// QueueNameExists, PurgeQueueInProgress, ReceiptHandleIsInvalid, the batch
// errors, InvalidAttributeName/Value, InvalidMessageContents,
// UnsupportedOperation). x-amzn-query-error keeps the legacy code, from
// which the SDKs take ErrorCode(). Evidence, responses of AWS recorded in
// public:
//
//   - [GoCDK]: gocloud.dev v0.47.0, pubsub/awssnssqs/testdata/TestFIFO/
//     TestSQSTopic/TestSendReceiveInvalidNo*.replay (2024-05-31);
//   - [pail]: github.com/yavosh/pail, test/diff/testdata/golden/sqs-*.json
//     (its README: recorded against AWS SQS in us-east-1).
//
// Codes without a recording keep "com.amazonaws.sqs#": InternalFailure,
// ServiceUnavailable, InvalidParameterCombination, RequestEntityTooLarge,
// ThrottlingException and the other injected ones.
var coralTypes = map[sqsq.Code]string{
	// [GoCDK] both FIFO replays; [pail] sqs-errors (create-invalid-name,
	// send-too-long, receive-max-11, receive-wait-21,
	// get-queue-url-missing-name), sqs-fifo, sqs-dead-letter, sqs-edge-cases.
	sqsq.CodeInvalidParameterValue: "InvalidParameterValueException",
	// [pail] sqs-errors/send-empty-body, sqs-edge-cases/
	// delete-missing-receipt-handle and change-visibility-missing-timeout,
	// sqs-fifo/send-missing-group.
	sqsq.CodeMissingParameter: "MissingRequiredParameterException",
	// [pail] sqs-errors/unknown-operation (AWS's header code: InvalidAction).
	codeUnknownOperation: "UnknownOperationException",
	// [pail] sqs-errors/malformed-json, sqs-edge-cases/body-array and
	// body-string (AWS's header code: MalformedInput).
	codeSerialization: "SerializationException",
	// [pail] sqs-auth-errors/no-credentials: 403, AccessDenied;Sender.
	codeAccessDenied: "AccessDeniedException",
	// [pail] sqs-auth-errors/unknown-key: 403, InvalidClientTokenId;Sender.
	codeInvalidClientTokenId: "UnrecognizedClientException",
}

// jsonType is the __type of code in the AWS JSON protocol.
func jsonType(code sqsq.Code) string {
	if t, ok := coralTypes[code]; ok {
		return coralNamespace + t
	}
	return sqsNamespace + code.Info().WireType
}

func newWireError(code sqsq.Code, msg string) *wireError {
	e := &wireError{err: &sqsq.Error{Code: code, Message: msg}}
	e.status = code.Info().HTTPStatus
	switch code {
	case codeRequestEntityTooLarge:
		e.status = http.StatusRequestEntityTooLarge
	case codeInternalFailure:
		e.status = http.StatusInternalServerError
	case codeInvalidClientTokenId:
		e.status = http.StatusForbidden
	}
	return e
}

// errorFor turns what an adapter method returned into the wire error:
// the core error behind the SDK's error chain, a cancelled request, or an
// internal failure.
func errorFor(err error) *wireError {
	var core *sqsq.Error
	if errors.As(err, &core) { // from the decoders
		return &wireError{err: core, status: core.Code.Info().HTTPStatus}
	}
	if e, ok := awssqs.CoreError(err); ok {
		return &wireError{err: e, status: e.Code.Info().HTTPStatus}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return newWireError(codeRequestCanceled, "The request was cancelled.")
	}
	return errInternal()
}

// errInternal is SQS's common error for a failure of its own (API
// Reference, Common Errors: InternalFailure, HTTP 500).
func errInternal() *wireError {
	return newWireError(codeInternalFailure, "The request processing has failed because of an unknown error.")
}

// fault is the fault part of x-amzn-query-error and of the Query
// protocol's Error/Type.
func (e *wireError) fault() string {
	if e.err.Receiver || e.status >= 500 {
		return "Receiver"
	}
	return "Sender"
}

// writeJSON writes e in the AWS JSON 1.0 protocol with SQS's
// awsQueryCompatible header, from which the SDKs take the legacy code, as
// the answer to r.
func (e *wireError) writeJSON(w http.ResponseWriter, r *http.Request) {
	noteError(r, e)
	info := e.err.Code.Info()
	h := w.Header()
	h.Set("Content-Type", jsonContentType)
	h.Set("x-amzn-query-error", info.QueryCode+";"+e.fault())
	b := make([]byte, 0, 128+len(e.err.Message))
	b = append(b, `{"__type":`...)
	b = jsontext.AppendString(b, jsonType(e.err.Code))
	b = append(b, `,"message":`...)
	b = jsontext.AppendString(b, e.err.Message)
	b = append(b, '}')
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(e.status)
	_, _ = w.Write(b)
}

// queryMessage is the message of e over the Query protocol, where AWS words
// QueueDoesNotExist differently.
func (e *wireError) queryMessage() string {
	if e.err.Code == sqsq.CodeQueueDoesNotExist {
		if rest, ok := strings.CutPrefix(e.err.Message, "The specified queue does not exist."); ok {
			return "The specified queue does not exist for this wsdl version." + rest // rest: a hint
		}
	}
	return e.err.Message
}

// writeXML writes e in the Query protocol, as the answer to r: an
// ErrorResponse document with the legacy code.
func (e *wireError) writeXML(w http.ResponseWriter, r *http.Request, requestID string) {
	noteError(r, e)
	info := e.err.Code.Info()
	b := make([]byte, 0, 256+len(e.err.Message))
	b = append(b, `<?xml version="1.0"?><ErrorResponse xmlns="`+queryNamespace+`"><Error><Type>`...)
	b = append(b, e.fault()...)
	b = append(b, "</Type><Code>"...)
	b = appendXMLText(b, info.QueryCode)
	b = append(b, "</Code><Message>"...)
	b = appendXMLText(b, e.queryMessage())
	b = append(b, "</Message><Detail/></Error><RequestId>"...)
	b = appendXMLText(b, requestID)
	b = append(b, "</RequestId></ErrorResponse>"...)
	h := w.Header()
	h.Set("Content-Type", xmlContentType)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(e.status)
	_, _ = w.Write(b)
}
