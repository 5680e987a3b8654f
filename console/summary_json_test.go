package console

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestSummaryJSON: the hand-written summary is valid JSON that decodes to
// what encoding/json writes for the same struct.
func TestSummaryJSON(t *testing.T) {
	t.Parallel()
	ref := queueRef{Name: "src", URL: "http://h/queue/eu-west-1/1/src", Account: "1", Region: "eu-west-1", Local: false}
	for _, s := range []queueSummary{
		{Name: "plain", URL: "http://h/0/plain", ARN: "arn:aws:sqs:us-east-1:0:plain", Attributes: attributes{}, Sources: []queueRef{}},
		{
			Name: "dlq.fifo", URL: "u", ARN: "a", FIFO: true, Counts: counts{Available: 3, InFlight: -0, Delayed: 12},
			OldestAgeMs: 1234567, OldestAvailableAgeMs: 0,
			Attributes:      attributes{"RedrivePolicy": `{"deadLetterTargetArn":"x","maxReceiveCount":3}`, "Policy": "<a & b>\n\t\"q\"\\", "DelaySeconds": "0"},
			DeadLetterQueue: &deadLetterQueue{queueRef: ref, ARN: "arn:x", MaxReceiveCount: 5},
			Sources:         []queueRef{ref, {Name: "gone", Local: true}},
		},
		{Name: "nil maps", Attributes: nil, Sources: nil},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		type plain queueSummary // without the hand-written path
		type plainAttrs struct {
			plain
			Attributes map[string]string `json:"attributes,omitempty"`
		}
		if err := enc.Encode(plainAttrs{plain(s), s.Attributes}); err != nil {
			t.Fatal(err)
		}
		got, keys := s.appendJSON(nil, []string{"DelaySeconds"})           // another queue's names: not these
		if again, _ := s.appendJSON(nil, keys); !bytes.Equal(again, got) { // the names reused
			t.Errorf("%s: with its own names reused:\n%s\nwant\n%s", s.Name, again, got)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: %v: %s", s.Name, err, got)
		}
		if err := json.Unmarshal(want.Bytes(), &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %s\nwant %s", s.Name, got, bytes.TrimSpace(want.Bytes()))
		}
	}
}
