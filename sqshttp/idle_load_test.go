package sqshttp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestLongPollIdleCPU measures what parked long polls cost a server with no
// traffic: 1,000 consumers each park a ReceiveMessage (WaitTimeSeconds 20)
// on a server in a child process (see load_test.go), and the child's CPU
// time is read over the window in which all of them are parked and none
// has yet come back empty. A second window covers 40 s of steady state, in
// which every poll ends empty after 20 s and its consumer polls again (50
// empty responses a second). The yardstick is measured alike.
//
//	SQSQ_IDLE=1 go test -run TestLongPollIdleCPU -v -timeout 300s ./sqshttp/
//
// It is skipped otherwise: it takes about two minutes of real time.
func TestLongPollIdleCPU(t *testing.T) {
	if os.Getenv("SQSQ_IDLE") == "" {
		t.Skip("set SQSQ_IDLE=1 to measure the idle cost of parked long polls")
	}
	const consumers = 1000
	var report []string
	for _, role := range []string{"sqsq", "yardstick"} {
		c := startChild(t, role)
		tr := &http.Transport{MaxIdleConnsPerHost: consumers}
		client := sqs.New(sqs.Options{
			Region:       "us-east-1",
			BaseEndpoint: aws.String(c.url),
			Credentials:  aws.AnonymousCredentials{},
			HTTPClient:   &http.Client{Transport: tr},
		})
		ctx, cancel := context.WithCancel(context.Background())
		out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("load")})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var polls, failures atomic.Int64
		first := time.Now()
		for range consumers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: out.QueueUrl, WaitTimeSeconds: 20})
					if err != nil {
						if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
							failures.Add(1)
							t.Error(err)
						}
						return
					}
					polls.Add(1)
					if len(out.Messages) > 0 {
						t.Error("a message on a queue nobody sends to")
					}
				}
			}()
		}
		c.waitParked(t, consumers)
		parkedAfter := time.Since(first)
		// Pure parking: from all parked to shortly before the first poll
		// can end.
		cpu0, t0 := c.cpu(t), time.Now()
		time.Sleep(time.Until(first.Add(20*time.Second - 200*time.Millisecond)))
		parkedCPU, parkedWall := c.cpu(t)-cpu0, time.Since(t0)
		if n := polls.Load(); n != 0 {
			t.Errorf("%d polls ended inside the parked window", n)
		}
		// Steady state: polls end empty every 20 s and are made again.
		cpu1, t1 := c.cpu(t), time.Now()
		time.Sleep(40 * time.Second)
		steadyCPU, steadyWall := c.cpu(t)-cpu1, time.Since(t1)
		steadyPolls := polls.Load()
		cancel()
		wg.Wait()
		tr.CloseIdleConnections()
		report = append(report, fmt.Sprintf("%-10s all %d parked after %v; parked %5.1f s: %v CPU = %.4f%% of a core; steady %4.1f s, %d empty polls: %v CPU = %.3f%% of a core (%v per empty poll)",
			role, consumers, parkedAfter.Round(time.Millisecond), parkedWall.Seconds(), parkedCPU.Round(time.Microsecond), 100*parkedCPU.Seconds()/parkedWall.Seconds(),
			steadyWall.Seconds(), steadyPolls, steadyCPU.Round(time.Microsecond), 100*steadyCPU.Seconds()/steadyWall.Seconds(),
			(steadyCPU/time.Duration(max(steadyPolls, 1))).Round(time.Microsecond)))
	}
	t.Log("\nidle cost of 1,000 parked long polls (WaitTimeSeconds 20), server CPU:\n" + fmt.Sprintln(report[0]) + report[1])
}
