package sqsqtest_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves a goroutine behind: a parked
// receive, or a handler coroutine of the harness.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
