package sqsqtest

import (
	"fmt"

	"github.com/sqsq/sqsq"
)

// Fault is one kind of misbehaviour a [Policy] can inject.
type Fault uint8

// The faults a [Policy] injects. The first three happen only on standard
// queues: the broker never consults the policy about them on FIFO queues.
const (
	ShortPoll      Fault = iota // a short poll returns fewer of the available messages, maybe none
	Duplicate                   // a receive also returns a message already in flight, with a new handle
	Reorder                     // a receive returns its messages in another order
	LoseReceive                 // a receive's messages go in flight but the caller gets ServiceUnavailable
	LoseDelete                  // a delete is applied but the caller gets ServiceUnavailable
	FailDelete                  // a delete fails with ServiceUnavailable and is not applied
	LoseVisibility              // a visibility change is applied but the caller gets ServiceUnavailable
	FailVisibility              // a visibility change fails with ServiceUnavailable and is not applied
	Throttle                    // any call fails with RequestThrottled and changes nothing
	OverLimit                   // a receive fails with OverLimit and changes nothing
	numFaults
)

var faultNames = [numFaults]string{
	"short-poll sample", "duplicate delivery", "reorder", "receive response lost",
	"delete response lost", "delete failed", "visibility response lost", "visibility change failed",
	"throttled", "over limit",
}

func (f Fault) String() string {
	if f < numFaults {
		return faultNames[f]
	}
	return fmt.Sprintf("Fault(%d)", uint8(f))
}

// Rates gives each fault its probability in percent per decision point
// (0–100). A fault absent from the map never happens and draws nothing.
type Rates map[Fault]int

// AllFaults returns Rates with every fault at percent.
func AllFaults(percent int) Rates {
	r := Rates{}
	for f := Fault(0); f < numFaults; f++ {
		r[f] = percent
	}
	return r
}

// Injection records one injected fault.
type Injection struct {
	Fault Fault
	Queue string
}

// Policy is a [sqsq.Faults] whose every decision is drawn from a [Source]:
// a seeded PRNG for reproducible chaos, or a *rapid.T so that rapid shrinks
// the faults of a failing test. Install it with sqsq.WithFaults. A fault
// fires only when its rate is positive and the draw says so; every fault
// that fires is logged (see [Policy.Injected]). Safe for concurrent use.
type Policy struct {
	src   Source
	rates [numFaults]int // an array, not Rates: copying the map was 3 % of a kit run

	mu       runMutex // off while a run plays outside a bubble
	disabled bool
	longPoll bool // a long poll is being answered: no short-poll sampling
	log      []Injection
	unread   int // log entries not yet returned by takeNew
}

// NewPolicy returns a policy drawing from src with the given rates.
func NewPolicy(src Source, rates Rates) *Policy {
	p := &Policy{src: src}
	for f, r := range rates {
		if f < numFaults {
			p.rates[f] = r
		}
	}
	return p
}

// SeedFaults returns a policy drawing from [Seed](seed) and registers a
// cleanup that logs the seed if the test failed, so the run can be replayed.
func SeedFaults(t CleanupLogger, seed uint64, rates Rates) *Policy {
	if h, ok := t.(helperT); ok {
		h.Helper() // here, in the function that reports: Helper marks its caller
	}
	t.Cleanup(func() {
		if h, ok := t.(helperT); ok {
			h.Helper() // the seed is logged at the SeedFaults call
		}
		if t.Failed() {
			t.Logf("sqsqtest: fault policy seed %d (replay with sqsqtest.SeedFaults(t, %d, rates))", seed, seed)
		}
	})
	return NewPolicy(Seed(seed), rates)
}

// setLongPoll tells the policy a long poll is being answered (the kit
// answers one with a receive that does not wait, once messages are there):
// a long poll is not sampled.
func (p *Policy) setLongPoll(on bool) {
	p.mu.Lock()
	p.longPoll = on
	p.mu.Unlock()
}

// SetEnabled turns the policy on or off; while off it injects nothing and
// draws nothing.
func (p *Policy) SetEnabled(on bool) {
	p.mu.Lock()
	p.disabled = !on
	p.mu.Unlock()
}

// Injected returns every fault injected so far, in order.
func (p *Policy) Injected() []Injection {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Injection(nil), p.log...)
}

// Count returns how many times f was injected.
func (p *Policy) Count(f Fault) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, in := range p.log {
		if in.Fault == f {
			n++
		}
	}
	return n
}

// skipNew marks the injections since the last takeNew or skipNew read,
// and reports whether there were any.
func (p *Policy) skipNew() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	any := p.unread < len(p.log)
	p.unread = len(p.log)
	return any
}

// takeNew returns the injections since the last takeNew or skipNew.
func (p *Policy) takeNew() []Injection {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := append([]Injection(nil), p.log[p.unread:]...)
	p.unread = len(p.log)
	return out
}

// fires draws whether f happens now. Caller holds p.mu.
func (p *Policy) fires(f Fault, queue string) bool {
	if p.disabled || f >= numFaults || !chance(p.src, f.String(), p.rates[f]) {
		return false
	}
	p.log = append(p.log, Injection{Fault: f, Queue: queue})
	return true
}

// Reject implements [sqsq.Faults]: throttling on any call, OverLimit on
// receives, failed deletes and visibility changes.
func (p *Policy) Reject(c sqsq.Call) sqsq.Code {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.fires(Throttle, c.Queue):
		return sqsq.CodeRequestThrottled
	case c.Op == sqsq.OpReceive && p.fires(OverLimit, c.Queue):
		return sqsq.CodeOverLimit
	case c.Op == sqsq.OpDelete && p.fires(FailDelete, c.Queue):
		return sqsq.CodeServiceUnavailable
	case c.Op == sqsq.OpChangeVisibility && p.fires(FailVisibility, c.Queue):
		return sqsq.CodeServiceUnavailable
	}
	return ""
}

// Sample implements [sqsq.Faults]: when ShortPoll fires, fewer than n.
func (p *Policy) Sample(c sqsq.Call, n int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.longPoll || !p.fires(ShortPoll, c.Queue) {
		return n
	}
	return p.src.Draw("short-poll count", n) // 0 … n-1
}

// Duplicate implements [sqsq.Faults].
func (p *Policy) Duplicate(c sqsq.Call, inflight int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.fires(Duplicate, c.Queue) {
		return -1
	}
	return p.src.Draw("duplicate which", inflight)
}

// Shuffle implements [sqsq.Faults] with a drawn Fisher–Yates shuffle.
func (p *Policy) Shuffle(c sqsq.Call, n int, swap func(i, j int)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.fires(Reorder, c.Queue) {
		return
	}
	for i := n - 1; i > 0; i-- {
		j := i - p.src.Draw("reorder", i+1) // lucky 0: leave i in place
		swap(i, j)
	}
}

// LoseResponse implements [sqsq.Faults].
func (p *Policy) LoseResponse(c sqsq.Call) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch c.Op {
	case sqsq.OpReceive:
		return p.fires(LoseReceive, c.Queue)
	case sqsq.OpDelete:
		return p.fires(LoseDelete, c.Queue)
	case sqsq.OpChangeVisibility:
		return p.fires(LoseVisibility, c.Queue)
	}
	return false
}

var _ sqsq.Faults = (*Policy)(nil)
