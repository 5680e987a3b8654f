package sqsq_test

import (
	"flag"
	"testing"

	"go.uber.org/goleak"

	"github.com/sqsq/sqsq/internal/racexit"
	"github.com/sqsq/sqsq/internal/testsize"
)

// TestMain fails the run if any test leaves a goroutine behind (a parked
// receive that never returned, a timer goroutine of ours). The quick suite
// plays half of rapid's default checks in each property and model test
// (some 10 s of CPU less under -race); the long one (SQSQ_LONG=1) all.
func TestMain(m *testing.M) {
	flag.Parse()
	testsize.QuickFlag("rapid.checks", "50", "")
	goleak.VerifyTestMain(m, goleak.Cleanup(racexit.Exit))
}
