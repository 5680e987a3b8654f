// Command crash proves that cmd/sqsq -data keeps every call it answered
// 200: it drives the real server, in a child process on loopback, with the
// real AWS SDK for Go (retries off: a retry after a kill would make an
// outcome ambiguous twice over), kills it with SIGKILL at a random moment
// of each round, restarts it on the same data directory and, before any
// client goes on, checks the stored state against a ledger of what was
// acknowledged: no acknowledged send lost, no acknowledged delete undone
// (dead-letter queue included), no message id or body twice, FIFO order
// per group, counters that add up, acknowledged queue creates, deletes,
// attributes and tags in place. A call that failed or was cut off by the
// kill may have taken effect or not; the ledger allows both.
//
//	go run ./internal/crash -kills 50 -max-duration 4m
//
// The mix: sends (single and batch) to a standard queue, a redrive source
// with maxReceiveCount 1 and a FIFO queue with several groups per client;
// receives with visibility timeouts of 1–2 s that delete, extend, give
// back or let the timeout run out, so messages dead-letter on the real
// clock; deletes from the dead-letter queue; move tasks sending its
// messages back; scratch queues created, changed and deleted; tags set.
//
// -graceful stops the server with SIGTERM instead, which writes what is
// left: a check of the driver itself. -data-sync 100ms shows that the
// checks bite: a kill then loses the last acknowledged calls. It prints one summary line and exits 1 if a check failed or
// fewer than -min-kills rounds were done, 2 if it could not run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

type config struct {
	kills, minKills, clients int
	maxDuration              time.Duration
	dataSync                 string
	seed                     uint64
	graceful, verbose, keep  bool
	server                   string
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("crash", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.kills, "kills", 50, "rounds, each ended by a kill and checked after the restart")
	fs.IntVar(&c.minKills, "min-kills", 10, "fail if -max-duration ends the run before this many kills (or -kills, if fewer)")
	fs.IntVar(&c.clients, "clients", 8, "concurrent clients sending, receiving and deleting (plus one changing queues)")
	fs.DurationVar(&c.maxDuration, "max-duration", 4*time.Minute, "start no round that would end after this (the build of cmd/sqsq not counted); then stop, passing if -min-kills were done")
	fs.StringVar(&c.dataSync, "data-sync", "", "pass -data-sync to the server (\"\": its default, always); with a duration a kill may lose acknowledged calls")
	fs.Uint64Var(&c.seed, "seed", 0, "seed of the kill times and the clients' choices (0: from the clock; printed, to replay them:\n"+
		"the interleaving of the calls still varies)")
	fs.BoolVar(&c.graceful, "graceful", false, "stop the server with SIGTERM (it writes what is left) instead of SIGKILL")
	fs.BoolVar(&c.verbose, "v", false, "print each round to stderr")
	fs.BoolVar(&c.keep, "keep", false, "keep the data directory (it is kept anyway when a check fails)")
	fs.StringVar(&c.server, "server", "", "a built cmd/sqsq `binary` to run (default: $SQSQ_BIN, else build ./cmd/sqsq of the module)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	case c.kills < 1:
		return c, errors.New("-kills must be at least 1")
	case c.clients < 1:
		return c, errors.New("-clients must be at least 1")
	case c.maxDuration <= 0:
		return c, errors.New("-max-duration must be positive")
	}
	if c.seed == 0 {
		c.seed = uint64(time.Now().UnixNano())
	}
	return c, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "crash:", err)
		os.Exit(2)
	case !res.pass():
		os.Exit(1)
	}
}

// result is a run's outcome.
type result struct {
	cfg        config
	kills      int
	violations []violation // of the first check that found any
	failedAt   int         // the kill after which they were found
	checked    checkReport // summed over every check
	totals     totals
	calls      int64
	errs       int64
	rounds     []roundTiming
	duration   time.Duration
	interrupt  bool // stopped by a signal
	timeUp     bool // stopped by -max-duration
}

type roundTiming struct {
	run, down, restart, check time.Duration
}

func (r *result) pass() bool {
	return len(r.violations) == 0 && r.kills >= min(r.cfg.minKills, r.cfg.kills)
}

func (r *result) summary() string {
	verdict := "PASS"
	switch {
	case len(r.violations) > 0:
		verdict = fmt.Sprintf("FAIL (%d violations after kill %d)", len(r.violations), r.failedAt)
	case !r.pass():
		verdict = fmt.Sprintf("FAIL (%d kills, fewer than %d)", r.kills, min(r.cfg.minKills, r.cfg.kills))
	}
	how := "SIGKILL"
	if r.cfg.graceful {
		how = "SIGTERM"
	}
	switch {
	case r.timeUp:
		how += ", stopped by -max-duration"
	case r.interrupt:
		how += ", interrupted"
	}
	var sum, most roundTiming
	for _, t := range r.rounds {
		sum.run += t.run
		sum.down += t.down
		sum.restart += t.restart
		sum.check += t.check
		most.restart = max(most.restart, t.restart)
		most.check = max(most.check, t.check)
	}
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	per := "per kill: n/a"
	if n := time.Duration(len(r.rounds)); n > 0 {
		per = fmt.Sprintf("per kill (mean): traffic %v, down %v, restart %v (max %v), check %v (max %v)",
			ms(sum.run/n), ms(sum.down/n), ms(sum.restart/n), ms(most.restart), ms(sum.check/n), ms(most.check))
	}
	t := r.totals
	return fmt.Sprintf("crash: %s: %d kills (%s) in %v; checked %d acked sends and %d acked deletes (summed over checks); "+
		"sends %d acked, %d unknown (%d found stored, %d not); deletes %d acked, %d unknown (%d found done, %d not); "+
		"queue ops %d acked, %d unknown; attribute sets %d acked, %d unknown; %d calls, %d failed; %s; -seed %d",
		verdict, r.kills, how, ms(r.duration), r.checked.ackedSends, r.checked.ackedDeletes,
		t.sendsAcked, t.sends-t.sendsAcked, t.sendsStored, t.sendsNotStored,
		t.deletesAcked, t.deletes-t.deletesAcked, t.deletesDone, t.deletesNotDone,
		t.queueOpsAcked, t.queueOps-t.queueOpsAcked, t.attrSetsAcked, t.attrSets-t.attrSetsAcked,
		r.calls, r.errs, per, r.cfg.seed)
}

// details writes the violations, at most a few of each kind.
func (r *result) details(w io.Writer) {
	if len(r.violations) == 0 {
		return
	}
	shown := map[string]int{}
	var kinds []string // in the order first seen
	var b strings.Builder
	for _, v := range r.violations {
		if shown[v.kind] == 0 {
			kinds = append(kinds, v.kind)
		}
		if shown[v.kind]++; shown[v.kind] <= maxReportedPerKind {
			fmt.Fprintf(&b, "  %s\n", v)
		}
	}
	for _, kind := range kinds {
		if n := shown[kind]; n > maxReportedPerKind {
			fmt.Fprintf(&b, "  … and %d more of %s\n", n-maxReportedPerKind, kind)
		}
	}
	fmt.Fprintf(w, "violations found after kill %d (seed %d):\n%s", r.failedAt, r.cfg.seed, b.String())
}
