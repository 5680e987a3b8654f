package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestHostileInputRealClock is the hostile-input battery of the first
// review, against the real server: each request gets a well-formed error
// (or is cut off by a timeout), never a panic, a 5xx or a hang, and the
// server answers normally afterwards.
func TestHostileInputRealClock(t *testing.T) {
	t.Parallel()
	s := start(t, "-read-header-timeout", "500ms", "-read-timeout", "2s")
	ctx := context.Background()
	q, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("target")})
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(s.url, "http://")
	jsonReq := func(op, body string) string {
		return "POST / HTTP/1.1\r\nHost: " + addr + "\r\nX-Amz-Target: AmazonSQS." + op +
			"\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	formReq := func(body string) string {
		return "POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
			strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	get := func(path string) string { return "GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\n\r\n" }
	many := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i))
		}
		return b.String()
	}
	tests := []struct {
		name   string
		raw    string
		status int    // of the first answer; 0: any but 5xx
		has    string // in the first answer
	}{
		{"malformed JSON", jsonReq("ListQueues", `{"QueueNamePrefix":`), 400, "SerializationException"},
		{"100k-deep JSON", jsonReq("ListQueues", strings.Repeat("[", 100_000)+strings.Repeat("]", 100_000)), 400, "SerializationException"},
		{"invalid UTF-8 in a body", jsonReq("SendMessage", `{"QueueUrl":"`+*q.QueueUrl+`","MessageBody":"a`+"\xff\xfe"+`b"}`), 400, "InvalidMessageContents"},
		{"a number past int32", jsonReq("ReceiveMessage", `{"QueueUrl":"`+*q.QueueUrl+`","MaxNumberOfMessages":99999999999}`), 400, ""},
		{"a huge float", jsonReq("ReceiveMessage", `{"QueueUrl":"`+*q.QueueUrl+`","WaitTimeSeconds":1e999}`), 400, ""},
		{"10k message attributes", jsonReq("SendMessage", `{"QueueUrl":"`+*q.QueueUrl+`","MessageBody":"x","MessageAttributes":{`+
			strings.TrimSuffix(many(10_000, func(i int) string { return `"a` + strconv.Itoa(i) + `":{"DataType":"String","StringValue":"v"},` }), ",")+`}}`), 400, ""},
		// Query indices order the items, so a large one is an item like any
		// other, and one that is not a positive number is not an item.
		{"a Query index past int32", formReq("Action=SetQueueAttributes&QueueUrl=" + *q.QueueUrl + "&Attribute.99999999999.Name=DelaySeconds&Attribute.99999999999.Value=1"), 200, ""},
		{"a Query index past int64", formReq("Action=SetQueueAttributes&QueueUrl=" + *q.QueueUrl + "&Attribute.99999999999999999999999.Name=DelaySeconds&Attribute.99999999999999999999999.Value=1"), 0, ""},
		{"a negative Query index", formReq("Action=SetQueueAttributes&QueueUrl=" + *q.QueueUrl + "&Attribute.-1.Name=DelaySeconds&Attribute.-1.Value=1"), 0, ""},
		{"a Query index of 0", formReq("Action=SendMessageBatch&QueueUrl=" + *q.QueueUrl + "&SendMessageBatchRequestEntry.0.Id=a&SendMessageBatchRequestEntry.0.MessageBody=b"), 400, ""},
		{"path traversal at the root", get("/../../../etc/passwd"), 0, ""},
		{"path traversal in the console", get("/_sqsq/ui/../../../../etc/passwd"), 0, ""},
		{"an escaped traversal", get("/_sqsq/ui/%2e%2e/%2e%2e/etc/passwd"), 0, ""},
		{"a 50 MB body announced", "POST / HTTP/1.1\r\nHost: " + addr + "\r\nX-Amz-Target: AmazonSQS.ListQueues\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: 52428800\r\n\r\n{", 413, "RequestEntityTooLarge"},
		{"pipelined requests", jsonReq("ListQueues", "{}") + jsonReq("GetQueueUrl", `{"QueueName":"target"}`), 200, "QueueUrls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			go func() { _, _ = io.WriteString(c, tt.raw) }() // the server may answer before it reads it all
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			switch {
			case resp.StatusCode >= 500:
				t.Errorf("%d %s", resp.StatusCode, body)
			case tt.status != 0 && resp.StatusCode != tt.status:
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			case !bytes.Contains(body, []byte(tt.has)):
				t.Errorf("answer %s, want %q in it", body, tt.has)
			case bytes.Contains(body, []byte("root:")):
				t.Errorf("a file of the machine was served: %s", body)
			}
			if tt.name == "pipelined requests" { // the second answer follows, in order
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("no second answer: %v", err)
				}
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != 200 || !bytes.Contains(body, []byte("target")) {
					t.Errorf("second answer %d %s", resp.StatusCode, body)
				}
			}
		})
	}
	t.Run("header slowloris", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		begin := time.Now()
		_, _ = fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\n", addr)
		for range 20 { // a header byte every 100 ms, never the end
			if _, err := io.WriteString(c, "X"); err != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = io.ReadAll(c) // the server closes it (with a 408, or at once)
		if d := time.Since(begin); err != nil || d > 5*time.Second {
			t.Errorf("a dribbled header held the connection for %v (%v); want it closed after -read-header-timeout", d, err)
		}
	})
	// The server still answers, normally.
	if out, err := s.client.ListQueues(ctx, &sqs.ListQueuesInput{}); err != nil || len(out.QueueUrls) != 1 {
		t.Errorf("ListQueues after the battery: %v, %v", out, err)
	}
}
