package sqsqtest

import (
	"github.com/sqsq/sqsq"
)

// spares are what the runs of one loop (Seeds, Find, Shrink, TestPlain)
// reuse, one run after another: the idle threads outside a bubble, and the
// bookkeeping maps. A thread made afresh, its stack grown, cost a tenth of
// a short run; maps made afresh were a tenth of its garbage. The loop
// stops the threads when it ends, so none outlives it.
type spares struct {
	idle       []*thread
	spareBooks *books // the last run's (see books)
	// bubble is inBubble, asked once per loop: its recovered panic was a
	// fiftieth of a short run, and a loop's runs all play on its goroutine.
	bubble    bool
	restoreGC func() // see relaxGC
	// stuckByText makes a told run's settle read an empty receive from
	// its line's text, as it did before silent runs: the reference of
	// TestSilentRunsTellTheSameRun.
	stuckByText bool
}

// byText is stuckByText, false for a run outside a loop.
func (p *spares) byText() bool { return p != nil && p.stuckByText }

// inBubble is spares' bubble, or inBubble for a run outside a loop.
func (p *spares) inBubble() bool {
	if p == nil {
		return inBubble()
	}
	return p.bubble
}

// reuse gives s spares for the runs of a loop; use it, on the goroutine
// the runs play on, as
//
//	s = s.reuse()
//	defer s.spare.stop()
func (s Scenario) reuse() Scenario {
	s.spare = &spares{bubble: inBubble(), restoreGC: relaxGC()}
	return s
}

// seed is Seed(n) for one run of the loop; outside a bubble its lock is
// off (see runMutex): nothing but the run draws from it.
func (p *spares) seed(n uint64) *PRNG {
	src := Seed(n)
	src.mu.off = !p.bubble
	return src
}

// stop ends the idle threads and gives GOGC back (see relaxGC).
func (p *spares) stop() {
	stopThreads(p.idle)
	p.idle = nil
	p.restoreGC()
}

// books are the maps of a run's bookkeeping that nothing returned from
// the run holds: a loop's runs (see Seeds) use one set in turn, cleared,
// rather than grow eight maps afresh each.
type books struct {
	labels    map[string]string      // body → label
	handles   map[string]string      // receipt handle → label
	deadlines dueTimes               // MessageId → end of its visibility
	delays    dueTimes               // MessageId → end of its delay, move task → its end
	idLabel   map[string]string      // MessageId → label
	ids       map[string][]string    // label → its MessageIds
	stored    map[string][2]string   // MessageId → {queue, label} of a message still stored
	queues    map[string]*sqsq.Queue // by name

	// Lists a run reuses from step to step, and so from run to run.
	arrived []*call  // absorb's list of arrivals
	acts    []action // enabled's list
}

// books returns a loop's spare books, cleared, or new ones.
func (p *spares) books() *books {
	if p != nil && p.spareBooks != nil {
		b := p.spareBooks
		p.spareBooks = nil
		clear(b.labels)
		clear(b.handles)
		b.deadlines.clear()
		b.delays.clear()
		clear(b.idLabel)
		clear(b.ids)
		clear(b.stored)
		clear(b.queues)
		clear(b.acts[:cap(b.acts)]) // the last run's consumers and calls
		b.acts = b.acts[:0]
		return b
	}
	return &books{labels: map[string]string{}, handles: map[string]string{}, deadlines: newDueTimes(),
		delays: newDueTimes(), idLabel: map[string]string{}, ids: map[string][]string{},
		stored: map[string][2]string{}, queues: map[string]*sqsq.Queue{}}
}

// keep gives b back for the loop's next run.
func (p *spares) keep(b *books) {
	if p != nil {
		p.spareBooks = b
	}
}
