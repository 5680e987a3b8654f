package awssqs_test

import (
	"testing"

	"github.com/sqsq/sqsq/awssqs"
	"github.com/sqsq/sqsq/internal/suite"
)

// TestSuite runs the SQS behaviour suite against the adapter.
func TestSuite(t *testing.T) {
	t.Parallel()
	suite.Run(t, func(t *testing.T) suite.Harness {
		b, clk := suite.NewBroker(t)
		return suite.Harness{
			API:              awssqs.New(b),
			Clock:            suite.MockClock(clk),
			WaitForReceivers: suite.WaitFunc(b),
			Peek:             suite.PeekFunc(b),
			InFlightLimit:    suite.InFlightLimit,
		}
	})
}
