package sqshttp_test

import (
	"bytes"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// step is one request of a golden conversation.
type step struct {
	method, path string
	header       http.Header
	body         string
}

func jsonStep(op, body string) step {
	return step{method: "POST", path: "/", body: body, header: http.Header{
		"Content-Type": {"application/x-amz-json-1.0"},
		"X-Amz-Target": {"AmazonSQS." + op},
	}}
}

func queryStep(path string, kv ...string) step {
	return step{method: "POST", path: path, body: form(kv...).Encode(), header: http.Header{
		"Content-Type": {"application/x-www-form-urlencoded"},
	}}
}

// TestGolden replays conversations with the handler and compares each
// request and response, byte for byte, with testdata/golden. Run
// go test -run TestGolden -update to accept a change; the diff of the
// golden files then shows what a client would see differently.
func TestGolden(t *testing.T) {
	t.Parallel()
	const q = "http://example.com/000000000000/"
	cases := []struct {
		name  string
		steps []step
	}{
		{"json_messages", []step{
			jsonStep("CreateQueue", `{"QueueName":"orders","Attributes":{"VisibilityTimeout":"60","DelaySeconds":"0"},"tags":{"team":"pay","env":"test"}}`),
			jsonStep("GetQueueUrl", `{"QueueName":"orders"}`),
			jsonStep("SendMessage", `{"QueueUrl":"`+q+`orders","MessageBody":"order \"1\"\n","MessageAttributes":{`+
				`"s":{"DataType":"String","StringValue":"x"},"n":{"DataType":"Number.int","StringValue":"42"},"b":{"DataType":"Binary","BinaryValue":"AAEC"}},`+
				`"MessageSystemAttributes":{"AWSTraceHeader":{"DataType":"String","StringValue":"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"}}}`),
			jsonStep("SendMessageBatch", `{"QueueUrl":"`+q+`orders","Entries":[{"Id":"a","MessageBody":"two"},{"Id":"b","MessageBody":"\u0000"}]}`),
			jsonStep("ReceiveMessage", `{"QueueUrl":"`+q+`orders","MaxNumberOfMessages":10,"MessageSystemAttributeNames":["All"],"MessageAttributeNames":["All"]}`),
			jsonStep("ChangeMessageVisibilityBatch", `{"QueueUrl":"`+q+`orders","Entries":[{"Id":"x","ReceiptHandle":"garbage","VisibilityTimeout":0}]}`),
			jsonStep("DeleteMessageBatch", `{"QueueUrl":"`+q+`orders","Entries":[{"Id":"x","ReceiptHandle":"garbage"}]}`),
			jsonStep("GetQueueAttributes", `{"QueueUrl":"`+q+`orders","AttributeNames":["All"]}`),
			jsonStep("ListQueueTags", `{"QueueUrl":"`+q+`orders"}`),
			jsonStep("ListQueues", `{}`),
			jsonStep("ReceiveMessage", `{"QueueUrl":"`+q+`orders"}`),
			// No output members: an empty body, as AWS answers these two.
			jsonStep("SetQueueAttributes", `{"QueueUrl":"`+q+`orders","Attributes":{"DelaySeconds":"1"}}`),
			jsonStep("DeleteQueue", `{"QueueUrl":"`+q+`orders"}`),
		}},
		{"json_fifo_redrive", []step{
			jsonStep("CreateQueue", `{"QueueName":"dlq.fifo","Attributes":{"FifoQueue":"true"}}`),
			jsonStep("CreateQueue", `{"QueueName":"jobs.fifo","Attributes":{"FifoQueue":"true","ContentBasedDeduplication":"true",`+
				`"RedrivePolicy":"{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:dlq.fifo\",\"maxReceiveCount\":1}"}}`),
			jsonStep("SendMessage", `{"QueueUrl":"`+q+`jobs.fifo","MessageBody":"job","MessageGroupId":"g"}`),
			jsonStep("SendMessage", `{"QueueUrl":"`+q+`jobs.fifo","MessageBody":"job","MessageGroupId":"g"}`),
			jsonStep("ReceiveMessage", `{"QueueUrl":"`+q+`jobs.fifo","VisibilityTimeout":0,"AttributeNames":["SequenceNumber","MessageGroupId"]}`),
			jsonStep("ReceiveMessage", `{"QueueUrl":"`+q+`jobs.fifo"}`),
			jsonStep("ListDeadLetterSourceQueues", `{"QueueUrl":"`+q+`dlq.fifo"}`),
			jsonStep("StartMessageMoveTask", `{"SourceArn":"arn:aws:sqs:us-east-1:000000000000:dlq.fifo"}`),
			jsonStep("ListMessageMoveTasks", `{"SourceArn":"arn:aws:sqs:us-east-1:000000000000:dlq.fifo","MaxResults":10}`),
		}},
		{"json_errors", []step{
			jsonStep("GetQueueUrl", `{"QueueName":"nope"}`),
			jsonStep("Frobnicate", `{}`),
			jsonStep("SendMessage", `{"QueueUrl":`),
			jsonStep("ReceiveMessage", `{"QueueUrl":"x","MaxNumberOfMessages":"ten"}`),
			jsonStep("SendMessage", `{"MessageBody":"x"}`),
			jsonStep("CreateQueue", `{"QueueName":"bad name"}`),
			jsonStep("CancelMessageMoveTask", `{"TaskHandle":"nope"}`),
		}},
		{"query_messages", []step{
			queryStep("/", "Action", "CreateQueue", "Version", "2012-11-05", "QueueName", "orders",
				"Attribute.1.Name", "VisibilityTimeout", "Attribute.1.Value", "60", "Tag.1.Key", "team", "Tag.1.Value", "pay"),
			queryStep("/", "Action", "GetQueueUrl", "QueueName", "orders"),
			queryStep("/000000000000/orders", "Action", "SendMessage", "MessageBody", "<order>\r\n&1</order>",
				"MessageAttribute.1.Name", "s", "MessageAttribute.1.Value.DataType", "String", "MessageAttribute.1.Value.StringValue", "x",
				"MessageAttribute.2.Name", "b", "MessageAttribute.2.Value.DataType", "Binary", "MessageAttribute.2.Value.BinaryValue", "AAEC"),
			queryStep("/000000000000/orders", "Action", "SendMessageBatch",
				"SendMessageBatchRequestEntry.1.Id", "a", "SendMessageBatchRequestEntry.1.MessageBody", "two",
				"SendMessageBatchRequestEntry.2.Id", "b", "SendMessageBatchRequestEntry.2.MessageBody", "\x01"),
			queryStep("/000000000000/orders", "Action", "ReceiveMessage", "MaxNumberOfMessages", "10",
				"AttributeName.1", "All", "MessageAttributeName.1", "All"),
			queryStep("/000000000000/orders", "Action", "DeleteMessageBatch",
				"DeleteMessageBatchRequestEntry.1.Id", "x", "DeleteMessageBatchRequestEntry.1.ReceiptHandle", "garbage"),
			queryStep("/000000000000/orders", "Action", "GetQueueAttributes", "AttributeName.1", "All"),
			queryStep("/000000000000/orders", "Action", "ListQueueTags"),
			queryStep("/", "Action", "ListQueues"),
			queryStep("/000000000000/orders", "Action", "PurgeQueue"),
		}},
		{"query_errors", []step{
			queryStep("/", "Action", "GetQueueUrl", "QueueName", "nope"),
			queryStep("/", "Action", "Frobnicate"),
			{method: "GET", path: "/000000000000/orders"},
			queryStep("/000000000000/orders", "Action", "ListQueues"),
			queryStep("/", "Action", "SendMessage", "QueueUrl", q+"nope"),
			queryStep("/", "Action", "ReceiveMessage", "QueueUrl", q+"nope", "WaitTimeSeconds", "x"),
			queryStep("/", "Action", "CreateQueue", "QueueName", "orders"),
			queryStep("/000000000000/orders", "Action", "SendMessageBatch", "Entries", ""), // botocore's empty list
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			var out bytes.Buffer
			for _, s := range c.steps {
				r := httptest.NewRequest(s.method, s.path, strings.NewReader(s.body))
				for k, v := range s.header {
					r.Header[k] = v
				}
				w := f.serve(r)
				dump(&out, r, s.body, w)
			}
			path := filepath.Join("testdata", "golden", c.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(want, out.Bytes()) {
				t.Errorf("%s differs (-want +got):\n%s", path, lineDiff(string(want), out.String()))
			}
		})
	}
}

// dump writes a request and its response in a readable, stable form.
func dump(out *bytes.Buffer, r *http.Request, body string, w *httptest.ResponseRecorder) {
	fmt.Fprintf(out, "> %s %s\n", r.Method, r.URL.RequestURI())
	if t := r.Header.Get("X-Amz-Target"); t != "" {
		fmt.Fprintf(out, "> X-Amz-Target: %s\n", t)
	}
	if body != "" {
		if vals, err := url.ParseQuery(body); err == nil && r.Header.Get("X-Amz-Target") == "" {
			keys := make([]string, 0, len(vals))
			for k := range vals {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(out, ">   %s=%q\n", k, vals.Get(k))
			}
		} else {
			fmt.Fprintf(out, "> %s\n", body)
		}
	}
	fmt.Fprintf(out, "< %d\n", w.Code)
	keys := make([]string, 0, len(w.Header()))
	for k := range w.Header() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(out, "< %s: %s\n", k, w.Header().Get(k))
	}
	fmt.Fprintf(out, "< %s\n\n", w.Body.String())
}

// lineDiff is a minimal line diff: the lines that differ, by number.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "line %d:\n-%s\n+%s\n", i+1, a, c)
		}
	}
	return b.String()
}
