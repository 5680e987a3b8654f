package sqsq_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind (a parked
// receive that never returned, a timer goroutine of ours).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
