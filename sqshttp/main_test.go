package sqshttp_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/sqsq/sqsq/internal/racexit"
)

// TestMain fails the run if a test leaves a goroutine behind (a long poll
// that never returned, a server nobody closed). Run as a child of the load
// test, the binary serves instead (see load_test.go).
func TestMain(m *testing.M) {
	if serveLoadChild() {
		return
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(racexit.Exit))
}
