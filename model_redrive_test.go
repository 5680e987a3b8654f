package sqsq_test

// Model-based test of redrive (issue 4; docs/sqs-semantics.md §7, §8, §5.2):
// the naive model of model_test.go grown to three standard queues — two
// sources, src-a and src-b, that share the dead-letter queue dlq — with
// redrive policies set, changed and removed at random (maxReceiveCount 1–3;
// now and then a source points at the other source, or dlq at a source, so
// chains and cycles come up too), automatic moves to the DLQ during
// receives, message move tasks started (rate 1–5/s or unset = 500/s, with or
// without DestinationArn), advanced by the clock and cancelled at random,
// and queues deleted and created again.
//
// The model stays naive: per queue the slices and linear scans of model;
// on top, a list of tasks and, for every message ever sent, the chain of its
// incarnations (a dead-letter move keeps the MessageId, a redrive makes a new
// message). After every step the check follows every chain to its one
// place — a queue, or deleted, expired, purged, dropped with its queue — and
// compares each real queue's Stats (counts, ages and every counter,
// MovedToDLQ, DeadLetterFailures, DeadLettered, RedrivenOut and RedrivenIn
// included) and ListMoveTasks with the model's. Receives compare every
// MessageId, body and system attribute (DeadLetterQueueSourceArn included);
// the broker's IDFunc is a counter the model shares, so the MessageIds of
// redriven messages and the task ids in task handles are predicted exactly.
//
// Rules (beyond model_test.go's):
//   - §7.2: a receive that selects a message whose receive count has reached
//     the policy's maxReceiveCount moves it to the DLQ instead of returning
//     it and goes on with the next message; with the DLQ gone it delivers the
//     message and counts a DeadLetterFailure.
//   - §7.3: the moved message keeps its MessageId, body, receive count,
//     SentTimestamp, first-receive time and (standard) enqueue time; it is
//     available in the DLQ from the move (the DLQ's delay does not apply) and
//     carries DeadLetterQueueSourceArn; its receive serial starts afresh.
//   - §8: a task moves the k-th message (from 0) at started + max(1 ns,
//     k·1 s/rate), oldest available first, evaluated lazily by every call:
//     the DLQ's oldest available message moves as a new message (new
//     MessageId, SentTimestamp and enqueue time = the due instant, receive
//     count 0, available from the due instant plus the destination's delay).
//     Which message, and whether there is one, is decided as of the due
//     instant — or, while rdTasksSeeNow mirrors a core bug, as of the call
//     that finds the step due. ToMove is the DLQ's available count at the start;
//     COMPLETED when that many moved or the DLQ has nothing available when a
//     message is due; FAILED (AWS.SimpleQueueService.NonExistentQueue) when
//     the DLQ or the destination is gone or a message has no source to go
//     back to; FAILED (TaskDurationExceeded) after 36 h; CANCELLING at the
//     cancel instant, CANCELLED once the clock moves on. sqsq keeps the 11
//     most recent tasks of each source ARN (ListMessageMoveTasks lists up to
//     10): the handle of an older one names a task that does not exist.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"pgregory.net/rapid"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/testsize"
)

// ---------------------------------------------------------------------------
// A clock that moves for free.

// rdClock is the test's clock: Now is a plain field, so moving it costs
// nothing (clock.Mock sleeps a millisecond of real time on every move). The
// test short-polls only, so nothing should arm a timer; if something does,
// the timer goes to a mock brought to the same time.
type rdClock struct {
	mu     sync.Mutex
	now    time.Time
	mock   *clock.Mock
	timers bool
}

func (c *rdClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	now, timers := c.now, c.timers
	c.mu.Unlock()
	if timers {
		c.mock.Set(now)
	}
}

func (c *rdClock) timed() *clock.Mock {
	c.mu.Lock()
	first := !c.timers
	c.timers = true
	now := c.now
	if c.mock == nil {
		c.mock = clock.NewMock()
	}
	c.mu.Unlock()
	if first {
		c.mock.Set(now)
	}
	return c.mock
}

func (c *rdClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}
func (c *rdClock) Since(t time.Time) time.Duration                  { return c.Now().Sub(t) }
func (c *rdClock) Until(t time.Time) time.Duration                  { return t.Sub(c.Now()) }
func (c *rdClock) After(d time.Duration) <-chan time.Time           { return c.timed().After(d) }
func (c *rdClock) AfterFunc(d time.Duration, f func()) *clock.Timer { return c.timed().AfterFunc(d, f) }
func (c *rdClock) Sleep(d time.Duration)                            { c.timed().Sleep(d) }
func (c *rdClock) Tick(d time.Duration) <-chan time.Time            { return c.timed().Tick(d) }
func (c *rdClock) Ticker(d time.Duration) *clock.Ticker             { return c.timed().Ticker(d) }
func (c *rdClock) Timer(d time.Duration) *clock.Timer               { return c.timed().Timer(d) }
func (c *rdClock) WithDeadline(p context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return c.timed().WithDeadline(p, d)
}
func (c *rdClock) WithTimeout(p context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return c.timed().WithTimeout(p, d)
}

var _ clock.Clock = (*rdClock)(nil)

// ---------------------------------------------------------------------------
// The reference model.

// The queues, by index.
const (
	rdA, rdB, rdDLQ = 0, 1, 2
	rdQueues        = 3
)

var rdNames = [rdQueues]string{"src-a", "src-b", "dlq"}

// More fates of gone messages (see mMsg.fate).
const (
	fateDeadLettered = "dead-lettered" // moved on, same MessageId (next)
	fateRedriven     = "redriven"      // moved on as a new message (next)
	fateQueueDeleted = "queue deleted"
)

// rdPolicy is a RedrivePolicy: target is a queue index.
type rdPolicy struct{ target, max int }

func (p *rdPolicy) String() string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("{%s max %d}", rdNames[p.target], p.max)
}

type rdQueue struct {
	name, arn, url string
	gen            int    // incarnation, from 1
	m              *model // nil while deleted
	policy         *rdPolicy
	deleted        bool // ever deleted
	deletedAt      int64
}

type rdTask struct {
	id, handle      string
	src, srcGen     int // the source queue and its incarnation
	srcArn, destArn string
	rate            int
	rateSet         bool
	started         int64
	status, failure string
	toMove, moved   int64
	cancelTime      int64
}

const (
	rdTaskMaxDuration = 36 * time.Hour
	rdRecreateDelay   = 60 * time.Second
)

func (t *rdTask) dueAt(k int64) int64 {
	return t.started + max(1, k*int64(time.Second)/int64(t.rate))
}

func (t *rdTask) active() bool {
	return t.status == sqsq.MoveTaskRunning || t.status == sqsq.MoveTaskCancelling
}

func (t *rdTask) describe() sqsq.MoveTask {
	d := sqsq.MoveTask{
		Status:                            t.status,
		SourceArn:                         t.srcArn,
		DestinationArn:                    t.destArn,
		ApproximateNumberOfMessagesMoved:  t.moved,
		ApproximateNumberOfMessagesToMove: t.toMove,
		StartedTimestamp:                  t.started / int64(time.Millisecond),
	}
	if t.status == sqsq.MoveTaskRunning {
		d.TaskHandle = t.handle
	}
	if t.rateSet {
		d.MaxNumberOfMessagesPerSecond = sqsq.Some(t.rate)
	}
	if t.status == sqsq.MoveTaskFailed {
		d.FailureReason = t.failure
	}
	return d
}

type rdModel struct {
	now    int64
	lastID int // the id counter the broker's IDFunc shares
	limit  int
	qs     [rdQueues]*rdQueue
	tasks  []*rdTask // in start order

	// open holds the first incarnation of every message sent whose chain
	// may still end in a queue; settled counts those that ended for good.
	open    []*mMsg
	settled int
	fates   map[string]int // settled messages by fate

	tally map[string]int64 // what happened, for the test's log
}

func (r *rdModel) live(i int) bool { return r.qs[i].m != nil }

// byARN returns the index of the live queue with that ARN, or -1.
func (r *rdModel) byARN(arn string) int {
	for i, q := range r.qs {
		if q.arn == arn && q.m != nil {
			return i
		}
	}
	return -1
}

// tick applies time to every live queue.
func (r *rdModel) tick() {
	for i := range r.qs {
		r.tickQueue(i, r.now)
	}
}

// tickQueue applies time to queue i, up to at.
func (r *rdModel) tickQueue(i int, at int64) {
	if q := r.qs[i]; q.m != nil {
		q.m.now = at
		q.m.tick()
	}
}

func (r *rdModel) newQueueModel(vis, delay, retention time.Duration) *model {
	return &model{now: r.now, limit: r.limit, maxSize: 1048576, visibility: vis, delay: delay, retention: retention}
}

// oldestAvailable is the available message a receive or a move task takes
// next: longest available first, then in arrival order.
func oldestAvailable(m *model, skip func(*mMsg) bool) *mMsg {
	var next *mMsg
	for _, x := range m.msgs {
		if x.state != mAvailable || (skip != nil && skip(x)) {
			continue
		}
		if next == nil || x.availSince < next.availSince ||
			(x.availSince == next.availSince && x.seq < next.seq) {
			next = x
		}
	}
	return next
}

func (r *rdModel) send(i int, req sendReq) (string, sqsq.Code) {
	q := r.qs[i]
	if q.m == nil {
		return "", sqsq.CodeQueueDoesNotExist
	}
	q.m.lastID = r.lastID
	id, code := q.m.send(req)
	r.lastID = q.m.lastID
	if code == "" {
		r.open = append(r.open, q.m.msgs[len(q.m.msgs)-1])
	}
	return id, code
}

// receive is a short-poll ReceiveMessage with the dead-letter rule.
func (r *rdModel) receive(i, max int, vis sqsq.Optional[time.Duration]) ([]*mMsg, sqsq.Code) {
	q := r.qs[i]
	if q.m == nil {
		return nil, sqsq.CodeQueueDoesNotExist
	}
	m := q.m
	if max == 0 {
		max = 1
	}
	if max < 1 || max > 10 {
		return nil, sqsq.CodeInvalidParameterValue
	}
	if v, ok := vis.Get(); ok && (v < 0 || v > twelveHours || !wholeSeconds(v)) {
		return nil, sqsq.CodeInvalidParameterValue
	}
	m.c.ReceiveCalls++
	inflight := m.count(mInflight)
	if inflight >= m.limit {
		m.c.EmptyReceives++
		return nil, sqsq.CodeOverLimit
	}
	dlq := -1
	if q.policy != nil && r.live(q.policy.target) && q.policy.target != i {
		dlq = q.policy.target
	}
	n := min(max, m.limit-inflight)
	var got []*mMsg
	picked := func(x *mMsg) bool {
		for _, y := range got {
			if y == x {
				return true
			}
		}
		return false
	}
	for len(got) < n {
		next := oldestAvailable(m, picked)
		if next == nil {
			break
		}
		if q.policy != nil && next.receives >= q.policy.max {
			if dlq >= 0 {
				r.deadLetter(i, next, dlq)
				continue
			}
			m.c.DeadLetterFailures++
			r.tally["dead-letter failures"]++
		}
		got = append(got, next)
	}
	v := vis.Or(m.visibility)
	for _, x := range got {
		if x.receives == 0 {
			x.firstRecvMs = r.now / int64(time.Millisecond)
		}
		x.serial++
		x.receives++
		if x.serial > 1 {
			m.c.Redelivered++
		}
		x.receivedAt = r.now
		if v > 0 {
			x.state = mInflight
			x.visibleAt = r.now + int64(v)
		} else {
			x.availSince = r.now
		}
		m.c.Received++
	}
	if len(got) == 0 {
		m.c.EmptyReceives++
	}
	m.prune()
	return got, ""
}

// deadLetter moves x from queue i to queue d (§7.3).
func (r *rdModel) deadLetter(i int, x *mMsg, d int) {
	src, dq := r.qs[i], r.qs[d]
	dq.m.lastSeq++
	y := &mMsg{
		seq: dq.m.lastSeq, id: x.id, body: x.body, group: x.group,
		state: mAvailable, availSince: r.now,
		enqueuedAt: x.enqueuedAt, sentMs: x.sentMs,
		receives: x.receives, firstRecvMs: x.firstRecvMs,
		dlqSource: src.arn,
	}
	dq.m.msgs = append(dq.m.msgs, y)
	x.state, x.fate, x.next = mGone, fateDeadLettered, y
	r.tally["dead-letter moves"]++
	src.m.c.MovedToDLQ++
	dq.m.c.DeadLettered++
}

// redrive moves x from queue s to queue d as a new message due at at (§8.2).
func (r *rdModel) redrive(s int, x *mMsg, d int, at int64) {
	src, dst := r.qs[s], r.qs[d]
	r.lastID++
	dst.m.lastSeq++
	y := &mMsg{
		seq: dst.m.lastSeq, id: fmt.Sprintf(idFormat, r.lastID), body: x.body, group: x.group,
		enqueuedAt: at, sentMs: at / int64(time.Millisecond),
	}
	if visible := at + int64(dst.m.delay); visible > r.now {
		y.state, y.visibleAt = mDelayed, visible
	} else {
		y.state, y.availSince = mAvailable, visible
	}
	dst.m.msgs = append(dst.m.msgs, y)
	x.state, x.fate, x.next = mGone, fateRedriven, y
	r.tally["redriven messages"]++
	src.m.c.RedrivenOut++
	dst.m.c.RedrivenIn++
	src.m.prune()
}

// rdTasksSeeNow mirrors a bug of the core (movetask.go, moveTask.moveOne;
// see TestModelRegressionMoveTaskStepsAsOfDueInstant): when a call finds move
// steps due at earlier instants, sqsq brings the DLQ up to the call's now
// before each step instead of up to the step's due instant, so a message
// that expired in between is not moved though it was there when the step
// was due, one that came back from in flight in between is moved at an
// instant it was hidden, and the outcome depends on whether anything called
// the broker in between. With false the model moves every message as of its
// due instant, all tasks' steps in time order (what the spec asks: lazy
// evaluation must give what eager evaluation would); set it to false once
// the core does that, and the machine checks it.
const rdTasksSeeNow = false

// nextDue is the instant of the task's next move, if it has one left
// within its 36 hours.
func (t *rdTask) nextDue() (int64, bool) {
	if t.status != sqsq.MoveTaskRunning || t.moved >= t.toMove {
		return 0, false
	}
	at := t.dueAt(t.moved)
	return at, at <= t.started+int64(rdTaskMaxDuration)
}

// settle brings everything up to now, as every broker call does first: the
// move tasks' due steps, then the queues.
func (r *rdModel) settle() {
	now := r.now
	if rdTasksSeeNow {
		for _, t := range r.tasks { // in start order, each up to now
			for {
				at, ok := t.nextDue()
				if !ok || at > now {
					break
				}
				r.moveStep(t, at, now)
			}
			r.finishTask(t)
		}
	} else {
		for { // every task's due steps in time order, each as of its instant
			var next *rdTask
			var at int64
			for _, t := range r.tasks {
				if due, ok := t.nextDue(); ok && due <= now && (next == nil || due < at) {
					next, at = t, due
				}
			}
			if next == nil {
				break
			}
			r.now = at
			r.moveStep(next, at, at)
			r.now = now
		}
		for _, t := range r.tasks {
			r.finishTask(t)
		}
	}
	r.tick()
}

// moveStep moves the task's next message, due at at, to its destination as
// a new message, or ends the task (§8.2, §8.3). The two queues are brought
// up to asOf first (only they: how other queues' messages pass the ends of
// their visibility and retention must not depend on tasks).
func (r *rdModel) moveStep(t *rdTask, at, asOf int64) {
	fail := func(reason string) { t.status, t.failure = sqsq.MoveTaskFailed, reason }
	src := r.qs[t.src]
	if src.m == nil || src.gen != t.srcGen {
		fail(sqsq.MoveTaskNonExistentQueue)
		return
	}
	r.tickQueue(t.src, asOf)
	x := oldestAvailable(src.m, nil)
	if x == nil {
		t.status = sqsq.MoveTaskCompleted // the DLQ ran dry
		return
	}
	destArn := t.destArn
	if destArn == "" {
		destArn = x.dlqSource
	}
	d := r.byARN(destArn)
	if destArn == "" || d < 0 || d == t.src {
		fail(sqsq.MoveTaskNonExistentQueue)
		return
	}
	r.tickQueue(d, asOf)
	r.redrive(t.src, x, d, at)
	t.moved++
}

// finishTask settles the status of a task whose due steps are done.
func (r *rdModel) finishTask(t *rdTask) {
	switch t.status {
	case sqsq.MoveTaskCancelling:
		if r.now > t.cancelTime {
			t.status = sqsq.MoveTaskCancelled
		}
	case sqsq.MoveTaskRunning:
		if t.moved >= t.toMove {
			t.status = sqsq.MoveTaskCompleted
		} else if r.now >= t.started+int64(rdTaskMaxDuration) {
			t.status, t.failure = sqsq.MoveTaskFailed, sqsq.MoveTaskTimedOut
		}
	}
}

// rdTaskHistory is how many tasks sqsq keeps per source ARN, the newest.
const rdTaskHistory = 11

func rdTaskHandle(id, srcArn string) string {
	b, _ := json.Marshal(struct {
		TaskID    string `json:"taskId"`
		SourceArn string `json:"sourceArn"`
	}{id, srcArn})
	return base64.StdEncoding.EncodeToString(b)
}

func (r *rdModel) startTask(srcArn, destArn string, rate sqsq.Optional[int]) (string, sqsq.Code) {
	n, rateSet := rate.Get()
	if rateSet && (n < 1 || n > 500) {
		return "", sqsq.CodeInvalidParameterValue
	}
	if !rateSet {
		n = 500
	}
	s := r.byARN(srcArn)
	if s >= 0 {
		for _, t := range r.tasks {
			if t.active() && t.src == s && t.srcGen == r.qs[s].gen {
				return "", sqsq.CodeInvalidParameterValue
			}
		}
	}
	switch {
	case s < 0:
		return "", sqsq.CodeResourceNotFound
	case len(r.sourcesOf(s)) == 0:
		return "", sqsq.CodeInvalidParameterValue
	case destArn != "" && r.byARN(destArn) < 0:
		return "", sqsq.CodeResourceNotFound
	}
	r.lastID++
	t := &rdTask{
		id: fmt.Sprintf(idFormat, r.lastID), src: s, srcGen: r.qs[s].gen,
		srcArn: srcArn, destArn: destArn, rate: n, rateSet: rateSet,
		started: r.now, status: sqsq.MoveTaskRunning,
		toMove: int64(r.qs[s].m.count(mAvailable)),
	}
	t.handle = rdTaskHandle(t.id, srcArn)
	r.tasks = append(r.tasks, t)
	r.tally["tasks started"]++
	return t.handle, ""
}

// cancelTask is CancelMessageMoveTask of a handle naming task id of source
// srcArn (decodable false: a handle that is not base64 JSON).
func (r *rdModel) cancelTask(decodable bool, id, srcArn string) (int64, sqsq.Code) {
	if !decodable || id == "" || srcArn == "" {
		return 0, sqsq.CodeInvalidParameterValue
	}
	var task *rdTask
	kept := 0
	for i := len(r.tasks) - 1; i >= 0 && kept < rdTaskHistory; i-- {
		if t := r.tasks[i]; t.srcArn == srcArn {
			kept++
			if t.id == id {
				task = t
			}
		}
	}
	switch {
	case r.byARN(srcArn) < 0:
		return 0, sqsq.CodeResourceNotFound
	case task == nil:
		return 0, sqsq.CodeResourceNotFound
	case task.status != sqsq.MoveTaskRunning:
		return 0, sqsq.CodeInvalidParameterValue
	}
	task.status, task.cancelTime = sqsq.MoveTaskCancelling, r.now
	r.tally["tasks cancelled"]++
	return task.moved, ""
}

// listTasks is ListMessageMoveTasks: the tasks of every incarnation of the
// source, newest first.
func (r *rdModel) listTasks(srcArn string, maxResults sqsq.Optional[int]) ([]sqsq.MoveTask, sqsq.Code) {
	n := maxResults.Or(1)
	if n < 1 || n > 10 {
		return nil, sqsq.CodeInvalidParameterValue
	}
	if r.byARN(srcArn) < 0 {
		return nil, sqsq.CodeResourceNotFound
	}
	out := []sqsq.MoveTask{}
	for i := len(r.tasks) - 1; i >= 0 && len(out) < n; i-- {
		if t := r.tasks[i]; t.srcArn == srcArn {
			out = append(out, t.describe())
		}
	}
	return out, ""
}

// sourcesOf lists the names of the live queues whose policy names queue i.
func (r *rdModel) sourcesOf(i int) []string {
	var names []string
	for _, q := range r.qs {
		if q.m != nil && q.policy != nil && q.policy.target == i {
			names = append(names, q.name)
		}
	}
	sort.Strings(names)
	return names
}

// setPolicy is SetQueueAttributes(RedrivePolicy) (p nil removes it).
func (r *rdModel) setPolicy(i int, p *rdPolicy) sqsq.Code {
	q := r.qs[i]
	if q.m == nil {
		return sqsq.CodeQueueDoesNotExist
	}
	if p != nil && !r.live(p.target) {
		return sqsq.CodeInvalidParameterValue // Dead letter target does not exist.
	}
	q.policy = p
	return ""
}

func (r *rdModel) deleteQueue(i int) sqsq.Code {
	q := r.qs[i]
	if q.m == nil {
		return sqsq.CodeQueueDoesNotExist
	}
	for _, x := range q.m.msgs {
		x.state, x.fate = mGone, fateQueueDeleted
	}
	q.m, q.policy = nil, nil
	q.deleted, q.deletedAt = true, r.now
	r.tally["queues deleted"]++
	return ""
}

// createQueue is CreateQueue of a deleted queue.
func (r *rdModel) createQueue(i int, vis, delay, retention time.Duration, p *rdPolicy) sqsq.Code {
	q := r.qs[i]
	if q.deleted && r.now-q.deletedAt < int64(rdRecreateDelay) {
		return sqsq.CodeQueueDeletedRecently
	}
	if p != nil && !r.live(p.target) {
		return sqsq.CodeInvalidParameterValue
	}
	if q.gen++; q.gen > 1 {
		r.tally["queues created again"]++
	}
	q.m = r.newQueueModel(vis, delay, retention)
	q.policy = p
	return ""
}

// events lists upcoming instants at which something changes by itself;
// expiries only if asked (they would otherwise come first whenever a queue
// has nothing else pending).
func (r *rdModel) events(expiries bool) []int64 {
	var ev []int64
	for _, q := range r.qs {
		if q.m == nil {
			continue
		}
		for _, x := range q.m.msgs {
			if expiries {
				ev = append(ev, x.enqueuedAt+int64(q.m.retention))
			}
			switch x.state {
			case mDelayed:
				ev = append(ev, x.visibleAt)
			case mInflight:
				ev = append(ev, x.visibleAt, x.receivedAt+int64(twelveHours))
			}
		}
		if q.m.purged {
			ev = append(ev, q.m.purgedAt+int64(purgeInterval))
		}
	}
	for _, t := range r.tasks {
		switch t.status {
		case sqsq.MoveTaskRunning:
			ev = append(ev, t.dueAt(t.moved), t.started+int64(rdTaskMaxDuration))
		case sqsq.MoveTaskCancelling:
			ev = append(ev, t.cancelTime+1)
		}
	}
	keep := ev[:0]
	for _, at := range ev {
		if at > r.now {
			keep = append(keep, at)
		}
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i] < keep[j] })
	return keep
}

// checkPlaces checks that every message ever sent is in exactly one place:
// its chain of incarnations ends either in exactly one stored message of
// one live queue or in a final fate, and no stored message is left over.
func (r *rdModel) checkPlaces(t *rapid.T) {
	where := map[*mMsg]int{}
	ids := map[string]int{}
	for i, q := range r.qs {
		if q.m == nil {
			continue
		}
		for _, x := range q.m.msgs {
			if j, dup := where[x]; dup {
				t.Fatalf("model: message %s stored in %s and %s", x.id, rdNames[j], rdNames[i])
			}
			if j, dup := ids[x.id]; dup {
				t.Fatalf("model: MessageId %s stored in %s and %s", x.id, rdNames[j], rdNames[i])
			}
			where[x], ids[x.id] = i, i
		}
	}
	stored := 0
	keep := r.open[:0]
	for _, first := range r.open {
		x := first
		for x.next != nil {
			if x.state != mGone || (x.fate != fateDeadLettered && x.fate != fateRedriven) {
				t.Fatalf("model: %q: incarnation %s is %v (%q) but has a successor %s", first.body, x.id, x.state, x.fate, x.next.id)
			}
			x = x.next
		}
		_, in := where[x]
		if x.state != mGone {
			if !in {
				t.Fatalf("model: %q: message %s is %v but in no queue (lost)", first.body, x.id, x.state)
			}
			stored++
			keep = append(keep, first)
			continue
		}
		switch x.fate {
		case fateDeleted, fateExpired, fatePurged, fateQueueDeleted:
		default:
			t.Fatalf("model: %q: message %s is gone with fate %q", first.body, x.id, x.fate)
		}
		if in {
			t.Fatalf("model: %q: message %s is %s but still stored", first.body, x.id, x.fate)
		}
		r.settled++
		r.fates[x.fate]++
	}
	clear(r.open[len(keep):])
	r.open = keep
	if stored != len(where) {
		t.Fatalf("model: %d messages stored, but only %d sent messages end in a queue (duplicated)", len(where), stored)
	}
}

// ---------------------------------------------------------------------------
// The machine.

// rdWantCode is wantCode without its cost on success (t.Helper walks the
// stack, and Check calls this a dozen times per step).
func rdWantCode(t *rapid.T, what fmt.Stringer, err error, want sqsq.Code) {
	var got sqsq.Code
	if err != nil {
		var e *sqsq.Error
		if !errors.As(err, &e) {
			t.Helper()
			t.Fatalf("%s: error %v (%T) is not a *sqsq.Error", what, err, err)
		}
		got = e.Code
	}
	if got != want {
		t.Helper()
		t.Fatalf("%s: error code %q (%v), model says %q", what, got, err, want)
	}
}

type rdMachine struct {
	ctx   context.Context
	clk   *rdClock
	b     *sqsq.Broker
	r     *rdModel
	real  [rdQueues]*sqsq.Queue // the current incarnation (deleted while r.qs[i].m is nil)
	steps int64

	handles [rdQueues][]hRef // handles of the queue's current incarnation
	foreign []string         // live or stale handles of other incarnations
	seen    map[string]bool  // every handle ever returned
	nBodies int
	prefix  string // ARN prefix
}

func (s *rdMachine) pickQueue(t *rapid.T, label string) int {
	return rapid.IntRange(0, rdQueues-1).Draw(t, label)
}

// drawPolicy draws a policy for queue i: the sources mostly name the DLQ,
// now and then the other source; the DLQ names a source (a chain or cycle).
func drawPolicy(t *rapid.T, i int) *rdPolicy {
	p := &rdPolicy{max: rapid.IntRange(1, 3).Draw(t, "maxReceiveCount")}
	switch i {
	case rdA, rdB:
		p.target = rdDLQ
		if rapid.IntRange(0, 9).Draw(t, "toOtherSource") == 0 {
			p.target = rdA + rdB - i
		}
	default:
		p.target = rapid.IntRange(rdA, rdB).Draw(t, "dlqTarget")
	}
	return p
}

func (s *rdMachine) realPolicy(p *rdPolicy) sqsq.Optional[*sqsq.RedrivePolicy] {
	if p == nil {
		return sqsq.Some[*sqsq.RedrivePolicy](nil)
	}
	return sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: s.r.qs[p.target].arn, MaxReceiveCount: p.max})
}

func (s *rdMachine) body() string {
	s.nBodies++
	return "m" + strconv.Itoa(s.nBodies)
}

func (s *rdMachine) Send(t *rapid.T) {
	i := s.pickQueue(t, "queue")
	r := sendReq{body: s.body(), delay: drawDelay(t, "delay")}
	res, err := s.real[i].Send(s.ctx, sqsq.SendInput{MessageBody: r.body, DelaySeconds: r.delay})
	s.r.settle()
	id, code := s.r.send(i, r)
	what := describe("Send(%s, %q, delay %v)", rdNames[i], r.body, r.delay)
	rdWantCode(t, what, err, code)
	if code == "" && res.MessageId != id {
		t.Fatalf("%s: MessageId %q, model says %q", what, res.MessageId, id)
	}
}

func (s *rdMachine) SendBatch(t *rapid.T) {
	i := s.pickQueue(t, "queue")
	n := rapid.IntRange(1, 10).Draw(t, "entries")
	entries := make([]sqsq.SendBatchEntry, n)
	reqs := make([]sendReq, n)
	for k := range entries {
		reqs[k] = sendReq{body: s.body(), delay: drawDelay(t, "delay")}
		entries[k] = sqsq.SendBatchEntry{Id: "e" + strconv.Itoa(k), SendInput: sqsq.SendInput{
			MessageBody: reqs[k].body, DelaySeconds: reqs[k].delay,
		}}
	}
	res, err := s.real[i].SendBatch(s.ctx, entries)
	s.r.settle()
	what := describe("SendBatch(%s, %d entries)", rdNames[i], n)
	if !s.r.live(i) {
		rdWantCode(t, what, err, sqsq.CodeQueueDoesNotExist)
		return
	}
	rdWantCode(t, what, err, "")
	var wantOK, wantFailed, gotOK, gotFailed []entryResult
	for k, r := range reqs {
		id, code := s.r.send(i, r)
		if code != "" {
			wantFailed = append(wantFailed, entryResult{id: entries[k].Id, code: code})
		} else {
			wantOK = append(wantOK, entryResult{id: entries[k].Id, messageID: id})
		}
	}
	for _, e := range res.Successful {
		gotOK = append(gotOK, entryResult{id: e.Id, messageID: e.MessageId})
	}
	for _, e := range res.Failed {
		gotFailed = append(gotFailed, entryResult{id: e.Id, code: e.Err.Code})
	}
	compareEntries(t, what, "Successful", gotOK, wantOK)
	compareEntries(t, what, "Failed", gotFailed, wantFailed)
}

var rdAttrChoices = [][]string{
	nil,
	{sqsq.SysAll},
	{sqsq.SysApproximateReceiveCount, sqsq.SysDeadLetterQueueSourceArn},
	{sqsq.SysSentTimestamp, sqsq.SysApproximateFirstReceiveTimestamp, sqsq.SysDeadLetterQueueSourceArn},
	{sqsq.SysApproximateReceiveCount},
}

func rdWantAttributes(x *mMsg, names []string) map[string]string {
	out := wantAttributes(x, names)
	for _, n := range names {
		if (n == sqsq.SysAll || n == sqsq.SysDeadLetterQueueSourceArn) && x.dlqSource != "" {
			out[sqsq.SysDeadLetterQueueSourceArn] = x.dlqSource
		}
	}
	return out
}

func (s *rdMachine) Receive(t *rapid.T) {
	i := s.pickQueue(t, "queue")
	max := rapid.IntRange(1, 10).Draw(t, "max")
	if rapid.IntRange(0, 29).Draw(t, "maxOdd") == 0 {
		max = rapid.SampledFrom([]int{0, 11}).Draw(t, "maxBad")
	}
	vis := drawVisibility(t)
	names := rapid.SampledFrom(rdAttrChoices).Draw(t, "attrs")
	s.receive(t, i, max, vis, names)
}

// Churn receives from a queue again and again with a short or no
// visibility timeout: receive counts climb and messages dead-letter.
func (s *rdMachine) Churn(t *rapid.T) {
	i := rapid.SampledFrom([]int{rdA, rdB, rdA, rdB, rdDLQ}).Draw(t, "queue")
	vis := sqsq.Some(time.Duration(rapid.IntRange(0, 1).Draw(t, "visSecs")) * time.Second)
	for n := rapid.IntRange(1, 6).Draw(t, "rounds"); n > 0; n-- {
		s.receive(t, i, 10, vis, nil)
	}
}

func (s *rdMachine) receive(t *rapid.T, i, max int, vis sqsq.Optional[time.Duration], names []string) {
	got, err := s.real[i].Receive(s.ctx, sqsq.ReceiveInput{
		MaxNumberOfMessages:         max,
		VisibilityTimeout:           vis,
		WaitTimeSeconds:             sqsq.Some(time.Duration(0)),
		MessageSystemAttributeNames: names,
	})
	s.r.settle()
	want, code := s.r.receive(i, max, vis)
	what := describe("Receive(%s, max %d, vis %v, attrs %q)", rdNames[i], max, vis, names)
	rdWantCode(t, what, err, code)
	if code != "" {
		return
	}
	if len(got) != len(want) {
		gotIDs := make([]string, len(got))
		for k, g := range got {
			gotIDs[k] = g.MessageId + "/" + g.Body
		}
		wantIDs := make([]string, len(want))
		for k, w := range want {
			wantIDs[k] = w.id + "/" + w.body
		}
		t.Fatalf("%s: got %d messages %q, model says %d %q", what, len(got), gotIDs, len(want), wantIDs)
	}
	for k, g := range got {
		x := want[k]
		if g.MessageId != x.id || g.Body != x.body {
			t.Fatalf("%s: message %d is %s %q, model says %s %q", what, k, g.MessageId, g.Body, x.id, x.body)
		}
		if wa := rdWantAttributes(x, names); !maps.Equal(g.Attributes, wa) {
			t.Fatalf("%s: attributes of %s are %v, model says %v", what, x.id, g.Attributes, wa)
		}
		if g.ReceiptHandle == "" || s.seen[g.ReceiptHandle] {
			t.Fatalf("%s: receipt handle %q of %s is empty or was issued before", what, g.ReceiptHandle, x.id)
		}
		s.seen[g.ReceiptHandle] = true
		x.latestRH = g.ReceiptHandle
		s.handles[i] = append(s.handles[i], hRef{kind: hReal, rh: g.ReceiptHandle, msg: x, serial: x.serial})
	}
}

// drawHandle picks a receipt handle for queue i: the latest handle of one
// of its stored messages, any handle it returned (stale, or of a message
// deleted, expired or moved to another queue), a handle of another queue
// or incarnation, or an empty or garbage one.
func (s *rdMachine) drawHandle(t *rapid.T, i int) hRef {
	k := rapid.IntRange(0, 99).Draw(t, "handleKind")
	if m := s.r.qs[i].m; k < 50 && m != nil {
		var received []*mMsg
		for _, x := range m.msgs {
			if x.serial > 0 {
				received = append(received, x)
			}
		}
		if len(received) > 0 {
			x := received[rapid.IntRange(0, len(received)-1).Draw(t, "latest")]
			return hRef{kind: hReal, rh: x.latestRH, msg: x, serial: x.serial, label: "latest"}
		}
		k = 50
	}
	if hs := s.handles[i]; k < 80 && len(hs) > 0 {
		h := hs[rapid.IntRange(0, len(hs)-1).Draw(t, "earlier")]
		h.label = "earlier"
		return h
	}
	var others []string
	for j := range s.handles {
		if j != i && len(s.handles[j]) > 0 {
			others = append(others, s.handles[j][len(s.handles[j])-1].rh)
		}
	}
	others = append(others, s.foreign...)
	switch {
	case k < 92 && len(others) > 0:
		return hRef{kind: hInvalid, rh: others[rapid.IntRange(0, len(others)-1).Draw(t, "foreign")], label: "foreign"}
	case k < 96:
		return hRef{kind: hEmpty, label: "empty"}
	default:
		return hRef{kind: hInvalid, rh: "AQEBnotahandle", label: "garbage"}
	}
}

func (s *rdMachine) Delete(t *rapid.T) {
	i := s.pickQueue(t, "queue")
	h := s.drawHandle(t, i)
	err := s.real[i].Delete(s.ctx, h.rh)
	s.r.settle()
	want := sqsq.CodeQueueDoesNotExist
	if m := s.r.qs[i].m; m != nil {
		want = m.delete(h)
	}
	rdWantCode(t, describe("Delete(%s, %v)", rdNames[i], h), err, want)
}

// DeleteAll deletes, with their latest handles, the received messages of a
// queue that are still stored: the consumer that succeeds in the end.
func (s *rdMachine) DeleteAll(t *rapid.T) {
	i := s.pickQueue(t, "queue")
	m := s.r.qs[i].m
	if m == nil {
		return
	}
	var hs []hRef
	for _, x := range m.msgs {
		if x.serial > 0 {
			hs = append(hs, hRef{kind: hReal, rh: x.latestRH, msg: x, serial: x.serial, label: "latest"})
		}
	}
	for _, h := range hs {
		err := s.real[i].Delete(s.ctx, h.rh)
		s.r.settle()
		rdWantCode(t, describe("Delete(%s, %v)", rdNames[i], h), err, m.delete(h))
	}
}

func (s *rdMachine) ChangeVisibility(t *rapid.T) {
	i := s.pickQueue(t, "queue")
	h := s.drawHandle(t, i)
	var timeout time.Duration
	switch k := rapid.IntRange(0, 9).Draw(t, "timeoutKind"); {
	case k < 4:
	case k < 9:
		timeout = time.Duration(rapid.IntRange(1, 120).Draw(t, "timeoutSecs")) * time.Second
	default:
		timeout = rapid.SampledFrom([]time.Duration{-time.Second, 43201 * time.Second, 43200 * time.Second}).Draw(t, "timeoutOdd")
	}
	err := s.real[i].ChangeVisibility(s.ctx, h.rh, timeout)
	s.r.settle()
	want := sqsq.CodeQueueDoesNotExist
	if m := s.r.qs[i].m; m != nil {
		want = m.changeVisibility(h, timeout)
	}
	rdWantCode(t, describe("ChangeVisibility(%s, %v, %v)", rdNames[i], h, timeout), err, want)
}

func (s *rdMachine) Purge(t *rapid.T) {
	if rapid.Bool().Draw(t, "purgeOdds") {
		return
	}
	i := s.pickQueue(t, "queue")
	err := s.real[i].Purge(s.ctx)
	s.r.settle()
	want := sqsq.CodeQueueDoesNotExist
	if m := s.r.qs[i].m; m != nil {
		want = m.purge()
	}
	rdWantCode(t, describe("Purge(%s)", rdNames[i]), err, want)
}

// SetPolicy sets, changes or removes a queue's RedrivePolicy.
func (s *rdMachine) SetPolicy(t *rapid.T) {
	i := s.pickQueue(t, "queue")
	var p *rdPolicy
	if rapid.IntRange(0, 3).Draw(t, "remove") > 0 {
		p = drawPolicy(t, i)
	}
	err := s.real[i].SetAttributes(s.ctx, sqsq.QueueAttributes{RedrivePolicy: s.realPolicy(p)})
	s.r.settle()
	rdWantCode(t, describe("SetAttributes(%s, RedrivePolicy %v)", rdNames[i], p), err, s.r.setPolicy(i, p))
}

func (s *rdMachine) SetAttributes(t *rapid.T) {
	i := s.pickQueue(t, "queue")
	a := attrReq{
		visibility: drawAttr(t, "visibility", []int{0, 1, 5, 30, 60},
			[]time.Duration{-time.Second, 43201 * time.Second}),
		delay: drawAttr(t, "delay", []int{0, 0, 1, 10, 60},
			[]time.Duration{901 * time.Second}),
		retention: drawAttr(t, "retention", []int{120, 3600, 86400, 345600, 345600},
			[]time.Duration{59 * time.Second}),
	}
	err := s.real[i].SetAttributes(s.ctx, sqsq.QueueAttributes{
		VisibilityTimeout:      a.visibility,
		DelaySeconds:           a.delay,
		MessageRetentionPeriod: a.retention,
	})
	s.r.settle()
	want := sqsq.CodeQueueDoesNotExist
	if m := s.r.qs[i].m; m != nil {
		want = m.setAttributes(a)
	}
	rdWantCode(t, describe("SetAttributes(%s, %v)", rdNames[i], a), err, want)
}

func (s *rdMachine) DeleteQueue(t *rapid.T) {
	if rapid.IntRange(0, 2).Draw(t, "deleteQueueOdds") > 0 {
		return
	}
	i := s.pickQueue(t, "queue")
	err := s.b.DeleteQueue(s.ctx, s.r.qs[i].arn)
	s.r.settle()
	rdWantCode(t, describe("DeleteQueue(%s)", rdNames[i]), err, s.r.deleteQueue(i))
	if err == nil {
		for _, h := range s.handles[i] {
			s.foreign = append(s.foreign, h.rh)
		}
		s.handles[i] = nil
		if len(s.foreign) > 64 {
			s.foreign = s.foreign[len(s.foreign)-64:]
		}
	}
}

// CreateQueue creates a deleted queue again, maybe with a RedrivePolicy.
func (s *rdMachine) CreateQueue(t *rapid.T) {
	i := s.pickQueue(t, "queue")
	if s.r.live(i) {
		return
	}
	vis, delay, retention, p := s.drawSettings(t, i)
	q, err := s.b.CreateQueue(s.ctx, sqsq.CreateQueueInput{QueueName: rdNames[i], Attributes: s.createAttrs(vis, delay, retention, p)})
	s.r.settle()
	rdWantCode(t, describe("CreateQueue(%s, policy %v)", rdNames[i], p), err, s.r.createQueue(i, vis, delay, retention, p))
	if err == nil {
		s.real[i] = q
	}
}

func (s *rdMachine) drawSettings(t *rapid.T, i int) (vis, delay, retention time.Duration, p *rdPolicy) {
	vis = time.Duration(rapid.SampledFrom([]int{0, 1, 30, 30, 600}).Draw(t, "visibility")) * time.Second
	delay = time.Duration(rapid.SampledFrom([]int{0, 0, 0, 1, 10}).Draw(t, "delay")) * time.Second
	retention = time.Duration(rapid.SampledFrom([]int{345600, 86400, 3600, 300, 60, 345600}).Draw(t, "retention")) * time.Second
	odds := 1 // sources mostly start with a policy, the DLQ seldom
	if i == rdDLQ {
		odds = 5
	}
	if rapid.IntRange(0, odds).Draw(t, "policyOdds") == 0 {
		p = drawPolicy(t, i)
	}
	return vis, delay, retention, p
}

func (s *rdMachine) createAttrs(vis, delay, retention time.Duration, p *rdPolicy) sqsq.QueueAttributes {
	a := sqsq.QueueAttributes{
		VisibilityTimeout:      sqsq.Some(vis),
		DelaySeconds:           sqsq.Some(delay),
		MessageRetentionPeriod: sqsq.Some(retention),
	}
	if p != nil {
		a.RedrivePolicy = s.realPolicy(p)
	}
	return a
}

// drawARN draws the ARN of a queue (live or deleted) or of one that never
// existed.
func (s *rdMachine) drawARN(t *rapid.T, label string, favourite int) string {
	switch k := rapid.IntRange(0, 9).Draw(t, label+"Kind"); {
	case k < 6 && favourite >= 0:
		return s.r.qs[favourite].arn
	case k < 9:
		return s.r.qs[rapid.IntRange(0, rdQueues-1).Draw(t, label)].arn
	default:
		return s.prefix + "nope"
	}
}

func (s *rdMachine) StartMoveTask(t *rapid.T) {
	src := s.drawARN(t, "source", rdDLQ)
	dest := ""
	if rapid.IntRange(0, 9).Draw(t, "withDestination") >= 6 {
		if dest = s.drawARN(t, "destination", -1); dest == src {
			dest = "" // sqsq does not reject it (the first move fails); leave it out
		}
	}
	var rate sqsq.Optional[int]
	switch k := rapid.IntRange(0, 19).Draw(t, "rateKind"); {
	case k < 7:
	case k < 19:
		rate = sqsq.Some(rapid.IntRange(1, 5).Draw(t, "rate"))
	default:
		rate = sqsq.Some(rapid.SampledFrom([]int{0, 501}).Draw(t, "rateBad"))
	}
	in := sqsq.StartMoveTaskInput{SourceArn: src, DestinationArn: dest, MaxNumberOfMessagesPerSecond: rate}
	h, err := s.b.StartMoveTask(s.ctx, in)
	s.r.settle()
	want, code := s.r.startTask(src, dest, rate)
	what := describe("StartMoveTask(%+v)", in)
	rdWantCode(t, what, err, code)
	if code == "" && h != want {
		t.Fatalf("%s: handle %q, model says %q", what, h, want)
	}
}

func (s *rdMachine) CancelMoveTask(t *rapid.T) {
	decodable, id, srcArn := true, "", ""
	var handle string
	switch k := rapid.IntRange(0, 9).Draw(t, "cancelKind"); {
	case k < 7 && len(s.r.tasks) > 0:
		// Mostly a running task, if there is one.
		var running []*rdTask
		for _, task := range s.r.tasks {
			if task.status == sqsq.MoveTaskRunning {
				running = append(running, task)
			}
		}
		if len(running) == 0 || k > 4 {
			running = s.r.tasks
		}
		task := running[rapid.IntRange(0, len(running)-1).Draw(t, "task")]
		id, srcArn, handle = task.id, task.srcArn, task.handle
	case k < 8:
		decodable, handle = false, "not a task handle"
	case k < 9:
		id, srcArn = "no-such-task", s.r.qs[rdDLQ].arn
		handle = rdTaskHandle(id, srcArn)
	default:
		id, srcArn = "no-such-task", s.prefix+"nope"
		if len(s.r.tasks) > 0 {
			id = s.r.tasks[len(s.r.tasks)-1].id
		}
		handle = rdTaskHandle(id, srcArn)
	}
	moved, err := s.b.CancelMoveTask(s.ctx, handle)
	s.r.settle()
	want, code := s.r.cancelTask(decodable, id, srcArn)
	what := describe("CancelMoveTask(task %q of %s)", id, srcArn)
	rdWantCode(t, what, err, code)
	if code == "" && moved != want {
		t.Fatalf("%s: %d moved, model says %d", what, moved, want)
	}
}

func (s *rdMachine) ListMoveTasks(t *rapid.T) {
	arn := s.drawARN(t, "source", rdDLQ)
	var n sqsq.Optional[int]
	switch k := rapid.IntRange(0, 9).Draw(t, "maxResultsKind"); {
	case k < 3:
	case k < 9:
		n = sqsq.Some(rapid.IntRange(1, 10).Draw(t, "maxResults"))
	default:
		n = sqsq.Some(rapid.SampledFrom([]int{0, 11}).Draw(t, "maxResultsBad"))
	}
	s.compareTasks(t, arn, n)
}

func (s *rdMachine) compareTasks(t *rapid.T, arn string, n sqsq.Optional[int]) {
	got, err := s.b.ListMoveTasks(s.ctx, arn, n)
	s.r.settle()
	want, code := s.r.listTasks(arn, n)
	what := describe("ListMoveTasks(%s, %v)", arn, n)
	rdWantCode(t, what, err, code)
	if code != "" {
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d tasks\n got %+v\nwant %+v", what, len(got), got, want)
	}
	for k := range got {
		if got[k] != want[k] {
			t.Fatalf("%s: task %d\n got %+v\nwant %+v", what, k, got[k], want[k])
		}
	}
}

func (s *rdMachine) ListSources(t *rapid.T) {
	i := s.pickQueue(t, "queue")
	out, err := s.real[i].ListDeadLetterSourceQueues(s.ctx, sqsq.ListDeadLetterSourceQueuesInput{})
	s.r.settle()
	what := describe("ListDeadLetterSourceQueues(%s)", rdNames[i])
	if !s.r.live(i) {
		rdWantCode(t, what, err, sqsq.CodeQueueDoesNotExist)
		return
	}
	rdWantCode(t, what, err, "")
	var want []string
	for _, name := range s.r.sourcesOf(i) {
		for _, q := range s.r.qs {
			if q.name == name {
				want = append(want, q.url)
			}
		}
	}
	if fmt.Sprint(out.QueueURLs) != fmt.Sprint(want) || out.NextToken != "" {
		t.Fatalf("%s: %q (next %q), model says %q", what, out.QueueURLs, out.NextToken, want)
	}
}

// ClockAdvance moves the clock: by nothing, a little, onto or right next to
// the next instants something changes by itself (a task's next message, a
// delay or visibility end, an expiry), by minutes, or now and then by
// hours or days (past the 12-hour visibility budget, past the 36 hours a
// task may run).
func (s *rdMachine) ClockAdvance(t *rapid.T) {
	var d time.Duration
	switch k := rapid.IntRange(0, 12).Draw(t, "advanceKind"); k {
	case 0:
	case 1:
		d = rapid.SampledFrom([]time.Duration{time.Nanosecond, time.Millisecond, 200 * time.Millisecond, time.Second}).Draw(t, "small")
	case 2, 3:
		d = time.Duration(rapid.IntRange(1, 10).Draw(t, "secs")) * time.Second
	case 4, 5, 6, 7:
		ev := s.r.events(rapid.IntRange(0, 3).Draw(t, "expiries") == 0)
		if len(ev) == 0 {
			d = time.Second
			break
		}
		at := ev[rapid.IntRange(0, min(len(ev), 4)-1).Draw(t, "event")]
		off := rapid.SampledFrom([]time.Duration{-time.Nanosecond, 0, 0, 0, time.Nanosecond, time.Second}).Draw(t, "offset")
		d = max(time.Duration(at-s.r.now)+off, 0)
	case 8, 9:
		d = time.Duration(rapid.IntRange(1, 120000).Draw(t, "millis")) * time.Millisecond
	case 10, 11:
		d = time.Duration(rapid.IntRange(60, 1800).Draw(t, "secs")) * time.Second
	default:
		if rapid.IntRange(0, 3).Draw(t, "longOdds") > 0 {
			d = time.Duration(rapid.IntRange(1, 10).Draw(t, "secs")) * time.Second
			break
		}
		d = rapid.SampledFrom([]time.Duration{
			twelveHours, rdTaskMaxDuration - time.Second, rdTaskMaxDuration, rdTaskMaxDuration + time.Second, 4 * 24 * time.Hour,
		}).Draw(t, "long")
	}
	s.clk.add(d)
	s.r.now += int64(d)
	if got := s.clk.Now().UnixNano(); got != s.r.now {
		t.Fatalf("ClockAdvance(%v): clock at %d, model at %d", d, got, s.r.now)
	}
}

// rdCounterSet is every counter the model keeps, redrive included.
type rdCounterSet struct {
	counterSet
	MovedToDLQ, DeadLetterFailures, DeadLettered, RedrivenOut, RedrivenIn int64
}

func rdCounters(c sqsq.Counters) rdCounterSet {
	return rdCounterSet{modelCounters(c), c.MovedToDLQ, c.DeadLetterFailures, c.DeadLettered, c.RedrivenOut, c.RedrivenIn}
}

// Check runs after every action: every message is in exactly one place in
// the model, and every real queue's counts, ages, counters and move tasks
// equal the model's.
func (s *rdMachine) Check(t *rapid.T) {
	var sts [rdQueues]sqsq.Stats
	for i := range s.real {
		st, err := s.real[i].Stats()
		if !s.r.live(i) {
			rdWantCode(t, describe("Stats(%s), deleted", rdNames[i]), err, sqsq.CodeQueueDoesNotExist)
			continue
		}
		rdWantCode(t, describe("Stats(%s)", rdNames[i]), err, "")
		sts[i] = st
	}
	s.r.settle()
	s.r.checkPlaces(t)
	for i, q := range s.r.qs {
		if q.m == nil {
			continue
		}
		st := sts[i]
		checkStats(t, "Stats("+q.name+")", st, q.m)
		if got, want := rdCounters(st.Counters), rdCounters(q.m.c); got != want {
			t.Fatalf("Stats(%s): counters\n got %+v\nwant %+v", q.name, got, want)
		}
		// Conservation on the real side alone: what came in, less what
		// went out, is what is stored.
		c := st.Counters
		in := c.Sent + c.DeadLettered + c.RedrivenIn
		out := c.Deleted + c.Expired + c.Purged + c.MovedToDLQ + c.RedrivenOut
		if stored := int64(st.Visible + st.InFlight + st.Delayed); in-out != stored {
			t.Fatalf("Stats(%s): %d stored, but %d came in and %d went out (%+v)", q.name, stored, in, out, c)
		}
	}
	for _, q := range s.r.qs { // (a list that should be empty: see ListMoveTasks)
		if q.m != nil && slices.ContainsFunc(s.r.tasks, func(task *rdTask) bool { return task.srcArn == q.arn }) {
			s.compareTasks(t, q.arn, sqsq.Some(10))
		}
	}
}

// ---------------------------------------------------------------------------
// Driving it.

type rdProfile struct {
	name    string
	rounds  int
	weights map[string]int
}

// rdWeights registers each action under that many keys. rapid draws keys
// in sorted order with a strong bias to the first ones, so the keys are
// named to sort the clock first, and the rarer actions draw again to act.
var rdWeights = map[string]int{
	"AdvanceClock": 2, "ChangeVisibility": 1, "Churn": 2, "CreateQueue": 1,
	"Delete": 1, "DeleteAll": 1, "DeleteQueue": 1, "ListSources": 1, "Purge": 1,
	"Receive": 3, "Send": 3, "SendBatch": 2, "SetAttributes": 1, "SetPolicy": 2,
	"TaskCancel": 2, "TaskList": 1, "TaskStart": 3,
}

var rdProfiles = []rdProfile{
	// Short sequences: what rapid shrinks best.
	{name: "mixed", rounds: 1, weights: rdWeights},
	// Long ones, through many tasks, policy changes and queue lifetimes
	// (a fifth as long in the quick suite, full with SQSQ_LONG=1).
	{name: "long", rounds: testsize.Scale(5, 25), weights: rdWeights},
}

var rdSteps atomic.Int64

// rdTally sums what happened over all runs, for the log.
type rdTally struct {
	mu sync.Mutex
	m  map[string]int64
}

func (t *rdTally) add(m map[string]int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, v := range m {
		t.m[k] += v
	}
}

func (t *rdTally) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := slices.Sorted(maps.Keys(t.m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, t.m[k])
	}
	return strings.Join(parts, ", ")
}

var rdTallies = &rdTally{m: map[string]int64{}}

func (p rdProfile) run(t *rapid.T) {
	clk := &rdClock{now: dlqEpoch}
	n := 0
	limit := rapid.IntRange(3, 30).Draw(t, "inFlightLimit")
	b := sqsq.NewBroker(
		sqsq.WithClock(clk),
		sqsq.WithInFlightLimit(limit),
		sqsq.WithIDFunc(func() string { n++; return fmt.Sprintf(idFormat, n) }),
	)
	defer b.Close()
	r := &rdModel{now: clk.Now().UnixNano(), limit: limit, fates: map[string]int{}, tally: map[string]int64{}}
	s := &rdMachine{ctx: context.Background(), clk: clk, b: b, r: r, seen: map[string]bool{}}
	defer func() {
		rdSteps.Add(s.steps)
		for _, task := range r.tasks {
			r.tally["tasks ending "+task.status+" "+task.failure]++
			if task.toMove > 0 {
				r.tally["tasks with messages to move"]++
			}
			if task.moved > 0 && task.srcGen > 1 {
				r.tally["tasks on a recreated DLQ that moved"]++
			}
		}
		for fate, n := range r.fates {
			r.tally["messages "+fate] += int64(n)
		}
		r.tally["messages sent"] += int64(r.settled + len(r.open))
		rdTallies.add(r.tally)
	}()
	for i := range r.qs {
		r.qs[i] = &rdQueue{name: rdNames[i]}
	}
	// The DLQ first, so that the sources may name it from the start.
	for _, i := range []int{rdDLQ, rdA, rdB} {
		vis, delay, retention, pol := s.drawSettings(t, i)
		if pol != nil && !r.live(pol.target) {
			pol = nil
		}
		q, err := b.CreateQueue(s.ctx, sqsq.CreateQueueInput{QueueName: rdNames[i], Attributes: s.createAttrs(vis, delay, retention, pol)})
		if err != nil {
			t.Fatalf("CreateQueue(%s): %v", rdNames[i], err)
		}
		s.real[i] = q
		r.qs[i].arn, r.qs[i].url = q.ARN(), q.URL()
		if code := r.createQueue(i, vis, delay, retention, pol); code != "" {
			t.Fatalf("model CreateQueue(%s): %s", rdNames[i], code)
		}
	}
	s.prefix = r.qs[rdDLQ].arn[:len(r.qs[rdDLQ].arn)-len(rdNames[rdDLQ])]
	for i, q := range r.qs { // ARNs of queues not created yet
		if q.arn == "" {
			q.arn = s.prefix + rdNames[i]
		}
	}

	actions := map[string]func(*rapid.T){"": s.Check}
	byName := map[string]func(*rapid.T){
		"Send": s.Send, "SendBatch": s.SendBatch, "Receive": s.Receive, "Churn": s.Churn,
		"Delete": s.Delete, "DeleteAll": s.DeleteAll, "ChangeVisibility": s.ChangeVisibility,
		"Purge": s.Purge, "SetPolicy": s.SetPolicy, "SetAttributes": s.SetAttributes,
		"DeleteQueue": s.DeleteQueue, "CreateQueue": s.CreateQueue,
		"TaskStart": s.StartMoveTask, "TaskCancel": s.CancelMoveTask,
		"TaskList": s.ListMoveTasks, "ListSources": s.ListSources, "AdvanceClock": s.ClockAdvance,
	}
	for name, w := range p.weights {
		f := byName[name]
		if f == nil {
			panic("no action " + name)
		}
		counted := func(t *rapid.T) { f(t); s.steps++ }
		for i := 0; i < w; i++ {
			key := name
			if i > 0 {
				key += "#" + strconv.Itoa(i+1)
			}
			actions[key] = counted
		}
	}
	for i := 0; i < p.rounds; i++ {
		t.Repeat(actions)
	}
}

// TestModelRedrive compares three real queues — two sources sharing a
// dead-letter queue — with the model over random sequences of sends,
// receives that dead-letter, deletes, policy changes, move tasks started,
// advanced and cancelled, queues deleted and created again, and clock moves.
func TestModelRedrive(t *testing.T) {
	t.Parallel()
	start := rdSteps.Load()
	for _, p := range rdProfiles {
		before := rdSteps.Load()
		t.Run(p.name, rapid.MakeCheck(p.run))
		t.Logf("%s: %d steps", p.name, rdSteps.Load()-before)
	}
	t.Logf("redrive model steps in total: %d; %v", rdSteps.Load()-start, rdTallies)
}
