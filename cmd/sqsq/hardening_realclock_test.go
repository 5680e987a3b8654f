package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Real-clock tests of the server's protections against clients that
// misbehave, over real sockets: they wait for the server's timeouts, set
// short by flags, so bounds are generous for a loaded CI machine.

// heapInuse is the heap in use after a collection, for measuring what the
// server holds.
func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// closedWithin reads c until the server closes it and returns how long
// after since that was, or fails the test if it stays open past limit.
func closedWithin(t *testing.T, c net.Conn, since time.Time, limit time.Duration) time.Duration {
	t.Helper()
	_ = c.SetReadDeadline(since.Add(limit))
	_, err := io.Copy(io.Discard, c) // an answer, if any, then the end
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the connection is still open %v after %v", limit, since)
	}
	return time.Since(since)
}

// TestSlowBodiesRealClock: 200 connections that announce 4 MiB bodies,
// send 4 bytes and stall cost the server what they sent, not what they
// announced (before: 800 MB of heap), and are closed when -read-timeout
// runs out. It runs alone, not in parallel, so that other tests' memory
// does not count.
func TestSlowBodiesRealClock(t *testing.T) {
	const (
		conns       = 200
		readTimeout = 2 * time.Second
		maxGrowth   = 64 << 20 // generous: the old handler took 4 MiB a connection
	)
	s := start(t, "-read-timeout", readTimeout.String())
	addr := strings.TrimPrefix(s.url, "http://")
	before := heapInuse()
	begin := time.Now()
	cs := make([]net.Conn, 0, conns)
	t.Cleanup(func() {
		for _, c := range cs {
			c.Close()
		}
	})
	for i := 0; i < conns; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
		op := []string{"ListQueues", "SendMessage"}[i%2]
		if i%4 < 2 { // AWS JSON 1.0
			_, err = fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-amz-json-1.0\r\n"+
				"X-Amz-Target: AmazonSQS.%s\r\nContent-Length: 4194304\r\n\r\n{\"Qu", addr, op)
		} else { // Query
			_, err = fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\n"+
				"Content-Length: 4194304\r\n\r\nActi", addr)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(readTimeout / 4) // the server reads the headers and starts on the bodies
	if growth := int64(heapInuse()) - int64(before); growth > maxGrowth {
		t.Errorf("%d stalled bodies grew the heap by %d MiB, want under %d MiB", conns, growth>>20, maxGrowth>>20)
	} else {
		t.Logf("%d stalled bodies grew the heap by %d KiB", conns, growth>>10)
	}
	if rss := vmRSS(); rss != "" {
		t.Logf("VmRSS with the bodies stalled: %s", rss)
	}
	for _, c := range cs {
		// From the first dial: the deadline of each started a little later.
		if d := closedWithin(t, c, begin, readTimeout+10*time.Second); d < readTimeout/2 {
			t.Errorf("a stalled connection was closed after %v, before -read-timeout %v", d, readTimeout)
		}
	}
}

// vmRSS is the process's resident set from /proc, or "" where there is none.
func vmRSS() string {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// TestIdleConnectionsClosedRealClock: keep-alive connections left idle
// after a request are closed after -idle-timeout, not kept for ever.
func TestIdleConnectionsClosedRealClock(t *testing.T) {
	t.Parallel()
	const (
		conns       = 50
		idleTimeout = 200 * time.Millisecond
	)
	s := start(t, "-idle-timeout", idleTimeout.String())
	addr := strings.TrimPrefix(s.url, "http://")
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			_, _ = fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-amz-json-1.0\r\n"+
				"X-Amz-Target: AmazonSQS.ListQueues\r\nContent-Length: 2\r\n\r\n{}", addr)
			br := bufio.NewReader(c)
			_ = c.SetReadDeadline(time.Now().Add(time.Minute)) // a hang guard
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Close {
				t.Errorf("ListQueues: %d, close=%v; want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
				return
			}
			idle := time.Now()
			_ = c.SetReadDeadline(idle.Add(10 * time.Second))
			if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
				t.Errorf("an idle connection read %v, want the server's close", err)
				return
			}
			if d := time.Since(idle); d < idleTimeout/2 {
				t.Errorf("an idle connection was closed after %v, before -idle-timeout %v", d, idleTimeout)
			}
		}()
	}
	wg.Wait()
}

// TestMaxConnsRealClock: with -max-conns 2 and two silent connections
// open, a third client is served only once -read-header-timeout has closed
// one of them, and then normally.
func TestMaxConnsRealClock(t *testing.T) {
	t.Parallel()
	const headerTimeout = 300 * time.Millisecond
	s := start(t, "-max-conns", "2", "-read-header-timeout", headerTimeout.String())
	addr := strings.TrimPrefix(s.url, "http://")
	begin := time.Now()
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
	time.Sleep(headerTimeout / 3) // the server accepts both
	out, err := s.client.ListQueues(context.Background(), &sqs.ListQueuesInput{})
	if err != nil {
		t.Fatalf("ListQueues once a slot is free: %v %v", out, err)
	}
	if d := time.Since(begin); d < headerTimeout/2 || d > 10*time.Second {
		t.Errorf("the third client was served after %v; want after the silent ones' %v header timeout", d, headerTimeout)
	}
}

// TestLongPollOutlivesTimeoutsRealClock: long polls of 3 s work, over the
// real SDK (AWS JSON) and over the Query protocol, on a server whose read,
// header and idle timeouts are 200 ms: the timeouts bound the sending of a
// request, never the wait of its answer; a message sent then wakes a
// parked poll.
func TestLongPollOutlivesTimeoutsRealClock(t *testing.T) {
	t.Parallel()
	const short = "200ms"
	s := start(t, "-read-timeout", short, "-read-header-timeout", short, "-idle-timeout", short)
	ctx := context.Background()
	q, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("slow")})
	if err != nil {
		t.Fatal(err)
	}
	const wait = 3
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // the real SDK
		defer wg.Done()
		begin := time.Now()
		out, err := s.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: wait})
		if err != nil || len(out.Messages) != 0 {
			t.Errorf("SDK long poll: %v, %v; want an empty answer", out, err)
		}
		realWithin(t, "a 3 s SDK long poll", time.Since(begin), wait*time.Second, wait*time.Second+5*time.Second)
	}()
	go func() { // Query, over its own client
		defer wg.Done()
		c := testHTTPClient(t, "")
		begin := time.Now()
		code, answer, err := queryCall(ctx, c, s.url, "ReceiveMessage", map[string]any{"QueueUrl": *q.QueueUrl, "WaitTimeSeconds": wait})
		if err != nil || code != http.StatusOK || strings.Contains(string(answer), "<Message>") {
			t.Errorf("Query long poll: %d %s %v; want an empty answer", code, answer, err)
		}
		realWithin(t, "a 3 s Query long poll", time.Since(begin), wait*time.Second, wait*time.Second+5*time.Second)
	}()
	wg.Wait()

	// The connections kept alive from those polls are closed by now; the
	// SDK redials and a parked poll is woken by a send.
	time.Sleep(400 * time.Millisecond)
	got := make(chan *sqs.ReceiveMessageOutput, 1)
	go func() {
		out, err := s.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 10})
		if err != nil {
			t.Error(err)
		}
		got <- out
	}()
	time.Sleep(realParkDelay + 300*time.Millisecond) // parked past every timeout
	if _, err := s.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("late")}); err != nil {
		t.Fatal(err)
	}
	select {
	case out := <-got:
		if out == nil || len(out.Messages) != 1 || *out.Messages[0].Body != "late" {
			t.Errorf("parked poll got %+v, want the message", out)
		}
	case <-time.After(realWakeBound):
		t.Fatal("the parked poll did not answer after the send")
	}
}
