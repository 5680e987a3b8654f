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
// built from the module this runs in, into dir. A prebuilt binary keeps the
// build out of the measurement and lets one binary be compared across runs.
func serverBinary(ctx context.Context, flagged, dir string) (string, error) {
	if flagged != "" {
		return flagged, nil
	}
	if bin := os.Getenv("SQSQ_BIN"); bin != "" {
		return bin, nil
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		goTool = p
	}
	out, err := exec.CommandContext(ctx, goTool, "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside a Go module: run from the sqsq repository, or set -server or SQSQ_BIN")
	}
	bin := filepath.Join(dir, "sqsq")
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", bin, "./cmd/sqsq")
	cmd.Dir = filepath.Dir(mod)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/sqsq: %w\n%s", err, out)
	}
	return bin, nil
}

// server is cmd/sqsq -data in a child process on loopback, so that its CPU
// time and memory can be read from /proc apart from the client's.
type server struct {
	cmd     *exec.Cmd
	url     string
	started time.Time // just before exec: restart times count from here
	stderr  *tail
	exited  chan struct{} // closed once the process is waited for
	err     error         // its exit, once exited is closed
}

var servingLine = regexp.MustCompile(`^sqsq serving SQS on (http://\S+)`)

// startServer execs bin on data dir and returns once it answers its health
// check. A store of a million messages loads before the server listens, so
// the wait for the first line is generous.
func startServer(bin, data string, extra []string) (*server, error) {
	s := &server{stderr: &tail{max: 8 << 10}, exited: make(chan struct{})}
	args := append([]string{"-addr", "127.0.0.1:0", "-data", data, "-log-level", "warn"}, extra...)
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stderr = s.stderr
	dieWithParent(s.cmd)
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s.started = time.Now()
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
		s.kill()
		return nil, fmt.Errorf(format+"\n%s", append(args, s.stderr)...)
	}
	select {
	case line := <-first:
		m := servingLine.FindStringSubmatch(line)
		if m == nil {
			<-s.exited
			return fail("sqsq did not say where it serves: %q (%v)", line, s.err)
		}
		s.url = m[1]
	case <-time.After(5 * time.Minute):
		return fail("sqsq did not start within 5 minutes")
	}
	if err := s.waitHealthy(time.Minute); err != nil {
		return fail("%v", err)
	}
	return s, nil
}

func (s *server) pid() int { return s.cmd.Process.Pid }

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

// stop sends SIGTERM and returns how long the graceful shutdown took.
func (s *server) stop() (time.Duration, error) {
	t0 := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return 0, err
	}
	select {
	case <-s.exited:
		d := time.Since(t0)
		if s.err != nil {
			return d, fmt.Errorf("sqsq exited after SIGTERM with %v\n%s", s.err, s.stderr)
		}
		return d, nil
	case <-time.After(5 * time.Minute):
		s.kill()
		return 0, errors.New("sqsq did not exit within 5 minutes of SIGTERM")
	}
}

// kill ends the server at once, for the error paths.
func (s *server) kill() {
	select {
	case <-s.exited:
	default:
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// tail keeps the last max bytes of the server's log, for an error report.
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
