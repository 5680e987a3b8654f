package chaos

import (
	"maps"
	"sync"
)

// Injection records one fault an [Engine] injected.
type Injection struct {
	// Seq numbers the injections from 1, in the order they were recorded.
	Seq uint64 `json:"seq"`
	// Kind is what was injected.
	Kind Kind `json:"kind"`
	// Rule is the index of the rule that fired: in [Config].Rules, or in
	// the LocalStack rules when LocalStack is set; -1 for LocalStack's
	// latency effect, which belongs to no rule.
	Rule       int  `json:"rule"`
	LocalStack bool `json:"localstack,omitempty"`
	// Operation, Queue, Account and Region name the call. A core fault on
	// a delete or visibility change names the single operation
	// (DeleteMessage, ChangeMessageVisibility) for the batch entries too.
	Operation string `json:"operation"`
	Queue     string `json:"queue,omitempty"`
	Account   string `json:"account,omitempty"`
	Region    string `json:"region,omitempty"`
	// Decision is the number of the decision at the rule's decision
	// point, from 0 (see "Determinism" in the package doc).
	Decision uint64 `json:"decision"`
	// Code and StatusCode are an injected error's.
	Code       string `json:"code,omitempty"`
	StatusCode int    `json:"statusCode,omitempty"`
	// LatencyMs is an injected latency.
	LatencyMs int64 `json:"latencyMs,omitempty"`
	// Detail says what a fault did: which in-flight message a duplicate
	// delivered again, how many messages a sample returned, when a
	// visibility timeout ended.
	Detail string `json:"detail,omitempty"`
}

// logSize is how many injections an Engine keeps.
const logSize = 1000

// injectionLog keeps the latest injections in a ring and counts them all.
type injectionLog struct {
	mu     sync.Mutex
	ring   []Injection // guarded by mu; allocated at the first injection
	total  uint64
	counts map[Kind]uint64
}

func (l *injectionLog) record(in Injection) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ring == nil {
		l.ring = make([]Injection, 0, logSize)
		l.counts = make(map[Kind]uint64)
	}
	l.total++
	in.Seq = l.total
	l.counts[in.Kind]++
	if len(l.ring) < logSize {
		l.ring = append(l.ring, in)
	} else {
		l.ring[(l.total-1)%logSize] = in
	}
}

// list returns the injections kept, oldest first, and the counts.
func (l *injectionLog) list() ([]Injection, map[Kind]uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Injection, 0, len(l.ring))
	if len(l.ring) < logSize {
		out = append(out, l.ring...)
	} else {
		start := l.total % logSize // the oldest
		out = append(append(out, l.ring[start:]...), l.ring[:start]...)
	}
	counts := maps.Clone(l.counts)
	if counts == nil {
		counts = map[Kind]uint64{}
	}
	return out, counts
}

// count returns the counts.
func (l *injectionLog) count() map[Kind]uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	counts := maps.Clone(l.counts)
	if counts == nil {
		counts = map[Kind]uint64{}
	}
	return counts
}

func (l *injectionLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ring, l.total, l.counts = nil, 0, nil
}
