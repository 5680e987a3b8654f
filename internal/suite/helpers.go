package suite

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

// env is one test's view of its harness, with helpers that fail the test
// on unexpected errors.
type env struct {
	t   *testing.T
	h   Harness
	ctx context.Context
}

func (e *env) api() API { return e.h.API }

// createQueue creates a queue and returns its URL.
func (e *env) createQueue(name string, attrs map[string]string) string {
	e.t.Helper()
	out, err := e.api().CreateQueue(e.ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		e.t.Fatalf("CreateQueue %s: %v", name, err)
	}
	if out.QueueUrl == nil || !strings.HasSuffix(*out.QueueUrl, "/"+name) {
		e.t.Fatalf("CreateQueue %s returned URL %v, want one ending in /%s", name, out.QueueUrl, name)
	}
	return *out.QueueUrl
}

// fifoQueue creates a FIFO queue with the extra attributes.
func (e *env) fifoQueue(name string, attrs map[string]string) string {
	e.t.Helper()
	all := map[string]string{"FifoQueue": "true"}
	for k, v := range attrs {
		all[k] = v
	}
	return e.createQueue(name, all)
}

func (e *env) send(url, body string) *sqs.SendMessageOutput {
	e.t.Helper()
	return e.sendIn(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)})
}

func (e *env) sendIn(in *sqs.SendMessageInput) *sqs.SendMessageOutput {
	e.t.Helper()
	out, err := e.api().SendMessage(e.ctx, in)
	if err != nil {
		e.t.Fatalf("SendMessage %q: %v", aws.ToString(in.MessageBody), err)
	}
	return out
}

func (e *env) receive(in *sqs.ReceiveMessageInput) []types.Message {
	e.t.Helper()
	out, err := e.api().ReceiveMessage(e.ctx, in)
	if err != nil {
		e.t.Fatalf("ReceiveMessage: %v", err)
	}
	return out.Messages
}

// receiveN is a short-poll receive of up to max messages with the queue's
// visibility timeout.
func (e *env) receiveN(url string, max int32) []types.Message {
	e.t.Helper()
	return e.receive(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: max})
}

// receiveOne receives exactly one message.
func (e *env) receiveOne(url string) types.Message {
	e.t.Helper()
	msgs := e.receiveN(url, 1)
	if len(msgs) != 1 {
		e.t.Fatalf("ReceiveMessage returned %d messages, want 1", len(msgs))
	}
	return msgs[0]
}

func (e *env) deleteMessage(url string, m types.Message) {
	e.t.Helper()
	if _, err := e.api().DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}); err != nil {
		e.t.Fatalf("DeleteMessage: %v", err)
	}
}

func (e *env) attrs(url string, names ...string) map[string]string {
	e.t.Helper()
	in := &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url)}
	for _, n := range names {
		in.AttributeNames = append(in.AttributeNames, types.QueueAttributeName(n))
	}
	out, err := e.api().GetQueueAttributes(e.ctx, in)
	if err != nil {
		e.t.Fatalf("GetQueueAttributes %v: %v", names, err)
	}
	return out.Attributes
}

func (e *env) arn(url string) string {
	e.t.Helper()
	return e.attrs(url, "QueueArn")["QueueArn"]
}

// counts returns ApproximateNumberOfMessages, …NotVisible and …Delayed.
func (e *env) counts(url string) [3]int {
	e.t.Helper()
	a := e.attrs(url, "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed")
	var c [3]int
	for i, n := range []string{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"} {
		c[i], _ = strconv.Atoi(a[n])
	}
	return c
}

// advance moves a virtual clock by d. On the real clock the test skips
// from here on: the time group covers real waits.
func (e *env) advance(d time.Duration) {
	e.t.Helper()
	if e.h.Features.RealTime {
		e.t.Skipf("moves the clock by %v: virtual time only (the time group runs real waits)", d)
	}
	e.h.Clock.Advance(d)
}

// now is the harness clock's time; exact instants in a test need a virtual
// clock, so on the real clock the test skips from here on.
func (e *env) now() time.Time {
	e.t.Helper()
	if e.h.Features.RealTime {
		e.t.Skip("compares exact instants: virtual time only")
	}
	return e.h.Clock.Now()
}

// seconds is t as a Unix-seconds attribute, as the queue should report it;
// on the real clock, got stands if within a second of it.
func (e *env) seconds(t time.Time, got string) string {
	want := strconv.FormatInt(t.Unix(), 10)
	if g, err := strconv.ParseInt(got, 10, 64); err == nil && e.h.Features.RealTime && g >= t.Unix()-1 && g <= t.Unix()+1 {
		return got
	}
	return want
}

// waitParked waits until n receives are parked on the queue.
func (e *env) waitParked(url string, n int) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute) // a hang guard, not a timing
	defer cancel()
	if err := e.h.WaitForReceivers(ctx, url, n); err != nil {
		e.t.Fatalf("waiting for %d parked receives: %v", n, err)
	}
}

// must fails the test on err.
func (e *env) must(err error, what string) {
	e.t.Helper()
	if err != nil {
		e.t.Fatalf("%s: %v", what, err)
	}
}

// diff compares with reflect.DeepEqual and reports -want +got.
func (e *env) diff(want, got any, reason string) {
	e.t.Helper()
	if !reflect.DeepEqual(want, got) {
		e.t.Errorf("%s\n-want %#v\n+got  %#v", reason, want, got)
	}
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func bodies(msgs []types.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, aws.ToString(m.Body))
	}
	return out
}

// sortedKeys returns m's keys in order, nil for an empty m.
func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// wantErr describes an error as the SDK returns it from AWS.
type wantErr struct {
	op     string           // OperationName of the *smithy.OperationError
	is     func(error) bool // the service/sqs/types check; nil for a *smithy.GenericAPIError
	code   string           // ErrorCode(): the legacy code
	status int              // HTTP status of the response error
	msg    string           // ErrorMessage(); "" skips the check
}

// isA reports whether errors.As finds a T in err.
func isA[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}

// check reports how err differs from w, "" when it matches.
func (w wantErr) check(err error, f Features) string {
	if err == nil {
		return "got no error"
	}
	var problems []string
	var op *smithy.OperationError
	if !errors.As(err, &op) || op.ServiceID != "SQS" || op.OperationName != w.op {
		problems = append(problems, fmt.Sprintf("not an OperationError of SQS %s", w.op))
	}
	var re *awshttp.ResponseError
	if !errors.As(err, &re) {
		problems = append(problems, "no *awshttp.ResponseError in the chain")
	} else if re.HTTPStatusCode() != w.status {
		problems = append(problems, fmt.Sprintf("HTTP status %d, want %d", re.HTTPStatusCode(), w.status))
	}
	var api smithy.APIError
	if !errors.As(err, &api) {
		problems = append(problems, "no smithy.APIError in the chain")
	} else {
		if f.QueryProtocol {
			w = w.overQuery(api)
		}
		if api.ErrorCode() != w.code {
			problems = append(problems, fmt.Sprintf("ErrorCode() %q, want %q", api.ErrorCode(), w.code))
		}
		// sqshttp appends a hint to QueueDoesNotExist when a queue of the
		// name exists in another account or region (the region trap): AWS's
		// message is what comes before it.
		msg, _, _ := strings.Cut(api.ErrorMessage(), " sqsq: ")
		if w.msg != "" && msg != w.msg {
			problems = append(problems, fmt.Sprintf("ErrorMessage()\n\t%q, want\n\t%q", api.ErrorMessage(), w.msg))
		}
		if api.ErrorFault() != smithy.FaultClient && !(f.QueryProtocol && w.is == nil) {
			problems = append(problems, fmt.Sprintf("fault %v, want client", api.ErrorFault()))
		}
	}
	if w.is != nil && !w.is(err) {
		problems = append(problems, fmt.Sprintf("errors.As does not find the typed error (got %T)", api))
	}
	if w.is == nil && !isA[*smithy.GenericAPIError](err) {
		problems = append(problems, fmt.Sprintf("want a *smithy.GenericAPIError, got %T", api))
	}
	if len(problems) == 0 {
		return ""
	}
	return strings.Join(problems, "; ") + "\n\terror: " + err.Error()
}

// overQuery is w as the SDK reads the same error over the Query protocol
// (see [Features.QueryProtocol]).
func (w wantErr) overQuery(api smithy.APIError) wantErr {
	if w.is != nil {
		t := reflect.TypeOf(api)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		w.code = t.Name()
	}
	if w.msg == "The specified queue does not exist." {
		w.msg = "The specified queue does not exist for this wsdl version."
	}
	return w
}

// wantErr fails the test when err is not w.
func (e *env) wantErr(err error, w wantErr, reason string) {
	e.t.Helper()
	if p := w.check(err, e.h.Features); p != "" {
		e.t.Errorf("%s: %s", reason, p)
	}
}

// Common expectations.
func invalidParameter(op, msg string) wantErr {
	return wantErr{op: op, code: "InvalidParameterValue", status: 400, msg: msg}
}

func missingParameter(op, member string) wantErr {
	return wantErr{op: op, code: "MissingParameter", status: 400, msg: "The request must contain the parameter " + member + "."}
}

func queueDoesNotExist(op string) wantErr {
	return wantErr{op: op, is: isA[*types.QueueDoesNotExist], code: "AWS.SimpleQueueService.NonExistentQueue", status: 400,
		msg: "The specified queue does not exist."}
}
