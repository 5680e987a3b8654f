package sqshttp_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
)

// TestExplicitZero checks that a 0 a client sends means 0, in both
// protocols, while an omitted member means the queue's default. The Go SDK
// cannot send these zeros; boto3 and the JavaScript SDK can.
func TestExplicitZero(t *testing.T) {
	t.Parallel()
	// The queue waits 20 s by default, hides received messages for 30 s and
	// delays sent ones by 60 s: a request that does not override them
	// would park, hide or delay.
	attrs := map[string]string{"ReceiveMessageWaitTimeSeconds": "20", "DelaySeconds": "60"}

	t.Run("JSON", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		url := f.queue("zero", attrs)
		mustOK(t, f.jsonCall("SendMessage", `{"QueueUrl":"`+url+`","MessageBody":"a","DelaySeconds":0}`))
		mustOK(t, f.jsonCall("SendMessageBatch", `{"QueueUrl":"`+url+`","Entries":[{"Id":"b","MessageBody":"b","DelaySeconds":0},{"Id":"c","MessageBody":"c"}]}`))
		// Delay 0 made a and b visible; WaitTimeSeconds 0 makes this a short
		// poll that returns at once; VisibilityTimeout 0 leaves them visible.
		for range 2 {
			w := mustOK(t, f.jsonCall("ReceiveMessage", `{"QueueUrl":"`+url+`","MaxNumberOfMessages":10,"WaitTimeSeconds":0,"VisibilityTimeout":0}`))
			var out struct{ Messages []struct{ Body string } }
			if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
				t.Fatal(err)
			}
			if got := bodiesOf(out.Messages); got != "a,b" {
				t.Errorf("received %q, want a,b: c keeps the queue's delay", got)
			}
		}
		w := f.jsonCall("ReceiveMessage", `{"QueueUrl":"`+url+`","MaxNumberOfMessages":0,"WaitTimeSeconds":0}`)
		if e := checkJSONError(t, w); !strings.Contains(e.Message, "MaxNumberOfMessages") {
			t.Errorf("MaxNumberOfMessages 0: %s", w.Body)
		}
	})

	t.Run("JSON batch of ten", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		url := f.queue("zero", attrs)
		var entries []string
		for i := range 10 {
			delay := "" // odd entries keep the queue's delay
			if i%2 == 0 {
				delay = `,"DelaySeconds":0`
			}
			entries = append(entries, fmt.Sprintf(`{"Id":"e%d","MessageBody":"%d"%s}`, i, i, delay))
		}
		mustOK(t, f.jsonCall("SendMessageBatch", `{"QueueUrl":"`+url+`","Entries":[`+strings.Join(entries, ",")+`]}`))
		w := mustOK(t, f.jsonCall("ReceiveMessage", `{"QueueUrl":"`+url+`","MaxNumberOfMessages":10,"WaitTimeSeconds":0}`))
		var out struct{ Messages []struct{ Body string } }
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		if got := bodiesOf(out.Messages); got != "0,2,4,6,8" {
			t.Errorf("received %q, want the entries sent with DelaySeconds 0", got)
		}
	})

	t.Run("Query", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		url := f.queue("zero", attrs)
		mustOK(t, f.queryCall("/", form("Action", "SendMessage", "QueueUrl", url, "MessageBody", "a", "DelaySeconds", "0")))
		mustOK(t, f.queryCall("/000000000000/zero", form("Action", "SendMessageBatch",
			"SendMessageBatchRequestEntry.1.Id", "b", "SendMessageBatchRequestEntry.1.MessageBody", "b", "SendMessageBatchRequestEntry.1.DelaySeconds", "0",
			"SendMessageBatchRequestEntry.2.Id", "c", "SendMessageBatchRequestEntry.2.MessageBody", "c")))
		for range 2 {
			w := mustOK(t, f.queryCall("/000000000000/zero", form("Action", "ReceiveMessage",
				"MaxNumberOfMessages", "10", "WaitTimeSeconds", "0", "VisibilityTimeout", "0")))
			var out struct {
				Messages []struct{ Body string } `xml:"ReceiveMessageResult>Message"`
			}
			if err := xml.Unmarshal(w.Body.Bytes(), &out); err != nil {
				t.Fatal(err)
			}
			if got := bodiesOf(out.Messages); got != "a,b" {
				t.Errorf("received %q, want a,b: c keeps the queue's delay", got)
			}
		}
	})
}

func bodiesOf(msgs []struct{ Body string }) string {
	var b []string
	for _, m := range msgs {
		b = append(b, m.Body)
	}
	return strings.Join(b, ",")
}
