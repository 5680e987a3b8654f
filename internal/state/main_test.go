package state

import (
	"testing"

	"github.com/sqsq/sqsq/internal/racexit"
)

// TestMain skips the race detector's exit pause when the tests pass.
func TestMain(m *testing.M) { racexit.Main(m) }
