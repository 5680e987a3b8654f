package exampletest

import (
	"testing"

	"github.com/sqsq/sqsq/sqsqtest"
)

// Bench plays b.N seeded schedules of s (seeds 1, 2, …, as Scenario.Seeds
// and Find draw them) in the benchmark's goroutine, without a bubble, and
// reports schedules per second and allocations per schedule. A failing
// schedule fails the benchmark: it measures a correct consumer, whose
// every schedule runs through its settle phase.
func Bench(b *testing.B, s sqsqtest.Scenario) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if o := s.Run(sqsqtest.Seed(uint64(i%10000 + 1))); o.Err != nil {
			b.Fatalf("seed %d: %v", i%10000+1, o)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "schedules/s")
}
