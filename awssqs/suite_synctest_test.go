//go:build go1.25

package awssqs_test

import (
	"testing"
	"testing/synctest"

	"github.com/sqsq/sqsq/awssqs"
	"github.com/sqsq/sqsq/internal/suite"
)

// TestSuiteSynctest runs the whole behaviour suite against the adapter over
// sqsq.NewBroker() with its default clock, each test in a synctest bubble:
// the real clock's code path, with time that jumps when everyone waits.
func TestSuiteSynctest(t *testing.T) {
	t.Parallel()
	suite.RunIn(t, synctest.Test, func(t *testing.T) suite.Harness {
		b := suite.NewRealBroker(t)
		return suite.Harness{
			API:              awssqs.New(b),
			Clock:            suite.WallClock,
			WaitForReceivers: suite.WaitFunc(b),
			Peek:             suite.PeekFunc(b),
			InFlightLimit:    suite.InFlightLimit,
		}
	})
}
