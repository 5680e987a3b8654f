package main

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// The ledger records, for every message number, what the producers and
// consumers saw happen to it, and checks at the end that nothing was lost,
// duplicated or reordered. Its invariant, per message sent:
//
//   - It ends either deleted or in its dead-letter queue, not both, and in
//     the dead-letter queue at most once.
//   - Deleted means: the handle of its last receive (the highest
//     ApproximateReceiveCount) was deleted with success. A successful delete
//     with an earlier handle is a stale delete, which deletes nothing (sqsq's
//     default, and AWS's unlucky case): the message was received again
//     before the delete arrived. It is a violation when the delete had
//     already answered before the next receive was even sent: then a deleted
//     message came back.
//   - No two receives carry the same receive count (a message is never in
//     two consumers' hands at once), and none carries more than
//     maxReceiveCount: the next receive must move it to the dead-letter
//     queue.
//   - A message whose handler extended its visibility in time is received
//     once.
//   - FIFO: the messages of a group are first delivered in the order they
//     were sent.
//   - Every message received, or found in a dead-letter queue, is one that
//     was sent, with the MessageId its send returned.
//
// Times are nanoseconds since the ledger's start, on the monotonic clock.
type ledger struct {
	start       time.Time
	plan        plan
	visibility  int64 // the queues' visibility timeout
	maxReceives int

	settled atomic.Int64 // messages done with: deleted, or received maxReceives times and always failing
	sent    atomic.Int64

	mu         sync.Mutex
	e          []entry
	next       []int32 // per FIFO group: the sequence number whose first delivery comes next
	seed       maphash.Seed
	violations int
	first      []string // the first violations, for the report
	unknown    int      // bodies that are not soak messages, or numbers never planned
	dupSends   int      // a known number under another MessageId: a send that went twice
	fifoSent   []int    // FIFO sends answered, by second since the start
}

// entry is one message's history.
type entry struct {
	msgID   uint64 // hash of its MessageId, from its send or its first receive
	planned bool   // a producer is sending it
	sent    bool   // its send answered with success
	settled bool
	group   int32
	seq     int32
	recv    []recvEv
	del     []delEv // successful deletes
	extResp int64   // slow handlers: when the extension of the first receive answered (0: none)
	dlq     int32   // times found in a dead-letter queue
}

// recvEv is one receive of a message.
type recvEv struct {
	count     int32 // ApproximateReceiveCount
	outcome   outcome
	handle    uint64 // hash of the receipt handle
	req, resp int64  // when the ReceiveMessage call was sent and when it answered
}

// delEv is a successful delete.
type delEv struct {
	handle    uint64
	req, resp int64
}

// outcome is what the consumer did with one receive.
type outcome uint8

const (
	outPending      outcome = iota // nothing yet (or the consumer's answer was lost)
	outDeleted                     // deleted with success
	outNacked                      // given back at once (visibility 0)
	outDropped                     // failed: left for its visibility timeout to end
	outLate                        // the handler finished too close to the timeout, so it did not delete
	outDeleteFailed                // the delete failed: a FIFO handle whose visibility had ended
)

func newLedger(p plan, visibility time.Duration, maxReceives int) *ledger {
	return &ledger{
		start:       time.Now(),
		plan:        p,
		visibility:  int64(visibility),
		maxReceives: maxReceives,
		e:           make([]entry, p.n),
		next:        make([]int32, p.groups),
		seed:        maphash.MakeSeed(),
	}
}

func (l *ledger) now() int64 { return int64(time.Since(l.start)) }

func (l *ledger) hash(s string) uint64 { return maphash.String(l.seed, s) }

// violate records a broken invariant. Caller holds l.mu.
func (l *ledger) violate(format string, args ...any) {
	l.violations++
	if len(l.first) < 20 {
		l.first = append(l.first, fmt.Sprintf(format, args...))
	}
}

// planned records that message n is about to be sent, to FIFO group group
// at position seq (-1, -1 for the standard queue).
func (l *ledger) planned(n, group, seq int) {
	l.mu.Lock()
	e := &l.e[n]
	e.planned, e.group, e.seq = true, int32(group), int32(seq)
	l.mu.Unlock()
}

// sentOK records the MessageId the send of message n returned. A consumer
// may have received the message before the send answered.
func (l *ledger) sentOK(n int, messageID string) {
	h := l.hash(messageID)
	l.mu.Lock()
	e := &l.e[n]
	switch {
	case e.msgID == 0:
		e.msgID = h
	case e.msgID != h:
		l.dupSends++
	}
	e.sent = true
	if e.group >= 0 {
		sec := int(l.now() / int64(time.Second))
		for len(l.fifoSent) <= sec {
			l.fifoSent = append(l.fifoSent, 0)
		}
		l.fifoSent[sec]++
	}
	l.mu.Unlock()
	l.sent.Add(1)
}

// dedupWindow is how long SQS remembers a FIFO deduplication id.
const dedupWindow = 5 * time.Minute

// dedupIDs is the number of FIFO deduplication ids the server remembers at
// t (since the start): those of the sends of the last dedupWindow. It
// counts whole seconds, so it errs by a second's sends at most.
func (l *ledger) dedupIDs(t time.Duration) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for sec, c := range l.fifoSent {
		at := time.Duration(sec) * time.Second
		if at <= t && at > t-dedupWindow {
			n += c
		}
	}
	return n
}

// delivery is one received message, as the consumer handles it.
type delivery struct {
	n      int // -1: not a soak message (the consumer deletes it)
	fate   fate
	count  int
	idx    int // index of this receive in the entry's recv
	handle string
}

// received records the messages of one ReceiveMessage call, sent at req and
// answered at resp, and checks the FIFO order of their first deliveries.
func (l *ledger) received(fifo bool, msgs []types.Message, req, resp int64) []delivery {
	ds := make([]delivery, len(msgs))
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, m := range msgs {
		ds[i] = delivery{n: -1, handle: str(m.ReceiptHandle)}
		b, err := parseBody(str(m.Body))
		if err != nil || b.n >= len(l.e) || b.fifo != fifo || !l.e[b.n].planned {
			l.unknown++
			l.violate("received an unknown message %s: %.60q", str(m.MessageId), str(m.Body))
			continue
		}
		e := &l.e[b.n]
		if h := l.hash(str(m.MessageId)); e.msgID == 0 {
			e.msgID = h
		} else if e.msgID != h {
			l.dupSends++ // a second copy: the consumer deletes it, the ledger leaves it out
			continue
		}
		count, _ := strconv.Atoi(m.Attributes[string(types.MessageSystemAttributeNameApproximateReceiveCount)])
		if count < 1 || count > l.maxReceives {
			l.violate("message %d received with ApproximateReceiveCount %d (maxReceiveCount %d)", b.n, count, l.maxReceives)
		}
		if fifo {
			if g := m.Attributes[string(types.MessageSystemAttributeNameMessageGroupId)]; g != strconv.Itoa(b.group) || int32(b.group) != e.group || int32(b.seq) != e.seq {
				l.violate("message %d: group %q seq %d, sent to group %d at seq %d", b.n, g, b.seq, e.group, e.seq)
			} else {
				switch next := &l.next[b.group]; {
				case int32(b.seq) == *next:
					*next++
				case int32(b.seq) > *next:
					l.violate("FIFO group %d: message %d (seq %d) delivered before seq %d was", b.group, b.n, b.seq, *next)
					*next = int32(b.seq) + 1
				}
			}
		}
		e.recv = append(e.recv, recvEv{count: int32(count), handle: l.hash(ds[i].handle), req: req, resp: resp})
		ds[i] = delivery{n: b.n, fate: l.plan.fate(b.n), count: count, idx: len(e.recv) - 1, handle: ds[i].handle}
		if ds[i].fate == fateAlwaysFail && count >= l.maxReceives {
			l.settle(e)
		}
	}
	return ds
}

// settle counts e as done with, once. Caller holds l.mu.
func (l *ledger) settle(e *entry) {
	if !e.settled {
		e.settled = true
		l.settled.Add(1)
	}
}

// setOutcome records what the consumer did with delivery d.
func (l *ledger) setOutcome(d delivery, o outcome) {
	if d.n < 0 {
		return
	}
	l.mu.Lock()
	l.e[d.n].recv[d.idx].outcome = o
	l.mu.Unlock()
}

// deleted records a successful delete of delivery d, sent at req and
// answered at resp.
func (l *ledger) deleted(d delivery, req, resp int64) {
	if d.n < 0 {
		return
	}
	l.mu.Lock()
	e := &l.e[d.n]
	r := &e.recv[d.idx]
	r.outcome = outDeleted
	e.del = append(e.del, delEv{handle: r.handle, req: req, resp: resp})
	l.settle(e)
	l.mu.Unlock()
}

// extended records when the visibility extension of delivery d answered.
func (l *ledger) extended(d delivery, resp int64) {
	l.mu.Lock()
	if e := &l.e[d.n]; e.extResp == 0 {
		e.extResp = resp
	}
	l.mu.Unlock()
}

// dead records a message found in a dead-letter queue.
func (l *ledger) dead(fifo bool, m types.Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, err := parseBody(str(m.Body))
	if err != nil || b.n >= len(l.e) || b.fifo != fifo || !l.e[b.n].planned {
		l.unknown++
		l.violate("an unknown message %s in a dead-letter queue: %.60q", str(m.MessageId), str(m.Body))
		return
	}
	e := &l.e[b.n]
	if l.hash(str(m.MessageId)) != e.msgID {
		l.violate("message %d in the dead-letter queue under another MessageId, %s", b.n, str(m.MessageId))
	}
	e.dlq++
}

// report is the verdict of the ledger.
type report struct {
	sent, unsent      int // messages whose send succeeded; planned but not sent (a run cut short)
	deliveries        int // receives seen
	deleted           int // messages deleted
	dlq, dlqExpected  int // messages in the dead-letter queues; those that always failed
	dlqExtra          int // in a dead-letter queue though their handler would have succeeded: handled late three times
	lost              int // sent, and neither deleted nor in a dead-letter queue
	unknown, dupSends int
	redeliveries      int // receives after the first
	staleDeletes      int // successful deletes of a handle that was no longer the message's latest
	unseenReceives    int // receive counts never seen: a receive whose answer the client lost
	late, expired     int // handlers too late to delete; FIFO deletes refused as expired
	violations        int
	first             []string
}

// verify checks the invariant over every message and returns the report.
// Call it once the consumers have stopped and the dead-letter queues are
// drained.
func (l *ledger) verify() report {
	l.mu.Lock()
	defer l.mu.Unlock()
	var r report
	for n := range l.e {
		e := &l.e[n]
		switch {
		case !e.planned:
			continue
		case !e.sent:
			r.unsent++
			continue
		}
		r.sent++
		l.verifyEntry(n, e, &r)
	}
	r.unknown, r.dupSends = l.unknown, l.dupSends
	r.violations, r.first = l.violations, l.first
	return r
}

// verifyEntry checks one sent message. Caller holds l.mu.
func (l *ledger) verifyEntry(n int, e *entry, r *report) {
	f := l.plan.fate(n)
	recv := slices.Clone(e.recv)
	slices.SortFunc(recv, func(a, b recvEv) int { return int(a.count - b.count) })
	r.deliveries += len(recv)
	r.redeliveries += max(len(recv)-1, 0)
	for i, v := range recv {
		switch v.outcome {
		case outLate:
			r.late++
		case outDeleteFailed:
			r.expired++
		}
		if i > 0 && v.count == recv[i-1].count {
			l.violate("message %d: receive count %d delivered twice", n, v.count)
		}
	}
	if len(recv) > 0 {
		r.unseenReceives += int(recv[len(recv)-1].count) - len(recv)
	}
	// Deletes of an earlier handle: stale, unless the message came back after
	// the delete had answered.
	var final []delEv
	for _, d := range e.del {
		k := slices.IndexFunc(recv, func(v recvEv) bool { return v.handle == d.handle })
		if k == len(recv)-1 {
			final = append(final, d)
			continue
		}
		r.staleDeletes++
		if next := recv[k+1]; d.resp < next.req {
			l.violate("message %d: received again (count %d) after the delete of receive %d had answered", n, next.count, recv[k].count)
		}
	}
	if f == fateSlow && len(recv) > 1 && e.extResp > 0 && e.extResp-recv[0].resp < l.visibility/2 {
		l.violate("message %d: received %d times though its visibility was extended %v after its receive",
			n, len(recv), time.Duration(e.extResp-recv[0].resp))
	}
	switch {
	case e.dlq > 0:
		r.dlq++
		if f == fateAlwaysFail {
			r.dlqExpected++
		} else {
			r.dlqExtra++
		}
		if e.dlq > 1 {
			l.violate("message %d: in a dead-letter queue %d times", n, e.dlq)
		}
		if len(final) > 0 {
			l.violate("message %d: deleted, and in a dead-letter queue", n)
		}
	case len(final) == 1:
		r.deleted++
	case len(final) > 1:
		r.deleted++
		l.violate("message %d: deleted %d times with the handle of its last receive", n, len(final))
	default:
		r.lost++
		last := "never received"
		if len(recv) > 0 {
			last = fmt.Sprintf("last received with count %d", recv[len(recv)-1].count)
		}
		l.violate("message %d (%s): lost: not deleted and not in a dead-letter queue (%s)", n, f, last)
	}
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
