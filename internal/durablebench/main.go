// Command durablebench measures cmd/sqsq's durable mode (-data) with a
// large queue, reproducibly: it runs the real server in a child process,
// fills one queue through the real AWS SDK, and times what a store of that
// size costs at shutdown, at restart and in memory and disk, then deletes
// the messages and watches the file shrink.
//
//	go run ./internal/durablebench -messages 1000000 -size 100
//
// It prints one line per step and a markdown table at the end. The
// server's CPU time and memory come from /proc (Linux), so the client's
// own work is not counted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsq/sqsq/internal/procstat"

	"github.com/sqsq/sqsq/internal/sqsqproc"
)

type config struct {
	messages, size, workers int
	server, dataSync        string
	purge, drain, keep      bool
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("durablebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.messages, "messages", 100_000, "messages to fill the queue with")
	fs.IntVar(&c.size, "size", 100, "body `bytes` of each message")
	fs.IntVar(&c.workers, "workers", 16, "concurrent clients filling and draining")
	fs.StringVar(&c.server, "server", "", "a built cmd/sqsq `binary` to run (default: $SQSQ_BIN, else build ./cmd/sqsq of the module)")
	fs.StringVar(&c.dataSync, "data-sync", "", "pass -data-sync to the server (\"\": its default, always)")
	fs.BoolVar(&c.purge, "purge", false, "empty the queue with PurgeQueue instead of receiving and deleting every message")
	fs.BoolVar(&c.drain, "drain", true, "empty the queue at the end and watch the file shrink (false: stop after the restart)")
	fs.BoolVar(&c.keep, "keep", false, "keep the data directory (its path is printed)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	case c.messages < 1:
		return c, errors.New("-messages must be at least 1")
	case c.size < 1 || c.size > 256<<10:
		return c, errors.New("-size must be 1 to 262144")
	case c.size*10 > 256<<10:
		return c, errors.New("-size: ten messages must fit a batch's 256 KiB")
	case c.workers < 1:
		return c, errors.New("-workers must be at least 1")
	}
	return c, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "durablebench:", err)
		os.Exit(2)
	}
	if err := run(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "durablebench:", err)
		os.Exit(1)
	}
}

// row is one line of the final table.
type row struct{ name, value string }

// bench holds a run's state between its steps.
type bench struct {
	cfg   config
	out   io.Writer
	bin   string
	data  string
	file  string
	rows  []row
	extra []string
}

func (b *bench) step(format string, args ...any) {
	fmt.Fprintf(b.out, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func (b *bench) record(name, format string, args ...any) {
	b.rows = append(b.rows, row{name, fmt.Sprintf(format, args...)})
}

func run(ctx context.Context, cfg config, out io.Writer) error {
	tmp, err := os.MkdirTemp("", "durablebench-")
	if err != nil {
		return err
	}
	b := &bench{cfg: cfg, out: out, data: filepath.Join(tmp, "data")}
	b.file = filepath.Join(b.data, "sqsq.db")
	if cfg.keep {
		defer b.step("data kept in %s", b.data)
	} else {
		defer os.RemoveAll(tmp)
	}
	if cfg.dataSync != "" {
		b.extra = []string{"-data-sync", cfg.dataSync}
	}
	if b.bin, err = sqsqproc.Binary(ctx, cfg.server, tmp); err != nil {
		return err
	}
	if err := b.measure(ctx); err != nil {
		return err
	}
	b.table()
	return nil
}

// measure runs the steps in order; each adds its rows.
func (b *bench) measure(ctx context.Context) error {
	cfg := b.cfg
	b.step("server %s, data %s", b.bin, b.data)
	srv, err := startServer(b.bin, b.data, b.extra)
	if err != nil {
		return err
	}
	defer srv.Kill()
	c := newClient(srv.URL, cfg.workers)
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("bench")})
	if err != nil {
		return err
	}
	url := aws.ToString(q.QueueUrl)

	// Fill, with the server's CPU time around it.
	cpu0, err := procstat.CPU(srv.Pid())
	if err != nil {
		return err
	}
	b.step("fill: %d messages of %d bytes, %d workers", cfg.messages, cfg.size, cfg.workers)
	took, err := fill(ctx, c, url, cfg.messages, cfg.size, cfg.workers)
	if err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	cpu1, err := procstat.CPU(srv.Pid())
	if err != nil {
		return err
	}
	rate := float64(cfg.messages) / took.Seconds()
	perMsg := (cpu1 - cpu0) / time.Duration(cfg.messages)
	b.step("filled in %v: %.0f messages/s, server CPU %v (%v a message)", took.Round(time.Millisecond), rate, (cpu1 - cpu0).Round(time.Millisecond), perMsg)
	b.record("fill", "%v, %.0f messages/s", took.Round(time.Millisecond), rate)
	b.record("server CPU per message (fill)", "%v", perMsg)

	mem, err := procstat.ReadMemory(srv.Pid())
	if err != nil {
		return err
	}
	size, err := fileSize(b.file)
	if err != nil {
		return err
	}
	b.step("full: RSS %s (peak %s), file %s", mib(mem.RSS), mib(mem.HWM), mib(size))
	b.record("RSS full, before shutdown", "%s (peak %s)", mib(mem.RSS), mib(mem.HWM))
	b.record("RSS full: the program's own, mapped file", "%s, %s", mib(mem.Anon), mib(mem.File))
	b.record("file full", "%s", mib(size))
	b.record("disk bytes per message", "%.0f", float64(size)/float64(cfg.messages))

	down, err := stop(srv)
	if err != nil {
		return err
	}
	b.step("graceful shutdown (SIGTERM to exit): %v", down.Round(time.Millisecond))
	b.record("graceful shutdown", "%v", down.Round(time.Millisecond))

	// Restart: ready means healthy and answering for every message.
	srv, c, url, err = b.restart(ctx, "restart", cfg.messages)
	if err != nil {
		return err
	}
	defer srv.Kill()
	mem, err = procstat.ReadMemory(srv.Pid())
	if err != nil {
		return err
	}
	b.step("after restart: RSS %s (peak %s)", mib(mem.RSS), mib(mem.HWM))
	b.record("RSS at ready", "%s (peak %s)", mib(mem.RSS), mib(mem.HWM))
	b.record("RSS at ready: the program's own, mapped file", "%s, %s", mib(mem.Anon), mib(mem.File))
	// The restore's garbage is given back in the background: look again.
	time.Sleep(2 * time.Second)
	mem, err = procstat.ReadMemory(srv.Pid())
	if err != nil {
		return err
	}
	b.step("2 s after ready: RSS %s", mib(mem.RSS))
	b.record("RSS 2 s after ready", "%s", mib(mem.RSS))
	if size, err = fileSize(b.file); err != nil {
		return err
	}
	b.record("file after restart", "%s", mib(size))

	if !b.cfg.drain {
		_, err := stop(srv)
		return err
	}
	if err := b.empty(ctx, c, url); err != nil {
		return err
	}
	emptied, err := fileSize(b.file)
	if err != nil {
		return err
	}
	b.step("file once empty: %s (was %s full); watching it for 30 s", mib(emptied), mib(size))
	b.record("file once empty", "%s", mib(emptied))
	after, changed, err := waitShrink(ctx, c, url, b.file, 30*time.Second)
	if err != nil {
		return err
	}
	shrank := "no"
	if after < size {
		shrank = "yes"
		if changed > 0 {
			shrank += fmt.Sprintf(", last change %v after the queue was empty", changed.Round(time.Second))
		}
	}
	b.step("file 30 s later: %s (full: %s; shrank: %s)", mib(after), mib(size), shrank)
	b.record("file 30 s after empty, while serving", "%s (shrank: %s)", mib(after), shrank)
	if _, err := stop(srv); err != nil {
		return err
	}
	srv, _, _, err = b.restart(ctx, "restart empty", 0)
	if err != nil {
		return err
	}
	defer srv.Kill()
	if size, err = fileSize(b.file); err != nil {
		return err
	}
	b.step("file after Open: %s", mib(size))
	b.record("file after emptying and a restart", "%s", mib(size))
	_, err = stop(srv)
	return err
}

// restart starts the server on the data again and times it from exec to
// ready: healthy, and GetQueueAttributes counting want messages in "bench"
// (the health check alone says nothing of the restored queue).
func (b *bench) restart(ctx context.Context, name string, want int) (*sqsqproc.Server, *sqs.Client, string, error) {
	srv, err := startServer(b.bin, b.data, b.extra)
	if err != nil {
		return nil, nil, "", err
	}
	c := newClient(srv.URL, b.cfg.workers)
	q, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("bench")})
	if err != nil {
		srv.Kill()
		return nil, nil, "", err
	}
	url := aws.ToString(q.QueueUrl)
	for {
		n, _, err := visibleCount(ctx, c, url)
		if err != nil {
			srv.Kill()
			return nil, nil, "", err
		}
		if n == want {
			break
		}
		if time.Since(srv.Started) > 5*time.Minute {
			srv.Kill()
			return nil, nil, "", fmt.Errorf("%s: %d messages, want %d", name, n, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
	ready := time.Since(srv.Started)
	b.step("%s: ready in %v (exec to healthy and %d messages counted)", name, ready.Round(time.Millisecond), want)
	b.record(name+", exec to ready", "%v", ready.Round(time.Millisecond))
	return srv, c, url, nil
}

// empty deletes every message, one by one or with a purge.
func (b *bench) empty(ctx context.Context, c *sqs.Client, url string) error {
	t0 := time.Now()
	if b.cfg.purge {
		if _, err := c.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)}); err != nil {
			return err
		}
		b.step("purged in %v", time.Since(t0).Round(time.Millisecond))
		b.record("purge", "%v", time.Since(t0).Round(time.Millisecond))
		return nil
	}
	n, err := drain(ctx, c, url, b.cfg.workers)
	if err != nil {
		return fmt.Errorf("drain after %d deletes: %w", n, err)
	}
	took := time.Since(t0)
	b.step("drained %d messages in %v: %.0f messages/s", n, took.Round(time.Millisecond), float64(n)/took.Seconds())
	b.record("drain (receive + delete batch)", "%v, %.0f messages/s", took.Round(time.Millisecond), float64(n)/took.Seconds())
	return nil
}

// table prints the rows as markdown, under the run's parameters.
func (b *bench) table() {
	load := "?"
	if l, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(l))[:3], " ")
	}
	sync := b.cfg.dataSync
	if sync == "" {
		sync = "always (default)"
	}
	fmt.Fprintf(b.out, "\n%d messages of %d bytes, %d workers, -data-sync %s; %d CPUs, load %s\n\n",
		b.cfg.messages, b.cfg.size, b.cfg.workers, sync, runtime.NumCPU(), load)
	fmt.Fprintln(b.out, "| | |")
	fmt.Fprintln(b.out, "|---|---|")
	for _, r := range b.rows {
		fmt.Fprintf(b.out, "| %s | %s |\n", r.name, r.value)
	}
}

func fileSize(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// mib formats bytes in MiB, or KiB below one MiB.
func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
