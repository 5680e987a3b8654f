package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// serverBinary is the cmd/sqsq to run: -server, else $SQSQ_BIN, else one
// built from the module this runs in, into dir.
func serverBinary(ctx context.Context, flagged, dir string) (string, error) {
	if flagged != "" {
		return flagged, nil
	}
	if bin := os.Getenv("SQSQ_BIN"); bin != "" {
		return bin, nil
	}
	out, err := exec.CommandContext(ctx, goTool(), "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside a Go module: run from the sqsq repository, or set -server or SQSQ_BIN")
	}
	bin := filepath.Join(dir, "sqsq")
	cmd := exec.CommandContext(ctx, goTool(), "build", "-o", bin, "./cmd/sqsq")
	cmd.Dir = filepath.Dir(mod)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/sqsq: %w\n%s", err, out)
	}
	return bin, nil
}

// goTool is the go command: the one on PATH, else the one of the toolchain
// that built this program.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// server is cmd/sqsq -data in a child process on loopback.
type server struct {
	cmd    *exec.Cmd
	url    string
	stderr *tail
	exited chan struct{} // closed once the process is waited for
	err    error         // its exit, once exited is closed
}

var servingLine = regexp.MustCompile(`^sqsq serving SQS on (http://\S+)`)

// startServer starts bin on data dir and addr (127.0.0.1:0 the first
// time; then the port of the last run, so that connections and queue URLs
// look as they would to a real client of a restarted server) and returns
// once it answers its health check. extra are more flags (-data-sync).
func startServer(bin, data, addr string, log *tail, extra []string) (*server, error) {
	s := &server{stderr: log, exited: make(chan struct{})}
	args := append([]string{"-addr", addr, "-data", data, "-log-level", "warn"}, extra...)
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stderr = s.stderr
	dieWithParent(s.cmd)
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	first := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		first <- line
		_, _ = io.Copy(io.Discard, r)
	}()
	fail := func(format string, args ...any) (*server, error) {
		_ = s.cmd.Process.Kill()
		<-s.exited
		return nil, fmt.Errorf(format+"\n%s", append(args, s.stderr)...)
	}
	select {
	case line := <-first:
		m := servingLine.FindStringSubmatch(line)
		if m == nil {
			return fail("sqsq did not say where it serves: %q (%v)", line, s.err)
		}
		s.url = m[1]
	case <-time.After(30 * time.Second):
		return fail("sqsq did not start within 30 s")
	}
	if err := s.waitHealthy(10 * time.Second); err != nil {
		return fail("%v", err)
	}
	return s, nil
}

// waitHealthy polls GET /_sqsq/health until it answers 200.
func (s *server) waitHealthy(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	c := http.Client{Timeout: time.Second}
	for {
		resp, err := c.Get(s.url + "/_sqsq/health")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sqsq not healthy within %v: %v", timeout, err)
		}
		select {
		case <-s.exited:
			return fmt.Errorf("sqsq exited: %v", s.err)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// addr is the host:port the server listens on.
func (s *server) addr() string { return strings.TrimPrefix(s.url, "http://") }

// crash ends the server: SIGKILL (a crash: nothing saved unless saved
// already), or with graceful SIGTERM, which saves everything on the way
// out. It returns once the process is gone.
func (s *server) crash(graceful bool) error {
	select {
	case <-s.exited:
		return fmt.Errorf("sqsq exited before it was killed: %v", s.err)
	default:
	}
	if !graceful {
		_ = s.cmd.Process.Kill()
		<-s.exited
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		if s.err != nil {
			return fmt.Errorf("sqsq exited after SIGTERM with %v", s.err)
		}
		return nil
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return errors.New("sqsq did not exit within 30 s of SIGTERM")
	}
}

// tail keeps the last max bytes written to it: the servers' log, for the
// report when something went wrong. One tail serves every restart.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
