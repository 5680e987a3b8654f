package chaos

import "github.com/sqsq/sqsq"

// awsError is what AWS answers for an error code: its HTTP status and
// message.
type awsError struct {
	status  int
	message string
}

// awsErrors are the defaults of the codes a chaos rule most often injects,
// from the AWS SQS API Reference (see the package doc, "Sources"):
// the common errors of every AWS API, and SQS's own throttling errors.
var awsErrors = map[string]awsError{
	// Common Errors page.
	"InternalFailure":     {500, "The request processing has failed because of an unknown error, exception or failure."},
	"ServiceUnavailable":  {503, "The request has failed due to a temporary failure of the server."},
	"ThrottlingException": {400, "The request was denied due to request throttling."},
	// SQS's error shapes (RequestThrottled, OverLimit); OverLimit's 403 is
	// what sqsq answers for it everywhere (sqsq.CodeOverLimit).
	"RequestThrottled": {400, "The request was denied due to request throttling."},
	"OverLimit":        {403, "The specified action violates a limit."},
	// Not in the SQS reference: the text is S3's for the same code.
	"InternalError": {500, "We encountered an internal error. Please try again."},
}

// defaultStatus is the HTTP status AWS answers code with: the table's, else
// sqsq's for the codes it models (404 for ResourceNotFoundException, 403
// for PurgeQueueInProgress, …), else 400.
func defaultStatus(code string) int {
	if e, ok := awsErrors[code]; ok {
		return e.status
	}
	return sqsq.Code(code).Info().HTTPStatus
}

// defaultMessage is AWS's message for code, or "" when the table has none
// (sqshttp then answers "<code> (injected fault).").
func defaultMessage(code string) string {
	return awsErrors[code].message
}
