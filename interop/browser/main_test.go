package browser_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sqsq/sqsq/interop/browser"
)

// Shared by every test: the cmd/sqsq binary (each test starts its own
// server from it) and one Chromium (each test opens its own tab in it).
var (
	serverBin  string
	browserCtx context.Context // the browser; a test's tab is a chromedp child of it
	noBrowser  string          // why the tests skip, when they do
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	path := browser.ChromiumPath()
	if path == "" {
		noBrowser = "no Chromium: install Debian's chromium package (apt-get install chromium) or set SQSQ_CHROMIUM to a Chromium or Chrome binary"
		if os.Getenv("SQSQ_BROWSER_REQUIRED") != "" {
			fmt.Fprintln(os.Stderr, "browser:", noBrowser)
			return 1
		}
		return m.Run()
	}

	// The default artifact directory holds the last run's failures only.
	if os.Getenv("SQSQ_ARTIFACTS") == "" {
		_ = os.RemoveAll(artifactDir())
	}

	tmp, err := os.MkdirTemp("", "sqsq-browser-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "browser:", err)
		return 1
	}
	defer os.RemoveAll(tmp)

	buildCtx, cancelBuild := context.WithTimeout(context.Background(), 3*time.Minute)
	serverBin, err = browser.BuildServer(buildCtx, tmp)
	cancelBuild()
	if err != nil {
		fmt.Fprintln(os.Stderr, "browser:", err)
		return 1
	}

	// A fresh profile in a directory of its own, removed afterwards.
	profile, err := os.MkdirTemp(tmp, "profile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "browser:", err)
		return 1
	}
	output, chromiumLog := browser.LockedBuffer()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		browser.AllocatorOptions(path, profile, 1200, 800, output)...)
	defer cancelAlloc()
	ctx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	// The first Do starts the browser and ties its life to ctx (not to a
	// timeout); the hang guard is a timer that cancels it.
	guard := time.AfterFunc(60*time.Second, cancelBrowser)
	err = chromedp.Do(ctx)
	guard.Stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "browser: starting %s: %v\n%s", path, err, chromiumLog())
		return 1
	}
	browserCtx = ctx

	code := m.Run()
	if code != 0 {
		saveChromiumLog(chromiumLog())
	}
	return code
}

// saveChromiumLog keeps the browser's output as an artifact and prints its
// end, without the lines about D-Bus, which headless Chromium on a machine
// without a session bus prints by the dozen.
func saveChromiumLog(log string) {
	dir := artifactDir()
	if err := os.MkdirAll(dir, 0o755); err == nil {
		path := filepath.Join(dir, "chromium.log")
		if os.WriteFile(path, []byte(log), 0o644) == nil {
			abs, _ := filepath.Abs(path)
			fmt.Fprintf(os.Stderr, "browser: Chromium's output: %s\n", abs)
		}
	}
	var kept []string
	for line := range strings.Lines(log) {
		if !strings.Contains(line, "dbus") {
			kept = append(kept, line)
		}
	}
	fmt.Fprintf(os.Stderr, "browser: its end, D-Bus lines left out:\n%s\n", tail(strings.Join(kept, ""), 4000))
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
