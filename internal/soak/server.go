package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sqsq/sqsq/internal/procstat"
)

// moduleRoot finds the root of the sqsq module with `go env GOMOD`, so the
// soak builds cmd/sqsq from the tree it runs in.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, goTool(), "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside a Go module: run from the sqsq repository or pass -root")
	}
	return filepath.Dir(mod), nil
}

// goTool is the go command: the one on PATH, else the one of the toolchain
// that built this program.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// buildServer builds cmd/sqsq of the module at root into dir.
func buildServer(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "sqsq")
	cmd := exec.CommandContext(ctx, goTool(), "build", "-o", bin, "./cmd/sqsq")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/sqsq: %w\n%s", err, out)
	}
	return bin, nil
}

// server is cmd/sqsq in a child process, listening on a free loopback port.
type server struct {
	cmd    *exec.Cmd
	url    string
	stderr *tail
	exited chan struct{} // closed when the process is waited for
	err    error         // its exit, once exited is closed
}

var servingLine = regexp.MustCompile(`^sqsq serving SQS on (http://\S+)`)

// startServer starts bin on 127.0.0.1:0 and waits for the line that says
// where it serves.
func startServer(bin string) (*server, error) {
	s := &server{stderr: &tail{max: 64 << 10}, exited: make(chan struct{})}
	s.cmd = exec.Command(bin, "-addr", "127.0.0.1:0", "-log-level", "warn")
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
	select {
	case line := <-first:
		if m := servingLine.FindStringSubmatch(line); m != nil {
			s.url = m[1]
			return s, nil
		}
		_ = s.cmd.Process.Kill()
		<-s.exited
		return nil, fmt.Errorf("sqsq did not say where it serves: %q\n%s", line, s.stderr)
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return nil, fmt.Errorf("sqsq did not start within 30 s\n%s", s.stderr)
	}
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// usage reads the server's CPU time and resident memory.
func (s *server) usage() (time.Duration, procstat.Memory, error) {
	cpu, err := procstat.CPU(s.pid())
	if err != nil {
		return 0, procstat.Memory{}, err
	}
	mem, err := procstat.ReadMemory(s.pid())
	return cpu, mem, err
}

// stop sends SIGTERM and waits up to timeout for a clean exit (status 0).
// A server still running then is killed.
func (s *server) stop(timeout time.Duration) error {
	select {
	case <-s.exited:
		return fmt.Errorf("sqsq exited before the end of the soak: %v", s.err)
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		if s.err != nil {
			return fmt.Errorf("sqsq exited after SIGTERM with %v", s.err)
		}
		return nil
	case <-time.After(timeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("sqsq did not exit within %v of SIGTERM", timeout)
	}
}

// tail keeps the last max bytes written to it: the server's log, for the
// report when something went wrong.
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
