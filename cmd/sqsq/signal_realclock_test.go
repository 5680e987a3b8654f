package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// asMainEnv makes the test binary, started again as a child, run main with
// its arguments: the command as a user runs it, signals and exit code
// included, without building it.
const asMainEnv = "SQSQ_TEST_AS_MAIN"

// childEnv is the environment of such a child. Under -race the runtime
// sleeps 1 s at exit (ThreadSanitizer's atexit_sleep_ms), which would pass
// for a slow shutdown.
func childEnv() []string {
	return append(os.Environ(), asMainEnv+"=1", "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
}

// process is cmd/sqsq in a child process on the real clock.
type process struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
	exited chan error
}

func startProcess(t *testing.T, args ...string) *process {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = childEnv()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, stderr: new(bytes.Buffer), exited: make(chan error, 1)}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	go func() {
		_, _ = io.Copy(io.Discard, stdout)
		p.exited <- cmd.Wait()
	}()
	m := addrLine.FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("no address on stdout: %q, %v", line, err)
	}
	p.url = m[1]
	return p
}

// waitExit waits for the process to end (a hang guard, not a timing) and
// returns its exit code and how long after since it ended.
func (p *process) waitExit(t *testing.T, since time.Time) (int, time.Duration) {
	t.Helper()
	select {
	case err := <-p.exited:
		p.exited <- err // for the cleanup
		took := time.Since(since)
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), took
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, took
	case <-time.After(time.Minute):
		t.Fatalf("sqsq did not exit; stderr:\n%s", p.stderr)
		return 0, 0
	}
}

// Ctrl-C (SIGINT) with long polls parked on the real clock: every poll
// answers at once with nothing, and the process exits 0 within a second.
// SIGTERM does the same, and so does the virtual clock, where a parked poll
// would otherwise wait for an advance that never comes.
func TestSignalShutsDownRealClock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig   syscall.Signal
		clock string
	}{{syscall.SIGINT, "real"}, {syscall.SIGTERM, "real"}, {syscall.SIGINT, "virtual"}} {
		sig := tc.sig
		t.Run(sig.String()+"/"+tc.clock, func(t *testing.T) {
			t.Parallel()
			p := startProcess(t, "-clock", tc.clock)
			f := &realFixture{s: &server{url: p.url}, p: realProtocols[0], c: &http.Client{Transport: &http.Transport{}, Timeout: time.Minute}}
			t.Cleanup(f.c.CloseIdleConnections)
			f.ok(t, "CreateQueue", map[string]any{"QueueName": "lp"})
			f.queue = p.url + "/000000000000/lp"
			var polls []<-chan realReceived
			for range 3 {
				polls = append(polls, f.receive(20))
			}
			time.Sleep(realParkDelay)
			sent := time.Now()
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			for _, ch := range polls {
				if r := <-ch; r.err != nil || len(r.bodies) != 0 {
					t.Errorf("parked ReceiveMessage at %v = %q, %v; want an empty answer", sig, r.bodies, r.err)
				}
			}
			code, took := p.waitExit(t, sent)
			if code != 0 {
				t.Errorf("exit code %d after %v, want 0; stderr:\n%s", code, sig, p.stderr)
			}
			realWithin(t, "the exit after "+sig.String(), took, 0, time.Second)
		})
	}
}

// A client stalled in the middle of its request holds a graceful shutdown
// for at most its grace; a second Ctrl-C exits at once, with the status of
// an interrupted process.
func TestSecondSignalExitsAtOnceRealClock(t *testing.T) {
	t.Parallel()
	stall := func(t *testing.T, p *process) {
		c, err := net.Dial("tcp", strings.TrimPrefix(p.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		// Headers that announce a body, and a byte of it: the request is in
		// progress until the read timeout (30 s).
		_, _ = io.WriteString(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nA")
		time.Sleep(realParkDelay)
	}
	t.Run("once", func(t *testing.T) {
		t.Parallel()
		p := startProcess(t)
		stall(t, p)
		sent := time.Now()
		_ = p.cmd.Process.Signal(syscall.SIGINT)
		code, took := p.waitExit(t, sent)
		if code != 0 {
			t.Errorf("exit code %d, want 0; stderr:\n%s", code, p.stderr)
		}
		realWithin(t, "a shutdown held by a stalled client", took, shutdownGrace, shutdownGrace+2*time.Second)
	})
	t.Run("twice", func(t *testing.T) {
		t.Parallel()
		p := startProcess(t)
		stall(t, p)
		_ = p.cmd.Process.Signal(syscall.SIGINT)
		time.Sleep(100 * time.Millisecond)
		sent := time.Now()
		_ = p.cmd.Process.Signal(syscall.SIGINT)
		code, took := p.waitExit(t, sent)
		if code != exitInterrupted {
			t.Errorf("exit code %d after a second SIGINT, want %d; stderr:\n%s", code, exitInterrupted, p.stderr)
		}
		realWithin(t, "the exit after a second SIGINT", took, 0, time.Second)
		if !strings.Contains(p.stderr.String(), "exits at once") || !strings.Contains(p.stderr.String(), "exiting at once") {
			t.Errorf("stderr does not tell about the second signal:\n%s", p.stderr)
		}
	})
}

// A bad flag is reported once, with the usage, and exit code 2; a
// -base-url that cannot start a queue URL is refused.
func TestBadFlagReportedOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"-nosuch"}, "flag provided but not defined: -nosuch", 2},
		{[]string{"-base-url", "localhost:9324"}, "must start with http:// or https://", 1},
	} {
		cmd := exec.CommandContext(context.Background(), os.Args[0], tc.args...)
		cmd.Env = childEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != tc.code {
			t.Errorf("%v: %v, want exit code %d", tc.args, err, tc.code)
		}
		if n := strings.Count(stderr.String(), tc.want); n != 1 {
			t.Errorf("%v: %q appears %d times on stderr, want once:\n%s", tc.args, tc.want, n, stderr.String())
		}
	}
}
