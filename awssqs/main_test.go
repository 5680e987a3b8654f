package awssqs_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/sqsq/sqsq/internal/racexit"
)

// TestMain fails the run if a test leaves a goroutine behind (a long poll
// that never returned, a move task of a broker nobody closed).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(racexit.Exit))
}
