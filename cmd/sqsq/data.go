package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/durable"
	"github.com/sqsq/sqsq/internal/state"
)

// dataOptions are the command line of durable mode.
type dataOptions struct {
	dir     string        // -data DIR; "" keeps everything in memory
	recover bool          // -data-recover
	every   time.Duration // -data-every: also save this often (0: at shutdown only)
}

func (d *dataOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&d.dir, "data", "", "keep queues and messages in `dir` across restarts (see README.md, \"Durable mode\");\n"+
		"default: in memory only")
	fs.BoolVar(&d.recover, "data-recover", false, "with -data: if the data file is damaged, move it aside and start empty instead of refusing to start")
	fs.DurationVar(&d.every, "data-every", 0, "with -data: also save the whole state this often, so a crash (kill -9, power loss) loses at most\n"+
		"that much; 0 saves at shutdown only")
}

// dataStore is an open -data directory and how to put the endpoint's
// state in it.
type dataStore struct {
	s         *durable.Store
	log       *slog.Logger
	fromState bool // the broker was built from stored state
	closed    bool
}

// restored reports whether the broker came from stored state.
func (d *dataStore) restored() bool { return d != nil && d.fromState }

// openData opens -data and builds the broker: from the stored state when
// there is one, else new with opts. A virtual clock resumes at the stored
// instant; the real clock goes on, so deadlines that passed while the
// server was down have passed.
func openData(d dataOptions, region, account string, mock *clock.Mock, log *slog.Logger, opts []sqsq.Option) (*sqsq.Broker, *dataStore, error) {
	if d.dir == "" {
		return sqsq.NewBroker(opts...), nil, nil
	}
	var sopts []durable.Option
	if d.recover {
		sopts = append(sopts, durable.Recover())
	}
	s, err := durable.Open(d.dir, sopts...)
	if err != nil {
		return nil, nil, err
	}
	if moved := s.Recovered(); moved != "" {
		log.Warn("the data file was damaged: moved aside, starting empty", "moved", moved)
	}
	w, err := s.Load()
	if err != nil {
		_ = s.Close()
		return nil, nil, err
	}
	if w == nil {
		log.Info("durable mode: a new data directory", "data", d.dir)
		return sqsq.NewBroker(opts...), &dataStore{s: s, log: log}, nil
	}
	if root := w.Scopes[0]; root.Account != account || root.Region != region {
		_ = s.Close()
		return nil, nil, fmt.Errorf("-data %s holds the queues of a server whose default namespace was -account-id %s -region %s; "+
			"start with those, or use another -data directory", d.dir, root.Account, root.Region)
	}
	if mock != nil {
		mock.Set(timeOf(w.Now))
	}
	b, err := durable.Restore(w, opts...)
	if err != nil {
		_ = s.Close()
		return nil, nil, fmt.Errorf("-data %s: %w", d.dir, err)
	}
	log.Info("durable mode: restored", "data", d.dir, "queues", countQueues(w), "messages", countMessages(w))
	// The loaded copy of the state is garbage now, and as large as the
	// state: give it back before serving, not at the next forced GC.
	w = nil
	debug.FreeOSMemory()
	return b, &dataStore{s: s, log: log, fromState: true}, nil
}

// save writes the endpoint's state; the server calls it once shutdown has
// let every request finish.
func (d *dataStore) save(b *sqsq.Broker) error {
	if d == nil {
		return nil
	}
	w, err := durable.Snapshot(b)
	if err == nil {
		err = d.s.Save(w)
	}
	if err != nil {
		return fmt.Errorf("durable mode: saving the state: %w", err)
	}
	d.log.Debug("durable mode: saved", "queues", countQueues(w), "messages", countMessages(w))
	return nil
}

// saveEvery saves b every interval in a goroutine, logging a failed save
// and trying again at the next tick, until the returned function is
// called; that one waits for a save under way and may be called again.
func (d *dataStore) saveEvery(b *sqsq.Broker, every time.Duration) (stop func()) {
	if d == nil || every <= 0 {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				if err := d.save(b); err != nil {
					d.log.Error(err.Error())
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}
}

func (d *dataStore) close() error {
	if d == nil || d.closed {
		return nil
	}
	d.closed = true
	return d.s.Close()
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

// saveAndClose saves b and closes the store, whatever fails first.
func (d *dataStore) saveAndClose(b *sqsq.Broker) error {
	return errors.Join(d.save(b), d.close())
}
