package browser_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/chromedp/chromedp"
)

// The console's stable hooks are listed at the top of console/ui/index.html:
// the queue list's rows carry data-queue="name" and their count cells
// data-count="available|inflight|delayed"; a queue page (#/queues/NAME) has
// the same counts in #queue-counts, and its message rows data-message-id
// with a state cell data-state="available|inflight|delayed|held" and a
// data-time-left cell; forms, buttons and the clock have ids.

// listShown is a JavaScript expression: the queue list is on screen and
// has been drawn from the API (it has a row, or says it has none).
const listShown = `!document.querySelector("#queues-page").hidden &&
	(document.querySelector("#queues-table tr[data-queue]") !== null || !document.querySelector("#queues-empty").hidden)`

// queuePageOf is a JavaScript expression: the page of the named queue is
// on screen, with its counts drawn.
func queuePageOf(name string) string {
	return `!document.querySelector("#queue-page").hidden && ` + textIs("#queue-title", name) +
		` && ` + textOf(`#queue-counts [data-count="available"]`) + ` !== ""`
}

// queueCount is the selector of a count on a queue page.
func queueCount(kind string) string { return `#queue-counts ` + attr("data-count", kind) }

// openQueue opens a queue's page from the queue list, as a user would.
func (p *page) openQueue(name string) {
	p.t.Helper()
	p.click(queueRow(name) + " a[data-queue-link]")
	p.waitFor("the page of "+name, queuePageOf(name))
}

func TestEmptyConsole(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open("")
	p.waitFor("the queue list, empty", listShown+` && !document.querySelector("#queues-empty").hidden`)
	p.do("seeing the create-queue form", chromedp.WaitVisible(chromedp.CSS("#create-form")),
		chromedp.WaitVisible(chromedp.CSS("#create-name")), chromedp.WaitVisible(chromedp.CSS("#create-submit")))
	if n := eval[int](p, `document.querySelectorAll("[data-queue]").length`); n != 0 {
		t.Errorf("a server with no queues: the console lists %d", n)
	}
	// The real clock: shown, and no buttons to move it.
	p.waitFor("the clock said real", textIs("#clock-mode", "real")+` && `+contains("#clock-now", "UTC"))
	p.do("seeing no advance buttons", chromedp.WaitNotVisible(chromedp.CSS(`[data-advance="30s"]`)))
}

func TestCreateQueueFromUI(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open("")
	p.waitFor("the queue list", listShown)

	p.fill("#create-name", "orders")
	p.click("#create-submit")
	p.waitFor("the new queue orders in the list", exists(queueRow("orders")))
	p.waitFor("orders with 0 messages available", textIs(countCell("orders", "available"), "0"))

	p.fill("#create-name", "jobs.fifo")
	p.click("#create-fifo")
	p.click("#create-submit")
	p.waitFor("the new queue jobs.fifo in the list", exists(queueRow("jobs.fifo")))

	// The queues are real: the SDK finds them, the FIFO one as FIFO.
	for name, fifo := range map[string]string{"orders": "", "jobs.fifo": "true"} {
		url, err := p.sqs.GetQueueUrl(p.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
		if err != nil {
			t.Fatalf("GetQueueUrl %s after creating it in the console: %v", name, err)
		}
		attrs, err := p.sqs.GetQueueAttributes(p.ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: url.QueueUrl, AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
		if err != nil {
			t.Fatal(err)
		}
		if got := attrs.Attributes["FifoQueue"]; got != fifo {
			t.Errorf("%s: FifoQueue = %q, want %q", name, got, fifo)
		}
	}
}

// TestSendReceiveAdvance follows one message on the virtual clock: sent from
// the console, received by the application (the SDK), shown in flight with
// its time left, and available again once the console advances the clock
// past its visibility timeout.
func TestSendReceiveAdvance(t *testing.T) {
	t.Parallel()
	p := newPage(t, "-clock", "virtual")
	q := p.createQueue("orders", nil)

	p.open("")
	p.waitFor("the queue orders in the list", exists(queueRow("orders")))
	p.openQueue("orders")

	body := `{"order":1}`
	p.fill("#send-body", body)
	p.click("#send-submit")
	p.waitFor("one message available", textIs(queueCount("available"), "1"))
	p.waitFor("the message in the list", exists("[data-message-id]"))
	id := eval[string](p, `document.querySelector("[data-message-id]").getAttribute("data-message-id")`)
	p.waitFor("the message available", stateOf(id)+` === "available"`)
	p.waitFor("its body, pretty-printed", textIs(messageRow(id)+" [data-body]", "{\n  \"order\": 1\n}"))

	// The application receives it, with a 30-second visibility timeout.
	out, err := p.sqs.ReceiveMessage(p.ctx, &sqs.ReceiveMessageInput{QueueUrl: q, VisibilityTimeout: 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) != 1 || aws.ToString(out.Messages[0].MessageId) != id || aws.ToString(out.Messages[0].Body) != body {
		t.Fatalf("ReceiveMessage: %+v; want the message %s the console sent, body %s", out.Messages, id, body)
	}
	p.waitFor("the message in flight", stateOf(id)+` === "inflight"`)
	// The virtual clock stands still: exactly the visibility timeout is left.
	p.waitFor("its time left, 30 s", textIs(messageRow(id)+" [data-time-left]", "30s"))
	p.waitFor("the in-flight count 1", textIs(queueCount("inflight"), "1"))
	p.waitFor("the available count 0", textIs(queueCount("available"), "0"))

	p.waitFor("its state said in words", textIs(messageRow(id)+" [data-state]", "in flight"))

	p.waitFor("the clock said virtual", textIs("#clock-mode", "virtual"))
	clockMillis := `Date.parse(document.querySelector("#clock-now").getAttribute("datetime"))`
	before := eval[float64](p, clockMillis)
	p.click(`[data-advance="30s"]`)
	p.waitFor("the clock 30 s later", fmt.Sprintf(`%s === %v`, clockMillis, before+30000))
	p.waitFor("the message available again", stateOf(id)+` === "available"`)
	p.waitFor("one message available again", textIs(queueCount("available"), "1"))
	p.waitFor("no time left shown", textIs(messageRow(id)+" [data-time-left]", ""))

	// A message sent with a delay waits it out, then is available.
	p.fill("#send-body", "later")
	p.fill("#send-delay", "60")
	p.click("#send-submit")
	p.waitFor("one message delayed", textIs(queueCount("delayed"), "1"))
	later := `[...document.querySelectorAll("#messages-table [data-message-id]")].find(r => r.getAttribute("data-message-id") !== ` + js(id) + `)`
	p.waitFor("the delayed message listed, 60 s left", later+`?.querySelector("[data-state]").getAttribute("data-state") === "delayed" && `+
		later+`.querySelector("[data-time-left]").textContent.trim() === "1m 0s"`)
	p.click(`[data-advance="5m"]`)
	p.waitFor("both available", textIs(queueCount("available"), "2")+` && `+textIs(queueCount("delayed"), "0"))
}

// TestFIFOQueuePage sends to a FIFO queue from the console with a group,
// deduplication ids and an attribute, sees a message held behind its
// group's in-flight one, deletes a message and purges the queue.
func TestFIFOQueuePage(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	q := p.createQueue("jobs.fifo", map[string]string{"FifoQueue": "true"})

	p.open("")
	p.waitFor("the queue jobs.fifo in the list", exists(queueRow("jobs.fifo")))
	p.openQueue("jobs.fifo")
	p.waitFor("the page says FIFO", textIs("#queue-type", "FIFO"))
	p.do("seeing the FIFO fields", chromedp.WaitVisible(chromedp.CSS("#send-group")), chromedp.WaitVisible(chromedp.CSS("#send-dedup")))
	p.waitFor("no delay field (FIFO queues take none per message)", `document.querySelector("#send-delay").offsetParent === null`)

	send := func(body, dedup string) {
		t.Helper()
		p.fill("#send-body", body)
		p.fill("#send-group", "g1")
		p.fill("#send-dedup", dedup)
		before := eval[string](p, textOf("#status"))
		p.click("#send-submit")
		p.waitFor("the console saying it sent "+body, textOf("#status")+" !== "+js(before)+" && "+contains("#status", "Sent message"))
	}
	p.fill("#send-attr-name-1", "trace")
	p.fill("#send-attr-value-1", "abc")
	send("first", "d1")
	p.waitFor("the first message", `document.querySelectorAll("#messages-table [data-message-id]").length === 1`)
	first := eval[string](p, `document.querySelector("#messages-table [data-message-id]").getAttribute("data-message-id")`)
	p.fill("#send-attr-name-1", "")
	send("second", "d2")
	p.waitFor("two messages", `document.querySelectorAll("#messages-table [data-message-id]").length === 2`)
	second := eval[string](p, `document.querySelectorAll("#messages-table [data-message-id]")[1].getAttribute("data-message-id")`)
	// The same deduplication id again: SQS accepts it and stores nothing.
	send("first again", "d1")
	p.waitFor("the send answered with the first message's id", contains("#status", first))
	if n := eval[int](p, `document.querySelectorAll("#messages-table [data-message-id]").length`); n != 2 {
		t.Errorf("after a duplicate send: %d messages listed, want 2", n)
	}

	// The application receives the group's first message; the second is
	// held behind it.
	out, err := p.sqs.ReceiveMessage(p.ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 1,
		VisibilityTimeout: 600, MessageAttributeNames: []string{"All"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) != 1 || aws.ToString(out.Messages[0].MessageId) != first {
		t.Fatalf("ReceiveMessage: %+v, want the first message %s", out.Messages, first)
	}
	if a := out.Messages[0].MessageAttributes["trace"]; aws.ToString(a.DataType) != "String" || aws.ToString(a.StringValue) != "abc" {
		t.Errorf("the attribute sent from the console: %+v, want trace=abc (String)", out.Messages[0].MessageAttributes)
	}
	p.waitFor("the first in flight", stateOf(first)+` === "inflight"`)
	p.waitFor("the second held", stateOf(second)+` === "held"`)

	// Delete asks first; Cancel keeps the message.
	p.click(attr("data-delete", first))
	p.waitFor("the delete asking to confirm", visible(attr("data-delete-confirm", first)))
	p.click(attr("data-delete-cancel", first))
	p.waitFor("the Delete button back", visible(attr("data-delete", first))+` && !`+visible(attr("data-delete-confirm", first)))
	if n := eval[int](p, `document.querySelectorAll("#messages-table [data-message-id]").length`); n != 2 {
		t.Fatalf("after a cancelled delete: %d messages listed, want 2", n)
	}
	// Deleting the in-flight message releases the group.
	p.click(attr("data-delete", first))
	p.click(attr("data-delete-confirm", first))
	p.waitFor("the first message gone", `!(`+exists(messageRow(first))+`)`)
	p.waitFor("the second available", stateOf(second)+` === "available"`)

	// Purge asks first too.
	p.click("#purge")
	p.waitFor("the purge asking to confirm", visible("#purge-confirm")+` && `+contains("#purge-question", "jobs.fifo"))
	p.click("#purge-cancel")
	p.waitFor("the Purge button back", visible("#purge")+` && !`+visible("#purge-confirm"))
	if out, err := p.sqs.GetQueueAttributes(p.ctx, &sqs.GetQueueAttributesInput{QueueUrl: q,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages}}); err != nil || out.Attributes["ApproximateNumberOfMessages"] != "1" {
		t.Fatalf("after a cancelled purge: %v, %v; want the second message still there", out, err)
	}
	p.click("#purge")
	p.click("#purge-confirm")
	p.waitFor("no message left", `!document.querySelector("#messages-empty").hidden`)
	p.waitFor("the available count 0", textIs(queueCount("available"), "0"))
	out, err = p.sqs.ReceiveMessage(p.ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) != 0 {
		t.Errorf("ReceiveMessage after the purge: %d messages", len(out.Messages))
	}
}

// TestRedriveFromDLQPage dead-letters two messages with the SDK, then
// redrives them from the dead-letter queue's page at 1 message per second
// on the virtual clock: the move task runs, the console's clock buttons
// let it finish, and the messages are back in their source.
func TestRedriveFromDLQPage(t *testing.T) {
	t.Parallel()
	p := newPage(t, "-clock", "virtual")
	dlq := p.createQueue("orders-dlq", nil)
	dlqARN := p.queueARN(dlq)
	policy, _ := json.Marshal(map[string]string{"deadLetterTargetArn": dlqARN, "maxReceiveCount": "1"})
	// Visibility timeout 0: a received message is visible again at once.
	src := p.createQueue("orders", map[string]string{"RedrivePolicy": string(policy), "VisibilityTimeout": "0"})
	for i := range 2 {
		if _, err := p.sqs.SendMessage(p.ctx, &sqs.SendMessageInput{QueueUrl: src, MessageBody: aws.String("order " + strconv.Itoa(i))}); err != nil {
			t.Fatal(err)
		}
	}
	// The first receive counts 1; the second finds them over
	// maxReceiveCount and moves them.
	for i, want := range []int{2, 0} {
		out, err := p.sqs.ReceiveMessage(p.ctx, &sqs.ReceiveMessageInput{QueueUrl: src, MaxNumberOfMessages: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) != want {
			t.Fatalf("receive %d: %d messages, want %d", i+1, len(out.Messages), want)
		}
	}

	p.open("")
	p.waitFor("two messages in the DLQ", textIs(countCell("orders-dlq", "available"), "2"))
	// The list links orders to its DLQ and back; the DLQ link opens it.
	p.waitFor("orders-dlq as the DLQ of orders", exists(queueRow("orders")+` a[data-dlq-link="orders-dlq"]`))
	p.waitFor("orders as the source of orders-dlq", exists(queueRow("orders-dlq")+` a[data-source-link="orders"]`))
	p.click(queueRow("orders") + ` a[data-dlq-link="orders-dlq"]`)
	p.waitFor("the page of orders-dlq", queuePageOf("orders-dlq"))
	p.waitFor("orders as the DLQ's source", exists(`#sources a[data-source-link="orders"]`))
	p.waitFor("the dead-lettered messages, with their source", `[...document.querySelectorAll("#messages-table [data-message-id]")].filter(r => r.textContent.includes("from orders")).length === 2`)
	p.fill("#redrive-rate", "1")
	p.click("#redrive-submit")
	// On the virtual clock the task moves nothing until the clock moves.
	p.waitFor("a running move task", exists(`[data-task-status="RUNNING"]`))
	p.click(`[data-advance="1s"]`)
	p.waitFor("the move task completed", exists(`[data-task-status="COMPLETED"]`))

	p.waitFor("the task's progress, 2 of 2", contains(`[data-task-status="COMPLETED"] [data-task-progress]`, "2 / 2"))
	p.waitFor("the DLQ empty", textIs(queueCount("available"), "0"))

	// Its source link leads to orders, where both messages are back.
	p.click(`#sources a[data-source-link="orders"]`)
	p.waitFor("the page of orders", queuePageOf("orders"))
	p.waitFor("both messages back in orders", textIs(queueCount("available"), "2"))
	p.waitFor("their rows", `document.querySelectorAll("#messages-table [data-message-id]").length === 2`)
	out, err := p.sqs.ReceiveMessage(p.ctx, &sqs.ReceiveMessageInput{QueueUrl: src, MaxNumberOfMessages: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) != 2 {
		t.Errorf("receive from orders after the redrive: %d messages, want 2", len(out.Messages))
	}
}

// TestQueueListRefreshesLive runs on the real clock: the queue list, opened
// once, follows what the application does with the SDK without a reload.
func TestQueueListRefreshesLive(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open("")
	p.waitFor("the queue list", listShown)

	q := p.createQueue("live", nil)
	p.waitFor("the queue the SDK created", exists(queueRow("live")))
	if _, err := p.sqs.SendMessage(p.ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("hello")}); err != nil {
		t.Fatal(err)
	}
	p.waitFor("1 available", textIs(countCell("live", "available"), "1"))
	if _, err := p.sqs.SendMessage(p.ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("later"), DelaySeconds: 900}); err != nil {
		t.Fatal(err)
	}
	p.waitFor("1 delayed", textIs(countCell("live", "delayed"), "1"))
	if _, err := p.sqs.ReceiveMessage(p.ctx, &sqs.ReceiveMessageInput{QueueUrl: q, VisibilityTimeout: 900}); err != nil {
		t.Fatal(err)
	}
	p.waitFor("1 in flight", textIs(countCell("live", "inflight"), "1"))
	p.waitFor("0 available", textIs(countCell("live", "available"), "0"))
}

// createQueue creates a queue with the SDK and returns its URL.
func (p *page) createQueue(name string, attrs map[string]string) *string {
	p.t.Helper()
	out, err := p.sqs.CreateQueue(p.ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		p.t.Fatalf("CreateQueue %s: %v", name, err)
	}
	return out.QueueUrl
}

// queueARN is the QueueArn attribute of the queue at url.
func (p *page) queueARN(url *string) string {
	p.t.Helper()
	out, err := p.sqs.GetQueueAttributes(p.ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: url, AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		p.t.Fatal(err)
	}
	return out.Attributes["QueueArn"]
}

// TestMessageListAt1280 looks at a queue page as a user at 1280×800 does:
// the oldest message's age is "0s" right after a send (and "–" with no
// message), message ids take one line each, and a body larger than the 64
// KiB the list shows is there whole after "Show all". It saves a
// screenshot, message-list-1280.png, among the artifacts.
func TestMessageListAt1280(t *testing.T) {
	t.Parallel()
	p := newPage(t, "-clock", "virtual")
	p.do("sizing the page to 1280×800", chromedp.EmulateViewport(1280, 800))
	q := p.createQueue("orders", nil)
	p.open("")
	p.waitFor("the empty queue's oldest age, none", textIs(queueRow("orders")+" [data-oldest]", "–"))

	big := strings.Repeat("0123456789abcdef", 100<<10/16) // 100 KiB
	for _, body := range []string{`{"order":1}`, big, "hello"} {
		if _, err := p.sqs.SendMessage(p.ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(body)}); err != nil {
			t.Fatal(err)
		}
	}
	// The virtual clock stands still: the messages are 0 s old.
	p.waitFor("the oldest age 0s in the list", textIs(queueRow("orders")+" [data-oldest]", "0s"))
	p.openQueue("orders")
	p.waitFor("the oldest age 0s on the queue page", textIs("#queue-counts [data-oldest]", "0s"))
	p.waitFor("three messages", `document.querySelectorAll("#messages-table [data-message-id]").length === 3`)

	// Each id on one line, with the whole id in its title.
	lines := eval[[]float64](p, `[...document.querySelectorAll("#messages-table .msg-id")].map(el =>
		Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight)))`)
	for i, n := range lines {
		if n != 1 {
			t.Errorf("message %d: its id takes %v lines at 1280 px, want 1", i, n)
		}
	}
	id := eval[string](p, `document.querySelectorAll("#messages-table [data-message-id]")[1].getAttribute("data-message-id")`)
	p.waitFor("the whole id in the title", `document.querySelector(`+js(messageRow(id)+" .msg-id")+`).title === `+js(id))
	p.saveScreenshot("message-list-1280")

	// The big body: its first 64 KiB, then all of it on request.
	row := messageRow(id)
	p.click(row + " summary")
	p.waitFor("the first part of the body", contains(row+" summary", "first part shown")+
		` && document.querySelector(`+js(row+" pre[data-body]")+`).textContent.length === 65536`)
	p.click(row + " button[data-show-all]")
	p.waitFor("the whole body", `document.querySelector(`+js(row+" pre[data-body]")+`).textContent === `+js(big))
	p.waitFor("no Show all button left", `!(`+exists(row+" button[data-show-all]")+`)`)
	// The next refreshes keep it whole.
	p.click(`[data-advance="1s"]`)
	p.waitFor("the clock moved on", textIs("#queue-counts [data-oldest]", "1s"))
	if n := eval[int](p, `document.querySelector(`+js(row+" pre[data-body]")+`).textContent.length`); n != len(big) {
		t.Errorf("after a refresh the body shows %d bytes, want %d", n, len(big))
	}
}
