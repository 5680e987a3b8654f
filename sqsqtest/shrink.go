package sqsqtest

import (
	"strings"
	"sync"
)

// A schedule's drawn action is an index into the actions enabled at that
// step, so a shrinker that drops an earlier step (rapid's, or the draw
// shrinker below) shifts what every later index means, and cannot drop
// the sends and handling of a message the failure does not need. The
// kit's own shrinker works on steps instead: it records what each step
// did (send, c1 receives, c2's delete(A), the clock moves) and replays a
// shortened list by those keys, playing a step that is not possible when
// its turn comes as soon as it is. Check, Test and TestPlain run it on
// rapid's shrunk schedule before they report it; Find runs it after its
// draw shrinker (Scenario.shrink).

// stepKey is what a step did, as the shrinker replays it: the action's
// kind, the consumer slot it concerns (-1 for none) and a parked call's
// text ("delete(A)").
type stepKey struct {
	kind int
	slot int
	text string
}

func (a action) key() stepKey {
	k := stepKey{kind: a.kind, slot: -1}
	switch {
	case a.cl != nil:
		k.slot, k.text = a.cl.c.slot, a.cl.text
	case a.c != nil:
		k.slot = a.c.slot
	}
	return k
}

// labeled is one draw of a run with its label.
type labeled struct {
	label string
	v     int
}

// script is a run's schedule as steps: the draws before the first step,
// each step with the draws made while it ran (faults, crashes, slowness,
// a user's draws), and the draws after the last.
type script struct {
	pre   []labeled
	steps []scriptStep
	post  []labeled
}

type scriptStep struct {
	key   stepKey
	nth   int // among the enabled actions of the same key (two threads of a consumer parked alike)
	draws []labeled
}

// stepOf is the step that plays acts[i].
func stepOf(acts []action, i int) scriptStep {
	st := scriptStep{key: acts[i].key()}
	for _, a := range acts[:i] {
		if a.key() == st.key {
			st.nth++
		}
	}
	return st
}

// cost orders scripts for the shrinker: fewer steps, then fewer draws
// away from the lucky 0, then smaller ones.
func (sc *script) cost() (steps, faults, sum int) {
	count := func(ds []labeled) {
		for _, d := range ds {
			if d.v != 0 {
				faults++
				sum += d.v
			}
		}
	}
	count(sc.pre)
	for _, st := range sc.steps {
		count(st.draws)
	}
	count(sc.post)
	return len(sc.steps), faults, sum
}

// stepper is a source that chooses a run's steps itself: the run asks it
// for the next step instead of drawing "go on" and "action".
type stepper interface {
	Source
	// next returns the index in acts of the next step, -1 to end the
	// drawn steps.
	next(acts []action) int
	// end says the drawn steps are over.
	end()
}

// played is the schedule a run played, as it plays: draws go to the
// part being played (see script.add) until the drawn steps end.
type played struct {
	mu    sync.Mutex
	sc    script
	ended bool
}

// tape records the schedule of a run drawn from src.
type tape struct {
	src Source
	played
}

func (t *tape) Draw(label string, n int) int {
	v := t.src.Draw(label, n)
	t.mu.Lock()
	t.sc.add(labeled{label, v}, t.ended)
	t.mu.Unlock()
	return v
}

func (t *tape) next(acts []action) int {
	if t.src.Draw("go on", 20) == 0 {
		return -1
	}
	i := t.src.Draw("action", len(acts))
	t.mu.Lock()
	t.sc.steps = append(t.sc.steps, stepOf(acts, i))
	t.mu.Unlock()
	return i
}

func (t *tape) end() {
	t.mu.Lock()
	t.ended = true
	t.mu.Unlock()
}

func (t *tape) halted() any { return haltedBy(t.src) }

// add records d in the part of sc being played.
func (sc *script) add(d labeled, ended bool) {
	switch {
	case ended:
		sc.post = append(sc.post, d)
	case len(sc.steps) == 0:
		sc.pre = append(sc.pre, d)
	default:
		st := &sc.steps[len(sc.steps)-1]
		st.draws = append(st.draws, d)
	}
}

// scripted replays a script by its steps' keys (see next and match).
// Within a step, a draw takes the step's first unused recorded draw of the
// same label, clamped into range, and 0 if there is none. It records what
// the run did.
type scripted struct {
	in  *script
	pos int       // the next step of in to play
	cur []labeled // the unused draws of the part of in being played
	// pending are steps of in that were not possible when their turn
	// came: each is played as soon as it is (a clock move left before a
	// step the shrinker dropped moves the clock later instead).
	pending []*scriptStep

	played
}

func newScripted(in *script) *scripted {
	return &scripted{in: in, cur: append([]labeled(nil), in.pre...)}
}

func (s *scripted) Draw(label string, n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := 0
	for i, d := range s.cur {
		if d.label == label {
			v = min(d.v, max(n-1, 0))
			s.cur = append(s.cur[:i], s.cur[i+1:]...)
			break
		}
	}
	s.sc.add(labeled{label, v}, s.ended)
	return v
}

func (s *scripted) next(acts []action) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, st := range s.pending {
		if i := match(acts, st, false); i >= 0 {
			s.pending = append(s.pending[:k], s.pending[k+1:]...)
			return s.take(acts, i, st)
		}
	}
	for s.pos < len(s.in.steps) {
		st := &s.in.steps[s.pos]
		s.pos++
		if i := match(acts, st, true); i >= 0 {
			return s.take(acts, i, st)
		}
		s.pending = append(s.pending, st)
	}
	return -1
}

// take plays step st as acts[i].
func (s *scripted) take(acts []action, i int, st *scriptStep) int {
	s.cur = append(s.cur[:0], st.draws...)
	s.sc.steps = append(s.sc.steps, stepOf(acts, i))
	return i
}

// match returns the index in acts of the action st names, -1 if none:
// the same action if it is enabled (its nth of that key, or else the
// first), or else, if loose, the same kind of action by the same consumer
// ("c1's next call"), since dropping a message's steps renames the
// messages sent after it.
func match(acts []action, st *scriptStep, loose bool) int {
	same, like, n := -1, -1, 0
	for i, a := range acts {
		k := a.key()
		switch {
		case k == st.key:
			if n == st.nth {
				return i
			}
			if same < 0 {
				same = i
			}
			n++
		case like < 0 && loose && k.kind == st.key.kind && k.slot == st.key.slot:
			like = i
		}
	}
	if same >= 0 {
		return same
	}
	return like
}

func (s *scripted) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.ended = true
		s.cur = append(s.cur[:0], s.in.post...)
	}
}

func (s *scripted) halted() any { return nil }

// failureKind is what a failure is, for the shrinker to keep: the
// invariant's name (or the kit's "sqsqtest" prefix), the text before the
// first colon.
func failureKind(err error) string {
	k, _, _ := strings.Cut(err.Error(), ":")
	return k
}

// stepBudget bounds the runs the step shrinker plays: a few hundred for
// the examples' bugs, a tenth of a second.
const stepBudget = 1500

// shrinkSteps shortens the failing run o, whose schedule is sc, by steps:
// it drops each consumer's steps at once (alone, with one more step, and
// with the clock moved on at the end), runs of steps (8, 4, 2, 1) and
// pairs of steps apart, and moves each draw within a step towards 0,
// keeping a change when the run still fails the same way and costs less
// (see script.cost). play plays one run. It returns the cheapest failing
// run and how many runs it played.
func shrinkSteps(play func(Source) *Outcome, sc script, o *Outcome) (*Outcome, int) {
	kind := failureKind(o.Err)
	runs := 0
	try := func(cand script) bool {
		if runs >= stepBudget {
			return false
		}
		runs++
		src := newScripted(&cand)
		out := play(src)
		if out.Err == nil {
			out.recycle()
			return false
		}
		got := src.sc
		if failureKind(out.Err) != kind || !cheaper(&got, &sc) {
			return false
		}
		sc, o = got, out
		return true
	}
	without := func(drop ...int) script {
		c := sc
		c.steps = nil
		for i, st := range sc.steps {
			keep := true
			for _, d := range drop {
				keep = keep && i != d
			}
			if keep {
				c.steps = append(c.steps, st)
			}
		}
		return c
	}
	// later is c with the clock moved on at its end: the consumer that
	// was dropped may have been what kept the failing one's clock going
	// (its crash freed a consumer, its timer moved the clock).
	later := func(c script) script {
		c.steps = append(c.steps[:len(c.steps):len(c.steps)], scriptStep{key: stepKey{kind: actAdvance, slot: -1}})
		return c
	}
	for improved := true; improved && runs < stepBudget; {
		improved = false
		// A consumer's steps all at once: what the other consumer does
		// with another message is often all the failure does not need.
		slots := 0
		for _, st := range sc.steps {
			slots = max(slots, st.key.slot+1)
		}
		for slot := 0; slot < slots && runs < stepBudget; slot++ {
			var drop []int
			for i, st := range sc.steps {
				if st.key.slot == slot {
					drop = append(drop, i)
				}
			}
			if len(drop) == 0 {
				continue
			}
			if try(without(drop...)) || try(later(without(drop...))) {
				improved = true
				continue
			}
			// With one more step: the send of a message only that
			// consumer took, say.
			for j := 0; j < len(sc.steps) && runs < stepBudget; j++ {
				if sc.steps[j].key.slot == slot {
					continue
				}
				if c := without(append(drop, j)...); try(c) || try(later(c)) {
					improved = true
					break
				}
			}
		}
		for k := 8; k >= 1; k /= 2 {
			for i := 0; i+k <= len(sc.steps) && runs < stepBudget; {
				drop := make([]int, k)
				for j := range drop {
					drop[j] = i + j
				}
				if try(without(drop...)) {
					improved = true
				} else {
					i++
				}
			}
		}
		for i := 0; i < len(sc.steps); i++ {
			for j := i + 2; j < len(sc.steps) && runs < stepBudget; j++ {
				if try(without(i, j)) {
					improved = true
					j = i + 1 // the steps after i moved down
				}
			}
		}
		for i := 0; i < len(sc.steps) && runs < stepBudget; i++ {
			for j := 0; i < len(sc.steps) && j < len(sc.steps[i].draws); j++ {
				d := sc.steps[i].draws[j]
				for _, v := range []int{0, d.v / 2, d.v - 1} {
					if v < 0 || v >= d.v {
						continue
					}
					c := sc
					c.steps = append([]scriptStep(nil), sc.steps...)
					c.steps[i].draws = append([]labeled(nil), sc.steps[i].draws...)
					c.steps[i].draws[j].v = v
					if try(c) {
						improved = true
						break
					}
				}
			}
		}
	}
	return o, runs
}

// cheaper reports whether a costs less than b (see script.cost).
func cheaper(a, b *script) bool {
	as, af, av := a.cost()
	bs, bf, bv := b.cost()
	if as != bs {
		return as < bs
	}
	if af != bf {
		return af < bf
	}
	return av < bv
}

// Shrink plays the schedule src draws and, if it fails, shortens it by
// steps as [Scenario.Check] does before it reports a failure: it drops
// steps, and messages with all their steps, that the failure does not
// need, and takes away faults it does not need. It returns the shortest
// failing run it finds (the played run if none is shorter), or the
// passing run. It plays up to 1,500 runs, a few hundred for the
// examples' bugs. Use it to measure what the kit reports, or to shorten a
// failing seed of [Scenario.Seeds].
func (s Scenario) Shrink(src Source) *Outcome {
	s = s.reuse()
	defer s.spare.stop()
	tp := &tape{src: src}
	o := s.Run(tp)
	if o.Err == nil {
		return o
	}
	short, _ := shrinkSteps(s.Run, tp.sc, o)
	return short
}

// shrink minimises Find's failing choice sequence seq, whose run is o: by
// its draws, as rapid would, then by steps (shrinkSteps).
func (s Scenario) shrink(seq []int, o *Outcome) (*Outcome, int) {
	runs := 0
	var sc script // the schedule of o, once a replay has recorded it
	try := func(cand []int) ([]int, *Outcome, script, bool) {
		runs++
		pos := 0
		tp := &tape{src: replay{seq: cand, pos: &pos}}
		out := s.Run(tp)
		if out.Err == nil {
			out.recycle()
			return nil, nil, script{}, false
		}
		return cand[:min(pos, len(cand))], out, tp.sc, true
	}
	// A replay of seq, for its schedule: a consumer that does not replay
	// its failure is not deterministic, and is left as found.
	if _, again, c, ok := try(seq); ok {
		o, sc = again, c
	} else {
		return o, runs
	}
	const budget = 600
	for improved := true; improved && runs < budget; {
		improved = false
		for k := 8; k >= 1; k /= 2 {
			for i := 0; i+k <= len(seq) && runs < budget; {
				cand := append(append([]int(nil), seq[:i]...), seq[i+k:]...)
				if c, out, csc, ok := try(cand); ok && out.Steps <= o.Steps {
					seq, o, sc, improved = c, out, csc, true
				} else {
					i++
				}
			}
		}
		for i := 0; i < len(seq) && runs < budget; i++ {
			for _, v := range []int{0, seq[i] / 2, seq[i] - 1} {
				if v < 0 || v >= seq[i] {
					continue
				}
				cand := append([]int(nil), seq...)
				cand[i] = v
				if c, out, csc, ok := try(cand); ok && out.Steps <= o.Steps {
					seq, o, sc, improved = c, out, csc, true
					break
				}
			}
		}
	}
	short, more := shrinkSteps(s.Run, sc, o)
	return short, runs + more
}
