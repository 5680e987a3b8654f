package sqsqtest

import (
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
)

func (r *run) now() time.Time {
	if r.fast != nil {
		return r.fast.Now()
	}
	return time.Now()
}

// since is the run's time so far. On the kit's own clock, whose instants
// carry no monotonic reading, the difference of Unix nanoseconds is the
// same and costs a tenth of Time.Sub, which the timeline paid every line.
func (r *run) since() time.Duration {
	if r.fast != nil {
		return time.Duration(r.fast.Now().UnixNano() - r.startNano)
	}
	return time.Since(r.start)
}

// log adds a line to the timeline, joined from parts (see lineText).
func (r *run) log(parts ...string) {
	if !r.skip() {
		r.logAt(r.since(), parts...)
	}
}

// logAt adds a line of a told run at the run's time at.
func (r *run) logAt(at time.Duration, parts ...string) {
	r.lines++
	r.tl = append(r.tl, Entry{At: at, Text: r.text.join(parts...)})
}

func (r *run) logf(format string, args ...any) {
	if r.skip() {
		return
	}
	r.log(r.text.sprintf(format, args...))
}

// skip counts a line that a silent run does not write, and reports so: a
// caller skips building its parts.
func (r *run) skip() bool {
	if r.silent {
		r.lines++
	}
	return r.silent
}

// loggedEmpty marks the line just logged as an empty receive's, unless
// fault notes followed it (see settle).
func (r *run) loggedEmpty(notes string) {
	if notes == "" {
		r.emptyAt = r.lines
	}
}

// logCall logs a consumer's call with its outcome and any injected fault.
func (r *run) logCall(c *consumer, call string, err error) {
	if r.silent {
		r.process()
		r.faultNotes()
		r.lines++
		return
	}
	stale := false
	evs := r.fresh()
	for i := range evs { // by pointer: an Event is some 300 bytes
		e := &evs[i]
		stale = stale || e.Kind == sqsq.EventDeleted && e.Applied && !e.Removed
	}
	r.process()
	if err == nil && !stale { // most calls
		r.log(c.name, " ", call, r.faultNotes())
		return
	}
	text := c.name + " " + call
	if err != nil {
		text += ": " + errText(err)
	}
	if stale {
		text += " (stale handle: nothing deleted)"
	}
	r.log(text, r.faultNotes())
}

func errText(err error) string {
	if e, ok := awssqs.CoreError(err); ok {
		return string(e.Code)
	}
	var e *sqsq.Error
	if errors.As(err, &e) {
		return string(e.Code)
	}
	return err.Error()
}

// silentNotes stands for the fault notes of a silent run's line.
const silentNotes = " [faults]"

// faultNotes names the faults injected since the last line, for the line
// of the call they hit: " [duplicate delivery of B, delete failed]".
func (r *run) faultNotes() string {
	if r.silent { // only whether there are any counts (see loggedEmpty)
		r.dups = nil
		if r.pol.skipNew() {
			return silentNotes
		}
		return ""
	}
	var notes []string
	for _, in := range r.pol.takeNew() {
		note := in.Fault.String()
		if in.Fault == Duplicate && len(r.dups) > 0 {
			note += " of " + r.dups[0]
			r.dups = r.dups[1:]
		}
		notes = append(notes, note)
	}
	r.dups = nil
	if len(notes) == 0 {
		return ""
	}
	return " [" + strings.Join(notes, ", ") + "]"
}

// receivedLabels labels the messages the events not yet processed
// received, in order.
func (r *run) receivedLabels() []string {
	var got []string
	evs := r.fresh()
	for i := range evs {
		if e := &evs[i]; e.Kind == sqsq.EventReceived {
			got = append(got, r.labelOfBody(e.Body))
		}
	}
	return got
}

func (r *run) labelOf(handle string) string {
	if l, ok := r.handles[handle]; ok {
		return l
	}
	return "?"
}

// labelOfBody names a body: its scenario label, or the body itself (a
// message the consumers sent), shortened.
func (r *run) labelOfBody(body string) string {
	if l, ok := r.labels[body]; ok {
		return l
	}
	if len(body) > 24 {
		body = body[:21] + "..."
	}
	return strconv.Quote(body)
}

// ageOnEveryEvent makes process read the oldest age after every event, as
// it did before: the reference of TestOldestAgeOnlyGrowsWithTheClock.
var ageOnEveryEvent = false

// process applies the observer's events to the run's bookkeeping.
func (r *run) process() {
	evs := r.fresh()
	r.seen += len(evs)
	if len(evs) > 0 {
		r.version++
	}
	dated := false // a redrive stores a message as of its move's instant, which may be past
	for i := range evs {
		e := &evs[i] // not copied: an Event is some 300 bytes
		// A message's body, so its label, never changes: known ids are
		// looked up once, not hashed three times with their body.
		var l string
		if e.MessageID == "" {
			l = r.labelOfBody(e.Body)
		} else if known, seen := r.idLabel[e.MessageID]; seen {
			l = known
		} else {
			l = r.labelOfBody(e.Body)
			r.ids[l] = append(r.ids[l], e.MessageID)
			r.idLabel[e.MessageID] = l
		}
		switch e.Kind {
		case sqsq.EventSent:
			r.stored[e.MessageID] = [2]string{e.Queue, l}
			if e.Delay > 0 {
				r.delays.set(e.MessageID, e.At.Add(e.Delay))
			}
		case sqsq.EventReceived:
			r.handles[e.ReceiptHandle] = l
			if e.Duplicate {
				r.dups = append(r.dups, l)
			}
			if e.Timeout > 0 {
				r.deadlines.set(e.MessageID, e.At.Add(e.Timeout))
			} else {
				r.deadlines.del(e.MessageID)
			}
		case sqsq.EventVisibilityChanged:
			if _, tracked := r.deadlines.get(e.MessageID); tracked && e.Applied {
				if e.Timeout > 0 {
					r.deadlines.set(e.MessageID, e.At.Add(e.Timeout))
				} else {
					r.deadlines.del(e.MessageID)
					r.log(l, " visible again")
				}
			}
		case sqsq.EventDeleted:
			if e.Removed {
				r.deadlines.del(e.MessageID)
				delete(r.stored, e.MessageID)
			}
		case sqsq.EventRedriven:
			dated = true
			delete(r.stored, e.MessageID)
			r.stored[e.NewMessageID] = [2]string{e.Destination, l}
		case sqsq.EventDeadLettered:
			r.stored[e.MessageID] = [2]string{e.DeadLetterQueue, l}
			r.deadlines.del(e.MessageID)
			r.ledger.MovedToDLQ++
			r.inDLQ = append(r.inDLQ, l)
			r.log(l, " moved to DLQ after ", strconv.Itoa(e.ReceiveCount), " receives")
		}
	}
	// The oldest message's age, whose largest value the ledger keeps, grows
	// only with the clock: at one instant a send stores a message of age 0
	// and a delete or a move takes one away. Only a move task's redrive,
	// which stores a message as of the instant its move was due, can date
	// one in the past. Reading it after every event was 3 % of a run.
	if now := r.now(); dated || ageOnEveryEvent && len(evs) > 0 || !now.Equal(r.agedAt) {
		r.agedAt = now
		if s := r.stats(r.q, &r.qStats, &r.qEvents); s.oldestAge > r.ledger.OldestAge {
			r.ledger.OldestAge = s.oldestAge
		}
	}
}

// legend names every scenario message: A = order-1 (MessageIds).
func (r *run) legend() []string {
	var out []string
	for i, body := range r.s.Messages {
		l := label(i)
		text := l + " = " + strconv.Quote(body)
		if ids := r.ids[l]; len(ids) > 0 {
			text += " (" + strings.Join(shortIDs(ids), ", then ") + ")"
		}
		out = append(out, text)
	}
	return out
}

// shortIDs drops the run's common MessageId prefix.
func shortIDs(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "…" + strings.TrimLeft(strings.TrimPrefix(id, "00000000-0000-4000-8000-"), "0")
	}
	return out
}

func joinLegend(l []string) string { return strings.Join(l, "; ") }

// counts are the numbers of a queue's Stats the kit reads.
type counts struct {
	visible, inFlight, delayed int
	oldestAge                  time.Duration
}

// stored is how many messages the queue holds in any state.
func (c counts) stored() int { return c.visible + c.inFlight + c.delayed }

// statsMemoOff makes stats read the queue at every call: the reference of
// TestStatsMemoChangesNoRun.
var statsMemoOff = false

// statsMemo is a queue's counts as the kit last read them, and when: the
// broker's events that named the queue and the SDK-shaped calls so far,
// and the clock (at is zero before the first read: a run's clock starts
// at Epoch).
type statsMemo struct {
	c                 counts
	events, untracked uint64
	at                time.Time
}

// stats returns q's counts (q is r.q or r.dlq, m its memo, events the
// count of the broker's events that named q), read again only when they
// may have changed: the clock moved, the broker reported an event of the
// queue, or a consumer called through the SDK-shaped client, which may
// purge or delete a queue without an event. Every other change to a
// queue's messages is an event: a send, a receive (and the dead-letter
// move it makes), a delete, a visibility change, a redrive. The kit read
// the same numbers two or three times a step, at a queue lock each; the
// memo keeps only the four it reads, since copying the whole Stats cost as
// much as the reads saved. An error (the queue deleted) reads as empty.
func (r *run) stats(q *sqsq.Queue, m *statsMemo, events *atomic.Uint64) counts {
	now, seen, untracked := r.now(), events.Load(), r.untracked.Load()
	if m.events == seen && m.untracked == untracked && m.at.Equal(now) && !statsMemoOff {
		return m.c
	}
	var c counts
	if st, err := q.Stats(); err == nil {
		c = counts{visible: st.Visible, inFlight: st.InFlight, delayed: st.Delayed, oldestAge: st.OldestAge}
	}
	// Read the counters again: Stats may have let a move task move, which
	// the next read must see.
	*m = statsMemo{c: c, events: events.Load(), untracked: untracked, at: now}
	return c
}
