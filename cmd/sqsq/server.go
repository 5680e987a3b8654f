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
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/console"
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
	// Fault injection, the delivery history and the reset (chaos.go).
	kit faultOptions
	// Durable mode (data.go).
	data dataOptions
	// One-shot modes (health.go, version.go): no server is started.
	healthcheck bool
	version     bool
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
	fs.Var(levelFlag{&o.logLevel}, "log-level", "log `level`: debug (every request), info, warn or error")
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
	o.kit.register(fs)
	o.data.register(fs)
	fs.BoolVar(&o.healthcheck, "healthcheck", false, "start no server: ask GET "+healthPath+" of the server at -addr (on loopback if it listens on all\n"+
		"interfaces) and exit 0 if it answers ok within 3 s, 1 if not; for a container's HEALTHCHECK")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		code := 2
		if errors.Is(err, flag.ErrHelp) {
			code = 0
		}
		return o, usageError{err, code}
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.clock != "real" && o.clock != "virtual" {
		return o, fmt.Errorf("-clock must be real or virtual, not %q", o.clock)
	}
	if o.baseURL != "" {
		if err := checkBaseURL(o.baseURL); err != nil {
			return o, err
		}
	}
	if err := o.checkProtections(); err != nil {
		return o, err
	}
	return o, nil
}

// checkBaseURL refuses a -base-url that cannot start a queue URL: it must
// be http:// or https:// and a host, with no path, query or fragment (the
// account and queue name follow it).
func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("-base-url %q: %v", s, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("-base-url %q must start with http:// or https://, as in http://%s", s, strings.TrimPrefix(s, "//"))
	case u.Host == "":
		return fmt.Errorf("-base-url %q has no host; give scheme and host, as in http://localhost:9324", s)
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return fmt.Errorf("-base-url %q must be only a scheme and a host (queue URLs add /account/name), as in %s://%s", s, u.Scheme, u.Host)
	}
	return nil
}

// shutdownGrace is how long a shutdown lets requests in progress finish
// before it closes their connections. Parked long polls answer at once, so
// a shutdown takes milliseconds unless a client stalls.
const shutdownGrace = 3 * time.Second

// run serves SQS until ctx ends, then shuts down gracefully: it stops
// accepting connections, ends parked long polls with an empty result,
// lets in-flight requests finish, and closes the broker. It prints the
// address it serves on to stdout, and logs to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	switch {
	case o.version:
		_, err := fmt.Fprintln(stdout, "sqsq", sqsqVersion())
		return err
	case o.healthcheck:
		return checkHealth(ctx, o.addr, healthcheckTimeout, stdout)
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
	k, err := newKit(o.kit, log, o.data.dir == "")
	if err != nil {
		return err
	}
	b, data, err := openData(o.data, o.region, o.accountID, mock, log, append(append([]sqsq.Option{sqsq.WithClock(clk), sqsq.WithRegion(o.region), sqsq.WithAccountID(o.accountID)},
		sw.options()...), k.brokerOptions()...))
	if err != nil {
		return err
	}
	defer b.Close()
	defer data.close() // after a graceful shutdown wrote the last changes; idempotent
	k.b = b
	if o.config != "" {
		// Before any log line: a bad file is the one line main prints.
		n, err := createQueues(ctx, b, cfg, o.config, data.restored())
		if err != nil {
			return err
		}
		log.Info("created queues", "config", o.config, "queues", n)
	}
	if err := data.sync(ctx); err != nil {
		return err
	}
	if sw != (switches{}) {
		log.Info("non-default behaviour", "stale-delete-removes", sw.staleDeleteRemoves, "strict-not-inflight", sw.strictNotInflight)
	}

	drain, drained := context.WithCancel(context.Background())
	defer drained()
	opts := append([]sqshttp.Option{sqshttp.WithDrain(drain), sqshttp.WithLogger(log), sqshttp.WithInterceptor(k.engine)}, data.commitHook()...)
	if o.baseURL != "" {
		opts = append(opts, sqshttp.WithBaseURL(o.baseURL))
	}
	mux := http.NewServeMux()
	mux.Handle("/", sqshttp.NewHandler(b, opts...))
	var consoleOpts []console.Option
	if o.baseURL != "" {
		consoleOpts = append(consoleOpts, console.WithBaseURL(o.baseURL))
	}
	if k.rec != nil {
		consoleOpts = append(consoleOpts, console.WithHistory(k.rec))
	}
	if mock != nil {
		a := admin{b: b, clk: mock, mu: new(sync.Mutex)}
		k.mock, k.start, k.mu = mock, mock.Now(), a.mu
		a.register(mux)
		// The console's advance buttons move the clock as the admin endpoint does.
		consoleOpts = append(consoleOpts, console.WithVirtualClock(a.advanceBy))
	}
	// The console, in both clock modes, under the LoopbackOnly guard below
	// like every path; /_sqsq/ui redirects to /_sqsq/ui/ by the mux's rule.
	con := console.Handler(b, consoleOpts...)
	mux.Handle("/_sqsq/api/", con)
	mux.Handle("/_sqsq/ui/", con)
	k.register(mux)
	registerHealth(mux, o.clock)
	registerAdminFallback(mux, mock != nil)

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	mem := newMemReleaser()
	defer mem.stop()
	var h http.Handler = logRequests(log, mem.wrap(sqshttp.LoopbackOnly(data.wrapAdmin(mux), o.allowedHosts()...)))
	var fair *fairness
	if o.maxConns > 0 {
		fair = newFairness(log, o.maxConns)
		h = fair.wrap(h)
	}
	srv := o.server(h)
	srv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	if fair != nil {
		srv.ConnState = fair.connState
		limited := newLimitListener(ln, o.maxConns)
		limited.full = fair.free
		ln = limited
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "sqsq serving SQS on http://%s (clock=%s; every region and account, by default region=%s, account=%s); Ctrl-C stops it\n",
		ln.Addr(), o.clock, o.region, o.accountID)

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down; a second Ctrl-C or SIGTERM exits at once")
	drained() // parked long polls answer now, with nothing
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// Only a client that stalls in the middle of sending a request, or
		// of reading an answer, holds a connection this long.
		log.Warn("closing the connections of requests still unfinished", "after", shutdownGrace)
		_ = srv.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	// Every request has ended: write what is left.
	return data.close()
}

// logRequests logs one line per request, with stable keys: method, path,
// protocol, op, account, region, queue, status, error (the SQS error
// code), duration and request_id. Requests are logged at debug level;
// refused ones (403: a browser's, or for a host not allowed) and failures
// of the server (5xx) at warn level with the error's message, since they
// mean a setup to fix or a bug to report. So is an error that sqshttp
// explains with a hint (a queue that exists in another region), the first
// time each hint is seen: a client that polls the wrong region in a loop
// does not flood the log.
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	ctx := context.Background()
	if !log.Enabled(ctx, slog.LevelWarn) {
		return next
	}
	debug := log.Enabled(ctx, slog.LevelDebug)
	var hints seenSet
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		r, info := sqshttp.WithRequestInfo(r)
		next.ServeHTTP(rec, r)
		level := slog.LevelDebug
		if rec.status == http.StatusForbidden || rec.status >= 500 || (info.Hint != "" && hints.first(info.Hint)) {
			level = slog.LevelWarn
		} else if !debug {
			return
		}
		attrs := []slog.Attr{
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.String("protocol", info.Protocol), slog.String("op", info.Operation),
			slog.String("account", info.Account), slog.String("region", info.Region), slog.String("queue", info.Queue),
			slog.Int("status", rec.status), slog.String("error", info.ErrorCode),
			slog.Duration("duration", time.Since(start)), slog.String("request_id", w.Header().Get("x-amzn-RequestId")),
		}
		switch {
		case info.Hint != "":
			attrs = append(attrs, slog.String("hint", info.Hint))
		case level == slog.LevelWarn && info.ErrorMessage != "":
			attrs = append(attrs, slog.String("message", info.ErrorMessage))
		}
		log.LogAttrs(ctx, level, "request", attrs...)
	})
}

// seenSet remembers up to maxSeen strings, to log each hint once.
type seenSet struct {
	mu   sync.Mutex
	seen map[string]bool
}

const maxSeen = 1024

// first reports whether s was not seen before, and remembers it. Once
// maxSeen are remembered, the set starts over.
func (s *seenSet) first(str string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[str] {
		return false
	}
	if s.seen == nil || len(s.seen) >= maxSeen {
		s.seen = map[string]bool{}
	}
	s.seen[str] = true
	return true
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// Unwrap gives http.ResponseController the connection's writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
