package sqsqtest

import (
	"math/rand/v2"
	"sync"

	"pgregory.net/rapid"
)

// Source is where every decision of a fault [Policy] and of a [Scenario]
// run comes from. Draw returns a number in [0, n) for n ≥ 1. 0 is always the
// lucky, boring choice (no fault, the first consumer, the next send), so a
// source that shrinks its draws towards 0 — rapid does, and so does
// [Scenario.Find] — shrinks a failing schedule towards the shortest one
// that still fails. Label names the decision; rapid prints it with the value.
//
// Sources are safe for concurrent use, but a run is reproducible only when
// its decisions are drawn in a fixed order, which the harness guarantees.
type Source interface {
	Draw(label string, n int) int
}

// PRNG is a [Source] driven by a seeded pseudo-random generator: the same seed
// gives the same decisions. Print the seed when a test fails (see
// [SeedFaults], [Scenario.Seeds]) so the run can be reproduced.
type PRNG struct {
	seed uint64
	mu   runMutex // off while a loop's own PRNG plays outside a bubble
	r    *rand.Rand
}

// Seed returns a [PRNG] source seeded with n.
func Seed(n uint64) *PRNG {
	return &PRNG{seed: n, r: rand.New(rand.NewPCG(n, 0x5ea5ea5ea5ea5ea5))}
}

// Seed returns the seed the source was made with.
func (p *PRNG) Seed() uint64 { return p.seed }

// Draw returns a uniformly distributed number in [0, n).
func (p *PRNG) Draw(label string, n int) int {
	if n <= 1 {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.r.IntN(n)
}

// Rapid returns a [Source] whose every decision is a rapid draw, so that when
// a property fails rapid shrinks the schedule (fewer faults, fewer steps,
// earlier consumers) and replays the minimal one. Use it only inside the
// rapid property function that received t.
func Rapid(t *rapid.T) Source { return &rapidSource{t: t} }

// rapidSource draws from rapid. A rapid draw panics when rapid wants the
// property to stop: while shrinking, a schedule that draws more than the
// recorded draws is invalid. Such a panic must reach rapid on the
// property's goroutine, but a draw may happen in a consumer's goroutine
// (the fault policy decides inside a delete), where it would end the
// consumer or the test binary. So the source keeps the first panic, draws
// 0 from then on (the lucky draws end the run soon), and [Scenario.Run]
// raises it again on its own goroutine once the run has ended.
type rapidSource struct {
	t    *rapid.T
	mu   sync.Mutex
	stop any
}

func (r *rapidSource) Draw(label string, n int) (v int) {
	if n <= 1 || r.halted() != nil {
		return 0
	}
	defer func() {
		if p := recover(); p != nil {
			r.mu.Lock()
			r.stop = p
			r.mu.Unlock()
			v = 0
		}
	}()
	return rapid.IntRange(0, n-1).Draw(r.t, label)
}

// halted returns the panic that stopped the source's draws, nil if none.
func (r *rapidSource) halted() any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stop
}

// haltedBy returns the panic that stopped src's draws, if src can stop.
func haltedBy(src Source) any {
	if h, ok := src.(interface{ halted() any }); ok {
		return h.halted()
	}
	return nil
}

// Lucky returns a [Source] that always draws 0: no fault ever fires and a
// schedule takes the first enabled action at every step. It is the
// deterministic baseline against which faults are measured.
func Lucky() Source { return replay{} }

// replay draws from a recorded choice sequence, clamping each value into
// range and drawing 0 past its end. Find shrinks these sequences.
type replay struct {
	seq []int
	pos *int
}

func (r replay) Draw(label string, n int) int {
	if r.pos == nil || *r.pos >= len(r.seq) || n <= 1 {
		if r.pos != nil {
			*r.pos++
		}
		return 0
	}
	v := r.seq[*r.pos]
	*r.pos++
	return min(v, n-1)
}

// recorder wraps a source and records its draws.
type recorder struct {
	src Source
	mu  sync.Mutex
	seq []int
}

func (r *recorder) halted() any { return haltedBy(r.src) }

func (r *recorder) Draw(label string, n int) int {
	v := r.src.Draw(label, n)
	r.mu.Lock()
	r.seq = append(r.seq, v)
	r.mu.Unlock()
	return v
}

// chance draws whether an event with the given percent probability happens.
// It draws nothing when percent ≤ 0, so disabled faults leave no trace in a
// schedule; its lucky value 0 means "no".
func chance(src Source, label string, percent int) bool {
	if percent <= 0 {
		return false
	}
	if percent >= 100 {
		return src.Draw(label, 2) >= 0 // still one draw, so schedules line up
	}
	return src.Draw(label, 100) >= 100-percent
}
