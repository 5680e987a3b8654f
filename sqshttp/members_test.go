package sqshttp

import (
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestShapes checks the wire names read from the SDK's serializers: every
// member of every operation's input is known, under the model's names.
func TestShapes(t *testing.T) {
	t.Parallel()
	if len(operations) != 23 {
		t.Errorf("%d operations, want SQS's 23", len(operations))
	}
	for name, o := range operations {
		s := shapeOf(o.input)
		for i := 0; i < o.input.NumField(); i++ {
			if f := o.input.Field(i); f.IsExported() && s.byJSON[f.Name] == nil && !(name == "CreateQueue" && f.Name == "Tags") {
				t.Errorf("%s: member %s has no wire name", name, f.Name)
			}
		}
	}
	create := shapeOf(reflect.TypeFor[sqs.CreateQueueInput]())
	tags := create.byJSON["tags"]
	if tags == nil || create.byJSON["Tags"] != nil {
		t.Fatal(`CreateQueue's tags travel as "tags" on the JSON wire`)
	}
	if tags.query != "Tag" || !tags.flat || tags.key != "Key" || tags.value != "Value" {
		t.Errorf("CreateQueue tags over Query: %+v, want flattened Tag.N.Key/Value", tags)
	}
	entries := shapeOf(reflect.TypeFor[sqs.SendMessageBatchInput]()).byJSON["Entries"]
	if entries.query != "SendMessageBatchRequestEntry" || !entries.flat || entries.elem.byQuery["MessageAttribute"] == nil {
		t.Errorf("SendMessageBatch entries over Query: %+v", entries)
	}
	recv := shapeOf(reflect.TypeFor[sqs.ReceiveMessageInput]())
	if recv.byQuery["MessageSystemAttributeName"] == nil || recv.byQuery["AttributeName"] == nil {
		t.Errorf("ReceiveMessage over Query takes AttributeName.N and MessageSystemAttributeName.N")
	}
}
