// Command screenshot renders the README's picture of the web console,
// docs/console.png: it builds and starts cmd/sqsq on the virtual clock,
// fills a few queues through the AWS SDK with messages in every state
// (available, in flight, delayed, held behind a FIFO group, dead-lettered),
// moves the clock a little so times left and ages show, and photographs a
// queue's page in headless Chromium at 1200×800.
//
// Run it in this module, after a change to the console's look:
//
//	cd interop/browser && go run ./cmd/screenshot
//
// The server runs with -base-url http://127.0.0.1:9324, so the queue URLs
// in the picture are those of cmd/sqsq's default address, not of the
// random port it listens on for the picture.
//
// Flags: -o the PNG to write (default docs/console.png at the repository's
// root), -queue the queue whose page to show ("" for the queue list).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/chromedp/chromedp"

	"github.com/sqsq/sqsq/interop/browser"
)

func main() {
	out := flag.String("o", "", "the PNG to write (default: docs/console.png at the repository's root)")
	queue := flag.String("queue", "orders", `the queue whose page to photograph; "" for the queue list`)
	flag.Parse()
	if err := run(*out, *queue); err != nil {
		fmt.Fprintln(os.Stderr, "screenshot:", err)
		os.Exit(1)
	}
}

const width, height = 1200, 800

func run(out, queue string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out == "" {
		root, err := browser.RepoRoot()
		if err != nil {
			return err
		}
		out = filepath.Join(root, "docs", "console.png")
	}
	chromium := browser.ChromiumPath()
	if chromium == "" {
		return fmt.Errorf("no Chromium: install Debian's chromium package or set SQSQ_CHROMIUM")
	}

	tmp, err := os.MkdirTemp("", "sqsq-screenshot-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, err := browser.BuildServer(ctx, tmp)
	if err != nil {
		return err
	}
	srv, err := browser.StartServer(ctx, bin, "-clock", "virtual", "-base-url", "http://127.0.0.1:9324")
	if err != nil {
		return err
	}
	defer srv.Stop()
	rows, err := fill(ctx, srv)
	if err != nil {
		return fmt.Errorf("filling the queues: %v\nsqsq's stderr:\n%s", err, srv.Stderr())
	}

	output, chromiumLog := browser.LockedBuffer()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		browser.AllocatorOptions(chromium, filepath.Join(tmp, "profile"), width, height, output)...)
	defer cancelAlloc()
	tab, closeTab := chromedp.NewContext(allocCtx)
	defer closeTab()
	// The first Do starts the browser, tied to the context it runs with:
	// tab, not ctx; a timer guards it instead, and ctx the actions after.
	guard := time.AfterFunc(time.Minute, closeTab)
	err = chromedp.Do(tab, chromedp.EmulateViewport(width, height))
	guard.Stop()
	if err != nil {
		return fmt.Errorf("starting %s: %v\n%s", chromium, err, chromiumLog())
	}
	actx, cancelActions := context.WithCancel(tab)
	defer cancelActions()
	stop := context.AfterFunc(ctx, cancelActions)
	defer stop()

	// The page is drawn once the clock shows and the queue's messages (or
	// the list's rows) are all there.
	url, ready := srv.ConsoleURL(), ""
	if queue == "" {
		ready = fmt.Sprintf(`document.querySelectorAll("#queues-table tr[data-queue]").length === %d`, rows["*"])
	} else {
		url += "#/queues/" + queue
		ready = fmt.Sprintf(`document.querySelectorAll("#messages-table tr[data-message-id]").length === %d`, rows[queue])
	}
	ready += ` && document.querySelector("#clock-now").textContent.includes(":")`
	if err := chromedp.Do(actx,
		chromedp.Navigate(url),
		chromedp.Poll[chromedp.Void](ready, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second)),
	); err != nil {
		return fmt.Errorf("loading %s: %v", url, err)
	}
	// Fold the send form, as a user who came to look would, so that it
	// takes no room from the messages; the picture is of the page's top.
	if err := chromedp.Do(actx,
		chromedp.Evaluate[chromedp.Void](`{
			const form = document.querySelector("details:has(#send-form)");
			if (form) form.open = false;
			window.scrollTo(0, 0);
		}`),
		// Two animation frames: what changed is painted.
		chromedp.Evaluate[chromedp.Void](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))`, chromedp.EvalAwaitPromise),
	); err != nil {
		return fmt.Errorf("folding the send form: %v", err)
	}
	png, err := chromedp.Run(actx, chromedp.CaptureScreenshot())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		return err
	}
	fmt.Printf("screenshot: wrote %s (%d×%d, %d bytes) of %s\n", out, width, height, len(png), url)
	return nil
}

// fill creates the queues of the picture and returns how many messages
// each holds ("*": how many queues there are). Every receive below finds
// exactly one message available, so what ends where does not depend on the
// order in which sqsq hands out a standard queue's messages.
func fill(ctx context.Context, srv *browser.Server) (map[string]int, error) {
	c := srv.SQS()
	var err error
	check := func(e error) {
		if err == nil {
			err = e
		}
	}
	queues := 0
	create := func(name string, attrs map[string]string) *string {
		queues++
		out, e := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
		check(e)
		if e != nil {
			return nil
		}
		return out.QueueUrl
	}
	redrive := func(dlq *string, max int) string {
		if err != nil {
			return ""
		}
		out, e := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: dlq,
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
		check(e)
		if e != nil {
			return ""
		}
		policy, _ := json.Marshal(map[string]any{"deadLetterTargetArn": out.Attributes["QueueArn"], "maxReceiveCount": max})
		return string(policy)
	}
	send := func(q *string, group string, delay int32, body string, attrs map[string]string) {
		if err != nil {
			return
		}
		in := &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(body), DelaySeconds: delay}
		if group != "" {
			in.MessageGroupId = aws.String(group)
		}
		if len(attrs) > 0 {
			in.MessageAttributes = map[string]types.MessageAttributeValue{}
			for k, v := range attrs {
				in.MessageAttributes[k] = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
			}
		}
		_, e := c.SendMessage(ctx, in)
		check(e)
	}
	// receiveOne receives the one message available, for visibility seconds.
	receiveOne := func(q *string, visibility int32) {
		if err != nil {
			return
		}
		out, e := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10, VisibilityTimeout: visibility})
		check(e)
		if e == nil && len(out.Messages) > 1 {
			check(fmt.Errorf("received %d messages, want at most 1", len(out.Messages)))
		}
	}
	advance := func(d time.Duration) {
		if err == nil {
			check(srv.Advance(ctx, d))
		}
	}
	// orders, the queue of the picture. Its poison message is in
	// orders-dlq: received three times, and moved by the fourth receive
	// once its visibility timeout is over.
	ordersDLQ := create("orders-dlq", map[string]string{"MessageRetentionPeriod": "1209600"})
	orders := create("orders", map[string]string{"VisibilityTimeout": "60", "RedrivePolicy": redrive(ordersDLQ, 3)})
	send(orders, "", 0, `{"orderId":1040,"total":"-3.00","currency":"EUR"}`, nil)
	for range 4 {
		receiveOne(orders, 60)
		advance(time.Minute)
	}
	// Then one message in each state, oldest first: in flight on its
	// second receive (the first timed out), delayed, and available.
	send(orders, "", 0, `{"orderId":1041,"customer":"c-7","total":"42.50","currency":"EUR"}`, nil)
	receiveOne(orders, 60)
	advance(time.Minute)
	receiveOne(orders, 45)
	send(orders, "", 300, `{"orderId":1042,"customer":"c-9","total":"18.00","currency":"EUR","scheduled":true}`, nil)
	send(orders, "", 0, `{"orderId":1043,"customer":"c-3","total":"7.25","currency":"EUR"}`, map[string]string{"source": "checkout"})
	send(orders, "", 0, "order 1044: plain text, shown as it is", nil)

	// jobs.fifo: customer-7's second job is held behind its first, in
	// flight; customer-9's is available.
	jobs := create("jobs.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"})
	send(jobs, "customer-7", 0, `{"job":"invoice","orderId":1041}`, nil)
	receiveOne(jobs, 30)
	send(jobs, "customer-7", 0, `{"job":"ship","orderId":1041}`, nil)
	send(jobs, "customer-9", 0, `{"job":"invoice","orderId":1042}`, nil)

	emails := create("emails", nil)
	send(emails, "", 0, "Welcome aboard, c-9!", nil)

	// Some time passes: ages grow, and times left count down.
	advance(15 * time.Second)
	if err != nil {
		return nil, err
	}
	return map[string]int{"*": queues, "orders": 4, "orders-dlq": 1, "jobs.fifo": 3, "emails": 1}, nil
}
