package durable_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/durable"
	"github.com/sqsq/sqsq/internal/suite"
	"github.com/sqsq/sqsq/sqshttp"
)

// restarting serves SQS over an endpoint in durable mode that restarts
// before each request that finds no other in progress: the Store, which
// wrote each change as it was made, is closed and opened again, and a new
// broker restored from it serves the request. A request in progress (a
// parked long poll) holds the broker, as a server would not restart under
// it.
type restarting struct {
	t     testing.TB
	opts  []sqsq.Option
	dir   string
	store *durable.Store

	mu       sync.Mutex
	b        *sqsq.Broker
	h        http.Handler
	active   int
	restarts int
	changed  chan struct{} // closed by the next restart
}

func (r *restarting) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	if r.active == 0 {
		if err := r.restart(); err != nil {
			r.mu.Unlock()
			r.t.Errorf("restart: %v", err)
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	r.active++
	h := r.h
	r.mu.Unlock()
	h.ServeHTTP(w, req)
	r.mu.Lock()
	r.active--
	r.mu.Unlock()
}

// restart replaces the broker by one built from its saved state. Caller
// holds r.mu.
func (r *restarting) restart() error {
	if err := r.store.Close(); err != nil {
		return err
	}
	store, err := durable.Open(r.dir)
	if err != nil {
		return err
	}
	w, err := store.Load()
	if err != nil {
		return err
	}
	b, err := durable.Restore(w, append(r.opts, store.Journal())...)
	if err == nil {
		err = store.Attach(b)
	}
	if err != nil {
		_ = store.Close()
		return err
	}
	_ = r.b.Close()
	r.store = store
	r.b, r.h = b, sqshttp.NewHandler(b, sqshttp.WithCommit(store.Sync))
	r.restarts++
	close(r.changed)
	r.changed = make(chan struct{})
	return nil
}

func (r *restarting) broker() *sqsq.Broker {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b
}

// waitForReceivers waits until n receives are parked on the queue of url
// of the broker in service: a long poll sent before the wait may land on
// the broker of the next restart.
func (r *restarting) waitForReceivers(ctx context.Context, url string, n int) error {
	for {
		r.mu.Lock()
		b, changed := r.b, r.changed
		r.mu.Unlock()
		wctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-changed:
				cancel()
			case <-wctx.Done():
			}
		}()
		err := suite.WaitFunc(b)(wctx, url, n)
		cancel()
		select {
		case <-changed:
			if ctx.Err() == nil {
				continue // restarted meanwhile: wait on the new broker
			}
		default:
		}
		return err
	}
}

// TestSuiteAcrossRestarts runs the SQS behaviour suite through the real
// SDK over HTTP against an endpoint that goes through the store and a
// restart before nearly every request: durable mode, each change written
// as it is made, as a fourth configuration. Every behaviour holds across restarts — receipt handles,
// visibility and delay deadlines, FIFO windows and locks, move tasks,
// recreate delays, purge intervals.
func TestSuiteAcrossRestarts(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	total := 0
	t.Cleanup(func() { t.Logf("%d restarts", total) })
	suite.Run(t, func(t *testing.T) suite.Harness {
		clk := clock.NewMock()
		clk.Set(suite.Epoch)
		opts := []sqsq.Option{sqsq.WithClock(clk), sqsq.WithInFlightLimit(suite.InFlightLimit)}
		dir := t.TempDir()
		store, err := durable.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		r := &restarting{t: t, opts: opts, dir: dir, store: store, b: sqsq.NewBroker(append(opts, store.Journal())...), changed: make(chan struct{})}
		if err := store.Attach(r.b); err != nil {
			t.Fatal(err)
		}
		r.h = sqshttp.NewHandler(r.b, sqshttp.WithCommit(store.Sync))
		srv := httptest.NewServer(r)
		t.Cleanup(func() {
			srv.Close()
			_ = r.broker().Close()
			r.mu.Lock()
			_ = r.store.Close()
			r.mu.Unlock()
			mu.Lock()
			total += r.restarts
			mu.Unlock()
		})
		return suite.Harness{
			API: sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
				Credentials: aws.AnonymousCredentials{}, HTTPClient: srv.Client()}),
			Clock:            suite.MockClock(clk),
			WaitForReceivers: r.waitForReceivers,
			Peek: func(ctx context.Context, url string, in sqsq.PeekInput) (sqsq.PeekOutput, error) {
				return suite.PeekFunc(r.broker())(ctx, url, in)
			},
			InFlightLimit: suite.InFlightLimit,
			Features:      suite.Features{ClientValidation: true},
		}
	})
}
