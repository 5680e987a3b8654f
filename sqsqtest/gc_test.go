package sqsqtest

import (
	"runtime/debug"
	"sync"
	"testing"
)

// gogc reads GOGC.
func gogc() int {
	v := debug.SetGCPercent(100)
	debug.SetGCPercent(v)
	return v
}

// Loops raise GOGC while any runs, leave it alone when it is off or
// higher, and put back what they found.
//
// Not parallel: GOGC is the process's.
func TestRelaxGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	a := relaxGC()
	b := relaxGC()
	if got := gogc(); got != loopGOGC {
		t.Fatalf("during two loops GOGC = %d, want %d", got, loopGOGC)
	}
	a()
	a() // twice: once counts
	if got := gogc(); got != loopGOGC {
		t.Fatalf("during the second loop GOGC = %d, want %d", got, loopGOGC)
	}
	b()
	if got := gogc(); got != 150 {
		t.Fatalf("after the loops GOGC = %d, want 150 back", got)
	}
	// Loops that begin and end at once, as parallel tests' do.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				relaxGC()()
			}
		}()
	}
	wg.Wait()
	if got := gogc(); got != 150 {
		t.Fatalf("after concurrent loops GOGC = %d, want 150 back", got)
	}
	// Every loop of runs (Seeds, Find, Shrink, TestPlain) has spares.
	loop := chargeThenDelete("a").reuse()
	if got := gogc(); got != loopGOGC {
		t.Errorf("during a loop's runs GOGC = %d, want %d", got, loopGOGC)
	}
	loop.spare.stop()
	if got := gogc(); got != 150 {
		t.Fatalf("after a loop GOGC = %d, want 150 back", got)
	}
	for _, v := range []int{-1, 800} {
		debug.SetGCPercent(v)
		c := relaxGC()
		if got := gogc(); got != v {
			t.Errorf("GOGC %d became %d during a loop", v, got)
		}
		c()
		if got := gogc(); got != v {
			t.Errorf("GOGC %d became %d after a loop", v, got)
		}
	}
}
