package sqshttp_test

import (
	"testing"

	"github.com/sqsq/sqsq/internal/suite"
)

// TestSuiteRealClock runs the behaviour suite through the real SDK over
// loopback, both protocols, against a broker on the real clock (what
// cmd/sqsq serves by default): tests that need virtual time skip, the time
// group waits for real.
func TestSuiteRealClock(t *testing.T) {
	t.Parallel()
	for _, p := range []struct {
		name  string
		query bool
	}{{"json", false}, {"query", true}} {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			suite.Run(t, func(t *testing.T) suite.Harness {
				b := suite.NewRealBroker(t)
				client := newClient(newServer(t, b))
				if p.query {
					client = newClient(newServer(t, b), queryProtocol)
				}
				return suite.Harness{
					API:              client,
					Clock:            suite.WallClock,
					WaitForReceivers: suite.WaitFunc(b),
					Peek:             suite.PeekFunc(b),
					InFlightLimit:    suite.InFlightLimit,
					Features:         suite.Features{ClientValidation: true, QueryProtocol: p.query, RealTime: true},
				}
			})
		})
	}
}
