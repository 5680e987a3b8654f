package chaos

import (
	"math/bits"
	"strings"
)

// Every decision is a pure function of the seed, the rule's index, the
// decision point (hashed) and how many decisions that point has seen
// (see "Determinism" in the package doc):
//
//	x = draw(seed, rule, point, n, purpose)
//
// purpose 0 decides whether the rule fires (x's top 53 bits below the
// rule's threshold); purposes 1, 2, … draw what the fault then does
// (which message, how many, how long).

// point is a decision point: the wire operation (for errors and latency)
// or the core's operation and fault ("ReceiveMessage#duplicate"), in one
// namespace, on one queue.
type point struct {
	name, account, region, queue string
}

// counter numbers the decisions made at a point; h is the point's hash.
type counter struct {
	h, n uint64
}

// next returns p's hash and the number of the decision being made there
// (0 for the first), and counts it.
func (rs *ruleset) next(p point) (h, n uint64) {
	rs.mu.Lock()
	c := rs.counters[p]
	if c == nil {
		// Copies: the call's strings may be slices of a request's buffers.
		p = point{strings.Clone(p.name), strings.Clone(p.account), strings.Clone(p.region), strings.Clone(p.queue)}
		c = &counter{h: hashPoint(p)}
		rs.counters[p] = c
	}
	n = c.n
	c.n++
	rs.mu.Unlock()
	return c.h, n
}

// hashPoint is FNV-1a (64-bit) of p's fields, each followed by 0xff (a
// byte no UTF-8 string holds), so ("ab", "") and ("a", "b") differ. It is
// the same in every process: no per-process seed.
func hashPoint(p point) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for _, s := range [...]string{p.name, p.account, p.region, p.queue} {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= prime
		}
		h ^= 0xff
		h *= prime
	}
	return h
}

// mix is SplitMix64's step: a bijection whose output bits each depend on
// every input bit.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// draw combines its inputs one at a time through mix.
func draw(seed, rule, h, n, purpose uint64) uint64 {
	return mix(mix(mix(mix(seed^h)^rule)^n) ^ purpose)
}

// fires reports whether the rule of t fires at decision n of point h.
func (t *target) fires(seed, h, n uint64) bool {
	return draw(seed, t.index, h, n, 0)>>11 < t.threshold
}

// intn maps x to [0, n) (n > 0) by multiplication (Lemire), without the
// bias of a modulus worth mentioning for the small n drawn here.
func intn(x uint64, n uint64) uint64 {
	hi, _ := bits.Mul64(x, n)
	return hi
}
