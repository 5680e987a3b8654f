package exampletest

import (
	"testing"

	"github.com/sqsq/sqsq/sqsqtest"
)

// Bench plays b.N seeded schedules of s with Scenario.Seeds (seeds 1, 2,
// …) in the benchmark's goroutine, without a bubble, and reports schedules
// per second and allocations per schedule. A failing schedule fails the
// benchmark: it measures a correct consumer, whose every schedule runs
// through its settle phase.
func Bench(b *testing.B, s sqsqtest.Scenario) {
	b.ReportAllocs()
	b.ResetTimer()
	s.Seeds(b, 1, b.N)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "schedules/s")
}
