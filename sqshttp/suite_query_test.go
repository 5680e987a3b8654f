package sqshttp_test

import (
	"testing"

	"github.com/sqsq/sqsq/internal/suite"
)

// TestSuiteQuery runs the behaviour suite a third time, with the real SDK
// speaking the legacy Query protocol: the XML side of the handler through
// every operation.
func TestSuiteQuery(t *testing.T) {
	t.Parallel()
	suite.Run(t, func(t *testing.T) suite.Harness {
		b, clk := suite.NewBroker(t)
		return suite.Harness{
			API:              newClient(newServer(t, b), queryProtocol),
			Clock:            suite.MockClock(clk),
			WaitForReceivers: suite.WaitFunc(b),
			Peek:             suite.PeekFunc(b),
			InFlightLimit:    suite.InFlightLimit,
			Features:         suite.Features{ClientValidation: true, QueryProtocol: true},
		}
	})
}
