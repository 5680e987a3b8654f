package sqshttp_test

import (
	"bufio"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqshttp"
)

// The load test drives a server in a child process with the real Go SDK
// over loopback, and reads the child's CPU time and peak memory from
// /proc, so the client's work is not counted. It measures sqsq's handler
// and, in the same run and the same way, a yardstick: a minimal
// hand-written JSON responder that answers the same three operations from
// an in-memory slice. Both children are this test binary run again, so
// they are built alike.
//
//	SQSQ_LOAD=1 go test -run TestLoad -v -timeout 30m ./sqshttp/
//
// (SQSQ_LOAD_LOOPS sets the loops per throughput run, default 1,000 of
// ten messages; SQSQ_LOAD_OUT names a file for the report.) It is skipped
// otherwise.

const loadServeEnv = "SQSQ_LOAD_SERVE"

// serveLoadChild serves as the child of the load test when the environment
// says so, and reports whether it did. It prints its address, then serves
// until its standard input closes.
func serveLoadChild() bool {
	role := os.Getenv(loadServeEnv)
	if role == "" {
		return false
	}
	var h http.Handler
	switch role {
	case "sqsq":
		b := sqsq.NewBroker()
		defer b.Close()
		h = sqshttp.NewHandler(b)
	case "yardstick":
		h = &yardstick{}
	default:
		fmt.Fprintln(os.Stderr, "unknown role", role)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	fmt.Println(ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = srv.Close()
	return true
}

// yardstick is the minimal JSON responder: encoding/json in and out, the
// messages in a slice, no visibility, no validation. It computes the body
// MD5s the SDK checks, and nothing else.
type yardstick struct {
	mu   sync.Mutex
	msgs []ymsg
	head int
	next int
}

type ymsg struct{ id, body, md5 string }

func (y *yardstick) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var out any
	switch r.Header.Get("X-Amz-Target") {
	case "AmazonSQS.CreateQueue":
		out = map[string]string{"QueueUrl": "http://" + r.Host + "/000000000000/load"}
	case "AmazonSQS.SendMessageBatch":
		var in struct {
			Entries []struct{ Id, MessageBody string }
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		type entry struct{ Id, MessageId, MD5OfMessageBody string }
		res := struct{ Successful []entry }{}
		y.mu.Lock()
		for _, e := range in.Entries {
			y.next++
			sum := md5.Sum([]byte(e.MessageBody))
			m := ymsg{id: strconv.Itoa(y.next), body: e.MessageBody, md5: hex.EncodeToString(sum[:])}
			y.msgs = append(y.msgs, m)
			res.Successful = append(res.Successful, entry{e.Id, m.id, m.md5})
		}
		y.mu.Unlock()
		out = res
	case "AmazonSQS.ReceiveMessage":
		var in struct{ MaxNumberOfMessages int }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		type message struct{ MessageId, ReceiptHandle, MD5OfBody, Body string }
		res := struct {
			Messages []message `json:",omitempty"`
		}{}
		y.mu.Lock()
		for ; len(res.Messages) < max(in.MaxNumberOfMessages, 1) && y.head < len(y.msgs); y.head++ {
			m := y.msgs[y.head]
			y.msgs[y.head] = ymsg{}
			res.Messages = append(res.Messages, message{m.id, m.id, m.md5, m.body})
		}
		if y.head > 1024 && y.head > len(y.msgs)/2 { // reclaim the drained front
			y.msgs = append([]ymsg(nil), y.msgs[y.head:]...)
			y.head = 0
		}
		y.mu.Unlock()
		out = res
	case "AmazonSQS.DeleteMessageBatch":
		var in struct {
			Entries []struct{ Id, ReceiptHandle string }
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		type entry struct{ Id string }
		res := struct{ Successful []entry }{}
		for _, e := range in.Entries {
			res.Successful = append(res.Successful, entry{e.Id})
		}
		out = res
	default:
		http.Error(w, "unsupported", 400)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	_ = json.NewEncoder(w).Encode(out)
}

// child is a server process of the load test.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	url   string
}

func startChild(t *testing.T, role string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), loadServeEnv+"="+role)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, url: "http://" + strings.TrimSpace(line)}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	return c
}

// cpu returns the child's CPU time so far: the sum of its threads' time on
// a CPU (schedstat, nanoseconds), or utime+stime in clock ticks when
// schedstat is missing.
func (c *child) cpu(t *testing.T) time.Duration {
	pid := c.cmd.Process.Pid
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var ns int64
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread exited
		}
		v, _ := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
		ns += v
	}
	if ns > 0 {
		return time.Duration(ns)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+2:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond // CLK_TCK 100
}

// hwm returns the child's peak resident memory (VmHWM) in bytes.
func (c *child) hwm(t *testing.T) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// loadClient is the real SDK, with its MD5 checks and its retries, on a
// transport that keeps a connection per worker. (Against a server in
// another process the SDK now and then fails to read a ReceiveMessage
// response — "deserialization failed … use of closed network connection",
// against either server, never with a plain net/http client; the SDK's
// issues #1825 and #2935 report it against AWS — and retries it. The
// messages of the lost response stay in flight, so the drains top up.)
func loadClient(c *child) (*sqs.Client, string, error) {
	client := sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(c.url),
		Credentials:  aws.AnonymousCredentials{},
		HTTPClient: awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
			tr.MaxIdleConnsPerHost = 64
		}),
	})
	out, err := client.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("load")})
	if err != nil {
		return nil, "", err
	}
	return client, *out.QueueUrl, nil
}

var body1K = strings.Repeat("0123456789abcdef", 64) // 1 KiB

func sendBatch(ctx context.Context, c *sqs.Client, url string, seq *atomic.Int64) error {
	entries := make([]types.SendMessageBatchRequestEntry, 10)
	for i := range entries {
		n := seq.Add(1)
		entries[i] = types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)),
			MessageBody: aws.String(strconv.FormatInt(n, 36) + body1K[len(strconv.FormatInt(n, 36)):])}
	}
	_, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &url, Entries: entries})
	return err
}

// receiveDelete receives up to 10 messages and deletes them in a batch.
func receiveDelete(ctx context.Context, c *sqs.Client, url string) (int, error) {
	out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10})
	if err != nil || len(out.Messages) == 0 {
		return 0, err
	}
	entries := make([]types.DeleteMessageBatchRequestEntry, len(out.Messages))
	for i, m := range out.Messages {
		entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle}
	}
	_, err = c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &url, Entries: entries})
	return len(out.Messages), err
}

// fill sends batches with 4 workers until n more messages are queued.
func fill(ctx context.Context, c *sqs.Client, url string, n int, seq *atomic.Int64) error {
	var left atomic.Int64
	left.Store(int64(n / 10))
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				if err := sendBatch(ctx, c, url, seq); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

type loadResult struct {
	messages int64
	wall     time.Duration
	cpu      time.Duration
}

func (r loadResult) perMessage() time.Duration { return r.cpu / time.Duration(r.messages) }

// cycle runs send batch → receive 10 → delete batch loops on workers
// goroutines until loops loops are done.
func cycle(t *testing.T, c *child, client *sqs.Client, url string, workers, loops int) loadResult {
	ctx := context.Background()
	var seq atomic.Int64
	var left atomic.Int64
	left.Store(int64(loops))
	cpu0, start := c.cpu(t), time.Now()
	var wg sync.WaitGroup
	var failed atomic.Value
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				if err := sendBatch(ctx, client, url, &seq); err != nil {
					failed.Store(err)
					return
				}
				if _, err := receiveDelete(ctx, client, url); err != nil {
					failed.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		t.Fatal(err)
	}
	return loadResult{messages: seq.Load(), wall: time.Since(start), cpu: c.cpu(t) - cpu0}
}

// median returns the median of ds.
func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// TestLoad measures both servers in one run, interleaved — each
// measurement of sqsq next to the same measurement of the yardstick — and
// reports medians, so that other work on the machine weighs on both alike.
func TestLoad(t *testing.T) {
	if os.Getenv("SQSQ_LOAD") == "" {
		t.Skip("set SQSQ_LOAD=1 to run the load test")
	}
	loops := 1000 // 10,000 messages per run
	if s := os.Getenv("SQSQ_LOAD_LOOPS"); s != "" {
		loops, _ = strconv.Atoi(s)
	}
	const rounds = 9
	reps := 3
	roles := []string{"yardstick", "sqsq"}
	workers := []int{1, 4, 16}
	depths := []int{1000, 10000, 100000}
	ctx := context.Background()

	type server struct {
		c      *child
		client *sqs.Client
		url    string
	}
	start := func() map[string]*server {
		m := map[string]*server{}
		for _, role := range roles {
			c := startChild(t, role)
			client, url, err := loadClient(c)
			if err != nil {
				t.Fatal(err)
			}
			m[role] = &server{c, client, url}
		}
		return m
	}

	// Throughput: send batch → receive → delete batch, on 1, 4 and 16
	// workers, after a warm-up.
	servers := start()
	if os.Getenv("SQSQ_LOAD_DRAIN_ONLY") != "" { // skip the throughput runs
		reps = 0
	}
	for _, role := range roles {
		s := servers[role]
		cycle(t, s.c, s.client, s.url, 4, loops/4)
	}
	cpuPerMsg := map[string][][]time.Duration{} // role → workers index → reps
	rate := map[string][][]float64{}
	for _, role := range roles {
		cpuPerMsg[role] = make([][]time.Duration, len(workers))
		rate[role] = make([][]float64, len(workers))
	}
	for range reps {
		for i, w := range workers {
			for _, role := range roles {
				s := servers[role]
				r := cycle(t, s.c, s.client, s.url, w, loops)
				cpuPerMsg[role][i] = append(cpuPerMsg[role][i], r.perMessage())
				rate[role][i] = append(rate[role][i], float64(r.messages)/r.wall.Seconds())
			}
		}
	}

	// Drain and memory, in fresh processes: top each queue up to a depth
	// (not measured), drain 1,000 messages (measured); the peak memory is
	// read with 100,000 messages queued.
	servers = start()
	drains := map[string][][]time.Duration{} // role → depth index → rounds
	hwms := map[string]int64{}
	seqs := map[string]*atomic.Int64{}
	queued := map[string]int{}
	const margin = 200 // for receives the SDK retried
	for _, role := range roles {
		drains[role] = make([][]time.Duration, len(depths))
		seqs[role] = &atomic.Int64{}
	}
	for i, depth := range depths {
		for round := range rounds {
			for _, role := range roles {
				s := servers[role]
				if err := fill(ctx, s.client, s.url, depth+margin-queued[role], seqs[role]); err != nil {
					t.Fatal(err)
				}
				queued[role] = depth + margin
				if depth == 100000 && round == 0 {
					hwms[role] = s.c.hwm(t)
				}
				var used time.Duration
				cpu0 := s.c.cpu(t)
				for drained := 0; drained < 1000; {
					n, err := receiveDelete(ctx, s.client, s.url)
					if err != nil {
						t.Fatal(err)
					}
					if n == 0 { // lost to retried receives: top up, unmeasured
						used += s.c.cpu(t) - cpu0
						if err := fill(ctx, s.client, s.url, 100, seqs[role]); err != nil {
							t.Fatal(err)
						}
						cpu0 = s.c.cpu(t)
						continue
					}
					drained += n
				}
				used += s.c.cpu(t) - cpu0
				drains[role][i] = append(drains[role][i], used/1000)
				queued[role] -= 1000
			}
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "send batch 10 → receive 10 → delete batch, 1 KiB bodies, %d messages per run, median of %d runs:\n", loops*10, reps)
	fmt.Fprintf(&b, "%-10s %7s %12s %14s %12s\n", "server", "workers", "messages/s", "CPU/message", "vs yardstick")
	for i, w := range workers {
		if reps == 0 {
			break
		}
		y := median(cpuPerMsg["yardstick"][i])
		for _, role := range roles {
			rates := rate[role][i]
			sort.Float64s(rates)
			c := median(cpuPerMsg[role][i])
			fmt.Fprintf(&b, "%-10s %7d %12.0f %14v %11.2f×\n", role, w, rates[len(rates)/2], c.Round(10*time.Nanosecond), float64(c)/float64(y))
		}
	}
	fmt.Fprintf(&b, "\ndrain 1,000 messages (receive 10 + delete batch), server CPU per message, median of %d rounds:\n", rounds)
	fmt.Fprintf(&b, "%-10s %10s %10s %10s %10s\n", "server", "1k", "10k", "100k", "100k/1k")
	for _, role := range roles {
		d := [3]time.Duration{median(drains[role][0]), median(drains[role][1]), median(drains[role][2])}
		fmt.Fprintf(&b, "%-10s %10v %10v %10v %9.2f×\n", role, d[0].Round(10*time.Nanosecond),
			d[1].Round(10*time.Nanosecond), d[2].Round(10*time.Nanosecond), float64(d[2])/float64(d[0]))
	}
	queuedBytes := int64(100000 * len(body1K))
	fmt.Fprintf(&b, "\npeak memory (VmHWM) with 100,000 queued 1 KiB messages (%d MB of bodies):\n", queuedBytes/1e6)
	for _, role := range roles {
		fmt.Fprintf(&b, "%-10s %6d MB  %5.2f× the bytes queued\n", role, hwms[role]/1e6, float64(hwms[role])/float64(queuedBytes))
	}
	t.Log("\n" + b.String())
	if out := os.Getenv("SQSQ_LOAD_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
