package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/sqsq/sqsq/interop/browser"
)

// testTimeout is each test's hang guard: every browser action and SDK call
// of a test runs under it. The tests take a few seconds each.
const testTimeout = 60 * time.Second

// waitTimeout bounds one wait for the page to show something. The console
// refreshes every second or so; this leaves room for a loaded machine.
const waitTimeout = 15 * time.Second

// page is one test's view: its own cmd/sqsq, a tab of the shared browser,
// and an SDK client for that server.
type page struct {
	t   *testing.T
	ctx context.Context // the tab, under the test's hang guard
	srv *browser.Server
	sqs *sqs.Client

	mu         sync.Mutex
	exceptions []string // uncaught JavaScript exceptions of the page
}

// newPage starts cmd/sqsq with args and opens a tab. When the test fails,
// its cleanup saves a screenshot and the HTML of the tab as artifacts.
func newPage(t *testing.T, args ...string) *page {
	t.Helper()
	if noBrowser != "" {
		t.Skip(noBrowser)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)

	srv, err := browser.StartServer(ctx, serverBin, args...)
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run last-registered first: the server stops after the
	// artifacts are saved, so the page still shows what failed.
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			if log := srv.Stderr(); log != "" {
				t.Logf("sqsq's stderr:\n%s", log)
			}
		}
	})

	tab, closeTab := chromedp.NewContext(browserCtx)
	t.Cleanup(closeTab)
	p := &page{t: t, srv: srv, sqs: srv.SQS()}
	// The first action on the tab opens it, tied to the life of the
	// context it runs with: tab, not the hang guard, which would close it
	// before the screenshot. A timer guards it instead.
	guard := time.AfterFunc(30*time.Second, closeTab)
	err = chromedp.Do(tab, chromedp.EmulateViewport(1200, 800))
	guard.Stop()
	if err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	exceptions := chromedp.Events(tab, runtime.ExceptionThrown)
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.exceptions = append(p.exceptions, exceptionText(&ev))
			p.mu.Unlock()
		}
	}()
	tabCtx, cancelTab := context.WithCancel(tab)
	stop := context.AfterFunc(ctx, cancelTab) // the hang guard ends the tab's actions
	t.Cleanup(func() { stop(); cancelTab() })
	p.ctx = tabCtx

	t.Cleanup(func() {
		p.mu.Lock()
		thrown := p.exceptions
		p.mu.Unlock()
		for _, e := range thrown {
			t.Errorf("the page threw an uncaught exception: %s", e)
		}
		if t.Failed() {
			p.saveArtifacts(tab)
		}
	})
	return p
}

func exceptionText(ev *runtime.EventExceptionThrown) string {
	d := ev.ExceptionDetails
	if d == nil {
		return "(no details)"
	}
	msg := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		msg += " " + d.Exception.Description
	}
	return fmt.Sprintf("%s (%s:%d:%d)", msg, d.URL, d.LineNumber, d.ColumnNumber)
}

// artifactDir is where failing tests leave their screenshots:
// $SQSQ_ARTIFACTS, else artifacts/ beside the tests (ignored by git).
func artifactDir() string {
	if d := os.Getenv("SQSQ_ARTIFACTS"); d != "" {
		return d
	}
	return "artifacts"
}

// saveArtifacts writes a screenshot of the whole page and its HTML, named
// after the test, and prints their paths.
func (p *page) saveArtifacts(tab context.Context) {
	ctx, cancel := context.WithTimeout(tab, 10*time.Second)
	defer cancel()
	dir, err := filepath.Abs(artifactDir())
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		p.t.Logf("no artifacts: %v", err)
		return
	}
	name := regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(p.t.Name(), "_")
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err != nil {
		p.t.Logf("no screenshot: %v", err)
	} else if path := filepath.Join(dir, name+".png"); os.WriteFile(path, png, 0o644) == nil {
		p.t.Logf("screenshot of the page: %s", path)
	}
	if html, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`)); err != nil {
		p.t.Logf("no HTML: %v", err)
	} else if path := filepath.Join(dir, name+".html"); os.WriteFile(path, []byte(html), 0o644) == nil {
		p.t.Logf("HTML of the page: %s", path)
	}
}

// saveScreenshot saves what the viewport shows as name.png among the
// artifacts, for a person to look at, and logs its path.
func (p *page) saveScreenshot(name string) {
	p.t.Helper()
	dir, err := filepath.Abs(artifactDir())
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		p.t.Fatal(err)
	}
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot: %s", path)
}

// do runs browser actions, failing the test on an error.
func (p *page) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// open loads the console at path (below /_sqsq/ui/, "" for its start).
func (p *page) open(path string) {
	p.t.Helper()
	p.do("opening the console", chromedp.Navigate(p.srv.ConsoleURL()+path))
}

// click clicks the first element that matches the CSS selector, once it is
// visible.
func (p *page) click(sel string) {
	p.t.Helper()
	p.do("clicking "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// fill sets the value of the form field sel as a user typing would: it
// empties the field and then types value, key by key. (chromedp's Clear
// fails on an empty textarea and its SetValue on the value "", hence the
// script.)
func (p *page) fill(sel, value string) {
	p.t.Helper()
	p.do("filling "+sel,
		chromedp.WaitVisible(chromedp.CSS(sel)),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%s).value = ""`, js(sel))),
		chromedp.SendKeys(chromedp.CSS(sel), value))
}

// waitFor polls the page until the JavaScript expression is truthy; what
// says what the test waits for, in its failure. It never sleeps a fixed
// time: it checks every 50 ms and returns at the first success.
func (p *page) waitFor(what, expr string) {
	p.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		left := time.Until(deadline)
		_, err := chromedp.Run(p.ctx, chromedp.Poll[any](expr,
			chromedp.WithPollingInterval(50*time.Millisecond),
			chromedp.WithPollingTimeout(max(left, time.Millisecond))))
		if err == nil {
			return
		}
		// A poll does not survive a navigation of the page: poll again in
		// the new one. Any other error (the expression threw) is final.
		if !navigated(err) || p.ctx.Err() != nil || time.Now().After(deadline) {
			p.t.Fatalf("waiting %v for %s: %v\nthe page shows:\n%s", waitTimeout, what, err, p.visibleText())
		}
	}
}

// navigated reports whether err is that of a script cut short by a
// navigation of the page.
func navigated(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "navigated or closed") || strings.Contains(msg, "Execution context was destroyed") ||
		strings.Contains(msg, "Cannot find context")
}

// visibleText is the text of the page, for failure messages.
func (p *page) visibleText() string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), 5*time.Second)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : "(no body)"`))
	if err != nil {
		return fmt.Sprintf("(cannot read the page: %v)", err)
	}
	return tail(text, 3000)
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// js quotes s as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// textOf is a JavaScript expression: the trimmed text of the first element
// matching sel, or null when there is none.
func textOf(sel string) string {
	return fmt.Sprintf(`(document.querySelector(%s)?.textContent ?? null)?.trim()`, js(sel))
}

// exists is a JavaScript expression: whether an element matches sel.
func exists(sel string) string {
	return fmt.Sprintf(`document.querySelector(%s) !== null`, js(sel))
}

// textIs is a JavaScript expression: whether the trimmed text of sel's
// first match is want.
func textIs(sel, want string) string {
	return fmt.Sprintf(`%s === %s`, textOf(sel), js(want))
}

// attr quotes a value for a CSS attribute selector.
func attr(name, value string) string {
	return fmt.Sprintf(`[%s=%s]`, name, js(value))
}

// queueRow and countCell are the console's hooks in the queue list.
func queueRow(name string) string { return attr("data-queue", name) }

func countCell(queue, kind string) string {
	return queueRow(queue) + " " + attr("data-count", kind)
}

// messageRow is the console's hook for a message on a queue page.
func messageRow(id string) string { return attr("data-message-id", id) }

// stateOf is a JavaScript expression: the data-state of a message's state
// cell, or null.
func stateOf(id string) string {
	return fmt.Sprintf(`document.querySelector(%s)?.getAttribute("data-state") ?? null`, js(messageRow(id)+" [data-state]"))
}

// visible is a JavaScript expression: whether the first element matching
// sel is rendered (it and its ancestors are not hidden).
func visible(sel string) string {
	return fmt.Sprintf(`(document.querySelector(%s)?.getClientRects().length ?? 0) > 0`, js(sel))
}

// contains reports whether the trimmed text of sel contains sub.
func contains(sel, sub string) string {
	return fmt.Sprintf(`(%s ?? "").includes(%s)`, textOf(sel), js(sub))
}
