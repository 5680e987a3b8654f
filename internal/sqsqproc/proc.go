// Package sqsqproc runs cmd/sqsq in a child process on loopback, for the
// programs that drive the real binary from outside: the soak
// (internal/soak), the crash test (internal/crash) and the durable-mode
// benchmark (internal/durablebench). A server in its own process has its
// CPU time and memory apart from its clients', and can be killed.
package sqsqproc

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

// Binary is the cmd/sqsq to run: flagged (a -server flag) if set, else
// $SQSQ_BIN, else one built from the module this runs in, into dir. A
// prebuilt binary keeps the build out of a measurement, and lets CI run
// the binary of its image.
func Binary(ctx context.Context, flagged, dir string) (string, error) {
	if flagged != "" {
		return flagged, nil
	}
	if bin := os.Getenv("SQSQ_BIN"); bin != "" {
		return bin, nil
	}
	root, err := ModuleRoot(ctx)
	if err != nil {
		return "", err
	}
	return Build(ctx, root, dir)
}

// ModuleRoot finds the root of the module this runs in with `go env
// GOMOD`.
func ModuleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, goTool(), "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside a Go module: run from the sqsq repository, or set -server or SQSQ_BIN")
	}
	return filepath.Dir(mod), nil
}

// Build builds cmd/sqsq of the module at root into dir.
func Build(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "sqsq")
	cmd := exec.CommandContext(ctx, goTool(), "build", "-o", bin, "./cmd/sqsq")
	cmd.Dir = root
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

// Server is cmd/sqsq in a child process.
type Server struct {
	URL     string    // where it serves, as it said on its first line
	Log     *Tail     // its standard error
	Started time.Time // just before exec: restart times count from here

	cmd    *exec.Cmd
	exited chan struct{} // closed once the process is waited for
	err    error         // its exit, once exited is closed
}

// Options say how to start a server.
type Options struct {
	Args []string // its flags; -addr among them, 127.0.0.1:0 for a free port
	Log  *Tail    // where its standard error goes; nil: a new Tail of 64 KiB
	// StartWithin bounds the wait for the line that says where it serves
	// (a store of a million messages loads before the server listens).
	StartWithin time.Duration
	// HealthyWithin, if not 0, bounds the wait for GET /_sqsq/health to
	// answer 200 after that.
	HealthyWithin time.Duration
}

var servingLine = regexp.MustCompile(`^sqsq serving SQS on (http://\S+)`)

// Start execs bin and returns once it says where it serves (and answers
// its health check, if asked). On failure the process is killed, and the
// error ends with its log.
func Start(bin string, o Options) (*Server, error) {
	if o.Log == nil {
		o.Log = NewTail(64 << 10)
	}
	s := &Server{Log: o.Log, exited: make(chan struct{})}
	s.cmd = exec.Command(bin, o.Args...)
	s.cmd.Stderr = s.Log
	dieWithParent(s.cmd)
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s.Started = time.Now()
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
	fail := func(format string, args ...any) (*Server, error) {
		s.Kill()
		return nil, fmt.Errorf(format+"\n%s", append(args, s.Log)...)
	}
	select {
	case line := <-first:
		m := servingLine.FindStringSubmatch(line)
		if m == nil {
			s.Kill()
			return fail("sqsq did not say where it serves: %q (%v)", line, s.err)
		}
		s.URL = m[1]
	case <-time.After(o.StartWithin):
		return fail("sqsq did not start within %v", o.StartWithin)
	}
	if o.HealthyWithin > 0 {
		if err := s.waitHealthy(o.HealthyWithin); err != nil {
			return fail("%v", err)
		}
	}
	return s, nil
}

// waitHealthy polls GET /_sqsq/health until it answers 200.
func (s *Server) waitHealthy(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	c := http.Client{Timeout: time.Second}
	for {
		resp, err := c.Get(s.URL + "/_sqsq/health")
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

// Pid is the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { return strings.TrimPrefix(s.URL, "http://") }

// Exited is closed once the process has ended; Err then says how.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// Err is the process's exit, once Exited is closed.
func (s *Server) Err() error { return s.err }

// Kill ends the server at once (SIGKILL: a crash) and waits for it; a
// server that ended already is left as it is.
func (s *Server) Kill() {
	select {
	case <-s.exited:
	default:
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// Stop sends SIGTERM, a graceful shutdown, and waits up to timeout for the
// process to end with status 0; a server still running then is killed. It
// returns how long the shutdown took.
func (s *Server) Stop(timeout time.Duration) (time.Duration, error) {
	t0 := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return 0, err
	}
	select {
	case <-s.exited:
		d := time.Since(t0)
		if s.err != nil {
			return d, fmt.Errorf("sqsq exited after SIGTERM with %v", s.err)
		}
		return d, nil
	case <-time.After(timeout):
		s.Kill()
		return 0, fmt.Errorf("sqsq did not exit within %v of SIGTERM", timeout)
	}
}

// Tail keeps the last bytes written to it: a server's log, for the report
// when something went wrong. One Tail may serve a server's restarts.
type Tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

// NewTail returns a Tail that keeps the last max bytes.
func NewTail(max int) *Tail { return &Tail{max: max} }

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
