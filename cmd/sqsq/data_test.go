package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq/durable"
)

// shutdown stops s gracefully and returns run's error.
func (s *server) shutdown() error {
	s.stop()
	err := <-s.done
	s.done <- nil // for start's cleanup
	return err
}

// counts reads a queue's three message counts.
func counts(t *testing.T, c *sqs.Client, q *string) string {
	t.Helper()
	out, err := c.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: q,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
	if err != nil {
		t.Fatal(err)
	}
	a := out.Attributes
	return a["ApproximateNumberOfMessages"] + "/" + a["ApproximateNumberOfMessagesNotVisible"] + "/" + a["ApproximateNumberOfMessagesDelayed"]
}

// A graceful restart with -data on the virtual clock keeps everything: the
// clock's instant, queues with attributes and tags, messages available,
// in flight (with their receipt handles) and delayed, a FIFO queue's
// deduplication window and group lock.
func TestDurableRestartVirtualClock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	s := start(t, "-clock", "virtual", "-data", dir)
	c := s.client
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders"),
		Attributes: map[string]string{"VisibilityTimeout": "30"}, Tags: map[string]string{"team": "payments"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"a", "b"} {
		if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(body)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("later"), DelaySeconds: 60}); err != nil {
		t.Fatal(err)
	}
	got, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	if err != nil || len(got.Messages) != 1 {
		t.Fatalf("receive: %v %v", got, err)
	}
	held := got.Messages[0]
	f, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs.fifo"),
		Attributes: map[string]string{"FifoQueue": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	sent, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: f.QueueUrl, MessageBody: aws.String("x"),
		MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("d1")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: f.QueueUrl, MessageBody: aws.String("y"),
		MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("d2")}); err != nil {
		t.Fatal(err)
	}
	if out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: f.QueueUrl}); err != nil || len(out.Messages) != 1 {
		t.Fatalf("FIFO receive: %v %v", out, err)
	}
	s.admin(t, "POST", "/_sqsq/clock/advance?d=10s", "", nil)
	var before clockState
	s.admin(t, "GET", "/_sqsq/clock", "", &before)
	if err := s.shutdown(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}

	s = start(t, "-clock", "virtual", "-data", dir)
	c = s.client
	var after clockState
	if s.admin(t, "GET", "/_sqsq/clock", "", &after); after.UnixMillis != before.UnixMillis {
		t.Errorf("clock after the restart %v, want %v", after.Now, before.Now)
	}
	if got := counts(t, c, q.QueueUrl); got != "1/1/1" {
		t.Errorf("orders after the restart: %s available/in flight/delayed, want 1/1/1", got)
	}
	tags, err := c.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: q.QueueUrl})
	if err != nil || tags.Tags["team"] != "payments" {
		t.Errorf("tags after the restart: %v %v", tags, err)
	}
	// The handle of before the restart still works.
	if _, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: q.QueueUrl,
		ReceiptHandle: held.ReceiptHandle, VisibilityTimeout: 60}); err != nil {
		t.Errorf("ChangeMessageVisibility with a handle of before the restart: %v", err)
	}
	if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: held.ReceiptHandle}); err != nil {
		t.Errorf("DeleteMessage with a handle of before the restart: %v", err)
	}
	if got := counts(t, c, q.QueueUrl); got != "1/0/1" {
		t.Errorf("orders after the delete: %s, want 1/0/1", got)
	}
	// FIFO: the deduplication window and the group lock survived.
	dup, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: f.QueueUrl, MessageBody: aws.String("x again"),
		MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("d1")})
	if err != nil || *dup.MessageId != *sent.MessageId {
		t.Errorf("a duplicate send after the restart: %v %v, want the first's id %s", dup, err, *sent.MessageId)
	}
	if out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: f.QueueUrl}); err != nil || len(out.Messages) != 0 {
		t.Errorf("FIFO receive while the group is locked: %v %v, want nothing", out, err)
	}
	// The delay and the visibility timeout go on from where they were.
	s.admin(t, "POST", "/_sqsq/clock/advance?d=50s", "", nil)
	if got := counts(t, c, q.QueueUrl); got != "2/0/0" {
		t.Errorf("orders 60 s after the sends: %s, want 2/0/0", got)
	}
}

// A second server on the same -data directory refuses to start, and so does
// one whose default namespace is not the one the data was written with.
func TestDurableRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := start(t, "-data", dir)
	err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-data", dir}, discard{}, discard{})
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("a second server on %s: %v, want an error saying it is in use", dir, err)
	}
	if _, err := s.client.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q")}); err != nil {
		t.Fatal(err)
	}
	if err := s.shutdown(); err != nil {
		t.Fatal(err)
	}
	err = run(context.Background(), []string{"-addr", "127.0.0.1:0", "-data", dir, "-region", "eu-west-1"}, discard{}, discard{})
	if err == nil || !strings.Contains(err.Error(), "-region us-east-1") {
		t.Errorf("another default region on %s: %v, want an error naming the data's", dir, err)
	}
	if code := start(t, "-data", dir).admin(t, "GET", "/_sqsq/api/queues/q", "", nil); code != http.StatusOK {
		t.Errorf("the queue after the refusals: %d", code)
	}
}

// A damaged data file stops the start with an error naming it and the way
// out; -data-recover moves it aside and starts empty.
func TestDurableDamagedFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := start(t, "-data", dir)
	if _, err := s.client.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q")}); err != nil {
		t.Fatal(err)
	}
	if err := s.shutdown(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, durable.FileName)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	err = run(context.Background(), []string{"-addr", "127.0.0.1:0", "-data", dir}, discard{}, discard{})
	if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "-data-recover") {
		t.Fatalf("a truncated data file: %v; want an error naming %s and -data-recover", err, file)
	}
	s = start(t, "-data", dir, "-data-recover")
	if code := s.admin(t, "GET", "/_sqsq/api/queues/q", "", nil); code != http.StatusNotFound {
		t.Errorf("after -data-recover the queue of the damaged file answers %d, want 404: an empty start", code)
	}
	moved, _ := filepath.Glob(filepath.Join(dir, durable.FileName+".damaged-*"))
	if len(moved) != 1 {
		t.Errorf("files moved aside: %v, want one", moved)
	}
}

// With -data a seed fixes the faults but not the message ids: a restarted
// id sequence would give new messages the ids of stored ones.
func TestDurableSeedKeepsIDsUnique(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	ids := map[string]bool{}
	for range 2 {
		s := start(t, "-data", dir, "-seed", "1")
		q, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
		if err != nil {
			t.Fatal(err)
		}
		sent, err := s.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("m")})
		if err != nil {
			t.Fatal(err)
		}
		if ids[*sent.MessageId] {
			t.Fatalf("message id %s given twice across a restart", *sent.MessageId)
		}
		ids[*sent.MessageId] = true
		if err := s.shutdown(); err != nil {
			t.Fatal(err)
		}
	}
}
