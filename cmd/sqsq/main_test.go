package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"go.uber.org/goleak"

	"github.com/sqsq/sqsq/internal/racexit"
)

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" { // a child of a test, as the command (see signal_realclock_test.go)
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(racexit.Exit))
}

// server is a running sqsq, started by run in-process.
type server struct {
	url    string
	client *sqs.Client
	stop   context.CancelFunc
	done   chan error
}

var addrLine = regexp.MustCompile(`serving SQS on (http://\S+)`)

// start runs sqsq with args (on 127.0.0.1:0) until the test ends, and
// returns once it serves.
func start(t *testing.T, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	s := &server{stop: cancel, done: make(chan error, 1)}
	go func() {
		err := run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), w, io.Discard)
		w.CloseWithError(io.EOF)
		s.done <- err
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	go func() { _, _ = io.Copy(io.Discard, out) }()
	m := addrLine.FindStringSubmatch(line)
	if err != nil || m == nil {
		cancel()
		t.Fatalf("no address on stdout: %q, %v (%v)", line, err, <-s.done)
	}
	s.url = m[1]
	s.client = sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.url), Credentials: aws.AnonymousCredentials{}})
	t.Cleanup(func() {
		cancel()
		if err := <-s.done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	return s
}

// admin calls an admin endpoint and decodes its JSON answer.
func (s *server) admin(t *testing.T, method, path, body string, v any) int {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if v != nil && resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

func TestServesSQS(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	out, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("hello")})
	if err != nil {
		t.Fatal(err)
	}
	if want := s.url + "/000000000000/hello"; *out.QueueUrl != want {
		t.Errorf("QueueUrl %s, want %s: the listener's address", *out.QueueUrl, want)
	}
	if _, err := s.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: out.QueueUrl, MessageBody: aws.String("hi")}); err != nil {
		t.Fatal(err)
	}
	got, err := s.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: out.QueueUrl})
	if err != nil || len(got.Messages) != 1 || *got.Messages[0].Body != "hi" {
		t.Fatalf("receive: %v %+v", err, got)
	}
	// Real-clock mode has no admin endpoint: the path is SQS's.
	if code := s.admin(t, "GET", "/_sqsq/clock", "", nil); code != http.StatusNotFound {
		t.Errorf("GET /_sqsq/clock in real mode: %d, want 404", code)
	}
	if code := s.admin(t, "POST", "/_sqsq/clock/advance?d=1s", "", nil); code != http.StatusNotFound {
		t.Errorf("POST /_sqsq/clock/advance in real mode: %d, want 404", code)
	}
}

func TestFlags(t *testing.T) {
	t.Parallel()
	s := start(t, "-region", "eu-west-1", "-account-id", "123456789012", "-log-level", "debug")
	out, err := s.client.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q")})
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := s.client.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl,
		AttributeNames: []types.QueueAttributeName{"QueueArn"}})
	if err != nil || attrs.Attributes["QueueArn"] != "arn:aws:sqs:eu-west-1:123456789012:q" {
		t.Errorf("QueueArn %v (%v)", attrs, err)
	}
	for _, args := range [][]string{{"-clock", "sundial"}, {"-log-level", "loud"}, {"extra"}, {"-addr", "127.0.0.1:bad"}} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("run %v: no error", args)
		}
	}
}

func TestConfigFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "queues.json")
	cfg := `{"queues": [
		{"name": "orders", "attributes": {"VisibilityTimeout": "60"},
		 "redrivePolicy": {"deadLetterQueue": "orders-dlq", "maxReceiveCount": 3},
		 "tags": {"team": "payments"}},
		{"name": "orders-dlq", "attributes": {"MessageRetentionPeriod": "1209600"}},
		{"name": "jobs.fifo", "attributes": {"FifoQueue": "true", "ContentBasedDeduplication": "true"}}
	]}`
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, "-config", path)
	ctx := context.Background()
	list, err := s.client.ListQueues(ctx, &sqs.ListQueuesInput{})
	if err != nil || len(list.QueueUrls) != 3 {
		t.Fatalf("ListQueues: %v %v", list, err)
	}
	orders := s.url + "/000000000000/orders"
	attrs, err := s.client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &orders,
		AttributeNames: []types.QueueAttributeName{"VisibilityTimeout", "RedrivePolicy"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"VisibilityTimeout": "60",
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:orders-dlq","maxReceiveCount":3}`}
	for k, v := range want {
		if attrs.Attributes[k] != v {
			t.Errorf("%s = %q, want %q", k, attrs.Attributes[k], v)
		}
	}
	tags, err := s.client.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: &orders})
	if err != nil || tags.Tags["team"] != "payments" {
		t.Errorf("tags %v (%v)", tags, err)
	}
	sources, err := s.client.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(s.url + "/000000000000/orders-dlq")})
	if err != nil || len(sources.QueueUrls) != 1 || sources.QueueUrls[0] != orders {
		t.Errorf("dead-letter sources %v (%v)", sources, err)
	}

	// A bad file stops the server before it listens, with SQS's error.
	for _, bad := range []string{
		`{"queues": [{"name": "q", "attributes": {"VisibilityTimeout": "forever"}}]}`,
		`{"queues": [{"name": "q", "redrivePolicy": {"deadLetterQueue": "nope", "maxReceiveCount": 1}}]}`,
		`{"queues": [{"name": "q", "atributes": {}}]}`,
		`not json`,
	} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-config", path}, io.Discard, io.Discard); err == nil {
			t.Errorf("config %s: no error", bad)
		}
	}
}

func TestVirtualClock(t *testing.T) {
	t.Parallel()
	s := start(t, "-clock", "virtual")
	ctx := context.Background()
	var before clockState
	if code := s.admin(t, "GET", "/_sqsq/clock", "", &before); code != http.StatusOK {
		t.Fatalf("GET /_sqsq/clock: %d", code)
	}
	out, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("later"),
		Attributes: map[string]string{"DelaySeconds": "60"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: out.QueueUrl, MessageBody: aws.String("soon")}); err != nil {
		t.Fatal(err)
	}
	receive := func() int {
		got, err := s.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: out.QueueUrl})
		if err != nil {
			t.Fatal(err)
		}
		return len(got.Messages)
	}
	if n := receive(); n != 0 {
		t.Fatalf("received %d messages during the delay", n)
	}
	var after clockState
	if code := s.admin(t, "POST", "/_sqsq/clock/advance", `{"duration":"59s"}`, &after); code != http.StatusOK {
		t.Fatalf("advance: %d", code)
	}
	if after.UnixMillis-before.UnixMillis != 59000 {
		t.Errorf("the clock moved %d ms, want 59000: it stands still between advances", after.UnixMillis-before.UnixMillis)
	}
	if n := receive(); n != 0 {
		t.Fatalf("received %d messages 1 s before the delay ends", n)
	}
	if code := s.admin(t, "POST", "/_sqsq/clock/advance?d=1s", "", nil); code != http.StatusOK {
		t.Fatalf("advance: %d", code)
	}
	if n := receive(); n != 1 {
		t.Fatalf("received %d messages after the delay", n)
	}
	for _, bad := range []string{"?d=-1s", "?d=soon", ""} {
		if code := s.admin(t, "POST", "/_sqsq/clock/advance"+bad, "", nil); code != http.StatusBadRequest {
			t.Errorf("advance%s: %d, want 400", bad, code)
		}
	}

	// A long poll parks on the virtual clock; the receivers endpoint tells
	// when it has, and an advance past its wait ends it.
	res := make(chan int, 1)
	go func() {
		got, err := s.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: out.QueueUrl, WaitTimeSeconds: 20})
		if err != nil {
			t.Error(err)
		}
		res <- len(got.Messages)
	}()
	var parked struct{ Parked int }
	if code := s.admin(t, "GET", "/_sqsq/queues/later/receivers?atLeast=1", "", &parked); code != http.StatusOK || parked.Parked != 1 {
		t.Fatalf("receivers: %d %+v", code, parked)
	}
	s.admin(t, "POST", "/_sqsq/clock/advance?d=20s", "", nil)
	if n := <-res; n != 0 {
		t.Errorf("the long poll returned %d messages, want none when its wait ends", n)
	}
}

// TestShutdown cancels run's context with a long poll parked on the
// virtual clock, which would otherwise never end: the long poll gets an
// empty result, not an error, run returns nil, and the port is closed.
func TestShutdown(t *testing.T) {
	t.Parallel()
	s := start(t, "-clock", "virtual")
	ctx := context.Background()
	out, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("bye")})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		n   int
		err error
	}
	res := make(chan result, 1)
	go func() {
		got, err := s.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: out.QueueUrl, WaitTimeSeconds: 20})
		if err != nil {
			res <- result{err: err}
			return
		}
		res <- result{n: len(got.Messages)}
	}()
	if code := s.admin(t, "GET", "/_sqsq/queues/bye/receivers", "", nil); code != http.StatusOK {
		t.Fatalf("receivers: %d", code)
	}
	s.stop()
	if r := <-res; r.err != nil || r.n != 0 {
		t.Errorf("parked receive at shutdown: %d messages, %v; want an empty result", r.n, r.err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
		s.done <- nil // for the cleanup
	case <-time.After(time.Minute): // a hang guard, not a timing
		t.Fatal("run did not return after shutdown")
	}
	if _, err := s.client.ListQueues(ctx, &sqs.ListQueuesInput{}, func(o *sqs.Options) { o.RetryMaxAttempts = 1 }); err == nil {
		t.Error("the server still answers after shutdown")
	} else if !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "connect") {
		t.Logf("after shutdown: %v", err)
	}
}
