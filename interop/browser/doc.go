// Package browser tests the web console of cmd/sqsq (/_sqsq/ui/) in a real
// browser: headless Chromium (Debian's chromium package) driven through the
// DevTools protocol by github.com/chromedp/chromedp, against the cmd/sqsq
// binary in a child process, with the AWS SDK for Go v2 acting as the
// application beside the console.
//
// It is a module of its own so that the main module keeps its go directive
// (chromedp needs a newer Go) and gains no dependency. The package holds the
// harness the tests and cmd/screenshot share: building and starting
// cmd/sqsq, an SDK client for it, and the Chromium flags. The tests are in
// console_test.go, one cmd/sqsq and one browser tab each, in parallel in
// one Chromium: the empty console; creating queues from it; a message sent
// from it, received with the SDK, shown in flight with its time left and
// available again after the console advances the virtual clock; a FIFO
// queue's held message, delete and purge, each confirmed first; a redrive
// from a dead-letter queue's page watched to COMPLETED; on the real clock,
// the queue list following the SDK live; a queue page at 1280×800 (ids on
// one line, the oldest age 0s, a 100 KiB body shown whole on request); and
// namespaces (namespaces_test.go): queues the SDK created signed for two
// regions, each listed in its own namespace with the SDK's URL, the
// namespace kept across a reload; and a message's delivery history opened
// from its queue page (history_test.go), skipped while cmd/sqsq records
// none. They wait for the page by polling the DOM
// through the console's stable hooks (listed in console/ui/index.html),
// never by sleeping. Run them with run.sh (CI does, from .ci/run).
//
// A failing test saves a screenshot and the page's HTML under
// $SQSQ_ARTIFACTS, else artifacts/ beside this file, and prints the paths.
// cmd/screenshot renders the README's picture of the console,
// docs/console.png.
package browser
