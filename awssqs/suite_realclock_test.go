package awssqs_test

import (
	"testing"

	"github.com/sqsq/sqsq/awssqs"
	"github.com/sqsq/sqsq/internal/suite"
)

// TestSuiteRealClock runs the behaviour suite against the adapter over a
// broker on the real clock, the default of sqsq.NewBroker(): tests that
// need virtual time skip, the time group waits for real.
func TestSuiteRealClock(t *testing.T) {
	t.Parallel()
	suite.Run(t, func(t *testing.T) suite.Harness {
		b := suite.NewRealBroker(t)
		return suite.Harness{
			API:              awssqs.New(b),
			Clock:            suite.WallClock,
			WaitForReceivers: suite.WaitFunc(b),
			Peek:             suite.PeekFunc(b),
			InFlightLimit:    suite.InFlightLimit,
			Features:         suite.Features{RealTime: true},
		}
	})
}
