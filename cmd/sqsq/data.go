package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/durable"
	"github.com/sqsq/sqsq/internal/state"
	"github.com/sqsq/sqsq/sqshttp"
)

// dataOptions are the command line of durable mode.
type dataOptions struct {
	dir     string        // -data DIR; "" keeps everything in memory
	recover bool          // -data-recover
	every   time.Duration // -data-sync: 0 waits for each call's commit; else commit this often
}

func (d *dataOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&d.dir, "data", "", "keep queues and messages in `dir` across restarts and crashes (see README.md, \"Durable mode\");\n"+
		"default: in memory only")
	fs.BoolVar(&d.recover, "data-recover", false, "with -data: if the data file is damaged, move it aside and start empty instead of refusing to start")
	fs.Func("data-sync", "with -data: `always` (the default) answers a call once its changes are on disk, so a crash loses\n"+
		"nothing acknowledged; a duration D writes the changes every D without waiting, and a crash\n"+
		"(kill -9, power loss) may lose the last D of them", func(v string) error {
		if v == "always" {
			d.every = 0
			return nil
		}
		dur, err := time.ParseDuration(v)
		if err != nil || dur <= 0 {
			return fmt.Errorf("want always or a positive duration such as 100ms, not %q", v)
		}
		d.every = dur
		return nil
	})
}

// dataStore is an open -data directory, which writes every change of the
// endpoint's state.
type dataStore struct {
	s         *durable.Store
	log       *slog.Logger
	every     time.Duration
	fromState bool // the broker was built from stored state
	closed    bool
}

// restored reports whether the broker came from stored state.
func (d *dataStore) restored() bool { return d != nil && d.fromState }

// openData opens -data and builds the broker: from the stored state when
// there is one, else new with opts; from then on the store writes each of
// its changes. A virtual clock resumes at the stored instant; the real
// clock goes on, so deadlines that passed while the server was down have
// passed.
func openData(d dataOptions, region, account string, mock *clock.Mock, log *slog.Logger, opts []sqsq.Option) (*sqsq.Broker, *dataStore, error) {
	if d.dir == "" {
		return sqsq.NewBroker(opts...), nil, nil
	}
	sopts := []durable.Option{durable.Version("sqsq " + sqsqVersion()), durable.CommitEvery(d.every)}
	if d.recover {
		sopts = append(sopts, durable.Recover())
	}
	s, err := durable.Open(d.dir, sopts...)
	if err != nil {
		return nil, nil, err
	}
	if note := s.Recovered(); note != "" { // a file moved aside, or a commit a crash cut short
		log.Warn("durable mode: recovered at start", "note", note)
	}
	b, fromState, err := startFrom(s, d.dir, region, account, mock, log, opts)
	if err == nil {
		err = s.Attach(b)
	}
	if err != nil {
		if b != nil {
			b.Close()
		}
		_ = s.Close()
		return nil, nil, err
	}
	return b, &dataStore{s: s, log: log, every: d.every, fromState: fromState}, nil
}

// startFrom builds the broker from the state in s, or new if s holds none,
// with s's journal.
func startFrom(s *durable.Store, dir, region, account string, mock *clock.Mock, log *slog.Logger, opts []sqsq.Option) (*sqsq.Broker, bool, error) {
	w, err := s.Load()
	if err != nil {
		return nil, false, err
	}
	opts = append(opts, s.Journal())
	if w == nil {
		log.Info("durable mode: a new data directory", "data", dir)
		return sqsq.NewBroker(opts...), false, nil
	}
	if root := w.Scopes[0]; root.Account != account || root.Region != region {
		return nil, false, fmt.Errorf("-data %s holds the queues of a server whose default namespace was -account-id %s -region %s; "+
			"start with those, or use another -data directory", dir, root.Account, root.Region)
	}
	if mock != nil {
		mock.Set(timeOf(w.Now))
	}
	b, err := durable.Restore(w, opts...)
	if err != nil {
		return nil, false, fmt.Errorf("-data %s: %w", dir, err)
	}
	log.Info("durable mode: restored", "data", dir, "queues", countQueues(w), "messages", countMessages(w))
	// The loaded copy of the state is garbage now, and as large as the
	// state: give it back before serving, not at the next forced GC.
	w = nil
	debug.FreeOSMemory()
	return b, true, nil
}

// commitHook is the sqshttp.WithCommit hook: with -data-sync always, a
// call is answered once its changes are on disk.
func (d *dataStore) commitHook() []sqshttp.Option {
	if d == nil || d.every > 0 {
		return nil
	}
	return []sqshttp.Option{sqshttp.WithCommit(d.s.Sync)}
}

// adminPaths are the prefixes of the paths, besides SQS's, that change the
// state: the console, the virtual clock, the resets.
var adminPaths = [...]string{"/_sqsq/", "/_localstack/", "/moto-api/"}

// wrapAdmin makes the calls to h on the admin paths that may change the
// state (any method but GET and HEAD) answer once their changes are on
// disk, as SQS calls do (commitHook): the answer is held until then, and
// becomes a 500 if the write fails. With -data-sync D it is h.
func (d *dataStore) wrapAdmin(h http.Handler) http.Handler {
	if d == nil || d.every > 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		admin := false
		for _, p := range adminPaths {
			admin = admin || strings.HasPrefix(r.URL.Path, p)
		}
		if !admin || r.Method == http.MethodGet || r.Method == http.MethodHead {
			h.ServeHTTP(w, r)
			return
		}
		rec := &heldResponse{header: http.Header{}, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		// A checkpoint, not only a sync: a virtual clock moved forward
		// changes no record, and must be on disk all the same.
		if err := d.s.Checkpoint(r.Context()); err != nil {
			d.log.Error("durable mode: a change could not be written; answered 500", "path", r.URL.Path, "error", err)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = fmt.Fprintf(w, "{\"code\":\"InternalFailure\",\"message\":%q}\n", "the change could not be written to -data: "+err.Error())
			return
		}
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.status)
		_, _ = w.Write(rec.body.Bytes())
	})
}

// heldResponse is an answer held until its changes are on disk.
type heldResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (h *heldResponse) Header() http.Header         { return h.header }
func (h *heldResponse) WriteHeader(status int)      { h.status = status }
func (h *heldResponse) Write(p []byte) (int, error) { return h.body.Write(p) }

// sync waits until every change so far is on disk: after -config, before
// the server says it is ready.
func (d *dataStore) sync(ctx context.Context) error {
	if d == nil {
		return nil
	}
	return d.s.Checkpoint(ctx)
}

// close writes what is left and closes the store; the server calls it once
// shutdown has let every request finish.
func (d *dataStore) close() error {
	if d == nil || d.closed {
		return nil
	}
	d.closed = true
	if err := d.s.Close(); err != nil {
		return fmt.Errorf("durable mode: %w", err)
	}
	return nil
}

// timeOf is t, Unix nanoseconds, as a time.
func timeOf(t int64) time.Time { return time.Unix(0, t) }

func countQueues(w *state.World) int {
	n := 0
	for _, sc := range w.Scopes {
		n += len(sc.Queues)
	}
	return n
}

func countMessages(w *state.World) int {
	n := 0
	for _, sc := range w.Scopes {
		for _, q := range sc.Queues {
			n += len(q.Messages)
		}
	}
	return n
}
