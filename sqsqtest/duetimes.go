package sqsqtest

import "time"

// dueTimes maps keys (message ids, move tasks) to the instant something is
// due, and remembers the earliest until the map changes: the scheduler asks
// for the next instant several times a step, and ranging over the maps each
// time was a twentieth of a run.
type dueTimes struct {
	m     map[string]time.Time
	first time.Time // the earliest of m, when known
	known bool
}

func newDueTimes() dueTimes { return dueTimes{m: map[string]time.Time{}} }

func (d *dueTimes) get(k string) (time.Time, bool) {
	t, ok := d.m[k]
	return t, ok
}

func (d *dueTimes) set(k string, t time.Time) {
	if !d.known { // earliest works it out: no need to look at the old value
		d.m[k] = t
		return
	}
	old, had := d.m[k]
	d.m[k] = t
	switch {
	case len(d.m) == 1:
		d.first = t
	case had && old.Equal(d.first) && t.After(old):
		d.known = false // the earliest moved later: which is first now?
	case t.Before(d.first):
		d.first = t
	}
}

func (d *dueTimes) del(k string) {
	if old, had := d.m[k]; had {
		delete(d.m, k)
		if d.known && old.Equal(d.first) {
			d.known = false
		}
	}
}

func (d *dueTimes) clear() {
	clear(d.m)
	d.first, d.known = time.Time{}, true
}

// removeDue removes the entries due at or before now, calling each with
// every one; it ranges over the map only when the earliest is due.
func (d *dueTimes) removeDue(now time.Time, each func(k string, at time.Time)) {
	if first, ok := d.earliest(); !ok || first.After(now) {
		return
	}
	for k, at := range d.m {
		if !at.After(now) {
			each(k, at)
			d.del(k)
		}
	}
}

// earliest is the earliest instant of the map; false when it is empty.
func (d *dueTimes) earliest() (time.Time, bool) {
	if !d.known {
		d.first = time.Time{}
		for _, t := range d.m {
			if d.first.IsZero() || t.Before(d.first) {
				d.first = t
			}
		}
		d.known = true
	}
	return d.first, !d.first.IsZero()
}
