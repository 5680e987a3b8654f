package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// On the real clock a graceful restart keeps a message in flight until its
// deadline, which counts across the downtime; its handle still works; and
// -config queues that the data holds keep the state they had, attributes
// changed since included.
func TestDurableRestartRealClock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "queues.json")
	if err := os.WriteFile(cfg, []byte(`{"queues": [{"name": "orders", "attributes": {"VisibilityTimeout": "60"}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := start(t, "-data", dir, "-config", cfg)
	c := s.client
	url, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: url.QueueUrl,
		Attributes: map[string]string{"VisibilityTimeout": "90"}}); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"held", "waiting"} {
		if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url.QueueUrl, MessageBody: aws.String(body)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url.QueueUrl, VisibilityTimeout: 2})
	if err != nil || len(got.Messages) != 1 {
		t.Fatalf("receive: %v %v", got, err)
	}
	received := time.Now()
	if err := s.shutdown(); err != nil {
		t.Fatal(err)
	}

	s = start(t, "-data", dir, "-config", cfg)
	c = s.client
	if got := counts(t, c, url.QueueUrl); time.Since(received) < 1500*time.Millisecond && got != "1/1/0" {
		t.Errorf("right after the restart: %s available/in flight/delayed, want 1/1/0", got)
	}
	attrs, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: url.QueueUrl, AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameVisibilityTimeout}})
	if err != nil || attrs.Attributes["VisibilityTimeout"] != "90" {
		t.Errorf("VisibilityTimeout after a restart with -config: %v %v, want the 90 set since", attrs, err)
	}
	if _, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: url.QueueUrl,
		ReceiptHandle: got.Messages[0].ReceiptHandle, VisibilityTimeout: 1}); err != nil {
		t.Errorf("a handle of before the restart: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for counts(t, c, url.QueueUrl) != "2/0/0" {
		if time.Now().After(deadline) {
			t.Fatalf("the message is still in flight 10 s after its 1 s timeout: %s", counts(t, c, url.QueueUrl))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Acknowledged means durable: a kill -9 right after the answers loses
// nothing they acknowledged, a queue created, a message sent, another
// deleted, an attribute set; a restart on the same directory, whose lock
// the dead process let go, finds them so.
func TestDurableKillRealClock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	p := startProcess(t, "-data", dir)
	c := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(p.url), Credentials: aws.AnonymousCredentials{}})
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("deleted")}); err != nil {
		t.Fatal(err)
	}
	got, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 5})
	if err != nil || len(got.Messages) != 1 {
		t.Fatalf("receive: %+v, %v", got, err)
	}
	if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: got.Messages[0].ReceiptHandle}); err != nil {
		t.Fatal(err)
	}
	sent, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("kept")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: q.QueueUrl,
		Attributes: map[string]string{"VisibilityTimeout": "600"}}); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Process.Kill(); err != nil { // at once: no time to save anything
		t.Fatal(err)
	}
	if code, _ := p.waitExit(t, time.Now()); code == 0 {
		t.Fatal("sqsq exited 0 on SIGKILL?")
	}

	s := start(t, "-data", dir)
	url := aws.String(s.url + "/000000000000/orders")
	attrs, err := s.client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: url, AttributeNames: []types.QueueAttributeName{"All"}})
	if err != nil {
		t.Fatal(err)
	}
	if v := attrs.Attributes["VisibilityTimeout"]; v != "600" {
		t.Errorf("VisibilityTimeout = %s after kill -9; want 600, as acknowledged", v)
	}
	left := *sent.MessageId
	all, err := s.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 3})
	if err != nil || len(all.Messages) != 1 || *all.Messages[0].MessageId != left {
		t.Fatalf("after kill -9 and a restart: %+v, %v; want only the message %s (the other was deleted)", all, err, left)
	}
}
