package main

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
)

// snapshot is the server's state as the console shows it after a restart,
// before any client goes on.
type snapshot struct {
	queues map[string]*queueView
}

// queueView is one queue: its attributes (tags as "tag:" + key) and every
// message it stores, in flight and delayed included.
type queueView struct {
	attrs map[string]string
	msgs  []peeked
}

type peeked struct {
	id, body, group, seq string
}

// place is where a body is stored.
type place struct {
	queue string
	m     peeked
}

// The kinds of violation, for the report and the tests.
const (
	kindLost           = "lost acked send"
	kindResurrected    = "resurrected acked delete"
	kindDuplicateID    = "duplicate message id"
	kindDuplicateBody  = "duplicate body"
	kindPhantom        = "never sent"
	kindMisplaced      = "wrong queue"
	kindWrongID        = "wrong id"
	kindFIFOOrder      = "FIFO order"
	kindCount          = "count mismatch"
	kindQueueMissing   = "acked queue missing"
	kindQueueDeleted   = "acked queue delete undone"
	kindQueueUnknown   = "queue never created"
	kindAttribute      = "attribute"
	maxReportedPerKind = 5
)

type violation struct{ kind, detail string }

func (v violation) String() string { return v.kind + ": " + v.detail }

// checkReport is one check's result.
type checkReport struct {
	violations []violation
	// What was held to the contract: acknowledged sends found present,
	// acknowledged deletes found absent, outcomes allowed either way.
	ackedSends, ackedDeletes, unknowns int
	// How far the dead-letter flow got: messages found in a dead-letter
	// queue, and in their source under a new id (moved back).
	deadLettered, movedBack int
}

func (r *checkReport) add(kind, format string, args ...any) {
	r.violations = append(r.violations, violation{kind, fmt.Sprintf(format, args...)})
}

// byKind counts the violations of each kind.
func (r *checkReport) byKind() map[string]int {
	m := map[string]int{}
	for _, v := range r.violations {
		m[v.kind]++
	}
	return m
}

// check holds snapshot s to the ledger. The clients are stopped: nothing
// in the ledger is in progress.
func (l *ledger) check(s *snapshot) checkReport {
	l.mu.Lock()
	defer l.mu.Unlock()
	var r checkReport
	// Violations seen by the clients stop the run as these do: not cleared.
	r.violations = append(r.violations, l.runtime...)

	// Where each body is: queue and message, and that no id or body is
	// stored twice (no call is retried, so no body may be).
	where := locate(s, &r)
	for _, qn := range sortedKeys(s.queues) {
		l.checkCounts(&r, qn, s.queues[qn])
	}

	for _, body := range sortedKeys(where) {
		p := where[body]
		rec := l.msgs[body]
		if rec == nil {
			r.add(kindPhantom, "%q (id %s) in %s", body, p.m.id, p.queue)
			continue
		}
		if rec.send == notTried {
			r.add(kindPhantom, "%q (id %s) in %s", body, p.m.id, p.queue)
		}
		home := l.queues[rec.queue]
		if p.queue != rec.queue && (home == nil || p.queue != home.dlq) {
			r.add(kindMisplaced, "%q sent to %s is in %s", body, rec.queue, p.queue)
		}
		switch {
		case home != nil && p.queue == home.dlq:
			r.deadLettered++
		case home != nil && !home.stable && rec.send == acked && p.m.id != rec.id:
			r.movedBack++
		}
		if rec.del == acked {
			r.add(kindResurrected, "%q (id %s) is in %s", body, p.m.id, p.queue)
		}
		if rec.send == acked && home != nil && home.stable && p.queue == rec.queue {
			if p.m.id != rec.id {
				r.add(kindWrongID, "%q in %s has id %s, its send returned %s", body, p.queue, p.m.id, rec.id)
			}
			if p.m.seq != rec.seq {
				r.add(kindWrongID, "%q in %s has sequence number %s, its send returned %s", body, p.queue, p.m.seq, rec.seq)
			}
		}
	}

	for _, body := range sortedKeys(l.msgs) {
		rec := l.msgs[body]
		_, present := where[body]
		switch {
		case rec.del == acked:
			r.ackedDeletes++
		case rec.send == acked && rec.del == notTried:
			r.ackedSends++
			if !present {
				r.add(kindLost, "%q sent to %s (id %s)", body, rec.queue, rec.id)
			}
		case rec.send == unknown || rec.del == unknown:
			r.unknowns++
		}
	}

	l.checkFIFO(&r, where)
	l.checkQueues(&r, s)
	return r
}

// locate finds where each body is stored, reporting an id or a body
// stored twice to r, if not nil.
func locate(s *snapshot, r *checkReport) map[string]place {
	where := map[string]place{}
	ids := map[string]string{}
	for _, qn := range sortedKeys(s.queues) {
		for _, m := range s.queues[qn].msgs {
			if other, ok := ids[m.id]; ok && r != nil {
				r.add(kindDuplicateID, "%s in %s and in %s", m.id, other, qn)
			}
			ids[m.id] = qn
			if p, ok := where[m.body]; ok {
				if r != nil {
					r.add(kindDuplicateBody, "%q as %s in %s and as %s in %s", m.body, p.m.id, p.queue, m.id, qn)
				}
				continue
			}
			where[m.body] = place{qn, m}
		}
	}
	return where
}

// resolve settles every unknown outcome as snapshot s, which passed the
// check, shows it: the calls cut off by the kill are over, so a message
// an unknown send stored must stay until deleted, one it did not store
// must never appear, and so on. It recounts the backlogs from s.
func (l *ledger) resolve(s *snapshot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	where := locate(s, nil)
	clear(l.live)
	for body, rec := range l.msgs {
		p, present := where[body]
		if rec.send == unknown {
			if present {
				rec.send = acked
				l.calls.sendsStored++
				rec.id = p.m.id
				if p.queue == rec.queue {
					rec.seq = p.m.seq
				}
			} else {
				rec.send, rec.del = notTried, notTried // nothing to delete: it must never appear
				l.calls.sendsNotStored++
			}
		}
		if rec.del == unknown {
			if present {
				rec.del = notTried
				l.calls.deletesNotDone++
			} else {
				rec.del = acked
				l.calls.deletesDone++
			}
		}
		if present {
			l.live[rec.queue]++
		}
	}
	for name, q := range l.queues {
		_, exists := s.queues[name]
		switch {
		case q.create == unknown && exists:
			q.create = acked
		case q.create == unknown:
			q.create = notTried // it must never appear
		}
		switch {
		case q.del == unknown && exists:
			q.del = notTried // it must stay
		case q.del == unknown:
			q.del = acked
		}
	}
	for k, a := range l.attrs {
		if q, ok := s.queues[k.queue]; ok && len(a.pending) > 0 {
			a.acked, a.pending = q.attrs[k.name], nil
		}
	}
}

// checkCounts compares a queue's ApproximateNumberOfMessages, …NotVisible
// and …Delayed with the messages it lists: after a restart the counters
// are rebuilt or restored, and must still add up.
func (l *ledger) checkCounts(r *checkReport, name string, q *queueView) {
	sum := 0
	for _, a := range []string{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"} {
		n, err := strconv.Atoi(q.attrs[a])
		if err != nil {
			r.add(kindCount, "%s: %s is %q", name, a, q.attrs[a])
			return
		}
		sum += n
	}
	if sum != len(q.msgs) {
		r.add(kindCount, "%s: the counts add up to %d, it lists %d messages", name, sum, len(q.msgs))
	}
}

// checkFIFO checks that in each message group the messages still stored
// in the FIFO queue have sequence numbers in the order they were sent.
func (l *ledger) checkFIFO(r *checkReport, where map[string]place) {
	type sent struct {
		order int
		body  string
		seq   string
	}
	groups := map[string][]sent{}
	for body, p := range where {
		rec := l.msgs[body]
		if rec == nil || rec.group == "" || p.queue != rec.queue {
			continue
		}
		groups[rec.group] = append(groups[rec.group], sent{rec.order, body, p.m.seq})
	}
	for _, g := range sortedKeys(groups) {
		ms := groups[g]
		sort.Slice(ms, func(i, j int) bool { return ms[i].order < ms[j].order })
		for i := 1; i < len(ms); i++ {
			if !seqLess(ms[i-1].seq, ms[i].seq) {
				r.add(kindFIFOOrder, "group %s: %q (sent #%d) has sequence number %s, %q (sent #%d) %s",
					g, ms[i-1].body, ms[i-1].order, ms[i-1].seq, ms[i].body, ms[i].order, ms[i].seq)
			}
		}
	}
}

// checkQueues checks the queues: those acknowledged created exist, those
// acknowledged deleted do not, every queue is one the ledger knows, and
// every attribute and tag tracked has its acknowledged value or one of a
// set whose outcome is unknown.
func (l *ledger) checkQueues(r *checkReport, s *snapshot) {
	for _, name := range sortedKeys(s.queues) {
		if q := l.queues[name]; q == nil || q.create == notTried {
			r.add(kindQueueUnknown, "%s", name)
		}
	}
	for _, name := range sortedKeys(l.queues) {
		q := l.queues[name]
		_, exists := s.queues[name]
		switch {
		case q.del == acked && exists:
			r.add(kindQueueDeleted, "%s exists", name)
		case q.create == acked && q.del == notTried && !exists:
			r.add(kindQueueMissing, "%s", name)
		}
	}
	keys := make([]attrKey, 0, len(l.attrs))
	for k := range l.attrs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].queue < keys[j].queue || keys[i].queue == keys[j].queue && keys[i].name < keys[j].name
	})
	for _, k := range keys {
		q, ok := s.queues[k.queue]
		if lq := l.queues[k.queue]; !ok || lq != nil && lq.del == acked {
			continue // the queue is gone, or should be: checked above
		}
		a := l.attrs[k]
		got := q.attrs[k.name]
		if got != a.acked && !slices.Contains(a.pending, got) {
			r.add(kindAttribute, "%s %s is %q, acknowledged %q (unknown: %q)", k.queue, k.name, got, a.acked, a.pending)
		}
	}
}

// seqLess compares two sequence numbers, decimal strings of any length.
func seqLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
