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
	"runtime/pprof"
	"slices"
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
	"github.com/sqsq/sqsq/durable"
	"github.com/sqsq/sqsq/internal/procstat"
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
// ten messages; SQSQ_LOAD_OUT names a file for the report;
// SQSQ_LOAD_LONGPOLL_ONLY=1 runs the long-poll throughput runs alone;
// SQSQ_LOAD_DURABLE=1 adds a third server, sqsq in durable mode, whose
// every answer waits for its commit; SQSQ_LOAD_CPUPROFILE=P writes each
// server's CPU profile to P.role.pid; SQSQ_LOAD_WORKERS=N runs N workers
// only; SQSQ_LOAD_SKIP_DRAIN=1 skips the drain and memory runs.) It is skipped otherwise.

const loadServeEnv = "SQSQ_LOAD_SERVE"

// serveLoadChild serves as the child of the load test when the environment
// says so, and reports whether it did. It prints its address, then serves
// until its standard input closes, answering the commands it reads there
// with one line each:
//
//	parked N   "ok" once N receives are parked on the queue "load"
//	wakeups    sqsq's long-poll counters of "load" (the yardstick: "-")
func serveLoadChild() bool {
	role := os.Getenv(loadServeEnv)
	if role == "" {
		return false
	}
	var h http.Handler
	var parked func(n int)
	wakeups := func() string { return "-" }
	switch role {
	case "sqsq":
		b := sqsq.NewBroker()
		defer b.Close()
		h = sqshttp.NewHandler(b)
		parked = func(n int) {
			if q, err := b.GetQueue(context.Background(), "load"); err == nil {
				_ = q.WaitForReceivers(context.Background(), n)
			}
		}
		wakeups = func() string {
			q, err := b.GetQueue(context.Background(), "load")
			if err != nil {
				return err.Error()
			}
			s, err := q.Stats()
			if err != nil {
				return err.Error()
			}
			return fmt.Sprintf("%d %d %d %d", s.LongPolls, s.LongPollWakeups, s.ReceiveCalls, s.EmptyReceives)
		}
	case "durable": // sqsq in durable mode: each call answered once on disk
		dir, err := os.MkdirTemp("", "sqsq-load-durable")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer os.RemoveAll(dir)
		store, err := durable.Open(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer store.Close()
		b := sqsq.NewBroker(store.Journal())
		defer b.Close()
		if err := store.Attach(b); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		h = sqshttp.NewHandler(b, sqshttp.WithCommit(store.Sync))
		parked = func(n int) {
			if q, err := b.GetQueue(context.Background(), "load"); err == nil {
				_ = q.WaitForReceivers(context.Background(), n)
			}
		}
	case "yardstick":
		y := &yardstick{}
		h = y
		parked = y.waitParked
	default:
		fmt.Fprintln(os.Stderr, "unknown role", role)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	if prefix := os.Getenv("SQSQ_LOAD_CPUPROFILE"); prefix != "" { // where the server's CPU goes
		f, err := os.Create(fmt.Sprintf("%s.%s.%d", prefix, role, os.Getpid()))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	fmt.Println(ln.Addr())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch f := strings.Fields(in.Text()); {
		case len(f) == 2 && f[0] == "parked":
			n, _ := strconv.Atoi(f[1])
			parked(n)
			fmt.Println("ok")
		case len(f) == 1 && f[0] == "wakeups":
			fmt.Println(wakeups())
		default:
			fmt.Println("unknown command")
		}
	}
	_ = srv.Close()
	return true
}

// yardstick is the minimal JSON responder: encoding/json in and out, the
// messages in a slice, no visibility, no validation. It computes the body
// MD5s the SDK checks, and nothing else. A receive with a wait time that
// finds nothing parks on a channel of its own, until a send closes it or
// the wait or the request ends; a send wakes one parked receive per
// message, oldest first, as sqsq does.
type yardstick struct {
	mu        sync.Mutex
	msgs      []ymsg
	head      int
	next      int
	waiters   []chan struct{} // parked receives, oldest first
	parkedSig chan struct{}   // closed when len(waiters) changes; nil if nobody watches
}

type ymsg struct{ id, body, md5 string }

// park adds a parked receive and returns its wake channel. Caller holds y.mu.
func (y *yardstick) park() chan struct{} {
	c := make(chan struct{})
	y.waiters = append(y.waiters, c)
	y.parkedChanged()
	return c
}

// unpark removes c if it is still parked and reports whether it was (if
// not, a send woke it). Caller holds y.mu.
func (y *yardstick) unpark(c chan struct{}) bool {
	i := slices.Index(y.waiters, c)
	if i < 0 {
		return false
	}
	y.waiters = slices.Delete(y.waiters, i, i+1)
	y.parkedChanged()
	return true
}

// wake wakes up to n parked receives. Caller holds y.mu.
func (y *yardstick) wake(n int) {
	n = min(n, len(y.waiters))
	if n == 0 {
		return
	}
	for _, c := range y.waiters[:n] {
		close(c)
	}
	y.waiters = slices.Delete(y.waiters, 0, n)
	y.parkedChanged()
}

func (y *yardstick) parkedChanged() {
	if y.parkedSig != nil {
		close(y.parkedSig)
		y.parkedSig = nil
	}
}

// waitParked blocks until at least n receives are parked.
func (y *yardstick) waitParked(n int) {
	for {
		y.mu.Lock()
		if len(y.waiters) >= n {
			y.mu.Unlock()
			return
		}
		if y.parkedSig == nil {
			y.parkedSig = make(chan struct{})
		}
		sig := y.parkedSig
		y.mu.Unlock()
		<-sig
	}
}

// take removes up to n messages from the front, handing each to emit, and
// returns how many it took. Caller holds y.mu.
func (y *yardstick) take(n int, emit func(ymsg)) int {
	took := 0
	for ; took < n && y.head < len(y.msgs); y.head++ {
		emit(y.msgs[y.head])
		y.msgs[y.head] = ymsg{}
		took++
	}
	if y.head > 1024 && y.head > len(y.msgs)/2 { // reclaim the drained front
		y.msgs = append([]ymsg(nil), y.msgs[y.head:]...)
		y.head = 0
	}
	return took
}

// receive takes up to n messages into emit, waiting up to wait for the
// first.
func (y *yardstick) receive(ctx context.Context, n int, wait time.Duration, emit func(ymsg)) {
	deadline := time.Now().Add(wait)
	y.mu.Lock()
	defer y.mu.Unlock()
	for {
		if y.take(n, emit) > 0 {
			return
		}
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			return
		}
		c := y.park()
		y.mu.Unlock()
		t := time.NewTimer(left)
		select {
		case <-c:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		y.mu.Lock()
		if !y.unpark(c) && ctx.Err() != nil && y.head < len(y.msgs) {
			y.wake(1) // woken for a message this receive will not take
		}
	}
}

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
		y.wake(len(in.Entries))
		y.mu.Unlock()
		out = res
	case "AmazonSQS.ReceiveMessage":
		var in struct{ MaxNumberOfMessages, WaitTimeSeconds int }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		type message struct{ MessageId, ReceiptHandle, MD5OfBody, Body string }
		res := struct {
			Messages []message `json:",omitempty"`
		}{}
		y.receive(r.Context(), max(in.MaxNumberOfMessages, 1), time.Duration(in.WaitTimeSeconds)*time.Second, func(m ymsg) {
			res.Messages = append(res.Messages, message{m.id, m.id, m.md5, m.body})
		})
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
	out   *bufio.Reader
	url   string
}

// ask sends the child a command (see serveLoadChild) and returns its answer.
func (c *child) ask(t *testing.T, cmd string) string {
	t.Helper()
	if _, err := io.WriteString(c.stdin, cmd+"\n"); err != nil {
		t.Fatal(err)
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(line)
}

// waitParked blocks until n receives are parked on the child's queue "load".
func (c *child) waitParked(t *testing.T, n int) {
	t.Helper()
	if got := c.ask(t, "parked "+strconv.Itoa(n)); got != "ok" {
		t.Fatalf("parked %d: %s", n, got)
	}
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
	out := bufio.NewReader(stdout)
	line, err := out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, out: out, url: "http://" + strings.TrimSpace(line)}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	return c
}

// cpu returns the child's CPU time so far (see procstat.CPU).
func (c *child) cpu(t *testing.T) time.Duration {
	d, err := procstat.CPU(c.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// hwm returns the child's peak resident memory (VmHWM) in bytes.
func (c *child) hwm(t *testing.T) int64 {
	m, err := procstat.ReadMemory(c.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return m.HWM
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

// stampBatch sends ten 1 KiB messages whose bodies begin with the send
// start, in nanoseconds since loadBase in base 36, and a '-'.
func stampBatch(ctx context.Context, c *sqs.Client, url string) error {
	stamp := strconv.FormatInt(int64(time.Since(loadBase)), 36) + "-"
	body := stamp + body1K[len(stamp):]
	entries := make([]types.SendMessageBatchRequestEntry, 10)
	for i := range entries {
		entries[i] = types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(body)}
	}
	_, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &url, Entries: entries})
	return err
}

// loadBase is the origin of the stamps of stampBatch.
var loadBase = time.Now()

// sinceStamp returns how long ago the message of body was sent, if body is
// stamped.
func sinceStamp(body string) (time.Duration, bool) {
	i := strings.IndexByte(body, '-')
	if i <= 0 || i > 16 {
		return 0, false
	}
	ns, err := strconv.ParseInt(body[:i], 36, 64)
	if err != nil {
		return 0, false
	}
	return time.Since(loadBase) - time.Duration(ns), true
}

type longPollResult struct {
	loadResult
	p50, p99        time.Duration // send start → received, per message
	wakeupsPerBatch float64       // sqsq's LongPollWakeups per ten messages
	stalls          int           // producer waits that timed out
	lost            int           // receives that failed, not retried
}

// noRetry makes a receive fail instead of being retried by the SDK, so
// that longPollCycle learns of a lost response.
func noRetry(o *sqs.Options) { o.RetryMaxAttempts = 1 }

// longPollCycle runs workers consumers that long-poll (WaitTimeSeconds 20,
// up to 10 messages) and delete what they get in a batch, beside workers
// producers that send stamped batches of ten, loops batches in all. A
// producer sends only while fewer than workers batches are outstanding
// (sent and not yet deleted): the queue holds at most one batch per
// consumer, so consumers keep up, park between batches and are woken by
// sends, as a consumer fleet that keeps up does. A receive response can be
// lost (see loadClient); its batch never comes back from the yardstick, and
// from sqsq only after its visibility timeout. So receives are not retried:
// the consumer sees the failure and passes the batch's turn on. A producer
// that waits a second for its turn anyway goes on (a stall), and the run
// ends 3 s after the last message if not all of them come.
func longPollCycle(t *testing.T, c *child, client *sqs.Client, url string, workers, loops int) longPollResult {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	total := int64(loops * 10)
	window := make(chan struct{}, workers) // one token per batch that may be outstanding
	for range workers {
		window <- struct{}{}
	}
	var (
		received atomic.Int64
		lastAt   atomic.Int64 // since loadBase
		stalls   atomic.Int64
		lost     atomic.Int64 // receives that failed
		mu       sync.Mutex
		owed     int // messages deleted but not yet returned to window
		lat      []time.Duration
		failed   atomic.Value
	)
	done := make(chan struct{})
	var doneOnce sync.Once
	wakeups0 := wakeupsOf(t, c)
	cpu0, start := c.cpu(t), time.Now()
	var consumers, producers sync.WaitGroup
	for range workers {
		consumers.Add(1)
		go func() {
			defer consumers.Done()
			var mine []time.Duration
			defer func() {
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
			for {
				out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10, WaitTimeSeconds: 20}, noRetry)
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					// Most likely a response lost as loadClient says: its
					// batch is gone (yardstick) or in flight (sqsq), and
					// its turn passes to the next.
					if lost.Add(1) > 100 {
						failed.Store(err)
						doneOnce.Do(func() { close(done) })
						return
					}
					select {
					case window <- struct{}{}:
					default:
					}
					continue
				}
				if len(out.Messages) == 0 {
					continue
				}
				for _, m := range out.Messages {
					if d, ok := sinceStamp(*m.Body); ok {
						mine = append(mine, d)
					}
				}
				entries := make([]types.DeleteMessageBatchRequestEntry, len(out.Messages))
				for i, m := range out.Messages {
					entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle}
				}
				if _, err := client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &url, Entries: entries}); err != nil {
					if ctx.Err() == nil {
						failed.Store(err)
						doneOnce.Do(func() { close(done) })
					}
					return
				}
				lastAt.Store(int64(time.Since(loadBase)))
				mu.Lock()
				for owed += len(out.Messages); owed >= 10; owed -= 10 {
					select {
					case window <- struct{}{}:
					default: // a redelivered batch: the window is full already
					}
				}
				mu.Unlock()
				if received.Add(int64(len(out.Messages))) >= total {
					doneOnce.Do(func() { close(done) })
				}
			}
		}()
	}
	var left atomic.Int64
	left.Store(int64(loops))
	for range workers {
		producers.Add(1)
		go func() {
			defer producers.Done()
			for left.Add(-1) >= 0 {
				select {
				case <-window:
				case <-time.After(time.Second):
					stalls.Add(1)
				case <-ctx.Done():
					return
				}
				if err := stampBatch(ctx, client, url); err != nil {
					if ctx.Err() == nil {
						failed.Store(err)
						doneOnce.Do(func() { close(done) })
					}
					return
				}
			}
		}()
	}
	producers.Wait()
	// All sent: wait for the last deliveries, or 3 s without progress.
	for waiting := true; waiting; {
		before := received.Load()
		select {
		case <-done:
			waiting = false
		case <-time.After(3 * time.Second):
			waiting = received.Load() != before
		}
	}
	cpu := c.cpu(t) - cpu0
	wakeups := wakeupsOf(t, c) - wakeups0
	cancel()
	consumers.Wait()
	if err := failed.Load(); err != nil {
		t.Fatal(err)
	}
	n := received.Load()
	if n == 0 {
		t.Fatal("no message received")
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return longPollResult{
		loadResult:      loadResult{messages: n, wall: time.Duration(lastAt.Load()) - start.Sub(loadBase), cpu: cpu},
		p50:             lat[len(lat)/2],
		p99:             lat[min(len(lat)*99/100, len(lat)-1)],
		wakeupsPerBatch: float64(wakeups) / float64(n) * 10,
		stalls:          int(stalls.Load()),
		lost:            int(lost.Load()),
	}
}

// wakeupsOf returns sqsq's LongPollWakeups on the child's queue, or 0 for
// the yardstick.
func wakeupsOf(t *testing.T, c *child) int64 {
	f := strings.Fields(c.ask(t, "wakeups"))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(f[1], 10, 64)
	return n
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
	if os.Getenv("SQSQ_LOAD_DURABLE") != "" { // durable mode beside them
		roles = append(roles, "durable")
	}
	workers := []int{1, 4, 16}
	if s := os.Getenv("SQSQ_LOAD_WORKERS"); s != "" { // one count, to profile it
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("SQSQ_LOAD_WORKERS=%q: want a count of workers", s)
		}
		workers = []int{n}
	}
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

	if os.Getenv("SQSQ_LOAD_SKIP_DRAIN") != "" {
		depths = nil
	}
	longPollOnly := os.Getenv("SQSQ_LOAD_LONGPOLL_ONLY") != ""
	lpReps := reps
	if longPollOnly {
		reps, depths = 0, nil
	}

	// Throughput: send batch → receive → delete batch, on 1, 4 and 16
	// workers, after a warm-up.
	servers := start()
	if os.Getenv("SQSQ_LOAD_DRAIN_ONLY") != "" { // skip the throughput runs
		reps, lpReps = 0, 0
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

	// Long polling, in fresh processes (nothing left in flight by the
	// runs above): consumers park on an empty queue and sends wake them.
	if lpReps > 0 {
		servers = start()
		for _, role := range roles {
			s := servers[role]
			longPollCycle(t, s.c, s.client, s.url, 4, loops/4)
		}
	}
	type lpRuns struct {
		cpu, p50, p99 []time.Duration
		rate          []float64
		wakeups       []float64 // sqsq's wakeups per batch of ten
		stalls, lost  int
	}
	lp := map[string][]*lpRuns{} // role → workers index
	for _, role := range roles {
		for range workers {
			lp[role] = append(lp[role], &lpRuns{})
		}
	}
	for range lpReps {
		for i, w := range workers {
			for _, role := range roles {
				s := servers[role]
				r := longPollCycle(t, s.c, s.client, s.url, w, loops)
				l := lp[role][i]
				l.cpu = append(l.cpu, r.perMessage())
				l.rate = append(l.rate, float64(r.messages)/r.wall.Seconds())
				l.p50 = append(l.p50, r.p50)
				l.p99 = append(l.p99, r.p99)
				l.wakeups = append(l.wakeups, r.wakeupsPerBatch)
				l.stalls += r.stalls
				l.lost += r.lost
			}
		}
	}

	// Drain and memory, in fresh processes: top each queue up to a depth
	// (not measured), drain 1,000 messages (measured); the peak memory is
	// read with 100,000 messages queued.
	if len(depths) > 0 {
		servers = start()
	}
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
	fmt.Fprintf(&b, "\nsend batch 10 ∥ long-poll receive 10 (WaitTimeSeconds 20) → delete batch, 1 KiB bodies, %d messages per run,\n"+
		"as many producers as consumers (workers), at most one batch per consumer outstanding, median of %d runs;\n"+
		"p50/p99: send start → message received, per message; wakeups: sqsq's parked receives woken per batch of ten:\n", loops*10, lpReps)
	fmt.Fprintf(&b, "%-10s %7s %12s %14s %12s %10s %10s %8s\n", "server", "workers", "messages/s", "CPU/message", "vs yardstick", "p50", "p99", "wakeups")
	for i, w := range workers {
		if lpReps == 0 {
			break
		}
		y := median(lp["yardstick"][i].cpu)
		for _, role := range roles {
			l := lp[role][i]
			rates := append([]float64(nil), l.rate...)
			sort.Float64s(rates)
			c := median(l.cpu)
			wk := "-"
			if role == "sqsq" {
				ws := append([]float64(nil), l.wakeups...)
				sort.Float64s(ws)
				wk = fmt.Sprintf("%.2f", ws[len(ws)/2])
			}
			fmt.Fprintf(&b, "%-10s %7d %12.0f %14v %11.2f× %10v %10v %8s\n", role, w, rates[len(rates)/2], c.Round(10*time.Nanosecond),
				float64(c)/float64(y), median(l.p50).Round(time.Microsecond), median(l.p99).Round(time.Microsecond), wk)
			if l.stalls > 0 || l.lost > 0 {
				fmt.Fprintf(&b, "%-10s %7d over the runs: %d receive responses lost, %d producer waits timed out\n", role, w, l.lost, l.stalls)
			}
		}
	}
	if len(depths) == 0 {
		t.Log("\n" + b.String())
		return
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
