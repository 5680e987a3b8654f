package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// newClient is the real SDK client a user would point at sqsq: anonymous
// credentials (sqsq does not check signatures), one idle connection per
// worker so that no worker waits for a connection.
func newClient(url string, workers int) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(url),
		Credentials:  aws.AnonymousCredentials{},
		HTTPClient: &http.Client{
			Transport: &http.Transport{MaxIdleConnsPerHost: workers, MaxIdleConns: workers},
			Timeout:   time.Minute,
		},
	})
}

// fill sends n messages of size bytes to queue url in batches of ten from
// workers goroutines, and returns how long that took. Each worker takes
// the next batch number from a shared counter, so the work is spread
// evenly however fast each worker is.
func fill(ctx context.Context, c *sqs.Client, url string, n, size, workers int) (time.Duration, error) {
	body := strings.Repeat("x", size)
	batches := int64((n + 9) / 10)
	var next atomic.Int64
	var first error
	var once sync.Once
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t0 := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			entries := make([]types.SendMessageBatchRequestEntry, 0, 10)
			for {
				b := next.Add(1) - 1
				if b >= batches || ctx.Err() != nil {
					return
				}
				entries = entries[:0]
				for i := int(b) * 10; i < min(n, int(b)*10+10); i++ {
					entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(body)})
				}
				out, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
				if err == nil && len(out.Failed) > 0 {
					err = fmt.Errorf("SendMessageBatch: %d entries failed, first %s: %s", len(out.Failed), aws.ToString(out.Failed[0].Code), aws.ToString(out.Failed[0].Message))
				}
				if err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(t0), first
}

// visibleCount is the queue's ApproximateNumberOfMessages and
// ApproximateNumberOfMessagesNotVisible.
func visibleCount(ctx context.Context, c *sqs.Client, url string) (visible, inFlight int, err error) {
	out, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages, types.QueueAttributeNameApproximateNumberOfMessagesNotVisible},
	})
	if err != nil {
		return 0, 0, err
	}
	visible, _ = strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessages)])
	inFlight, _ = strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
	return visible, inFlight, nil
}
