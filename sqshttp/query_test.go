package sqshttp_test

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// receiveResponse is a ReceiveMessage response of the Query protocol.
type receiveResponse struct {
	XMLName  xml.Name `xml:"http://queue.amazonaws.com/doc/2012-11-05/ ReceiveMessageResponse"`
	Messages []struct {
		MessageId, ReceiptHandle, MD5OfBody, Body, MD5OfMessageAttributes string
		Attributes                                                        []struct{ Name, Value string } `xml:"Attribute"`
		MessageAttributes                                                 []struct {
			Name  string
			Value struct{ DataType, StringValue, BinaryValue string }
		} `xml:"MessageAttribute"`
	} `xml:"ReceiveMessageResult>Message"`
	RequestId string `xml:"ResponseMetadata>RequestId"`
}

func decodeXML(t *testing.T, w *httptest.ResponseRecorder, v any) {
	t.Helper()
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if err := xml.Unmarshal(w.Body.Bytes(), v); err != nil {
		t.Fatalf("%v in %s", err, w.Body)
	}
}

// TestQueryRaw speaks the Query protocol as a hand-written client does —
// form posts and GETs, to "/" and to queue URLs — and reads the XML.
func TestQueryRaw(t *testing.T) {
	t.Parallel()
	f := setup(t)

	var created struct {
		QueueUrl string `xml:"CreateQueueResult>QueueUrl"`
	}
	decodeXML(t, f.queryCall("/", form("Action", "CreateQueue", "Version", "2012-11-05", "QueueName", "raw",
		"Attribute.1.Name", "VisibilityTimeout", "Attribute.1.Value", "45",
		"Tag.1.Key", "team", "Tag.1.Value", "a+b @c")), &created)
	if created.QueueUrl != "http://example.com/000000000000/raw" {
		t.Fatalf("QueueUrl %q: built from the request's Host", created.QueueUrl)
	}
	path := "/000000000000/raw"

	// Send, with a message attribute and characters XML must escape.
	body := "<b>\r\n&amp; \"x\"</b>"
	var sent struct {
		MD5OfMessageBody       string `xml:"SendMessageResult>MD5OfMessageBody"`
		MD5OfMessageAttributes string `xml:"SendMessageResult>MD5OfMessageAttributes"`
		MessageId              string `xml:"SendMessageResult>MessageId"`
	}
	decodeXML(t, f.queryCall(path, form("Action", "SendMessage", "MessageBody", body,
		"MessageAttribute.1.Name", "k", "MessageAttribute.1.Value.DataType", "String", "MessageAttribute.1.Value.StringValue", "x")), &sent)
	if want := md5Hex(body); sent.MD5OfMessageBody != want || sent.MD5OfMessageAttributes != "a45daa70926828a2f0a1db3418e6feb4" {
		t.Errorf("send digests %+v, want body %s and the k=String:x vector of §5.8", sent, want)
	}

	// Receive by GET, with system and message attributes.
	var got receiveResponse
	decodeXML(t, f.serve(httptest.NewRequest(http.MethodGet,
		path+"?Action=ReceiveMessage&AttributeName.1=All&MessageAttributeName.1=All", nil)), &got)
	if len(got.Messages) != 1 {
		t.Fatalf("received %d messages", len(got.Messages))
	}
	m := got.Messages[0]
	if m.Body != body || m.MD5OfBody != md5Hex(body) || m.MessageId != sent.MessageId {
		t.Errorf("message %+v: the body must survive XML byte for byte (a carriage return included)", m)
	}
	if len(m.MessageAttributes) != 1 || m.MessageAttributes[0].Name != "k" || m.MessageAttributes[0].Value.StringValue != "x" ||
		m.MD5OfMessageAttributes != "a45daa70926828a2f0a1db3418e6feb4" {
		t.Errorf("message attributes %+v %s", m.MessageAttributes, m.MD5OfMessageAttributes)
	}
	attrs := map[string]string{}
	for _, a := range m.Attributes {
		attrs[a.Name] = a.Value
	}
	if attrs["ApproximateReceiveCount"] != "1" || attrs["SentTimestamp"] == "" || attrs["SenderId"] == "" {
		t.Errorf("system attributes %v", attrs)
	}

	// Queue attributes: the VisibilityTimeout set at creation, a counter.
	var qa struct {
		Attributes []struct{ Name, Value string } `xml:"GetQueueAttributesResult>Attribute"`
	}
	decodeXML(t, f.queryCall(path, form("Action", "GetQueueAttributes",
		"AttributeName.1", "VisibilityTimeout", "AttributeName.2", "ApproximateNumberOfMessagesNotVisible")), &qa)
	if len(qa.Attributes) != 2 || qa.Attributes[0].Name != "ApproximateNumberOfMessagesNotVisible" || qa.Attributes[0].Value != "1" ||
		qa.Attributes[1].Value != "45" {
		t.Errorf("queue attributes %+v, want them in name order", qa.Attributes)
	}

	// Tags.
	var tags struct {
		Tags []struct{ Key, Value string } `xml:"ListQueueTagsResult>Tag"`
	}
	decodeXML(t, f.queryCall(path, form("Action", "ListQueueTags")), &tags)
	if len(tags.Tags) != 1 || tags.Tags[0].Key != "team" || tags.Tags[0].Value != "a+b @c" {
		t.Errorf("tags %+v", tags.Tags)
	}

	// Delete by the queue URL path, then the handle is stale but the
	// delete of a standard queue still succeeds; the queue is empty.
	var deleted struct {
		XMLName   xml.Name `xml:"DeleteMessageResponse"`
		RequestId string   `xml:"ResponseMetadata>RequestId"`
	}
	decodeXML(t, f.queryCall(path, form("Action", "DeleteMessage", "ReceiptHandle", m.ReceiptHandle)), &deleted)
	if deleted.RequestId == "" || strings.Contains(f.queryCall(path, form("Action", "DeleteMessage", "ReceiptHandle", m.ReceiptHandle)).Body.String(), "Result") {
		t.Errorf("an empty result has no Result element, and a request id")
	}
	var again receiveResponse
	decodeXML(t, f.queryCall(path, form("Action", "ReceiveMessage")), &again)
	if len(again.Messages) != 0 {
		t.Errorf("received %d messages after the delete", len(again.Messages))
	}

	// A bad handle is the typed error, with its legacy code.
	e := checkXMLError(t, f.queryCall(path, form("Action", "DeleteMessage", "ReceiptHandle", "garbage")))
	if e.Error.Code != "ReceiptHandleIsInvalid" || e.Error.Message != `The input receipt handle "garbage" is not a valid receipt handle.` {
		t.Errorf("error %+v", e.Error)
	}
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}
