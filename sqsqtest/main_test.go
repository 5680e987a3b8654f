package sqsqtest_test

import (
	"flag"
	"testing"

	"go.uber.org/goleak"

	"github.com/sqsq/sqsq/internal/racexit"
	"github.com/sqsq/sqsq/internal/testsize"
)

// TestMain fails the run if a test leaves a goroutine behind: a parked
// receive, or a handler coroutine of the harness. The quick suite plays
// testsize.KitRuns schedules per Scenario.Test, SQSQ_LONG=1 all of
// DefaultRuns (-sqsqtest.runs and SQSQTEST_RUNS still win).
func TestMain(m *testing.M) {
	flag.Parse()
	testsize.QuickKit()
	goleak.VerifyTestMain(m, goleak.Cleanup(racexit.Exit))
}
