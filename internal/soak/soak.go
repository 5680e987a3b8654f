package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq/internal/sqsqproc"
)

// maxReceiveCount is the redrive policy of both source queues.
const maxReceiveCount = 3

// The fates' shares of the messages, per ten thousand.
const (
	alwaysFailShare = 50  // 0.5 %
	failOnceShare   = 200 // 2 %
	slowShare       = 50  // 0.5 %
)

type config struct {
	messages, consumers, producers int
	groups, bodySize, backlog      int
	fifoShare                      float64
	visibility, maxDuration        time.Duration
	rssRatio, cpuRatio             float64
	server, root                   string
	seed                           uint64
	verbose                        bool
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.messages, "messages", 100_000, "messages to send")
	fs.IntVar(&c.consumers, "consumers", 64, "concurrent consumers, shared between the queues as the messages are")
	fs.IntVar(&c.producers, "producers", 8, "concurrent producers")
	fs.Float64Var(&c.fifoShare, "fifo", 0.25, "share of the messages sent to the FIFO queue")
	fs.IntVar(&c.groups, "groups", 1000, "FIFO message groups")
	fs.IntVar(&c.bodySize, "body", 256, "message body size in bytes")
	fs.IntVar(&c.backlog, "backlog", 5000, "most messages sent and not yet settled: keeps the queues at a steady depth")
	fs.DurationVar(&c.visibility, "visibility", 2*time.Second, "the queues' visibility timeout (whole seconds)")
	fs.DurationVar(&c.maxDuration, "max-duration", 10*time.Minute, "give up and fail after this long (the build of cmd/sqsq not counted)")
	fs.Float64Var(&c.rssRatio, "rss-ratio", 1.5, "most the server's RSS at the end may be, as a multiple of its RSS after warm-up,\nplus 1.5 KB per FIFO deduplication id it remembers since (0: no check)")
	fs.Float64Var(&c.cpuRatio, "cpu-ratio", 1.2, "most the server's CPU per message over the run may be, as a multiple of the short run's (0: no check)")
	fs.StringVar(&c.server, "server", "", "a built cmd/sqsq `binary` to run (default: build ./cmd/sqsq of the module)")
	fs.StringVar(&c.root, "root", "", "the sqsq module's root `dir` (default: from go env GOMOD)")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the consumers' wait times")
	fs.BoolVar(&c.verbose, "v", false, "print progress and the details of the result to stderr")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	case c.messages < 1:
		return c, fmt.Errorf("-messages must be at least 1")
	case c.consumers < 2 || c.producers < 1:
		return c, fmt.Errorf("-consumers must be at least 2 (one per queue) and -producers at least 1")
	case c.fifoShare < 0 || c.fifoShare > 1:
		return c, fmt.Errorf("-fifo must be between 0 and 1")
	case c.groups < c.producers:
		return c, fmt.Errorf("-groups must be at least -producers: a group has one producer")
	case c.bodySize < 32 || c.bodySize > 256<<10:
		return c, fmt.Errorf("-body must be between 32 bytes and 256 KiB")
	case c.backlog < 10:
		return c, fmt.Errorf("-backlog must be at least 10")
	case c.visibility < time.Second || c.visibility%time.Second != 0 || c.visibility > 2*time.Hour:
		return c, fmt.Errorf("-visibility must be whole seconds, 1s to 2h")
	}
	return c, nil
}

// soak is one run: the client, the queues and the ledger.
type soak struct {
	cfg    config
	plan   plan
	client *sqs.Client
	http   *counter
	l      *ledger
	errs   errorLog
	slow   sync.WaitGroup // slow handlers still working
	stderr io.Writer

	stdURL, fifoURL, stdDLQ, fifoDLQ string
}

// checkpoint is the server's state when a number of messages had settled.
type checkpoint struct {
	settled int64
	cpu     time.Duration
	rss     int64
	at      time.Duration // since the ledger's start; 0: not reached
	dedup   int           // FIFO deduplication ids the server remembers
}

// dedupIDBytes is the resident memory allowed for each FIFO deduplication
// id the server remembers. SQS remembers every id for five minutes, so in a
// run shorter than that they pile up: sqsq holds 332 bytes of live heap
// per id (measured in-process: 100,000 FIFO sends, received and deleted;
// the heap went back to where it started once the ids expired). The
// garbage collector lets the heap grow to twice the live data before it
// collects, and a map grows by doubling, so RSS may hold up to four times
// that: 1,500 bytes. (The 100,000-message soak has measured 0.6 to 1.25 KB
// per id.) Standard messages get no allowance: sqsq keeps nothing of them
// once deleted.
const dedupIDBytes = 1500

// result is what the summary line says.
type result struct {
	cfg       config
	rep       report
	http      httpCounts
	sdkErrors int
	sdkFirst  []string
	fifo      int
	wall      time.Duration // from the first send to the queues found empty

	// Server CPU per settled message from warm-up (a tenth of the messages
	// settled) to the short run's end (a quarter) and to the last send,
	// after which the queues drain and the batches thin out.
	warm, short, whole, end checkpoint
	cpuShort, cpuWhole      time.Duration
	hwmEnd                  int64

	notEmpty   []string // queues not empty at the end
	timedOut   bool
	serverStop error
	failures   []string
}

func (r *result) pass() bool { return len(r.failures) == 0 }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (*result, error) {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return nil, err
	}
	bin := cfg.server
	if bin == "" {
		bctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		root := cfg.root
		if root == "" {
			if root, err = sqsqproc.ModuleRoot(bctx); err != nil {
				return nil, err
			}
		}
		dir, err := os.MkdirTemp("", "sqsq-soak-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if bin, err = sqsqproc.Build(bctx, root, dir); err != nil {
			return nil, err
		}
	}
	srv, err := startServer(bin)
	if err != nil {
		return nil, err
	}
	defer srv.Kill()

	s := &soak{cfg: cfg, http: newCounter(cfg.consumers + cfg.producers + 64), stderr: stderr}
	s.plan = plan{n: cfg.messages, fifoShare: cfg.fifoShare, groups: cfg.groups, producers: cfg.producers, bodySize: cfg.bodySize,
		alwaysFail: alwaysFailShare, failOnce: failOnceShare, slow: slowShare}
	s.client = sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  staticCredentials,
		HTTPClient:   s.http,
		// Retries as the SDK makes them, without the quota that would turn
		// a burst of them into errors: the counter sees every attempt.
		Retryer: countingRetryer{retry.NewStandard(func(o *retry.StandardOptions) { o.RateLimiter = ratelimit.None }), s.http},
	})
	s.l = newLedger(s.plan, cfg.visibility, maxReceiveCount)

	rctx, cancel := context.WithTimeout(ctx, cfg.maxDuration)
	defer cancel()
	if err := s.createQueues(rctx); err != nil {
		return nil, fmt.Errorf("creating the queues: %w\n%s", err, srv.Log)
	}
	start := time.Now()
	res := s.drive(rctx, srv, start)
	res.timedOut = rctx.Err() != nil
	res.serverStop = stop(srv, 40*time.Second)
	s.progress("server stopped", start)
	res.rep = s.l.verify()
	res.http = s.http.counts()
	res.sdkErrors, res.sdkFirst = s.errs.snapshot()
	res.judge()
	if cfg.verbose || !res.pass() {
		res.details(stderr)
		if !res.pass() {
			if log := strings.TrimSpace(srv.Log.String()); log != "" {
				fmt.Fprintf(stderr, "server log (the end):\n%s\n", log)
			}
		}
	}
	fmt.Fprintln(stdout, res.summary())
	return res, nil
}

// createQueues creates the two source queues and their dead-letter queues.
func (s *soak) createQueues(ctx context.Context) error {
	vis := strconv.Itoa(int(s.cfg.visibility / time.Second))
	create := func(name string, fifo bool, dlq string) (string, error) {
		attrs := map[string]string{"VisibilityTimeout": vis}
		if fifo {
			attrs["FifoQueue"] = "true"
		}
		if dlq != "" {
			out, err := s.client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &dlq,
				AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
			if err != nil {
				return "", err
			}
			policy, _ := json.Marshal(map[string]any{"deadLetterTargetArn": out.Attributes["QueueArn"], "maxReceiveCount": maxReceiveCount})
			attrs["RedrivePolicy"] = string(policy)
		}
		out, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: &name, Attributes: attrs})
		if err != nil {
			return "", err
		}
		return *out.QueueUrl, nil
	}
	var err error
	if s.stdDLQ, err = create("soak-dlq", false, ""); err != nil {
		return err
	}
	if s.fifoDLQ, err = create("soak-dlq.fifo", true, ""); err != nil {
		return err
	}
	if s.stdURL, err = create("soak", false, s.stdDLQ); err != nil {
		return err
	}
	s.fifoURL, err = create("soak.fifo", true, s.fifoDLQ)
	return err
}

// drive runs the producers and consumers until every message is settled
// and the source queues are empty, drains the dead-letter queues into the
// ledger, and measures the server on the way.
func (s *soak) drive(ctx context.Context, srv *sqsqproc.Server, start time.Time) *result {
	res := &result{cfg: s.cfg}
	for n := range s.plan.n {
		if s.plan.isFIFO(n) {
			res.fifo++
		}
	}
	polls, stopPolls := context.WithCancel(ctx)
	defer stopPolls()
	var consumers sync.WaitGroup
	fifoConsumers := 0
	if res.fifo > 0 {
		fifoConsumers = min(max(1, int(float64(s.cfg.consumers)*s.cfg.fifoShare+0.5)), s.cfg.consumers-1)
	}
	if res.fifo == s.plan.n {
		fifoConsumers = s.cfg.consumers
	}
	for i := range s.cfg.consumers {
		url, fifo := s.stdURL, false
		if i < fifoConsumers {
			url, fifo = s.fifoURL, true
		}
		consumers.Add(1)
		go func() {
			defer consumers.Done()
			s.consume(polls, ctx, url, fifo, rand.New(rand.NewPCG(s.cfg.seed, uint64(i))))
		}()
	}
	var producers sync.WaitGroup
	for i := range s.cfg.producers {
		producers.Add(1)
		go func() {
			defer producers.Done()
			s.produce(ctx, i)
		}()
	}
	sent := make(chan struct{})
	go func() {
		producers.Wait()
		close(sent)
	}()

	// Checkpoints, while the producers send.
	n := int64(s.plan.n)
	warmAt, shortAt := max(n/10, 1), max(n/4, 2)
	snap := func() checkpoint {
		settled := s.l.settled.Load()
		cpu, mem, _ := usage(srv)
		at := time.Duration(s.l.now())
		return checkpoint{settled: settled, cpu: cpu, rss: mem.RSS, at: at, dedup: s.l.dedupIDs(at)}
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	lastTenth := int64(0)
sending:
	for {
		select {
		case <-sent:
			break sending
		case <-ctx.Done():
			break sending
		case <-tick.C:
		}
		settled := s.l.settled.Load()
		if res.warm.at == 0 && settled >= warmAt {
			res.warm = snap()
		}
		if res.short.at == 0 && settled >= shortAt {
			res.short = snap()
		}
		if s.cfg.verbose && settled*10/n > lastTenth {
			lastTenth = settled * 10 / n
			s.progress(fmt.Sprintf("%d%% settled", lastTenth*10), start)
		}
	}
	res.whole = snap()

	// The source queues drain: always-failing messages need their last
	// visibility timeouts to run out, and a receive to move them.
	for ctx.Err() == nil {
		left, err := s.depth(ctx, s.stdURL, s.fifoURL)
		if err == nil && left == 0 {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
	res.wall = time.Since(start)
	s.progress("source queues empty", start)
	stopPolls()
	consumers.Wait()
	s.slow.Wait()
	s.progress("consumers stopped", start)

	s.drainDLQ(ctx, s.stdDLQ, false)
	s.drainDLQ(ctx, s.fifoDLQ, true)
	s.progress("dead-letter queues drained", start)
	for _, url := range []string{s.stdURL, s.fifoURL, s.stdDLQ, s.fifoDLQ} {
		if left, err := s.depth(ctx, url); err != nil || left != 0 {
			res.notEmpty = append(res.notEmpty, fmt.Sprintf("%s: %d messages (%v)", url[strings.LastIndexByte(url, '/')+1:], left, err))
		}
	}
	res.end = snap()
	if _, mem, err := usage(srv); err == nil {
		res.hwmEnd = mem.HWM
	}
	if d := res.short.settled - res.warm.settled; d > 0 && res.warm.at != 0 {
		res.cpuShort = (res.short.cpu - res.warm.cpu) / time.Duration(d)
	}
	if d := res.whole.settled - res.warm.settled; d > 0 && res.warm.at != 0 {
		res.cpuWhole = (res.whole.cpu - res.warm.cpu) / time.Duration(d)
	}
	return res
}

// progress reports a step of the run with -v.
func (s *soak) progress(step string, start time.Time) {
	if s.cfg.verbose {
		fmt.Fprintf(s.stderr, "soak: %s after %v\n", step, time.Since(start).Round(time.Millisecond))
	}
}

// depth is the number of messages in the queues: visible, in flight and
// delayed.
func (s *soak) depth(ctx context.Context, urls ...string) (int, error) {
	total := 0
	for _, url := range urls {
		out, err := s.client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &url,
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
		if err != nil {
			if ctx.Err() == nil {
				s.errs.add("GetQueueAttributes", err)
			}
			return 0, err
		}
		for _, a := range []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages,
			types.QueueAttributeNameApproximateNumberOfMessagesNotVisible, types.QueueAttributeNameApproximateNumberOfMessagesDelayed} {
			v, err := strconv.Atoi(out.Attributes[string(a)])
			if err != nil {
				return 0, fmt.Errorf("%s: %q", a, out.Attributes[string(a)])
			}
			total += v
		}
	}
	return total, nil
}

// drainDLQ receives and deletes everything in a dead-letter queue, into the
// ledger.
func (s *soak) drainDLQ(ctx context.Context, url string, fifo bool) {
	for ctx.Err() == nil {
		out, err := s.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10,
			WaitTimeSeconds: 1, VisibilityTimeout: int32(max(s.cfg.visibility, 5*time.Second) / time.Second)})
		if err != nil {
			if ctx.Err() == nil {
				s.errs.add("ReceiveMessage (dead-letter queue)", err)
			}
			return
		}
		if len(out.Messages) == 0 {
			if left, err := s.depth(ctx, url); err != nil || left == 0 {
				return
			}
			continue
		}
		entries := make([]types.DeleteMessageBatchRequestEntry, len(out.Messages))
		for i, m := range out.Messages {
			s.l.dead(fifo, m)
			entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle}
		}
		del, err := s.client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &url, Entries: entries})
		if err != nil {
			if ctx.Err() == nil {
				s.errs.add("DeleteMessageBatch (dead-letter queue)", err)
			}
			return
		}
		for _, f := range del.Failed {
			s.errs.addf("DeleteMessageBatch (dead-letter queue) entry: %s %s", str(f.Code), str(f.Message))
		}
	}
}

// judge lists the failed checks.
func (r *result) judge() {
	fail := func(format string, args ...any) { r.failures = append(r.failures, fmt.Sprintf(format, args...)) }
	rep := r.rep
	if r.timedOut {
		fail("stopped before the end: interrupted, or past -max-duration %v", r.cfg.maxDuration)
	}
	if rep.violations > 0 {
		fail("%d ledger violations", rep.violations)
	}
	if rep.lost > 0 {
		fail("%d messages lost", rep.lost)
	}
	if rep.unsent > 0 || rep.sent != r.cfg.messages {
		fail("%d of %d messages sent", rep.sent, r.cfg.messages)
	}
	// A second copy of a standard message, or a receive the client never
	// saw, is what an SDK retry after a lost response makes (see
	// countingRetryer): only that explains them, ten messages a retry at
	// most.
	if explained := 10 * r.http.retried; int64(rep.dupSends) > explained || int64(rep.unseenReceives) > explained {
		fail("%d duplicate sends and %d unseen receives, with %d retried attempts to explain them", rep.dupSends, rep.unseenReceives, r.http.retried)
	}
	if r.http.c5xx > 0 {
		fail("%d responses with HTTP 5xx", r.http.c5xx)
	}
	if r.sdkErrors > 0 {
		fail("%d SDK calls failed", r.sdkErrors)
	}
	if len(r.notEmpty) > 0 {
		fail("queues not empty at the end: %s", strings.Join(r.notEmpty, "; "))
	}
	if r.serverStop != nil {
		fail("%v", r.serverStop)
	}
	if r.cfg.rssRatio > 0 {
		switch {
		case r.warm.rss == 0 || r.end.rss == 0:
			fail("RSS not measured")
		case r.end.rss > r.rssLimit():
			fail("RSS at the end %s, over %.2f× that after warm-up and %d bytes a FIFO deduplication id remembered since (%s)",
				mb(r.end.rss), r.cfg.rssRatio, dedupIDBytes, mb(r.rssLimit()))
		}
	}
	if r.cfg.cpuRatio > 0 {
		switch {
		case r.cpuShort == 0 || r.cpuWhole == 0:
			fail("CPU per message not measured: too few messages past warm-up before the last send (raise -messages or lower -backlog)")
		case float64(r.cpuWhole) > r.cfg.cpuRatio*float64(r.cpuShort):
			fail("server CPU per message over the run %.2f× the short run's (at most %.2f×)", float64(r.cpuWhole)/float64(r.cpuShort), r.cfg.cpuRatio)
		}
	}
}

// dedupGrowth is the FIFO deduplication ids the server remembered at the
// end beyond those it remembered after warm-up.
func (r *result) dedupGrowth() int { return max(r.end.dedup-r.warm.dedup, 0) }

// rssLimit is the most the server's RSS may be at the end: -rss-ratio
// times its RSS after warm-up, plus the allowance for the deduplication ids
// it remembers beyond those it remembered then.
func (r *result) rssLimit() int64 {
	return int64(r.cfg.rssRatio*float64(r.warm.rss)) + int64(r.dedupGrowth())*dedupIDBytes
}

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/1e6) }

func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// summary is the one line the soak prints.
func (r *result) summary() string {
	verdict := "PASS"
	if !r.pass() {
		verdict = "FAIL (" + strings.Join(r.failures, "; ") + ")"
	}
	rate := 0.0
	if r.wall > 0 {
		rate = float64(r.rep.sent) / r.wall.Seconds()
	}
	us := func(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d)/1e3) }
	return fmt.Sprintf("soak %s: %d messages (%d FIFO in %d groups), %d consumers, %v, %.0f msg/s; "+
		"server CPU/msg %s (short run %s, %s); RSS after warm-up %s, end %s = %s (limit %s with %d more FIFO dedup ids); "+
		"DLQ %d (%d always-failing, %d late); lost %d; 5xx %d; SDK retries %d; violations %d",
		verdict, r.rep.sent, r.fifo, r.cfg.groups, r.cfg.consumers, r.wall.Round(100*time.Millisecond), rate,
		us(r.cpuWhole), us(r.cpuShort), ratio(float64(r.cpuWhole), float64(r.cpuShort)),
		mb(r.warm.rss), mb(r.end.rss), ratio(float64(r.end.rss), float64(r.warm.rss)),
		mb(r.rssLimit()), r.dedupGrowth(),
		r.rep.dlq, r.rep.dlqExpected, r.rep.dlqExtra, r.rep.lost, r.http.c5xx, r.http.retried, r.rep.violations)
}

// details writes what the summary leaves out.
func (r *result) details(w io.Writer) {
	rep, h := r.rep, r.http
	fmt.Fprintf(w, "soak: %d sent, %d deleted, %d in dead-letter queues; %d deliveries (%d redeliveries), %d stale deletes, %d late handlers, %d expired FIFO deletes, %d unseen receives, %d unknown, %d duplicate sends\n",
		rep.sent, rep.deleted, rep.dlq, rep.deliveries, rep.redeliveries, rep.staleDeletes, rep.late, rep.expired, rep.unseenReceives, rep.unknown, rep.dupSends)
	fmt.Fprintf(w, "soak: HTTP %d requests: %d 2xx, %d 4xx, %d 5xx, %d transport errors; %d attempts retried; %d SDK errors; server peak RSS %s\n",
		h.requests, h.c2xx, h.c4xx, h.c5xx, h.transportErrs, h.retried, r.sdkErrors, mb(r.hwmEnd))
	for _, c := range []struct {
		name string
		c    checkpoint
	}{{"warm-up", r.warm}, {"short run", r.short}, {"last send", r.whole}, {"end", r.end}} {
		fmt.Fprintf(w, "soak: checkpoint %s at %v: %d settled, server CPU %v, RSS %s, %d dedup ids remembered\n",
			c.name, c.c.at.Round(time.Millisecond), c.c.settled, c.c.cpu.Round(time.Millisecond), mb(c.c.rss), c.c.dedup)
	}
	for _, s := range h.notes {
		fmt.Fprintln(w, "soak: http:", s)
	}
	for _, s := range r.sdkFirst {
		fmt.Fprintln(w, "soak: error:", s)
	}
	for _, s := range rep.first {
		fmt.Fprintln(w, "soak: violation:", s)
	}
}
