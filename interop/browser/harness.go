package browser

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/chromedp/chromedp"
)

// mainModule is the module path of the repository's root go.mod.
const mainModule = "github.com/sqsq/sqsq"

// RepoRoot returns the root of the sqsq repository: the nearest directory at
// or above the working directory whose go.mod declares the main module. This
// module is nested in it (interop/browser), so both the tests (run in their
// package directory) and `go run ./cmd/screenshot` find it.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			first, _, _ := strings.Cut(string(data), "\n")
			if strings.TrimSpace(first) == "module "+mainModule {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of module %s at or above the working directory", mainModule)
		}
		dir = parent
	}
}

// BuildServer builds cmd/sqsq into dir and returns the binary's path. It
// builds in the main module, with that module's go.mod and dependency
// versions, so the server tested is the one `go build ./cmd/sqsq` gives.
func BuildServer(ctx context.Context, dir string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "sqsq")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/sqsq")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/sqsq: %v\n%s", err, out)
	}
	return bin, nil
}

// Server is a cmd/sqsq child process.
type Server struct {
	// URL is where it serves, such as http://127.0.0.1:41234 (no slash).
	URL string

	cmd    *exec.Cmd
	stderr lockedBuffer
	exited chan struct{} // closed when the process has been waited for
	err    error         // its exit, once exited is closed
}

// StartServer starts the cmd/sqsq binary bin on a free loopback port (-addr
// 127.0.0.1:0), with args after that flag (-clock virtual, say), and returns
// once it has printed the address it serves on.
func StartServer(ctx context.Context, bin string, args ...string) (*Server, error) {
	s := &Server{exited: make(chan struct{})}
	s.cmd = exec.Command(bin, append([]string{"-addr", "127.0.0.1:0", "-log-level", "warn"}, args...)...)
	s.cmd.Stderr = &s.stderr
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	// The first line is "sqsq serving SQS on http://127.0.0.1:PORT (…)";
	// the rest of the output is read and dropped so the server never blocks
	// on a full pipe.
	serving := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "sqsq serving SQS on "); ok {
				u, _, _ := strings.Cut(rest, " ")
				select {
				case serving <- u:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	select {
	case u := <-serving:
		if _, err := url.Parse(u); err != nil || !strings.HasPrefix(u, "http://") {
			_ = s.Stop()
			return nil, fmt.Errorf("sqsq printed a serving line without an address: %q", u)
		}
		s.URL = u
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("sqsq %s exited before serving (%v); its stderr:\n%s", strings.Join(args, " "), s.err, s.Stderr())
	case <-timeout.C:
		_ = s.Stop()
		return nil, fmt.Errorf("sqsq printed no serving line within 30 s; its stderr:\n%s", s.Stderr())
	case <-ctx.Done():
		_ = s.Stop()
		return nil, ctx.Err()
	}
}

// Stop stops the server as a user's Ctrl-C would (SIGTERM: a graceful
// shutdown that takes well under a second with no client stalled) and
// reports an unclean exit. A server still running 10 s later is killed.
func (s *Server) Stop() error {
	select {
	case <-s.exited:
		return s.exitError()
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	select {
	case <-s.exited:
		return s.exitError()
	case <-timeout.C:
		_ = s.cmd.Process.Kill()
		<-s.exited
		return errors.New("sqsq still running 10 s after SIGTERM; killed")
	}
}

func (s *Server) exitError() error {
	if s.err != nil {
		return fmt.Errorf("sqsq exited with %v", s.err)
	}
	return nil
}

// Stderr is what the server has logged so far (warnings and errors).
func (s *Server) Stderr() string { return s.stderr.String() }

// ConsoleURL is the address of the web console.
func (s *Server) ConsoleURL() string { return s.URL + "/_sqsq/ui/" }

// SQS returns an AWS SDK client for the server: unsigned requests
// (anonymous credentials; sqsq authenticates nothing) to its URL, in the
// server's default region, as the application under test would use it.
func (s *Server) SQS() *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       "us-east-1",
		Credentials:  aws.AnonymousCredentials{},
		BaseEndpoint: aws.String(s.URL),
	})
}

// Advance moves a -clock virtual server's clock forward by d through its
// admin endpoint.
func (s *Server) Advance(ctx context.Context, d time.Duration) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/_sqsq/clock/advance?d="+d.String(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("advance %v: %s: %s", d, resp.Status, body)
	}
	return nil
}

// ChromiumPath is the browser the tests drive: $SQSQ_CHROMIUM, else
// Debian's /usr/bin/chromium, else a chromium on PATH; "" if there is none.
func ChromiumPath() string {
	if p := os.Getenv("SQSQ_CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return ""
}

// AllocatorOptions are the flags of the headless Chromium at path, with a
// profile of its own in userDataDir (an empty, fresh directory) and a
// width×height window. The machines this runs on have no network beyond
// loopback: without the background-networking, component-update and sync
// flags Chromium keeps trying Google's services and fills its log with
// refused connections. --no-sandbox because CI runs as root, where
// Chromium's sandbox refuses to start.
func AllocatorOptions(path, userDataDir string, width, height int, output io.Writer) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(userDataDir),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.WindowSize(width, height),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// Tabs in the background keep their timers: the console's
		// refresh must run in every tab of the parallel tests.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.CombinedOutput(output),
	}
}

// lockedBuffer is a bytes.Buffer safe for a child's writes and the
// test's reads at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// LockedBuffer returns an io.Writer that keeps what is written, safe for
// concurrent use, and a func that reads it; for a browser's output.
func LockedBuffer() (io.Writer, func() string) {
	b := new(lockedBuffer)
	return b, b.String
}
