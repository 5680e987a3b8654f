package sqshttp_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/suite"
	"github.com/sqsq/sqsq/sqshttp"
)

// fixture is a handler over a fresh broker on a mock clock, with
// deterministic message ids and request ids.
type fixture struct {
	t   testing.TB
	b   *sqsq.Broker
	clk *clock.Mock
	h   http.Handler
}

func setup(t testing.TB, opts ...sqshttp.Option) *fixture {
	t.Helper()
	var ids, reqs atomic.Int64
	b, clk := suite.NewBroker(t, sqsq.WithIDFunc(func() string {
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", ids.Add(1))
	}))
	opts = append([]sqshttp.Option{sqshttp.WithRequestIDFunc(func() string {
		return fmt.Sprintf("req-%d", reqs.Add(1))
	})}, opts...)
	return &fixture{t: t, b: b, clk: clk, h: sqshttp.NewHandler(b, opts...)}
}

// queue creates a queue on the broker directly and returns its URL as the
// handler reports it to clients of host example.com.
func (f *fixture) queue(name string, attrs map[string]string) string {
	f.t.Helper()
	a, err := sqsq.ParseQueueAttributes(attrs)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.b.CreateQueue(context.Background(), sqsq.CreateQueueInput{QueueName: name, Attributes: a}); err != nil {
		f.t.Fatal(err)
	}
	return "http://example.com/000000000000/" + name
}

// jsonCall sends an AWS JSON 1.0 request for op with body.
func (f *fixture) jsonCall(op, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if op != "" {
		r.Header.Set("X-Amz-Target", "AmazonSQS."+op)
	}
	return f.serve(r)
}

// queryCall sends a form-encoded Query request to path.
func (f *fixture) queryCall(path string, params url.Values) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(params.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return f.serve(r)
}

func (f *fixture) serve(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}

// form builds Query parameters from alternating names and values.
func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

// jsonError is the body of an AWS JSON error.
type jsonError struct {
	Type    string `json:"__type"`
	Message string `json:"message"`
}

// checkJSONError checks that w is a well-formed AWS JSON error and returns it.
func checkJSONError(t *testing.T, w *httptest.ResponseRecorder) jsonError {
	t.Helper()
	var e jsonError
	if w.Code < 400 || w.Code >= 500 {
		t.Errorf("status %d, want a 4xx", w.Code)
	}
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Type == "" {
		t.Errorf("body %q is not an AWS JSON error (%v)", w.Body, err)
	}
	if w.Header().Get("Content-Type") != "application/x-amz-json-1.0" {
		t.Errorf("Content-Type %q", w.Header().Get("Content-Type"))
	}
	if q := w.Header().Get("x-amzn-query-error"); !strings.HasSuffix(q, ";Sender") {
		t.Errorf("x-amzn-query-error %q, want <code>;Sender", q)
	}
	if w.Header().Get("x-amzn-RequestId") == "" {
		t.Error("no x-amzn-RequestId")
	}
	return e
}

// xmlError is the body of a Query protocol error.
type xmlError struct {
	XMLName xml.Name `xml:"http://queue.amazonaws.com/doc/2012-11-05/ ErrorResponse"`
	Error   struct {
		Type    string
		Code    string
		Message string
		Detail  *struct{}
	}
	RequestId string
}

// checkXMLError checks that w is a well-formed Query protocol error and returns it.
func checkXMLError(t *testing.T, w *httptest.ResponseRecorder) xmlError {
	t.Helper()
	var e xmlError
	if w.Code < 400 || w.Code >= 500 {
		t.Errorf("status %d, want a 4xx", w.Code)
	}
	if err := xml.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error.Code == "" || e.Error.Type != "Sender" || e.Error.Detail == nil || e.RequestId == "" {
		t.Errorf("body %q is not a Query ErrorResponse (%v)", w.Body, err)
	}
	return e
}

// TestJSONErrors checks every error shape of the JSON protocol: the
// status, __type, x-amzn-query-error and message AWS sends.
func TestJSONErrors(t *testing.T) {
	t.Parallel()
	f := setup(t, sqshttp.WithMaxRequestBytes(1<<16))
	url := f.queue("q", nil)
	f.queue("purged", nil)
	if w := f.jsonCall("PurgeQueue", `{"QueueUrl":"purged"}`); w.Code != 200 {
		t.Fatalf("PurgeQueue: %d %s", w.Code, w.Body)
	}
	q := func(s string) string { return strings.ReplaceAll(s, "URL", url) }
	tests := []struct {
		reason, op, body string
		status           int
		typ, queryCode   string
		msg              string // "" skips
	}{
		{"a queue that does not exist", "SendMessage", `{"QueueUrl":"http://example.com/000000000000/nope","MessageBody":"x"}`,
			400, "com.amazonaws.sqs#QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist."},
		{"an unknown operation", "Frobnicate", `{}`,
			400, "com.amazon.coral.service#UnknownOperationException", "UnknownOperationException", ""},
		{"no target: not an operation", "", `{}`,
			400, "com.amazon.coral.service#UnknownOperationException", "UnknownOperationException", ""},
		{"malformed JSON", "SendMessage", `{"QueueUrl":`,
			400, "com.amazon.coral.service#SerializationException", "SerializationException", ""},
		{"a body that is not an object", "SendMessage", `[1,2]`,
			400, "com.amazon.coral.service#SerializationException", "SerializationException", ""},
		{"trailing garbage", "SendMessage", `{} x`,
			400, "com.amazon.coral.service#SerializationException", "SerializationException", ""},
		{"a string where a number belongs", "ReceiveMessage", q(`{"QueueUrl":"URL","MaxNumberOfMessages":"10"}`),
			400, "com.amazon.coral.service#SerializationException", "SerializationException", "Invalid value for member MaxNumberOfMessages: expected an integer."},
		{"a fraction where an integer belongs", "ReceiveMessage", q(`{"QueueUrl":"URL","WaitTimeSeconds":1.5}`),
			400, "com.amazon.coral.service#SerializationException", "SerializationException", ""},
		{"a number beyond int32", "ReceiveMessage", q(`{"QueueUrl":"URL","VisibilityTimeout":4294967296}`),
			400, "com.amazon.coral.service#SerializationException", "SerializationException", ""},
		{"a number where a string belongs", "SendMessage", q(`{"QueueUrl":"URL","MessageBody":5}`),
			400, "com.amazon.coral.service#SerializationException", "SerializationException", ""},
		{"a map where a list belongs", "GetQueueAttributes", q(`{"QueueUrl":"URL","AttributeNames":{"a":"b"}}`),
			400, "com.amazon.coral.service#SerializationException", "SerializationException", ""},
		{"bad base64", "SendMessage", q(`{"QueueUrl":"URL","MessageBody":"x","MessageAttributes":{"b":{"DataType":"Binary","BinaryValue":"!!"}}}`),
			400, "com.amazon.coral.service#SerializationException", "SerializationException", ""},
		{"a raw control character in a string", "SendMessage", q("{\"QueueUrl\":\"URL\",\"MessageBody\":\"a\x01\"}"),
			400, "com.amazon.coral.service#SerializationException", "SerializationException", ""},
		{"deeply nested garbage in an unknown member", "SendMessage", `{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
			400, "com.amazon.coral.service#SerializationException", "SerializationException", ""},
		{"a missing QueueUrl", "SendMessage", `{"MessageBody":"x"}`,
			400, "com.amazon.coral.service#MissingRequiredParameterException", "MissingParameter", "The request must contain the parameter QueueUrl."},
		{"a missing MessageBody", "SendMessage", q(`{"QueueUrl":"URL"}`),
			400, "com.amazon.coral.service#MissingRequiredParameterException", "MissingParameter", "The request must contain the parameter MessageBody."},
		{"a mis-cased member is unknown, so missing", "SendMessage", q(`{"QueueUrl":"URL","messagebody":"x"}`),
			400, "com.amazon.coral.service#MissingRequiredParameterException", "MissingParameter", "The request must contain the parameter MessageBody."},
		{"a body that is not UTF-8", "SendMessage", q("{\"QueueUrl\":\"URL\",\"MessageBody\":\"a\xffb\"}"),
			400, "com.amazonaws.sqs#InvalidMessageContents", "InvalidMessageContents", ""},
		{"a lone surrogate escape reads as U+FFFD, which is allowed", "SendMessage", q(`{"QueueUrl":"URL","MessageBody":"\ud800","DelaySeconds":901}`),
			400, "com.amazon.coral.service#InvalidParameterValueException", "InvalidParameterValue", ""},
		{"an explicit MaxNumberOfMessages of 0", "ReceiveMessage", q(`{"QueueUrl":"URL","MaxNumberOfMessages":0}`),
			400, "com.amazon.coral.service#InvalidParameterValueException", "InvalidParameterValue",
			"Value 0 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided."},
		{"an empty batch: EmptyBatchRequest, as over Query", "ChangeMessageVisibilityBatch", q(`{"QueueUrl":"URL","Entries":[]}`),
			400, "com.amazonaws.sqs#EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest",
			"There should be at least one ChangeMessageVisibilityBatchRequestEntry in the request."},
		{"an empty Tags map is a missing one, as over Query", "TagQueue", q(`{"QueueUrl":"URL","Tags":{}}`),
			400, "com.amazon.coral.service#MissingRequiredParameterException", "MissingParameter", "The request must contain the parameter Tags."},
		// AWS's answer to botocore's TagKeys=[] (getmoto/moto#1686); an
		// absent TagKeys is MissingParameter, as the model requires it.
		{"an empty TagKeys list", "UntagQueue", q(`{"QueueUrl":"URL","TagKeys":[]}`),
			400, "com.amazon.coral.service#InvalidParameterValueException", "InvalidParameterValue", "Tag keys must be between 1 and 128 characters in length."},
		{"an empty tag key", "UntagQueue", q(`{"QueueUrl":"URL","TagKeys":[""]}`),
			400, "com.amazon.coral.service#InvalidParameterValueException", "InvalidParameterValue", "Tag keys must be between 1 and 128 characters in length."},
		{"no TagKeys", "UntagQueue", q(`{"QueueUrl":"URL"}`),
			400, "com.amazon.coral.service#MissingRequiredParameterException", "MissingParameter", "The request must contain the parameter TagKeys."},
		{"a second purge within 60 s", "PurgeQueue", `{"QueueUrl":"purged"}`,
			403, "com.amazonaws.sqs#PurgeQueueInProgress", "AWS.SimpleQueueService.PurgeQueueInProgress", ""},
		{"a move task of an unknown source", "ListMessageMoveTasks", `{"SourceArn":"arn:aws:sqs:us-east-1:000000000000:nope"}`,
			404, "com.amazonaws.sqs#ResourceNotFoundException", "ResourceNotFoundException", ""},
		{"a body over the limit", "SendMessage", q(`{"QueueUrl":"URL","MessageBody":"` + strings.Repeat("x", 1<<16) + `"}`),
			413, "com.amazonaws.sqs#RequestEntityTooLarge", "RequestEntityTooLarge", "Request body must be no larger than 65536 bytes."},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			w := f.jsonCall(tt.op, tt.body)
			e := checkJSONError(t, w)
			if w.Code != tt.status || e.Type != tt.typ || w.Header().Get("x-amzn-query-error") != tt.queryCode+";Sender" {
				t.Errorf("got %d %s %s, want %d %s %s;Sender\n%s", w.Code, e.Type, w.Header().Get("x-amzn-query-error"),
					tt.status, tt.typ, tt.queryCode, w.Body)
			}
			if tt.msg != "" && e.Message != tt.msg {
				t.Errorf("message %q, want %q", e.Message, tt.msg)
			}
		})
	}
}

// TestQueryErrors checks the error shapes of the Query protocol.
func TestQueryErrors(t *testing.T) {
	t.Parallel()
	f := setup(t)
	qurl := f.queue("q", nil)
	tests := []struct {
		reason string
		method string
		target string // path and query
		params url.Values
		status int
		code   string
		msg    string // "" skips
	}{
		{"a queue that does not exist", "POST", "/", form("Action", "SendMessage", "QueueUrl", qurl+"x", "MessageBody", "b"),
			400, "AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist for this wsdl version."},
		{"an unknown action", "POST", "/", form("Action", "Frobnicate"),
			400, "InvalidAction", "The action Frobnicate is not valid for this endpoint."},
		{"no action", "POST", "/", form("QueueUrl", qurl),
			400, "MissingAction", ""},
		{"GET on a queue URL without an action", "GET", "/000000000000/q", nil,
			404, "UnknownOperationException", ""},
		{"a queue-level action to a queue URL is fine, an account-level one is not", "POST", "/000000000000/q", form("Action", "CreateQueue", "QueueName", "x"),
			400, "InvalidAction", "The action CreateQueue is not valid for this endpoint."},
		{"ListQueues to a queue URL", "GET", "/000000000000/q?Action=ListQueues", nil,
			400, "InvalidAction", "The action ListQueues is not valid for this endpoint."},
		{"a missing parameter", "POST", "/", form("Action", "SendMessage", "QueueUrl", qurl),
			400, "MissingParameter", "The request must contain the parameter MessageBody."},
		{"a number that is not one", "POST", "/", form("Action", "ReceiveMessage", "QueueUrl", qurl, "MaxNumberOfMessages", "ten"),
			400, "InvalidParameterValue", "Value ten for parameter MaxNumberOfMessages is invalid. Reason: Must be an integer."},
		{"an explicit MaxNumberOfMessages of 0", "POST", "/", form("Action", "ReceiveMessage", "QueueUrl", qurl, "MaxNumberOfMessages", "0"),
			400, "InvalidParameterValue", ""},
		{"a map entry without its key", "POST", "/", form("Action", "SetQueueAttributes", "QueueUrl", qurl, "Attribute.1.Value", "5"),
			400, "MissingParameter", "The request must contain the parameter Attribute.1.Name."},
		{"bad base64", "POST", "/", form("Action", "SendMessage", "QueueUrl", qurl, "MessageBody", "x",
			"MessageAttribute.1.Name", "b", "MessageAttribute.1.Value.DataType", "Binary", "MessageAttribute.1.Value.BinaryValue", "!!"),
			400, "InvalidParameterValue", ""},
		{"a body that is not UTF-8", "POST", "/", form("Action", "SendMessage", "QueueUrl", qurl, "MessageBody", "a\xffb"),
			400, "InvalidMessageContents", ""},
		{"an unknown attribute", "POST", "/", form("Action", "GetQueueAttributes", "QueueUrl", qurl, "AttributeName.1", "Nope"),
			400, "InvalidAttributeName", "Unknown Attribute Nope."},
		{"an empty batch", "POST", "/", form("Action", "SendMessageBatch", "QueueUrl", qurl, "SendMessageBatchRequestEntry", ""),
			400, "AWS.SimpleQueueService.EmptyBatchRequest", ""},
		// Query cannot send an empty list: botocore writes "Entries=", a raw
		// client nothing; either is an empty batch, not a missing parameter.
		{"a send batch of botocore's Entries=", "POST", "/", form("Action", "SendMessageBatch", "QueueUrl", qurl, "Entries", ""),
			400, "AWS.SimpleQueueService.EmptyBatchRequest", "There should be at least one SendMessageBatchRequestEntry in the request."},
		{"a send batch without entries", "POST", "/", form("Action", "SendMessageBatch", "QueueUrl", qurl),
			400, "AWS.SimpleQueueService.EmptyBatchRequest", "There should be at least one SendMessageBatchRequestEntry in the request."},
		{"a delete batch of botocore's Entries=", "POST", "/", form("Action", "DeleteMessageBatch", "QueueUrl", qurl, "Entries", ""),
			400, "AWS.SimpleQueueService.EmptyBatchRequest", "There should be at least one DeleteMessageBatchRequestEntry in the request."},
		{"a delete batch without entries", "POST", "/000000000000/q", form("Action", "DeleteMessageBatch"),
			400, "AWS.SimpleQueueService.EmptyBatchRequest", "There should be at least one DeleteMessageBatchRequestEntry in the request."},
		{"a change visibility batch of botocore's Entries=", "POST", "/", form("Action", "ChangeMessageVisibilityBatch", "QueueUrl", qurl, "Entries", ""),
			400, "AWS.SimpleQueueService.EmptyBatchRequest", "There should be at least one ChangeMessageVisibilityBatchRequestEntry in the request."},
		{"a change visibility batch without entries", "GET", "/000000000000/q?Action=ChangeMessageVisibilityBatch", nil,
			400, "AWS.SimpleQueueService.EmptyBatchRequest", "There should be at least one ChangeMessageVisibilityBatchRequestEntry in the request."},
		{"a batch without entries to a queue that does not exist", "POST", "/", form("Action", "DeleteMessageBatch", "QueueUrl", qurl+"x"),
			400, "AWS.SimpleQueueService.NonExistentQueue", ""},
		{"a batch without entries or QueueUrl", "POST", "/", form("Action", "DeleteMessageBatch"),
			400, "MissingParameter", "The request must contain the parameter QueueUrl."},
		// Nor an empty map: TagQueue without tags is missing its Tags, as
		// the same request over JSON is.
		{"TagQueue without tags", "POST", "/", form("Action", "TagQueue", "QueueUrl", qurl),
			400, "MissingParameter", "The request must contain the parameter Tags."},
		{"TagQueue of botocore's Tags=", "POST", "/", form("Action", "TagQueue", "QueueUrl", qurl, "Tags", ""),
			400, "MissingParameter", "The request must contain the parameter Tags."},
		{"TagQueue of an empty Tag", "POST", "/", form("Action", "TagQueue", "QueueUrl", qurl, "Tag", ""),
			400, "MissingParameter", "The request must contain the parameter Tags."},
		{"UntagQueue without keys", "POST", "/000000000000/q", form("Action", "UntagQueue"),
			400, "MissingParameter", "The request must contain the parameter TagKeys."},
		// TagKeys is not a Query name (the member's xmlName is TagKey), so
		// TagKeys= leaves the list absent.
		{"UntagQueue of TagKeys=, not a wire name", "POST", "/", form("Action", "UntagQueue", "QueueUrl", qurl, "TagKeys", ""),
			400, "MissingParameter", "The request must contain the parameter TagKeys."},
		// An empty list under the wire name TagKey (TagKey=: botocore writes
		// an empty list as its member's serialized name with an empty value,
		// and TagKeys' xmlName is TagKey) or an empty key: AWS answered
		// botocore's untag_queue(TagKeys=[]) so (getmoto/moto#1686).
		{"UntagQueue of an empty TagKey list", "POST", "/", form("Action", "UntagQueue", "QueueUrl", qurl, "TagKey", ""),
			400, "InvalidParameterValue", "Tag keys must be between 1 and 128 characters in length."},
		{"UntagQueue of an empty key", "POST", "/", form("Action", "UntagQueue", "QueueUrl", qurl, "TagKey.1", ""),
			400, "InvalidParameterValue", "Tag keys must be between 1 and 128 characters in length."},
		{"a malformed query string", "GET", "/?Action=ListQueues&x=%zz", nil,
			400, "MalformedQueryString", ""},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			var body io.Reader
			if tt.params != nil {
				body = strings.NewReader(tt.params.Encode())
			}
			r := httptest.NewRequest(tt.method, tt.target, body)
			if body != nil {
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			w := f.serve(r)
			e := checkXMLError(t, w)
			if w.Code != tt.status || e.Error.Code != tt.code {
				t.Errorf("got %d %s, want %d %s\n%s", w.Code, e.Error.Code, tt.status, tt.code, w.Body)
			}
			if tt.msg != "" && e.Error.Message != tt.msg {
				t.Errorf("message %q, want %q", e.Error.Message, tt.msg)
			}
			if w.Header().Get("Content-Type") != "text/xml" || w.Header().Get("x-amzn-RequestId") != e.RequestId {
				t.Errorf("headers %v, body request id %q", w.Header(), e.RequestId)
			}
		})
	}
}

// mustOK fails the test unless w is a 200.
func mustOK(t *testing.T, w *httptest.ResponseRecorder) *httptest.ResponseRecorder {
	t.Helper()
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	return w
}

// TestJSONEmptyOutputs checks that every operation without output members
// answers over JSON with a 200 and an empty body, not {}: AWS does
// (recorded for SetQueueAttributes and DeleteQueue; the API reference says
// "an HTTP 200 response with an empty HTTP body"). The request id header
// stays. The behaviour suite shows the Go SDK accepts it.
func TestJSONEmptyOutputs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	url := f.queue("q", nil)
	mustOK(t, f.jsonCall("SendMessage", `{"QueueUrl":"`+url+`","MessageBody":"x"}`))
	var got struct {
		Messages []struct{ ReceiptHandle string }
	}
	if err := json.Unmarshal(mustOK(t, f.jsonCall("ReceiveMessage", `{"QueueUrl":"`+url+`"}`)).Body.Bytes(), &got); err != nil || len(got.Messages) != 1 {
		t.Fatalf("receive: %v %+v", err, got)
	}
	rh := got.Messages[0].ReceiptHandle
	calls := []struct{ op, body string }{ // in an order where each succeeds
		{"SetQueueAttributes", `{"QueueUrl":"` + url + `","Attributes":{"DelaySeconds":"1"}}`},
		{"TagQueue", `{"QueueUrl":"` + url + `","Tags":{"a":"b"}}`},
		{"UntagQueue", `{"QueueUrl":"` + url + `","TagKeys":["a"]}`},
		{"AddPermission", `{"QueueUrl":"` + url + `","Label":"l","AWSAccountIds":["111122223333"],"Actions":["SendMessage"]}`},
		{"RemovePermission", `{"QueueUrl":"` + url + `","Label":"l"}`},
		{"ChangeMessageVisibility", `{"QueueUrl":"` + url + `","ReceiptHandle":"` + rh + `","VisibilityTimeout":60}`},
		{"DeleteMessage", `{"QueueUrl":"` + url + `","ReceiptHandle":"` + rh + `"}`},
		{"PurgeQueue", `{"QueueUrl":"` + url + `"}`},
		{"DeleteQueue", `{"QueueUrl":"` + url + `"}`},
	}
	covered := map[string]bool{}
	for _, c := range calls {
		covered[c.op] = true
		w := f.jsonCall(c.op, c.body)
		if w.Code != http.StatusOK || w.Body.Len() != 0 || w.Header().Get("Content-Length") != "0" || w.Header().Get("x-amzn-RequestId") == "" {
			t.Errorf("%s: %d, Content-Length %q, x-amzn-RequestId %q, body %q; want 200 and an empty body with a request id",
				c.op, w.Code, w.Header().Get("Content-Length"), w.Header().Get("x-amzn-RequestId"), w.Body)
		}
	}
	// Every operation of the SDK whose output has no members is covered.
	client := reflect.TypeFor[*sqs.Client]()
	for i := range client.NumMethod() {
		m := client.Method(i)
		if m.Type.NumOut() != 2 || m.Type.Out(0).Kind() != reflect.Pointer || !strings.HasSuffix(m.Type.Out(0).Elem().Name(), "Output") {
			continue
		}
		out := m.Type.Out(0).Elem()
		members := 0
		for j := range out.NumField() {
			if fl := out.Field(j); fl.IsExported() && fl.Name != "ResultMetadata" {
				members++
			}
		}
		if members == 0 && !covered[m.Name] {
			t.Errorf("%s has no output members and is not checked here", m.Name)
		}
	}
	// An output with members is a JSON object, even when they are all absent.
	if w := mustOK(t, f.jsonCall("ListQueues", `{}`)); w.Body.String() != "{}" {
		t.Errorf("ListQueues of no queues: %q, want {}", w.Body)
	}
}
