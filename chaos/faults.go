package chaos

import (
	"fmt"
	"time"

	"github.com/sqsq/sqsq"
)

// The Engine as a sqsq.Faults policy. Each method finds the first rule of
// its fault kind that matches the call and fires; without rules of that
// kind it is an atomic load and a return. The broker calls these with
// queue locks held: they take only the Engine's own short locks.

// The decision points of the core's faults, named after the wire
// operation and the fault.
const (
	pointDuplicate = "ReceiveMessage#duplicate"
	pointSample    = "ReceiveMessage#sample"
	pointReorder   = "ReceiveMessage#reorder"
	pointEarly     = "ReceiveMessage#visibilityEndsEarly"
)

var pointLost = map[sqsq.Op]string{
	sqsq.OpReceive:          "ReceiveMessage#lostResponse",
	sqsq.OpDelete:           "DeleteMessage#lostResponse",
	sqsq.OpChangeVisibility: "ChangeMessageVisibility#lostResponse",
}

// fire returns the first rule of fault kind k that matches c and fires,
// with the point's hash and the decision's number; nil when none does.
func (rs *ruleset) fire(k int, name string, c sqsq.Call) (r *faultRule, h, n uint64) {
	counted := false
	for i := range rs.faults[k] {
		r := &rs.faults[k][i]
		if r.ops&(1<<c.Op) == 0 || !r.match(c.Account, c.Region, c.Queue) {
			continue
		}
		if !counted {
			h, n = rs.next(point{name, c.Account, c.Region, c.Queue})
			counted = true
		}
		if r.fires(rs.seed, h, n) {
			return r, h, n
		}
	}
	return nil, 0, 0
}

// faultRules returns the rules in force if kind k has any.
func (e *Engine) faultRules(k int) *ruleset {
	if rs := e.rules.Load(); rs != nil && len(rs.faults[k]) > 0 {
		return rs
	}
	return nil
}

func (e *Engine) recordFault(kind Kind, r *faultRule, c sqsq.Call, n uint64, detail string) {
	e.log.record(Injection{Kind: kind, Rule: r.rule, Operation: opName(c.Op), Queue: c.Queue,
		Account: c.Account, Region: c.Region, Decision: n, Detail: detail})
}

// Reject implements [sqsq.Faults]: it rejects nothing. Errors are injected
// on the wire by [Engine.Intercept], before the broker sees the call.
func (e *Engine) Reject(sqsq.Call) sqsq.Code { return "" }

// Sample implements [sqsq.Faults]: when a sample rule fires, the short
// poll returns k of its n messages, k drawn uniformly from 0 to n-1.
func (e *Engine) Sample(c sqsq.Call, n int) int {
	rs := e.faultRules(fSample)
	if rs == nil || n < 1 {
		return n
	}
	r, h, seq := rs.fire(fSample, pointSample, c)
	if r == nil {
		return n
	}
	k := int(intn(draw(rs.seed, r.index, h, seq, 1), uint64(n)))
	e.recordFault(KindSample, r, c, seq, fmt.Sprintf("returned %d of %d waiting messages", k, n))
	return k
}

// Duplicate implements [sqsq.Faults]: when a duplicate rule fires, one of
// the inflight messages, drawn uniformly, is delivered again. (The broker
// skips a message its redrive policy would move to the dead-letter queue;
// the injection is logged all the same.)
func (e *Engine) Duplicate(c sqsq.Call, inflight int) int {
	rs := e.faultRules(fDuplicate)
	if rs == nil || inflight < 1 {
		return -1
	}
	r, h, seq := rs.fire(fDuplicate, pointDuplicate, c)
	if r == nil {
		return -1
	}
	i := int(intn(draw(rs.seed, r.index, h, seq, 1), uint64(inflight)))
	e.recordFault(KindDuplicate, r, c, seq, fmt.Sprintf("delivered in-flight message %d of %d again", i, inflight))
	return i
}

// Shuffle implements [sqsq.Faults]: when a reorder rule fires, the n
// messages are put in an order drawn uniformly (Fisher–Yates), which may
// by chance be the one they had.
func (e *Engine) Shuffle(c sqsq.Call, n int, swap func(i, j int)) {
	rs := e.faultRules(fReorder)
	if rs == nil || n < 2 {
		return
	}
	r, h, seq := rs.fire(fReorder, pointReorder, c)
	if r == nil {
		return
	}
	for i := n - 1; i > 0; i-- {
		j := int(intn(draw(rs.seed, r.index, h, seq, uint64(i)), uint64(i+1)))
		swap(i, j)
	}
	e.recordFault(KindReorder, r, c, seq, fmt.Sprintf("shuffled %d messages", n))
}

// LoseResponse implements [sqsq.Faults]: when a lostResponse rule fires,
// the call stays applied and its caller gets ServiceUnavailable.
func (e *Engine) LoseResponse(c sqsq.Call) bool {
	rs := e.faultRules(fLost)
	if rs == nil {
		return false
	}
	r, _, seq := rs.fire(fLost, pointLost[c.Op], c)
	if r == nil {
		return false
	}
	e.recordFault(KindLostResponse, r, c, seq, "applied; answered ServiceUnavailable")
	return true
}

// VisibilityTimeout implements [sqsq.VisibilityFaults]: when a
// visibilityEndsEarly rule fires, the message's real visibility timeout is
// drawn uniformly from [1 ms, timeout). A timeout of 1 ms or less is kept.
func (e *Engine) VisibilityTimeout(c sqsq.Call, timeout time.Duration) time.Duration {
	rs := e.faultRules(fEarly)
	if rs == nil || timeout <= time.Millisecond {
		return timeout
	}
	r, h, seq := rs.fire(fEarly, pointEarly, c)
	if r == nil {
		return timeout
	}
	d := time.Millisecond + time.Duration(intn(draw(rs.seed, r.index, h, seq, 1), uint64(timeout-time.Millisecond)))
	e.recordFault(KindVisibilityEndsEarly, r, c, seq, fmt.Sprintf("visibility timeout %v ends after %v", timeout, d))
	return d
}
