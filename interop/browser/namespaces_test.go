package browser_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/chromedp/chromedp"
)

// signedSQS is an SDK client of the server that signs its requests for
// region, as an application whose AWS profile names that region does: the
// credential scope's region chooses the namespace.
func (p *page) signedSQS(region string) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       region,
		BaseEndpoint: aws.String(p.srv.URL),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}),
	})
}

// chooseNamespace picks the option of the namespace picker whose value is
// account/region, as a user choosing from the list does.
func (p *page) chooseNamespace(value string) {
	p.t.Helper()
	p.waitFor("the namespace picker offering "+value, visible("#namespace")+` && `+exists(`#namespace option`+attr("value", value)))
	p.do("choosing "+value, chromedp.SetValue(chromedp.CSS("#namespace"), value),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#namespace").dispatchEvent(new Event("change"))`))
}

// TestNamespaces: a developer whose profile says eu-west-1 creates queues
// there with the SDK, another application uses the default region; the
// console lists each region's queues in its namespace, with the URLs the
// SDK got, and a reload keeps the namespace chosen. It saves a screenshot,
// namespaces.png, among the artifacts.
func TestNamespaces(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	create := func(c *sqs.Client, name string) string {
		t.Helper()
		out, err := c.CreateQueue(p.ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
		if err != nil {
			t.Fatalf("CreateQueue %s: %v", name, err)
		}
		return aws.ToString(out.QueueUrl)
	}
	homeURL := create(p.signedSQS("us-east-1"), "home")
	ordersURL := create(p.signedSQS("eu-west-1"), "orders")
	if want := p.srv.URL + "/queue/eu-west-1/000000000000/orders"; ordersURL != want {
		t.Fatalf("the SDK got %s for orders of eu-west-1, want %s", ordersURL, want)
	}

	p.open("")
	p.waitFor("the default namespace's queue", exists(queueRow("home")))
	p.waitFor("the namespace shown", textIs("#queues-ns", "000000000000, region us-east-1"))
	if eval[bool](p, exists(queueRow("orders"))) {
		t.Error("the default namespace lists orders of eu-west-1")
	}
	p.waitFor("two namespaces offered", `document.querySelectorAll("#namespace option").length === 2`)

	p.chooseNamespace("000000000000/eu-west-1")
	p.waitFor("eu-west-1's queue", exists(queueRow("orders"))+` && !(`+exists(queueRow("home"))+`)`)
	p.waitFor("the namespace shown", textIs("#queues-ns", "000000000000, region eu-west-1"))
	p.saveScreenshot("namespaces")
	p.openQueue("orders")
	p.waitFor("the URL the SDK got", textIs("#queue-url", ordersURL))
	p.waitFor("its ARN", textIs("#queue-arn", "arn:aws:sqs:eu-west-1:000000000000:orders"))

	// The console acts in the namespace shown: a message sent from it
	// reaches the application in eu-west-1.
	p.fill("#send-body", "to Ireland")
	p.click("#send-submit")
	p.waitFor("one message available", textIs(queueCount("available"), "1"))
	out, err := p.signedSQS("eu-west-1").ReceiveMessage(p.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(ordersURL)})
	if err != nil || len(out.Messages) != 1 || aws.ToString(out.Messages[0].Body) != "to Ireland" {
		t.Fatalf("ReceiveMessage in eu-west-1: %+v, %v; want the console's message", out, err)
	}

	// A reload keeps the namespace (it is in the address).
	p.do("reloading", chromedp.Reload())
	p.waitFor("the page of orders again", queuePageOf("orders"))
	p.waitFor("its URL again", textIs("#queue-url", ordersURL))
	p.click("#back-link")
	p.waitFor("eu-west-1's list", exists(queueRow("orders")))

	p.chooseNamespace("000000000000/us-east-1")
	p.waitFor("the default namespace's queue", exists(queueRow("home"))+` && !(`+exists(queueRow("orders"))+`)`)
	p.openQueue("home")
	p.waitFor("the URL the SDK got", textIs("#queue-url", homeURL))
}

// TestNamespacePickerHidden: with one namespace there is nothing to choose.
func TestNamespacePickerHidden(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.createQueue("only", nil)
	p.open("")
	p.waitFor("the queue", exists(queueRow("only")))
	p.waitFor("one namespace known", `document.querySelectorAll("#namespace option").length === 1`)
	if eval[bool](p, visible("#namespace")) {
		t.Error("the namespace picker is shown with one namespace")
	}
}
