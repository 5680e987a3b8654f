package main

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

// Reset under load: producers, consumers in long polls and queue
// creators run while the server is reset again and again. Every call
// either works or fails as on a deleted queue (QueueDoesNotExist, or
// QueueDeletedRecently for nobody: a reset frees names at once), nothing
// panics or hangs, and a last reset leaves the server empty. A handle of a
// queue deleted by a reset, used on the queue of the same name made since,
// is ReceiptHandleIsInvalid, as on AWS after DeleteQueue and CreateQueue.
func TestResetUnderLoadRealClock(t *testing.T) {
	t.Parallel()
	s := start(t, "-faults", faultFile(t, `{"seed": 5, "rules": [
		{"operation": "ReceiveMessage", "probability": 0.3, "fault": "duplicate"},
		{"operation": "DeleteMessage", "probability": 0.1, "fault": "lostResponse"}]}`))
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var unexpected []error
	check := func(err error) {
		var ae smithy.APIError
		if err == nil || ctx.Err() != nil || (errors.As(err, &ae) &&
			(ae.ErrorCode() == "AWS.SimpleQueueService.NonExistentQueue" || ae.ErrorCode() == "QueueDoesNotExist" ||
				ae.ErrorCode() == "ServiceUnavailable" || // the lost delete responses
				ae.ErrorCode() == "ReceiptHandleIsInvalid")) { // a handle of the queue before, on the one made after
			return
		}
		mu.Lock()
		unexpected = append(unexpected, err)
		mu.Unlock()
	}
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := aws.String("q" + strconv.Itoa(w%3))
			for ctx.Err() == nil {
				q, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: name})
				if check(err); err != nil {
					continue
				}
				if w < 3 {
					_, err = s.client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: []types.SendMessageBatchRequestEntry{
						{Id: aws.String("a"), MessageBody: aws.String("x")}, {Id: aws.String("b"), MessageBody: aws.String("y")}}})
					check(err)
					continue
				}
				out, err := s.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 10}, noRetries)
				if check(err); err != nil {
					continue
				}
				for _, m := range out.Messages {
					_, err := s.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle}, noRetries)
					check(err)
				}
			}
		}()
	}
	resets := 0
	for ctx.Err() == nil {
		if code := s.admin(t, "POST", "/_sqsq/api/reset", "", nil); code != http.StatusOK {
			t.Fatalf("reset: %d", code)
		}
		resets++
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	for _, err := range unexpected {
		t.Errorf("during resets: %v", err)
	}
	if code := s.admin(t, "POST", "/_sqsq/api/reset", "", nil); code != http.StatusOK {
		t.Fatalf("reset: %d", code)
	}
	list, err := s.client.ListQueues(context.Background(), &sqs.ListQueuesInput{})
	if err != nil || len(list.QueueUrls) != 0 {
		t.Errorf("after the last reset: %v %v", list.QueueUrls, err)
	}
	var cfg struct{ Rules []any }
	if s.admin(t, "GET", "/_sqsq/api/faults", "", &cfg); len(cfg.Rules) != 0 {
		t.Errorf("rules after reset: %v", cfg.Rules)
	}
	t.Logf("%d resets under load", resets)
}
