// Package latency reports latency distributions from benchmarks: the
// long-poll wake benchmarks of the core and of sqshttp share it.
package latency

import (
	"slices"
	"testing"
	"time"
)

// Report sorts ds in place and reports its p50, p99 and max in
// microseconds, each metric name prefixed by prefix.
func Report(b *testing.B, prefix string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(Micros(Quantile(ds, 0.50)), prefix+"p50-µs")
	b.ReportMetric(Micros(Quantile(ds, 0.99)), prefix+"p99-µs")
	b.ReportMetric(Micros(ds[len(ds)-1]), prefix+"max-µs")
}

// Quantile returns the q-quantile of sorted ds (nearest rank).
func Quantile(ds []time.Duration, q float64) time.Duration {
	i := int(float64(len(ds))*q+0.999999) - 1
	return ds[max(0, min(i, len(ds)-1))]
}

// Micros is d in microseconds.
func Micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
