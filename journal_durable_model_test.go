package sqsq_test

// Proof of durable mode's writes (#21, "acknowledged means durable"): the
// restart model's operations run on an endpoint whose journal a
// durable.Store writes, record by record. After every step, once Sync
// returns, the store must load the state the endpoint exports; now and
// then the store is closed, opened again, and the endpoint restored from
// it, and from then on the restored endpoint is the one written, so that
// restarts through the file chain.

import (
	"context"
	"os"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/durable"
	"github.com/sqsq/sqsq/internal/testsize"
)

type durableModel struct {
	*restartMachine
	dir     string
	store   *durable.Store
	written *endpoint // the endpoint whose changes the store writes
	checks  int
}

// check is the step invariant: what the store loads is what the written
// endpoint exports (but Now, the instant of a commit). The quick suite
// compares every eighth step (each comparison writes the log into the
// file and reads it all); SQSQ_LONG=1 every step. Reopen always does.
func (d *durableModel) check(t *rapid.T) {
	if d.checks++; !testsize.Long() && d.checks%8 != 0 {
		return
	}
	want := exportOf(t, d.written.b) // an export brings queues and tasks up to date: its changes count
	if err := d.store.Sync(context.Background()); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	got, err := d.store.Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	got.Now = want.Now
	if diff := worldDiff(want, got); diff != "" {
		t.Fatalf("the store differs from the endpoint: %s", diff)
	}
}

// reopen closes the store, opens it again and restores the endpoint from
// it, on a clock at the written endpoint's instant; the restored endpoint
// becomes the twin and the one written.
func (d *durableModel) reopen(t *rapid.T) {
	from := d.written
	want := exportOf(t, from.b)
	if err := d.store.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s, err := durable.Open(d.dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	d.store = s
	w, err := s.Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	e, opts := newEndpoint(*from.ids)
	e.clk = clock.NewMock()
	e.clk.Set(from.clk.Now())
	b, err := durable.Restore(w, append([]sqsq.Option{sqsq.WithClock(e.clk), s.Journal()}, opts...)...)
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	e.b = b
	if err := s.Attach(b); err != nil {
		t.Fatalf("Attach: %v", err)
	}
	got := exportOf(t, b)
	got.Now = want.Now
	if diff := worldDiff(want, got); diff != "" {
		t.Fatalf("restored from the store, the endpoint differs: %s", diff)
	}
	if d.twin != nil {
		d.old = append(d.old, d.twin.b)
	}
	d.twin, d.written = e, e
}

func runDurableModel(t *rapid.T) {
	dir, err := os.MkdirTemp("", "sqsq-durable-model")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := durable.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := &durableModel{restartMachine: newRestartMachine(t, store.Journal()), dir: dir, store: store}
	defer d.close()
	defer func() { _ = d.store.Close() }()
	d.written = d.orig
	if err := store.Attach(d.orig.b); err != nil {
		t.Fatal(err)
	}
	actions := d.actions(func(t *rapid.T) { d.check(t); d.Check(t) })
	for k := range actions {
		if strings.HasPrefix(k, "Restart") { // an import beside the store would leave the written endpoint behind
			delete(actions, k)
		}
	}
	actions["Reopen"] = d.reopen
	for k, v := range journalActions(d.restartMachine) {
		actions[k] = v
	}
	for range testsize.Scale(1, 12) {
		t.Repeat(actions)
	}
}

// TestDurableModel checks that a store written change by change holds the
// endpoint's state after every call, across reopenings (see the top of
// this file).
func TestDurableModel(t *testing.T) {
	t.Parallel()
	// Every call of the model commits with an fdatasync: the quick suite
	// plays a quarter of rapid's runs (SQSQ_LONG=1 all of them, twelve
	// rounds each).
	runs, limit := 0, testsize.Scale(25, 1<<30)
	rapid.Check(t, func(t *rapid.T) {
		if runs++; runs > limit {
			return
		}
		runDurableModel(t)
	})
}
