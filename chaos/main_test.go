package chaos_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/sqsq/sqsq/internal/racexit"
)

// TestMain fails the run if a test leaves a goroutine behind (a server
// nobody closed, a latency that never ended).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(racexit.Exit))
}
