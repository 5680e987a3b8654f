package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/chaos"
	"github.com/sqsq/sqsq/history"
)

// faultOptions are the command line of fault injection, the delivery
// history and the reset.
type faultOptions struct {
	faults          string // -faults FILE
	seed            uint64
	seedSet         bool
	history         bool
	historyMessages int
}

func (f *faultOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&f.faults, "faults", "", "JSON `file` of fault rules to inject from the start (see README.md, \"Faults over the wire\");\n"+
		"rules can be changed at run time under /_sqsq/api/faults")
	fs.Func("seed", "`N` fixes every fault decision and pins message ids, so the same requests give the same run\n(default: the rule file's seed, else 0 with random message ids)", func(s string) error {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return fmt.Errorf("-seed %q: want an integer from 0 to %d", s, uint64(1<<64-1))
		}
		f.seed, f.seedSet = n, true
		return nil
	})
	fs.BoolVar(&f.history, "history", false, "keep each message's delivery history (receives, handles, deletes, injected faults), served under\n"+
		"/_sqsq/api/queues/{name}/history and shown in the console; about 1–2 KB and 10 µs of CPU a message under load")
	fs.IntVar(&f.historyMessages, "history-messages", history.DefaultMaxMessages, "most messages whose history is kept (the least recently seen go first)")
}

// kit is what makes the server a test fixture for consumers in any
// language: the fault engine, the delivery history and the reset.
type kit struct {
	b      *sqsq.Broker
	engine *chaos.Engine
	rec    *history.Recorder // nil with -history=false
	ids    *seededIDs        // nil without -seed
	// The virtual clock and its start, which a reset goes back to; mu is
	// the admin endpoint's, which serialises moves of the clock.
	mock  *clock.Mock
	start time.Time
	mu    *sync.Mutex
	log   *slog.Logger
}

// newKit reads -faults and makes the engine and the recorder; the broker
// is made with kit.brokerOptions and set afterwards. pinIDs is false in
// durable mode, where a seeded id sequence starting again at each restart
// would give new messages the ids of stored ones: the seed then fixes the
// faults only.
func newKit(o faultOptions, log *slog.Logger, pinIDs bool) (*kit, error) {
	cfg := chaos.Config{}
	if o.faults != "" {
		var err error
		if cfg, err = chaos.LoadFile(o.faults); err != nil {
			return nil, err
		}
	}
	if o.seedSet {
		cfg.Seed = o.seed
	}
	e, err := chaos.New(cfg)
	if err != nil {
		return nil, err
	}
	k := &kit{engine: e, log: log}
	if o.history {
		k.rec = history.New(history.WithMaxMessages(o.historyMessages))
	}
	if pinIDs && (o.seedSet || cfg.Seed != 0) {
		k.ids = &seededIDs{seed: cfg.Seed}
	}
	if n := len(cfg.Rules); n > 0 {
		log.Info("fault rules", "file", o.faults, "rules", n, "seed", cfg.Seed)
	}
	return k, nil
}

// brokerOptions install the engine, the recorder and the pinned ids.
func (k *kit) brokerOptions() []sqsq.Option {
	opts := []sqsq.Option{sqsq.WithFaults(k.engine)}
	if k.rec != nil {
		opts = append(opts, sqsq.WithObserver(k.rec))
	}
	if k.ids != nil {
		opts = append(opts, sqsq.WithIDFunc(k.ids.next))
	}
	return opts
}

// register serves the fault API (native and LocalStack's) and the reset
// (sqsq's, LocalStack's and moto's paths).
func (k *kit) register(mux *http.ServeMux) {
	fh := k.engine.Handler()
	mux.Handle("/_sqsq/api/faults", fh)
	mux.Handle("/_sqsq/api/faults/", fh)
	mux.Handle("/_localstack/chaos/", fh)
	for _, p := range [...]string{"/_sqsq/api/reset", "/_localstack/state/reset", "/moto-api/reset"} {
		mux.HandleFunc("POST "+p, k.reset)
		mux.HandleFunc(p, methodNotAllowed("POST"))
	}
}

// reset answers POST /_sqsq/api/reset: the endpoint as it started, without
// a restart — no queue, message, move task, fault rule or history, message
// ids from the start of the seed's sequence, the virtual clock at its
// start. Parked long polls end with QueueDoesNotExist, as on DeleteQueue.
func (k *kit) reset(w http.ResponseWriter, r *http.Request) {
	if err := k.resetAll(r.Context()); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	k.log.Info("reset")
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (k *kit) resetAll(ctx context.Context) error {
	k.engine.Reset()
	if err := k.b.Reset(ctx); err != nil {
		return err
	}
	if k.rec != nil {
		k.rec.Reset()
	}
	if k.ids != nil {
		k.ids.n.Store(0)
	}
	if k.mock != nil {
		k.mu.Lock()
		k.mock.Set(k.start)
		k.mu.Unlock()
	}
	return nil
}

// seededIDs are message ids drawn from a seed: version-4 UUIDs from a
// SplitMix64 sequence, so a run with the same seed and the same sends
// gets the same ids (and, with them, receipt handles signed by a fixed
// key: see sqsq.WithIDFunc).
type seededIDs struct {
	seed uint64
	n    atomic.Uint64
}

func (s *seededIDs) next() string {
	i := s.n.Add(1)
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], splitmix(s.seed^splitmix(2*i)))
	binary.BigEndian.PutUint64(b[8:], splitmix(s.seed^splitmix(2*i+1)))
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
