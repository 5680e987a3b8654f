package main

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestMaxConnsLongPollersRealClock: with -max-conns 4 held by four
// consumers that long-poll again at once over their own keep-alive
// connections, a producer that connects is served within a second or so
// (it waited for good before), and its message reaches a consumer: the
// oldest poll is ended early with an empty answer and Connection: close,
// and its consumer polls again behind the producer.
func TestMaxConnsLongPollersRealClock(t *testing.T) {
	t.Parallel()
	s := start(t, "-max-conns", "4")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	if err != nil {
		t.Fatal(err)
	}
	own := func() *sqs.Client { // a client with a connection of its own
		return sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.url), Credentials: aws.AnonymousCredentials{},
			HTTPClient: &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}})
	}
	got := make(chan string, 1)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := own()
			for ctx.Err() == nil {
				out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
				switch {
				case err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled):
					t.Errorf("a consumer's poll: %v", err)
					return
				case err == nil && len(out.Messages) > 0:
					select {
					case got <- *out.Messages[0].Body:
					default:
					}
				}
			}
		}()
	}
	time.Sleep(realParkDelay + 300*time.Millisecond) // the four polls parked, every connection taken
	begin := time.Now()
	sendCtx, stop := context.WithTimeout(ctx, 15*time.Second)
	defer stop()
	if _, err := own().SendMessage(sendCtx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("job-1")}); err != nil {
		t.Fatalf("the producer, while long pollers hold every connection: %v (after %v)", err, time.Since(begin))
	}
	served := time.Since(begin)
	t.Logf("the producer was served %v after it connected", served)
	realWithin(t, "the producer's SendMessage", served, 0, 5*time.Second)
	select {
	case body := <-got:
		if body != "job-1" {
			t.Errorf("a consumer got %q", body)
		}
	case <-time.After(10 * time.Second):
		t.Error("no consumer got the message")
	}
	cancel()
	wg.Wait()
}
