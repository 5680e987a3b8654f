package sqsqtest

import "sync"

// runMutex is a mutex that a run outside a bubble switches off while it
// plays. There the kit's goroutines are coroutines that run one at a time
// on the goroutine that plays the run, and the broker starts none of its
// own (the kit answers long polls itself), so the locks of the run's
// scheduler, fault policy, recorder and its own PRNG guard nothing; taken
// several times a step, they were a tenth of a run's time on a virtual
// machine, where even an uncontended lock is dear. Switch it off only
// before anything else can reach the value and back on before anything
// else can again: off is not itself guarded.
type runMutex struct {
	mu  sync.Mutex
	off bool
}

func (m *runMutex) Lock() {
	if !m.off {
		m.mu.Lock()
	}
}

func (m *runMutex) Unlock() {
	if !m.off {
		m.mu.Unlock()
	}
}
