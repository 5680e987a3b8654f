package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// drain receives and deletes every message of queue url with workers
// goroutines and returns how many it deleted. A visibility timeout of 300 s
// keeps a received message away from the other workers until its delete,
// however slow the machine. A worker stops at its first empty receive;
// the queue is then checked, and drained again if a receive came up empty
// while messages were left (a standard queue's receive may).
func drain(ctx context.Context, c *sqs.Client, url string, workers int) (int64, error) {
	var deleted atomic.Int64
	for {
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := drainOne(ctx, c, url, &deleted); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			return deleted.Load(), err
		}
		visible, inFlight, err := visibleCount(ctx, c, url)
		if err != nil {
			return deleted.Load(), err
		}
		if visible == 0 && inFlight == 0 {
			return deleted.Load(), nil
		}
		if visible == 0 {
			return deleted.Load(), fmt.Errorf("%d messages in flight after the drain", inFlight)
		}
	}
}

// drainOne is one worker of drain.
func drainOne(ctx context.Context, c *sqs.Client, url string, deleted *atomic.Int64) error {
	entries := make([]types.DeleteMessageBatchRequestEntry, 0, 10)
	for {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, VisibilityTimeout: 300})
		if err != nil {
			return err
		}
		if len(out.Messages) == 0 {
			return nil
		}
		entries = entries[:0]
		for i, m := range out.Messages {
			entries = append(entries, types.DeleteMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(i)), ReceiptHandle: m.ReceiptHandle})
		}
		del, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
		if err == nil && len(del.Failed) > 0 {
			err = fmt.Errorf("DeleteMessageBatch: %d entries failed, first %s: %s", len(del.Failed), aws.ToString(del.Failed[0].Code), aws.ToString(del.Failed[0].Message))
		}
		if err != nil {
			return err
		}
		deleted.Add(int64(len(del.Successful)))
	}
}

// waitShrink polls the data file's size for limit and returns the last
// size and when it last changed, counted from the call. The file may
// shrink more than once (a compaction while the queue still emptied
// leaves free pages behind), so it polls the whole limit rather than stop
// at the first change. The server looks at its free space only after a
// commit, at most every 10 s, so an idle server never compacts: each poll
// makes one small change (a tag on the queue) to give it a commit to look
// after, as any live traffic would.
func waitShrink(ctx context.Context, c *sqs.Client, url, file string, limit time.Duration) (size int64, changed time.Duration, err error) {
	t0 := time.Now()
	size = -1
	for i := 0; ; i++ {
		st, err := os.Stat(file)
		if err != nil {
			return 0, 0, err
		}
		if size >= 0 && st.Size() != size {
			changed = time.Since(t0)
		}
		size = st.Size()
		if time.Since(t0) >= limit {
			return size, changed, nil
		}
		if _, err := c.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(url), Tags: map[string]string{"durablebench-poll": fmt.Sprint(i)}}); err != nil {
			return 0, 0, err
		}
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
