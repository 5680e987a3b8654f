package sqsqtest

import (
	"runtime/debug"
	"sync"
)

// A loop of runs allocates fast on a small heap: at the default GOGC of
// 100 the collector ran every 80 runs or so of the payment benchmark, and
// its cycles cost about a seventh of a run (43.8 against 36.7 µs at GOGC
// 400, medians of 4 alternating runs). So while a loop of runs plays
// (Seeds, Find, Shrink, TestPlain, Test) the kit raises GOGC to
// loopGOGC, unless it is higher or off, and puts back the value it found
// when the last loop ends. The heap then grows to about five times what
// the runs keep, a few megabytes.
const loopGOGC = 400

var gcLoops struct {
	sync.Mutex
	n    int // loops running
	prev int // GOGC when the first of them began
}

// relaxGC raises GOGC for a loop of runs; call the function it returns
// when the loop ends.
func relaxGC() (restore func()) {
	gcLoops.Lock()
	if gcLoops.n == 0 {
		gcLoops.prev = debug.SetGCPercent(loopGOGC)
		if gcLoops.prev < 0 || gcLoops.prev > loopGOGC {
			debug.SetGCPercent(gcLoops.prev) // off, or higher already: leave it
		}
	}
	gcLoops.n++
	gcLoops.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			gcLoops.Lock()
			defer gcLoops.Unlock()
			if gcLoops.n--; gcLoops.n == 0 {
				debug.SetGCPercent(gcLoops.prev)
			}
		})
	}
}
