//go:build go1.25

package sqsqtest

import (
	"sync/atomic"
	"testing"
)

// Test plays Runs() schedules too, each in a bubble of its own.
func TestTestPlaysRuns(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	counted(&n).Test(t)
	if got, want := int(n.Load()), wantRuns(); got != want {
		t.Errorf("played %d runs, want %d (Runs() = %d)", got, want, Runs())
	}
}
