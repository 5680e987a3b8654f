package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// browserRequest is a request as a browser, or a program, might send it
// to a started sqsq: over a real socket to its address, whatever Host it
// names.
type browserRequest struct {
	method, path string
	host         string // "" for the server's address
	header       map[string]string
	body         string
}

// send sends req to s and returns the status and the body.
func (req browserRequest) send(t *testing.T, s *server, c *http.Client) (int, string) {
	t.Helper()
	r, err := http.NewRequest(req.method, s.url+req.path, strings.NewReader(req.body))
	if err != nil {
		t.Fatal(err)
	}
	if req.host != "" {
		r.Host = req.host
	}
	for k, v := range req.header {
		r.Header.Set(k, v)
	}
	resp, err := c.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// testHTTPClient is a client with its own transport, closed when the test
// ends so that no connection outlives it (goleak); dial, when not nil,
// reaches every host name at that address.
func testHTTPClient(t *testing.T, dial string) *http.Client {
	tr := &http.Transport{}
	if dial != "" {
		var d net.Dialer
		tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, dial)
		}
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: time.Minute} // a hang guard
}

// jsonOp is the header of an AWS JSON 1.0 request for op.
func jsonOp(op string, extra ...string) map[string]string {
	h := map[string]string{"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS." + op}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

// formOp is the header of a Query-protocol form POST, as an HTML form
// sends it.
func formOp(extra ...string) map[string]string {
	h := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

// TestBrowserRequestsRefused: a request that a web page makes a browser
// send — a foreign Origin, a cross-site fetch, a Host that is not this
// machine's (DNS rebinding) — is refused with 403 AccessDenied in the
// request's protocol and changes nothing, on the SQS endpoint and on the
// admin endpoints alike; requests of programs, which send no Origin, pass
// for loopback names, the listening address and -allow-host names.
func TestBrowserRequestsRefused(t *testing.T) {
	t.Parallel()
	s := start(t, "-clock", "virtual", "-allow-host", "sqs,*.test", "-allow-host", "host.docker.internal")
	c := testHTTPClient(t, "")
	ctx := context.Background()
	q, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("keep me")}); err != nil {
		t.Fatal(err)
	}
	port := s.url[strings.LastIndexByte(s.url, ':'):]
	purgeJSON := `{"QueueUrl":"` + *q.QueueUrl + `"}`
	purgeForm := "Action=PurgeQueue&QueueUrl=" + url.QueryEscape(*q.QueueUrl)
	var clockBefore clockState
	if code := s.admin(t, "GET", "/_sqsq/clock", "", &clockBefore); code != http.StatusOK {
		t.Fatalf("GET /_sqsq/clock: %d", code)
	}

	refused := []struct {
		name string
		req  browserRequest
		want string // in the body: the AccessDenied of the request's protocol
	}{
		{"JSON with a foreign Origin", browserRequest{"POST", "/", "", jsonOp("PurgeQueue", "Origin", "http://evil.example"), purgeJSON},
			`"__type":"com.amazon.coral.service#AccessDeniedException"`},
		{"form POST with a foreign Origin", browserRequest{"POST", "/", "", formOp("Origin", "http://evil.example"), purgeForm},
			"<Code>AccessDenied</Code>"},
		{"form POST from a sandboxed page", browserRequest{"POST", "/", "", formOp("Origin", "null"), purgeForm}, "<Code>AccessDenied</Code>"},
		{"a file: Origin", browserRequest{"POST", "/", "", formOp("Origin", "file://localhost"), purgeForm},
			"<Code>AccessDenied</Code>"},
		{"cross-site GET (an image)", browserRequest{"GET", "/?" + purgeForm, "", map[string]string{"Sec-Fetch-Site": "cross-site"}, ""},
			"<Code>AccessDenied</Code>"},
		{"DNS rebinding", browserRequest{"POST", "/", "evil.example" + port, jsonOp("PurgeQueue"), purgeJSON},
			`"__type":"com.amazon.coral.service#AccessDeniedException"`},
		{"DNS rebinding, Query", browserRequest{"POST", "/", "evil.example" + port, formOp(), purgeForm}, "<Code>AccessDenied</Code>"},
		{"a name that only ends like an allowed one", browserRequest{"POST", "/", "evilsqs" + port, formOp(), purgeForm}, "<Code>AccessDenied</Code>"},
		{"a name under localhost's look-alike", browserRequest{"POST", "/", "sqs.localhost.evil.example" + port, formOp(), purgeForm},
			"<Code>AccessDenied</Code>"},
		// sqsq's own endpoints answer in their JSON shape.
		{"admin advance with a foreign Origin", browserRequest{"POST", "/_sqsq/clock/advance?d=1h", "", map[string]string{"Origin": "http://evil.example"}, ""},
			`"code":"AccessDenied"`},
		{"admin advance by DNS rebinding", browserRequest{"POST", "/_sqsq/clock/advance?d=1h", "evil.example" + port, nil, ""},
			`"code":"AccessDenied"`},
		{"console purge with a foreign Origin", browserRequest{"POST", "/_sqsq/api/queues/orders/purge", "", map[string]string{"Origin": "http://evil.example"}, ""},
			`"code":"AccessDenied"`},
	}
	for _, tt := range refused {
		code, body := tt.req.send(t, s, c)
		if code != http.StatusForbidden || !strings.Contains(body, tt.want) || !strings.Contains(body, "is denied") {
			t.Errorf("%s: %d %s; want 403 with %s", tt.name, code, body, tt.want)
		}
	}
	// Nothing changed: the message is there, the clock did not move.
	attrs, err := s.client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: q.QueueUrl,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages}})
	if err != nil || attrs.Attributes["ApproximateNumberOfMessages"] != "1" {
		t.Errorf("after the refused purges: %v, %v; want the message still there", attrs, err)
	}
	var clockAfter clockState
	if code := s.admin(t, "GET", "/_sqsq/clock", "", &clockAfter); code != http.StatusOK || !clockAfter.Now.Equal(clockBefore.Now) {
		t.Errorf("after the refused advances the clock reads %v (%d), want %v", clockAfter.Now, code, clockBefore.Now)
	}

	list := func(host string, extra ...string) browserRequest {
		return browserRequest{"POST", "/", host, jsonOp("ListQueues", extra...), "{}"}
	}
	allowed := []struct {
		name string
		req  browserRequest
	}{
		{"the listening address", list("")},
		{"localhost", list("localhost" + port)},
		{"LOCALHOST.", list("LOCALHOST." + port)},
		{"another loopback address", list("127.0.0.2" + port)},
		{"IPv6 loopback", list("[::1]" + port)},
		{"a regional name under localhost", list("sqs.us-west-2.localhost" + port)},
		{"an -allow-host name", list("sqs" + port)},
		{"an -allow-host name without port", list("host.docker.internal")},
		{"a name under an -allow-host wildcard", list("queues.ci.test" + port)},
		{"Origin of a loopback page", list("", "Origin", "http://localhost:3000")},
		{"Origin of a 127.0.0.1 page", list("", "Origin", "http://127.0.0.1:8080")},
		{"Origin of an -allow-host page", list("", "Origin", "https://sqs")},
		{"a same-site fetch", list("", "Sec-Fetch-Site", "same-site")},
		{"a typed-in URL", list("", "Sec-Fetch-Site", "none")},
		{"admin clock by localhost", browserRequest{"GET", "/_sqsq/clock", "localhost" + port, nil, ""}},
	}
	for _, tt := range allowed {
		if code, body := tt.req.send(t, s, c); code != http.StatusOK {
			t.Errorf("%s: %d %s; want 200", tt.name, code, body)
		}
	}
}

// TestRegionalLocalhostNames: the real SDK pointed at a regional name
// under localhost (sqs.us-west-2.localhost) is served, in that region.
func TestRegionalLocalhostNames(t *testing.T) {
	t.Parallel()
	s := start(t)
	addr := strings.TrimPrefix(s.url, "http://")
	_, port, _ := net.SplitHostPort(addr)
	client := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://sqs.us-west-2.localhost:" + port),
		Credentials: aws.AnonymousCredentials{}, HTTPClient: testHTTPClient(t, addr)})
	ctx := context.Background()
	out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("west")})
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if want := "arn:aws:sqs:us-west-2:000000000000:west"; err != nil || attrs.Attributes["QueueArn"] != want {
		t.Errorf("QueueArn %v, %v; want %s", attrs, err, want)
	}
}

// TestRefusalNamesTheFix: the message of a refused Host says what to do,
// and the SDK reports it as AccessDenied.
func TestRefusalNamesTheFix(t *testing.T) {
	t.Parallel()
	s := start(t)
	addr := strings.TrimPrefix(s.url, "http://")
	_, port, _ := net.SplitHostPort(addr)
	client := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://sqs-in-compose:" + port),
		Credentials: aws.AnonymousCredentials{}, HTTPClient: testHTTPClient(t, addr), RetryMaxAttempts: 1})
	_, err := client.ListQueues(context.Background(), &sqs.ListQueuesInput{})
	if err == nil || !strings.Contains(err.Error(), "AccessDenied") || !strings.Contains(err.Error(), "-allow-host") {
		t.Errorf("ListQueues at an unknown host: %v; want AccessDenied naming -allow-host", err)
	}
}

// TestProtectionFlags: the flags of the protections are validated, and
// -allow-host takes lists.
func TestProtectionFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-read-timeout", "0s"}, {"-read-header-timeout", "-1s"}, {"-idle-timeout", "0"}, {"-max-conns", "-1"},
		{"-allow-host", "a b"}, {"-allow-host", "a,,b"}, {"-allow-host", "http://a/"},
	} {
		if err := run(context.Background(), append([]string{"-addr", "127.0.0.1:0"}, args...), io.Discard, io.Discard); err == nil {
			t.Errorf("run %v: no error", args)
		}
	}
	o, err := parseFlags([]string{"-allow-host", "a, b", "-allow-host", "*.c", "-addr", "sqs.local:9324", "-base-url", "http://queues:80"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(o.allowedHosts())
	if want := `["a","b","*.c","sqs.local","queues:80"]`; string(got) != want {
		t.Errorf("allowed hosts %s, want %s", got, want)
	}
}
