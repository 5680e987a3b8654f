package browser_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// historyOff is why the server serves no delivery history ("" when it
// does): the console answers its history paths 404 with a message that
// says the history is off.
func (p *page) historyOff() string {
	p.t.Helper()
	resp, err := http.Get(p.srv.URL + "/_sqsq/api/queues/orders/history")
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusNotFound && strings.Contains(string(body), "history is off") {
		return string(body)
	}
	return ""
}

// TestMessageHistory opens a message's delivery history from its queue
// page: sent and received by the application, received again once the
// first visibility timeout ended, then a late delete with the first,
// stale, handle that removed nothing. It needs a cmd/sqsq that records
// the history (console.WithHistory); against one that does not, it skips.
func TestMessageHistory(t *testing.T) {
	t.Parallel()
	p := newPage(t, "-clock", "virtual")
	q := p.createQueue("orders", nil)
	if off := p.historyOff(); off != "" {
		t.Skipf("cmd/sqsq serves no delivery history: %s", off)
	}
	sent, err := p.sqs.SendMessage(p.ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(`{"order":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(sent.MessageId)
	receive := func() string {
		t.Helper()
		out, err := p.sqs.ReceiveMessage(p.ctx, &sqs.ReceiveMessageInput{QueueUrl: q, VisibilityTimeout: 30})
		if err != nil || len(out.Messages) != 1 {
			t.Fatalf("ReceiveMessage: %+v, %v", out, err)
		}
		return aws.ToString(out.Messages[0].ReceiptHandle)
	}
	first := receive()
	if err := p.srv.Advance(p.ctx, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	receive()
	if _, err := p.sqs.DeleteMessage(p.ctx, &sqs.DeleteMessageInput{QueueUrl: q, ReceiptHandle: aws.String(first)}); err != nil {
		t.Fatal(err)
	}

	p.open("")
	p.waitFor("the queue orders in the list", exists(queueRow("orders")))
	p.openQueue("orders")
	p.waitFor("the message in the list", exists(messageRow(id)))
	p.click(messageRow(id) + " summary")
	p.click("button" + attr("data-history", id))
	box := attr("data-history-of", id)
	p.waitFor("its four entries", `document.querySelectorAll(`+js(box+" li[data-kind]")+`).length === 4`)
	kinds := eval[string](p, `[...document.querySelectorAll(`+js(box+" li[data-kind]")+`)].map(li => li.dataset.kind).join(" ")`)
	if kinds != "sent received received deleted" {
		t.Errorf("history kinds %q, want sent, received twice, deleted", kinds)
	}
	p.waitFor("the stale delete said to remove nothing", contains(box+` li[data-kind="deleted"]`, "removed nothing"))
}
