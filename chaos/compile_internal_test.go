package chaos

import (
	"path"
	"testing"
)

// The fast queue matchers (exact, prefix, stars) agree with path.Match,
// which the rule format promises.
func TestNameMatchAgreesWithPathMatch(t *testing.T) {
	t.Parallel()
	patterns := []string{"orders", "orders*", "*orders", "*-dlq.fifo", "a*b*c", "a**b", "*a*", "**", "ord*rs*", "q?", "q[0-9]*", `q\*`, "*.fifo*"}
	names := []string{"", "orders", "orders-dlq", "my-orders", "x-dlq.fifo", "abc", "aXbYc", "acb", "ab", "a", "q1", "q12", "q*", "ordrs", "orders.fifo", "b.fifo.x"}
	for _, p := range patterns {
		m := compileName(p)
		for _, n := range names {
			want, err := path.Match(p, n)
			if err != nil {
				t.Fatal(err)
			}
			want = want && n != ""
			if got := m.match(n); got != want {
				t.Errorf("pattern %q (kind %d) on %q: %v, path.Match says %v", p, m.kind, n, got, want)
			}
		}
	}
}
