package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqshttp"
)

// options are the command line of sqsq.
type options struct {
	addr      string
	region    string
	accountID string
	baseURL   string
	logLevel  slog.Level
	config    string
	clock     string
	// The server's protections (see protections.go).
	allowHosts        hostList
	readHeaderTimeout time.Duration
	readTimeout       time.Duration
	idleTimeout       time.Duration
	maxConns          int
	// The switches of switches.go, as the command line gave them.
	staleDeleteRemoves switchFlag
	strictNotInflight  switchFlag
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("sqsq", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usage(fs, stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:9324", "`host:port` to listen on (port 0 picks a free port)")
	fs.StringVar(&o.region, "region", "us-east-1", "default region: of -config queues and of requests whose credential names none\n(every region is served: a request's SigV4 credential scope chooses)")
	fs.StringVar(&o.accountID, "account-id", "000000000000", "default account id: of -config queues and of requests whose access key id is not 12 digits\n(every account is served: a 12-digit access key id names it)")
	fs.StringVar(&o.baseURL, "base-url", "", "fixed scheme and host of returned queue URLs (default: those of each request)")
	fs.TextVar(&o.logLevel, "log-level", slog.LevelInfo, "log `level`: debug (every request), info, warn or error")
	fs.StringVar(&o.config, "config", "", "JSON `file` of queues to create at start-up, and switches (see README.md)")
	fs.StringVar(&o.clock, "clock", "real", "`real`, or virtual: time stands still until POST /_sqsq/clock/advance moves it")
	fs.Var(&o.allowHosts, "allow-host", "`host` names to serve besides loopback names (localhost, *.localhost, 127.0.0.1, [::1]) and the listening\n"+
		"address: repeat the flag or separate names by commas; *.example allows every name under example, * any Host")
	fs.DurationVar(&o.readHeaderTimeout, "read-header-timeout", 10*time.Second, "longest time a client may take to send a request's headers")
	fs.DurationVar(&o.readTimeout, "read-timeout", 30*time.Second, "longest time a client may take to send a request's headers and body\n"+
		"(the answer, a long poll's included, is not limited)")
	fs.DurationVar(&o.idleTimeout, "idle-timeout", 60*time.Second, "an idle keep-alive connection is closed after this long")
	fs.IntVar(&o.maxConns, "max-conns", 1024, "most connections served at once (0: no limit); further clients wait to be accepted")
	fs.Var(&o.staleDeleteRemoves, "stale-delete-removes", "DeleteMessage with a stale receipt handle (the message was received again since) deletes the message\n"+
		"(default: it succeeds and deletes nothing, the unlucky case of AWS's \"might not be deleted\")")
	fs.Var(&o.strictNotInflight, "strict-not-inflight", "ChangeMessageVisibility on a standard-queue message whose visibility already ended fails with\n"+
		"MessageNotInflight (default: it succeeds and changes nothing, as observed on AWS)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.clock != "real" && o.clock != "virtual" {
		return o, fmt.Errorf("-clock must be real or virtual, not %q", o.clock)
	}
	if err := o.checkProtections(); err != nil {
		return o, err
	}
	return o, nil
}

// run serves SQS until ctx ends, then shuts down gracefully: it stops
// accepting connections, ends parked long polls with an empty result,
// lets in-flight requests finish, and closes the broker. It prints the
// address it serves on to stdout, and logs to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: o.logLevel}))

	var clk clock.Clock = clock.New()
	var mock *clock.Mock
	if o.clock == "virtual" {
		mock = clock.NewMock()
		mock.Set(time.Now().Truncate(time.Millisecond)) // start at today, then stand still
		clk = mock
	}
	var cfg config
	if o.config != "" {
		if cfg, err = readConfig(o.config); err != nil {
			return err
		}
	}
	sw := resolveSwitches(o, cfg)
	b := sqsq.NewBroker(append([]sqsq.Option{sqsq.WithClock(clk), sqsq.WithRegion(o.region), sqsq.WithAccountID(o.accountID)},
		sw.options()...)...)
	defer b.Close()
	if sw != (switches{}) {
		log.Info("non-default behaviour", "stale-delete-removes", sw.staleDeleteRemoves, "strict-not-inflight", sw.strictNotInflight)
	}

	if o.config != "" {
		n, err := createQueues(ctx, b, cfg, o.config)
		if err != nil {
			return err
		}
		log.Info("created queues", "config", o.config, "queues", n)
	}

	drain, drained := context.WithCancel(context.Background())
	defer drained()
	opts := []sqshttp.Option{sqshttp.WithDrain(drain), sqshttp.WithLogger(log)}
	if o.baseURL != "" {
		opts = append(opts, sqshttp.WithBaseURL(o.baseURL))
	}
	mux := http.NewServeMux()
	mux.Handle("/", sqshttp.NewHandler(b, opts...))
	if mock != nil {
		admin{b: b, clk: mock}.register(mux)
	}

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	srv := o.server(logRequests(log, sqshttp.LoopbackOnly(mux, o.allowedHosts()...)))
	srv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	if o.maxConns > 0 {
		ln = newLimitListener(ln, o.maxConns)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "sqsq serving SQS on http://%s (clock=%s; every region and account, by default region=%s, account=%s)\n",
		ln.Addr(), o.clock, o.region, o.accountID)

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	drained() // parked long polls answer now, with nothing
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// logRequests logs each request at debug level.
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	if !log.Enabled(context.Background(), slog.LevelDebug) {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		// A Query-protocol POST names its Action in the body, which the
		// handler reads: keep the start of what it reads.
		head := &prefixWriter{max: 4 << 10}
		if r.Body != nil {
			r.Body = readCloser{io.TeeReader(r.Body, head), r.Body}
		}
		next.ServeHTTP(rec, r)
		op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.")
		if op == "" {
			op = r.URL.Query().Get("Action")
		}
		if op == "" {
			op = formAction(head.buf)
		}
		log.Debug("request", "method", r.Method, "path", r.URL.Path, "op", op, "status", rec.status,
			"duration", time.Since(start), "request_id", w.Header().Get("x-amzn-RequestId"))
	})
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

type readCloser struct {
	io.Reader
	io.Closer
}

// prefixWriter keeps the first max bytes written to it.
type prefixWriter struct {
	buf []byte
	max int
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	if n := min(len(b), p.max-len(p.buf)); n > 0 {
		p.buf = append(p.buf, b[:n]...)
	}
	return len(b), nil
}

// formAction is the Action of a form-encoded body (or its start).
func formAction(body []byte) string {
	for kv := range strings.SplitSeq(string(body), "&") {
		if v, ok := strings.CutPrefix(kv, "Action="); ok {
			op, _ := url.QueryUnescape(strings.TrimSpace(v))
			return op
		}
	}
	return ""
}
