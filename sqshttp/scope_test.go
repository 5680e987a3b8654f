package sqshttp_test

// One endpoint, every account and region: requests are routed by their
// SigV4 credential scope (region) and 12-digit access key id (account),
// driven here by the real SDK with static credentials over both protocols.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/sqsq/sqsq/internal/suite"
)

// signedClient is the SDK client of srv in region, signing with the access
// key id key (a 12-digit key names the account).
func signedClient(srv *httptest.Server, region, key string, optFns ...func(*sqs.Options)) *sqs.Client {
	return newClient(srv, append([]func(*sqs.Options){func(o *sqs.Options) {
		o.Region = region
		o.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: key, SecretAccessKey: "secret", Source: "test"}, nil
		})
	}}, optFns...)...)
}

// protocols are the two wire protocols of the SDK.
var protocols = []struct {
	name string
	opt  func(*sqs.Options)
}{
	{"JSON", func(*sqs.Options) {}},
	{"Query", queryProtocol},
}

func queueArn(t *testing.T, c *sqs.Client, url string) string {
	t.Helper()
	out, err := c.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: &url,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatalf("GetQueueAttributes(%s): %v", url, err)
	}
	return out.Attributes["QueueArn"]
}

// TestRegionsSeparate: clients of two regions create the same queue name
// and get two queues, with their own ARNs and URLs (another region's names
// it: /queue/{region}/…); an access key id that is not 12 digits keeps the
// default account, a 12-digit one names the account. A URL reaches its own
// queue whatever region the client signs for.
func TestRegionsSeparate(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b, _ := suite.NewBroker(t)
			srv := newServer(t, b)
			east := signedClient(srv, "us-east-1", "AKIDEXAMPLE", p.opt)
			west := signedClient(srv, "us-west-2", "AKIDEXAMPLE", p.opt)
			partner := signedClient(srv, "us-west-2", "111111111111", p.opt)
			var urls []string
			for _, c := range []*sqs.Client{east, west, partner} {
				out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
				if err != nil {
					t.Fatal(err)
				}
				urls = append(urls, *out.QueueUrl)
			}
			for i, want := range []string{srv.URL + "/000000000000/orders", srv.URL + "/queue/us-west-2/000000000000/orders",
				srv.URL + "/queue/us-west-2/111111111111/orders"} {
				if urls[i] != want {
					t.Errorf("queue URL %d is %s, want %s", i, urls[i], want)
				}
			}
			wantArns := []string{
				"arn:aws:sqs:us-east-1:000000000000:orders",
				"arn:aws:sqs:us-west-2:000000000000:orders",
				"arn:aws:sqs:us-west-2:111111111111:orders",
			}
			for i, c := range []*sqs.Client{east, west, partner} {
				if got := queueArn(t, c, urls[i]); got != wantArns[i] {
					t.Errorf("QueueArn %s, want %s", got, wantArns[i])
				}
			}
			if _, err := east.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &urls[0], MessageBody: aws.String("east")}); err != nil {
				t.Fatal(err)
			}
			// The east URL through the west client is still the east queue,
			// and the west URL through the east client the west queue.
			got, err := west.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &urls[0], VisibilityTimeout: 0})
			if err != nil || len(got.Messages) != 1 || *got.Messages[0].Body != "east" {
				t.Errorf("the east URL through the west client received %v, %v", got, err)
			}
			got, err = east.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &urls[1]})
			if err != nil || len(got.Messages) != 0 {
				t.Errorf("the west URL through the east client received %v, %v", got, err)
			}
			for _, c := range []*sqs.Client{east, west, partner} {
				out, err := c.ListQueues(ctx, &sqs.ListQueuesInput{})
				if err != nil || len(out.QueueUrls) != 1 {
					t.Errorf("ListQueues %v, %v; want the scope's own queue", out.QueueUrls, err)
				}
			}
			// The broker serves the default scope in process.
			if _, err := b.GetQueue(ctx, "orders"); err != nil {
				t.Error(err)
			}
			if q, err := b.Scope("111111111111", "us-west-2").GetQueue(ctx, "orders"); err != nil || q.ARN() != wantArns[2] {
				t.Errorf("the partner's queue in process: %v, %v", q, err)
			}
		})
	}
}

// TestCrossAccountDeadLetterOverTheWire: account 111111111111 owns a DLQ
// whose byQueue policy lists a source of account 222222222222; the source's
// messages dead-letter there, the DLQ lists the source, the owner reaches
// the source by its URL, and a move task takes the message back.
func TestCrossAccountDeadLetterOverTheWire(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b, clk := suite.NewBroker(t)
			srv := newServer(t, b)
			owner := signedClient(srv, "eu-west-1", "111111111111", p.opt)
			user := signedClient(srv, "eu-west-1", "222222222222", p.opt)
			srcArn := "arn:aws:sqs:eu-west-1:222222222222:src"
			dlqOut, err := owner.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("dlq"), Attributes: map[string]string{
				"RedriveAllowPolicy": `{"redrivePermission":"byQueue","sourceQueueArns":["` + srcArn + `"]}`,
			}})
			if err != nil {
				t.Fatal(err)
			}
			dlqURL := *dlqOut.QueueUrl
			dlqArn := queueArn(t, owner, dlqURL)
			srcOut, err := user.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("src"), Attributes: map[string]string{
				"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqArn + `","maxReceiveCount":1}`,
			}})
			if err != nil {
				t.Fatalf("a source naming the other account's DLQ: %v", err)
			}
			srcURL := *srcOut.QueueUrl
			sent, err := user.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &srcURL, MessageBody: aws.String("poison")})
			if err != nil {
				t.Fatal(err)
			}
			recv := &sqs.ReceiveMessageInput{QueueUrl: &srcURL}
			if got, err := user.ReceiveMessage(ctx, recv); err != nil || len(got.Messages) != 1 {
				t.Fatalf("first receive %v, %v", got, err)
			}
			clk.Add(31 * time.Second) // the default visibility timeout ends
			if got, err := user.ReceiveMessage(ctx, recv); err != nil || len(got.Messages) != 0 {
				t.Fatalf("the receive past maxReceiveCount returned %v, %v; want the move", got, err)
			}
			got, err := owner.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &dlqURL, VisibilityTimeout: 1,
				MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
			if err != nil || len(got.Messages) != 1 || *got.Messages[0].MessageId != *sent.MessageId ||
				got.Messages[0].Attributes["DeadLetterQueueSourceArn"] != srcArn {
				t.Fatalf("the DLQ received %+v, %v", got, err)
			}
			sources, err := owner.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: &dlqURL})
			if err != nil || !reflect.DeepEqual(sources.QueueUrls, []string{srv.URL + "/queue/eu-west-1/222222222222/src"}) {
				t.Errorf("ListDeadLetterSourceQueues = %v, %v", sources.QueueUrls, err)
			}
			// The owner reaches the other account's queue by its URL and
			// by GetQueueUrl with QueueOwnerAWSAccountId (not enforced).
			if arn := queueArn(t, owner, srcURL); arn != srcArn {
				t.Errorf("QueueArn of the other account's URL: %s", arn)
			}
			u, err := owner.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("src"), QueueOwnerAWSAccountId: aws.String("222222222222")})
			if err != nil || *u.QueueUrl != srcURL {
				t.Errorf("GetQueueUrl with the owner account = %v, %v; want %s", u, err, srcURL)
			}
			clk.Add(time.Second) // the DLQ message is visible again
			if _, err := owner.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: &dlqArn}); err != nil {
				t.Fatalf("StartMessageMoveTask: %v", err)
			}
			clk.Add(time.Second)
			back, err := user.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &srcURL})
			if err != nil || len(back.Messages) != 1 || *back.Messages[0].Body != "poison" {
				t.Errorf("after the move task the source received %+v, %v", back, err)
			}
		})
	}
}

// TestCrossAccountRedriveNeedsByQueue: without a byQueue policy naming the
// source, a DLQ of another account is refused, over the wire too.
func TestCrossAccountRedriveNeedsByQueue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, _ := suite.NewBroker(t)
	srv := newServer(t, b)
	owner := signedClient(srv, "us-east-1", "111111111111")
	user := signedClient(srv, "us-east-1", "222222222222")
	out, err := owner.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("dlq")})
	if err != nil {
		t.Fatal(err)
	}
	policy := `{"deadLetterTargetArn":"` + queueArn(t, owner, *out.QueueUrl) + `","maxReceiveCount":1}`
	_, err = user.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("src"), Attributes: map[string]string{"RedrivePolicy": policy}})
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "InvalidParameterValue" ||
		api.ErrorMessage() != "Value "+policy+" for parameter RedrivePolicy is invalid. Reason: Dead-letter target owner should be same as the source." {
		t.Errorf("CreateQueue = %v", err)
	}
}

// TestScopeFromHostAndPresignedURL: without an Authorization header the
// region comes from a presigned URL's X-Amz-Credential, else from a
// regional host name, else it is the broker's; a credential region that
// is not shaped as one ("local") keeps the default.
func TestScopeFromHostAndPresignedURL(t *testing.T) {
	t.Parallel()
	b, _ := suite.NewBroker(t)
	srv := newServer(t, b)
	tests := []struct {
		name    string
		host    string
		query   string
		auth    string
		wantArn string
	}{
		{"presigned", "", "&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=333333333333%2F20240101%2Fap-south-1%2Fsqs%2Faws4_request",
			"", "arn:aws:sqs:ap-south-1:333333333333:q1"},
		{"regional host", "sqs.eu-central-1.localhost:9324", "", "", "arn:aws:sqs:eu-central-1:000000000000:q2"},
		{"legacy regional host", "ca-central-1.queue.amazonaws.com", "", "", "arn:aws:sqs:ca-central-1:000000000000:q3"},
		{"plain host", "localhost:9324", "", "", "arn:aws:sqs:us-east-1:000000000000:q4"},
		{"credential wins over host", "sqs.eu-central-1.localhost", "",
			"AWS4-HMAC-SHA256 Credential=AKID/20240101/sa-east-1/sqs/aws4_request, SignedHeaders=host, Signature=00", "arn:aws:sqs:sa-east-1:000000000000:q5"},
		{"not a region", "sqs.eu-central-1.localhost", "",
			"AWS4-HMAC-SHA256 Credential=444444444444/20240101/local/sqs/aws4_request, SignedHeaders=host, Signature=00", "arn:aws:sqs:us-east-1:444444444444:q6"},
	}
	for i, tt := range tests {
		name := "q" + strconv.Itoa(i+1)
		status, body := getAs(t, srv, "/?Action=CreateQueue&QueueName="+name+tt.query, tt.host, tt.auth)
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", tt.name, status, body)
		}
		parts := strings.Split(tt.wantArn, ":")
		q, err := b.Scope(parts[4], parts[3]).GetQueue(context.Background(), name)
		if err != nil || q.ARN() != tt.wantArn {
			t.Errorf("%s: queue %v, %v; want %s", tt.name, q, err, tt.wantArn)
		}
	}
}

// getAs sends GET path to srv with the Host and Authorization given (none
// when empty) and returns the status and body of the answer.
func getAs(t *testing.T, srv *httptest.Server, path, host, auth string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if host != "" {
		req.Host = host
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := srv.Client().Do(req)
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

// TestScopeLimit: a handler opens at most 64 scopes besides the broker's
// own. At the bound it lets go of those that hold no queue, so made-up
// accounts and regions do not shut the next ones out; while every one
// holds a queue, a request for one more is refused with
// InvalidClientTokenId (403) and opens nothing, and the open ones keep
// working. Deleting a scope's queues (once the recreate delay is over)
// makes room again.
func TestScopeLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, clk := suite.NewBroker(t)
	srv := newServer(t, b)
	key := func(i int) string { return "9" + strings.Repeat("0", 8) + strconv.Itoa(100+i) }
	for i := 0; i < 200; i++ { // empty scopes: each is let go when room is needed
		if _, err := signedClient(srv, "us-east-1", key(i)).ListQueues(ctx, &sqs.ListQueuesInput{}); err != nil {
			t.Fatalf("empty scope %d: %v", i, err)
		}
	}
	if n := len(b.Scopes()); n > 65 {
		t.Errorf("%d scopes after 200 made-up accounts that hold nothing, want at most 65", n)
	}
	urls := make([]string, 64)
	for i := 0; i < 64; i++ {
		out, err := signedClient(srv, "us-east-1", key(i)).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
		if err != nil {
			t.Fatalf("scope %d: %v", i, err)
		}
		urls[i] = *out.QueueUrl
	}
	for _, p := range protocols {
		_, err := signedClient(srv, "us-east-1", key(64), p.opt).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
		var api smithy.APIError
		var resp interface{ HTTPStatusCode() int }
		if !errors.As(err, &api) || api.ErrorCode() != "InvalidClientTokenId" || !errors.As(err, &resp) || resp.HTTPStatusCode() != http.StatusForbidden {
			t.Errorf("%s: the 65th scope: %v; want InvalidClientTokenId, 403", p.name, err)
		}
	}
	if q, err := b.Scope(key(64), "us-east-1").GetQueue(ctx, "q"); err == nil {
		t.Errorf("the refused request created %s", q.ARN())
	}
	// The default scope and the open ones still answer.
	for k, want := range map[string]int{"AKIDEXAMPLE": 0, "000000000000": 0, key(0): 1, key(63): 1} { // the default scope holds none
		out, err := signedClient(srv, "us-east-1", k).ListQueues(ctx, &sqs.ListQueuesInput{})
		if err != nil || len(out.QueueUrls) != want {
			t.Errorf("key %s: %v, %v; want %d queues", k, out.QueueUrls, err, want)
		}
	}
	// One scope empties; after the recreate delay it is let go for a new one.
	if _, err := signedClient(srv, "us-east-1", key(0)).DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: &urls[0]}); err != nil {
		t.Fatal(err)
	}
	clk.Add(61 * time.Second)
	if _, err := signedClient(srv, "us-east-1", key(64)).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")}); err != nil {
		t.Errorf("a new scope once another emptied: %v", err)
	}
}
