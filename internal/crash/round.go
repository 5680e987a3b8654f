package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/sqsq/sqsq/internal/sqsqproc"
)

// driver runs the rounds: traffic, kill, restart, check.
type driver struct {
	cfg         config
	out, errw   io.Writer
	l           *ledger
	rng         *rand.Rand
	bin, data   string
	log         *sqsqproc.Tail
	srv         *sqsqproc.Server
	http        *http.Client
	sqs         *sqs.Client
	accountPath string
	dlqArn      string
	clients     []*client
	admin       *admin
	calls       atomic.Int64
	fails       failures
}

// The moment of the kill, from the start of a round's traffic.
const (
	minRound = 300 * time.Millisecond
	maxRound = 3 * time.Second
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (*result, error) {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "sqsq-crash-")
	if err != nil {
		return nil, err
	}
	bctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	bin, err := sqsqproc.Binary(bctx, cfg.server, tmp)
	cancel()
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	d := &driver{cfg: cfg, out: stdout, errw: stderr, l: newLedger(), rng: rand.New(rand.NewPCG(cfg.seed, 0)),
		bin: bin, data: tmp + "/data", log: sqsqproc.NewTail(64 << 10), admin: newAdmin(cfg.seed)}
	for i := range cfg.clients {
		d.clients = append(d.clients, newClient(i, cfg.seed))
	}
	fmt.Fprintf(stderr, "crash: -seed %d, data in %s\n", cfg.seed, d.data)
	res, err := d.run(ctx)
	if err == nil && res.pass() && !cfg.keep {
		os.RemoveAll(tmp)
	} else {
		fmt.Fprintf(stderr, "crash: kept %s\n", d.data)
	}
	if err != nil {
		return nil, err
	}
	res.details(stderr)
	if !res.pass() {
		if log := strings.TrimSpace(d.log.String()); log != "" {
			fmt.Fprintf(stderr, "server log (the end):\n%s\n", log)
		}
	}
	fmt.Fprintln(stdout, res.summary())
	return res, nil
}

func (d *driver) run(ctx context.Context) (*result, error) {
	res := &result{cfg: d.cfg}
	if err := d.start("127.0.0.1:0"); err != nil {
		return nil, err
	}
	defer func() {
		if d.srv != nil {
			_ = crash(d.srv, true)
		}
	}()
	if err := d.setup(ctx); err != nil {
		return nil, fmt.Errorf("creating the queues: %w\n%s", err, d.log)
	}
	start := time.Now()
	for res.kills < d.cfg.kills {
		// Do not start a round that would end past -max-duration: its
		// traffic, plus the stop, restart and check the last took (at
		// least half a second).
		wait := minRound + time.Duration(d.rng.Int64N(int64(maxRound-minRound)))
		overhead := 500 * time.Millisecond
		if n := len(res.rounds); n > 0 {
			last := res.rounds[n-1]
			overhead = max(overhead, 2*(last.down+last.restart+last.check))
		}
		if time.Since(start)+wait+overhead > d.cfg.maxDuration {
			res.timeUp = true
			break
		}
		t, rep, err := d.round(ctx, wait)
		if ctx.Err() != nil {
			res.interrupt = true
			break
		}
		if err != nil {
			return nil, fmt.Errorf("after kill %d: %w", res.kills+1, err)
		}
		res.kills++
		res.rounds = append(res.rounds, t)
		res.checked.ackedSends += rep.ackedSends
		res.checked.ackedDeletes += rep.ackedDeletes
		res.checked.unknowns += rep.unknowns
		if d.cfg.verbose {
			fmt.Fprintf(d.errw, "kill %d: traffic %v, down %v, restart %v, check %v: %d acked sends, %d acked deletes, %d unknown, %d dead-lettered, %d moved back, %d violations\n",
				res.kills, t.run.Round(time.Millisecond), t.down.Round(time.Millisecond), t.restart.Round(time.Millisecond),
				t.check.Round(time.Millisecond), rep.ackedSends, rep.ackedDeletes, rep.unknowns, rep.deadLettered, rep.movedBack, len(rep.violations))
		}
		if len(rep.violations) > 0 {
			res.violations, res.failedAt = rep.violations, res.kills
			break
		}
	}
	res.duration = time.Since(start)
	res.totals = d.l.totals()
	res.calls, res.errs = d.calls.Load(), d.fails.total()
	if d.cfg.verbose {
		fmt.Fprintf(d.errw, "failed calls: %v\n", &d.fails)
	}
	return res, nil
}

// start starts the server on addr and points the SDK at it. A fresh
// transport each time: the last server's connections are dead.
func (d *driver) start(addr string) error {
	srv, err := startServer(d.bin, d.data, addr, d.log, d.extraFlags())
	if err != nil && addr != "127.0.0.1:0" {
		// The port was taken meanwhile: queue URLs follow the new one.
		srv, err = startServer(d.bin, d.data, "127.0.0.1:0", d.log, d.extraFlags())
	}
	if err != nil {
		return err
	}
	d.srv = srv
	if d.http != nil {
		d.http.CloseIdleConnections()
	}
	d.http = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * d.cfg.clients}, Timeout: 30 * time.Second}
	d.sqs = sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  staticCredentials,
		HTTPClient:   d.http,
		Retryer:      aws.NopRetryer{},
	})
	return nil
}

func (d *driver) extraFlags() []string {
	if d.cfg.dataSync != "" {
		return []string{"-data-sync", d.cfg.dataSync}
	}
	return nil
}

// staticCredentials sign every request, as a real client does; sqsq
// accepts any signature, and an access key id that is not 12 digits
// selects the default account.
var staticCredentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: "crash", SecretAccessKey: "crash", Source: "crash"}, nil
})

// setup creates the main queues and records their attributes' defaults.
func (d *driver) setup(ctx context.Context) error {
	create := func(name string, attrs map[string]string) (string, error) {
		out, err := d.sqs.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
		if err != nil {
			return "", err
		}
		return aws.ToString(out.QueueUrl), nil
	}
	dlqURL, err := create(qDLQ, nil)
	if err != nil {
		return err
	}
	u, err := url.Parse(dlqURL)
	if err != nil {
		return err
	}
	d.accountPath = path.Dir(u.Path)
	attrs, err := d.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(dlqURL),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		return err
	}
	d.dlqArn = attrs.Attributes["QueueArn"]
	policy, _ := json.Marshal(map[string]any{"deadLetterTargetArn": d.dlqArn, "maxReceiveCount": maxReceiveCount})
	if _, err := create(qSrc, map[string]string{"RedrivePolicy": string(policy)}); err != nil {
		return err
	}
	if _, err := create(qStd, map[string]string{visibilityVT: "30"}); err != nil {
		return err
	}
	if _, err := create(qFIFO, map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}); err != nil {
		return err
	}
	d.l.addQueue(qDLQ, "", false, false)
	d.l.addQueue(qSrc, qDLQ, false, false)
	d.l.addQueue(qStd, "", false, true)
	d.l.addQueue(qFIFO, "", true, true)
	d.l.initAttr(qSrc, "RedrivePolicy", string(policy))
	d.l.initAttr(qStd, visibilityVT, "30")
	d.l.initAttr(qFIFO, "ContentBasedDeduplication", "true")
	for _, q := range tagged {
		d.l.initAttr(q, "tag:"+tagKey, "")
	}
	return nil
}

// round runs the clients against the server for wait (a random moment), kills
// the server, waits for every client to stop (their calls in flight fail:
// outcome unknown), restarts it on the same data and checks.
func (d *driver) round(ctx context.Context, wait time.Duration) (roundTiming, checkReport, error) {
	var t roundTiming
	e := &env{sqs: d.sqs, base: d.srv.URL, accountPath: d.accountPath, l: d.l, dlqArn: d.dlqArn, calls: &d.calls, fails: &d.fails}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(len(d.clients) + 1)
	for _, c := range d.clients {
		go func() { defer wg.Done(); c.run(rctx, e) }()
	}
	go func() { defer wg.Done(); d.admin.run(rctx, e) }()
	start := time.Now()
	select {
	case <-ctx.Done():
		cancel()
		wg.Wait()
		return t, checkReport{}, ctx.Err()
	case <-time.After(wait):
	}
	t.run = time.Since(start)
	down := time.Now()
	err := crash(d.srv, d.cfg.graceful)
	t.down = time.Since(down)
	cancel()
	wg.Wait()
	if err != nil {
		return t, checkReport{}, fmt.Errorf("%w\n%s", err, d.log)
	}
	up := time.Now()
	if err := d.start(d.srv.Addr()); err != nil {
		return t, checkReport{}, fmt.Errorf("restarting: %w", err)
	}
	t.restart = time.Since(up)
	check := time.Now()
	rep, err := d.check(ctx)
	t.check = time.Since(check)
	return t, rep, err
}

// check reads the restarted server's state and holds it to the ledger. A
// move task resumed by the restart moves messages while the state is read,
// so it waits for the tasks to end first; should a check still fail, it
// reads again (up to three times) and reports the last: a lost or
// resurrected message stays so, a message read in transit does not.
func (d *driver) check(ctx context.Context) (checkReport, error) {
	o := &observer{base: d.srv.URL, http: d.http, sqs: d.sqs, tagged: d.taggedKeys}
	var rep checkReport
	for range 3 {
		if err := d.waitMoves(ctx); err != nil {
			return rep, err
		}
		snap, err := o.snapshot(ctx)
		if err != nil {
			return rep, fmt.Errorf("reading the state: %w", err)
		}
		rep = d.l.check(snap)
		if len(rep.violations) == 0 {
			d.l.resolve(snap)
			break
		}
	}
	return rep, nil
}

// taggedKeys are the tag keys the ledger tracks on a queue.
func (d *driver) taggedKeys(queue string) []string {
	for _, q := range tagged {
		if q == queue {
			return []string{tagKey}
		}
	}
	return nil
}

// waitMoves waits until no move task runs on the dead-letter queue.
func (d *driver) waitMoves(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := d.sqs.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(d.dlqArn), MaxResults: aws.Int32(10)})
		var ae smithy.APIError
		if errors.As(err, &ae) && ae.ErrorCode() == "ResourceNotFoundException" {
			return nil // the dead-letter queue is gone: the check says so
		}
		if err != nil {
			return fmt.Errorf("ListMessageMoveTasks: %w", err)
		}
		running := false
		for _, r := range out.Results {
			running = running || aws.ToString(r.Status) == "RUNNING" || aws.ToString(r.Status) == "CANCELLING"
		}
		if !running {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("a move task still runs 30 s after the restart")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
