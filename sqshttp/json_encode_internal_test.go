package sqshttp

import (
	"strconv"
	"testing"
)

// BenchmarkSortEntries sorts the entries of a map written in reverse key
// order, at three sizes: the cost per entry grows as log n (an insertion
// sort made 100,000 tags cost 9 CPU-seconds).
//
//	go test -run '^$' -bench SortEntries ./sqshttp
func BenchmarkSortEntries(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		b.Run("entries="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte
			entries := make([]mapEntry, n)
			for b.Loop() {
				buf = buf[:0]
				for i := range n {
					key := strconv.Itoa(1_000_000 - i)
					start := len(buf)
					buf = append(buf, key...)
					entries[i] = mapEntry{key: key, start: start, end: len(buf)}
				}
				buf = sortEntries(buf, 0, entries, ",")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entry")
		})
	}
}

func TestSortEntries(t *testing.T) {
	t.Parallel()
	buf := []byte("c,a,b")
	entries := []mapEntry{{key: "c", start: 0, end: 1}, {key: "a", start: 2, end: 3}, {key: "b", start: 4, end: 5}}
	if got := string(sortEntries(buf, 0, entries, ",")); got != "a,b,c" {
		t.Errorf("sortEntries = %q, want a,b,c", got)
	}
}
