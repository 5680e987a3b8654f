package latency

import (
	"testing"
	"time"
)

func TestQuantileNearestRank(t *testing.T) {
	t.Parallel()
	ds := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tt := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 5}, {0.99, 10}, {0.1, 1}, {0, 1}, {1, 10}} {
		if got := Quantile(ds, tt.q); got != tt.want {
			t.Errorf("Quantile(%v) = %v, want %v (nearest rank)", tt.q, got, tt.want)
		}
	}
}
