package sqsq

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/sqsq/sqsq/internal/state"
)

// Statuses of a message move task.
const (
	MoveTaskRunning    = "RUNNING"
	MoveTaskCancelling = "CANCELLING"
	MoveTaskCancelled  = "CANCELLED"
	MoveTaskCompleted  = "COMPLETED"
	MoveTaskFailed     = "FAILED"
)

// FailureReason values of failed move tasks.
const (
	// MoveTaskNonExistentQueue: a destination queue does not exist (or no
	// longer does), or a message has no known source queue to go back to.
	MoveTaskNonExistentQueue = "AWS.SimpleQueueService.NonExistentQueue"
	// MoveTaskTimedOut: the task ran for 36 hours of clock time (sqsq's
	// name; AWS's is not documented).
	MoveTaskTimedOut = "TaskDurationExceeded"
)

const (
	moveTaskMaxDuration = 36 * time.Hour
	moveTaskDefaultRate = 500 // messages per second when the request sets none
	moveTaskMaxActive   = 100 // per account and region

	// moveTaskHistory is how many tasks are kept per source ARN: the newest,
	// which may be active, and the 10 before it. ListMessageMoveTasks lists
	// at most the 10 most recent; older ones are forgotten, so a handle of
	// one is a task that does not exist. Without a bound, a DLQ redriven
	// over and over would keep every task it ever had.
	moveTaskHistory = 11

	// moveTaskBatch bounds the backlog of other callers' tasks that one call
	// carries out: a call that finds more steps due (a task left alone while
	// the clock moved far) carries out this many, oldest first, and leaves
	// the rest to the calls on the tasks' own queues (see syncTasks).
	moveTaskBatch = 1000
)

// StartMoveTaskInput is the input of [Broker.StartMoveTask].
type StartMoveTaskInput struct {
	// SourceArn is the dead-letter queue to move messages out of.
	SourceArn string
	// DestinationArn, if set, receives every message; otherwise each message
	// goes back to the queue it was dead-lettered from.
	DestinationArn string
	// MaxNumberOfMessagesPerSecond, 1–500; unset moves at 500 per second.
	MaxNumberOfMessagesPerSecond Optional[int]
}

// MoveTask describes a message move task as ListMessageMoveTasks does.
// Fields AWS omits are zero: TaskHandle unless RUNNING, DestinationArn and
// MaxNumberOfMessagesPerSecond unless given, FailureReason unless FAILED.
type MoveTask struct {
	TaskHandle                        string
	Status                            string
	SourceArn                         string
	DestinationArn                    string
	MaxNumberOfMessagesPerSecond      Optional[int]
	ApproximateNumberOfMessagesMoved  int64
	ApproximateNumberOfMessagesToMove int64
	FailureReason                     string
	StartedTimestamp                  int64 // epoch milliseconds
}

// moveTask is a running or finished task. Lock order: moveTask.mu before
// any Queue.mu; never take it while holding a queue lock.
type moveTask struct {
	b       *Broker
	id      string
	handle  string
	seq     uint64 // start order, for newest-first listings
	source  *Queue
	destArn string
	rate    int
	rateSet bool
	started int64        // unix ns
	active  atomic.Bool  // RUNNING or CANCELLING; read without t.mu, so atomic
	due     atomic.Int64 // nextDue, for Broker.refreshTaskDue
	// lagging: a call left steps of this task due undone (see syncTasks);
	// the call that catches it up re-arms the parked receivers.
	lagging atomic.Bool

	mu         taskMutex // guards the fields below; Unlock journals (journal.go)
	status     string
	failure    string
	toMove     int64
	moved      int64
	cancelTime int64 // clock instant of CancelMoveTask

	// The task as the journal last wrote it (journal.go); jdropped: the
	// table forgot it.
	jsent    bool
	jlast    state.Task
	jdropped atomic.Bool
}

// taskTable is the move tasks of every scope of an endpoint, guarded by
// world.mu. Nothing in it grows with the number of tasks ever started: the
// history is bounded per source, and the tasks that run are listed apart,
// so bringing tasks up to date looks at running ones only.
type taskTable struct {
	// bySource holds the moveTaskHistory newest tasks of each source ARN,
	// in start order (of every incarnation of the queue, as AWS lists them).
	bySource map[string][]*moveTask
	// running lists the active tasks. The slice is replaced, never changed
	// (under world.mu), so callers holding queue locks read it without one.
	running atomic.Pointer[[]*moveTask]
	nextSeq uint64
}

// runningTasks returns the active tasks (and perhaps some that have just
// finished). The slice must not be changed.
func (tt *taskTable) runningTasks() []*moveTask {
	if p := tt.running.Load(); p != nil {
		return *p
	}
	return nil
}

// add records a started task as running and as the newest of its source,
// forgetting the source's oldest beyond moveTaskHistory. Caller holds
// world.mu.
func (tt *taskTable) add(w *world, t *moveTask) {
	tt.nextSeq++
	t.seq = tt.nextSeq
	if tt.bySource == nil {
		tt.bySource = map[string][]*moveTask{}
	}
	h := append(tt.bySource[t.source.arn], t)
	if len(h) > moveTaskHistory { // shift in place: the array stays this small
		for _, old := range h[:len(h)-moveTaskHistory] {
			w.journalTaskDropped(old)
		}
		n := copy(h, h[len(h)-moveTaskHistory:])
		clear(h[n:])
		h = h[:n]
	}
	tt.bySource[t.source.arn] = h
	old := tt.runningTasks()
	running := make([]*moveTask, len(old), len(old)+1)
	copy(running, old)
	running = append(running, t)
	tt.running.Store(&running)
}

// drop removes a finished task from the running ones. Caller holds
// world.mu.
func (tt *taskTable) drop(t *moveTask) {
	old := tt.runningTasks()
	running := make([]*moveTask, 0, len(old))
	for _, o := range old {
		if o != t {
			running = append(running, o)
		}
	}
	tt.running.Store(&running)
}

// StartMoveTask starts moving the available messages of a dead-letter queue
// back to their source queues, or to DestinationArn (StartMessageMoveTask).
// The task runs on the broker's clock: it moves the first message at once
// and then MaxNumberOfMessagesPerSecond messages per second of clock time,
// oldest first, each as a new message (new MessageId, retention restarting).
// It returns the task handle while the task is RUNNING. Errors: a missing
// source or destination is ResourceNotFoundException; a source that is no
// queue's dead-letter queue, a second active task for the source, a rate
// outside 1–500 or a destination of the other queue type is
// InvalidParameterValue.
func (b *Broker) StartMoveTask(ctx context.Context, in StartMoveTaskInput) (string, error) {
	if b.closed() {
		return "", ErrClosed
	}
	rate, rateSet := in.MaxNumberOfMessagesPerSecond.Get()
	if rateSet && (rate < 1 || rate > 500) {
		return "", invalidValue("MaxNumberOfMessagesPerSecond", rate, "The value must be between 1 and 500.")
	}
	if !rateSet {
		rate = moveTaskDefaultRate
	}
	// The source's tasks first: whether one is still active, and how many
	// messages the source has.
	b.syncTasks(in.SourceArn)
	// Source and destination may be queues of other accounts or regions of
	// the endpoint (see Scope); the task belongs to the source's.
	src := b.queueByARN(in.SourceArn)
	var dst *Queue
	if in.DestinationArn != "" {
		dst = b.queueByARN(in.DestinationArn)
	}
	w := b.w
	active, busy := b.activeTasks(src)
	if busy {
		return "", newError(CodeInvalidParameterValue, "There is already a task running. Only one active task is allowed for a source queue arn at a given time.")
	}
	if active >= moveTaskMaxActive {
		// Some may have ended by now, as tasks of other queues, left
		// behind (see syncTasks): bring them all up to date to count.
		var arns []string
		for _, t := range w.tasks.runningTasks() {
			if t.isActive() && t.source.sameScope(src) {
				arns = append(arns, t.source.arn)
			}
		}
		b.syncTasks(arns...)
		active, _ = b.activeTasks(src)
	}
	switch {
	case src == nil:
		return "", newError(CodeResourceNotFound, "The resource that you specified for the SourceArn parameter doesn't exist.")
	case len(b.sourcesOf(src.arn)) == 0:
		return "", newError(CodeInvalidParameterValue, "Source queue must be configured as a Dead Letter Queue.")
	case in.DestinationArn != "" && dst == nil:
		return "", newError(CodeResourceNotFound, "The resource that you specified for the DestinationArn parameter doesn't exist.")
	case dst != nil && dst.fifo != src.fifo:
		return "", invalidValue("DestinationArn", in.DestinationArn, "The destination queue must be of the same type as the source queue.")
	case active >= moveTaskMaxActive:
		return "", newError(CodeInvalidParameterValue, "You have reached the limit of %d active message move tasks.", moveTaskMaxActive)
	}

	now, err := src.lock()
	if err != nil {
		return "", newError(CodeResourceNotFound, "The resource that you specified for the SourceArn parameter doesn't exist.")
	}
	toMove := int64(src.nAvail)
	src.mu.Unlock()

	id := b.ids()
	handleJSON, _ := json.Marshal(struct {
		TaskID    string `json:"taskId"`
		SourceArn string `json:"sourceArn"`
	}{id, src.arn})
	t := &moveTask{
		b: src.b, id: id, handle: base64.StdEncoding.EncodeToString(handleJSON),
		source: src, destArn: in.DestinationArn, rate: rate, rateSet: rateSet,
		started: now, status: MoveTaskRunning, toMove: toMove,
	}
	t.mu.t = t
	t.due.Store(t.dueAt(0)) // a refresh may see t before publishDue below
	w.mu.Lock()
	for _, other := range w.tasks.runningTasks() { // lost a race with another start?
		if other.source == src && other.isActive() {
			w.mu.Unlock()
			return "", newError(CodeInvalidParameterValue, "There is already a task running. Only one active task is allowed for a source queue arn at a given time.")
		}
	}
	t.active.Store(true)
	w.tasks.add(w, t)
	if w.jr != nil {
		w.jr.header(w, now, w.tasks.nextSeq)
	}
	b.runningTasks.Add(1)
	// taskDue never runs late (syncTasks trusts it to skip): t's first
	// step counts from now, not from the publishDue below.
	b.taskDue.Store(min(b.taskDue.Load(), t.due.Load()))
	w.mu.Unlock()
	t.mu.Lock()
	t.publishDue()
	t.mu.Unlock()
	// Receivers parked on a destination must wake for the task's first step.
	b.rearmReceivers(t.dueAt(0))
	return t.handle, nil
}

// activeTasks counts the active tasks of src's account and region, and
// reports whether one of them is src's.
func (b *Broker) activeTasks(src *Queue) (n int, busy bool) {
	if src == nil {
		return 0, false
	}
	for _, t := range b.w.tasks.runningTasks() {
		if t.isActive() {
			busy = busy || t.source == src
			if t.source.sameScope(src) {
				n++
			}
		}
	}
	return n, busy
}

// publishDue records the task's next step for parked receivers, which wake
// at the earliest step of any task (see nextTaskStep): no goroutine runs a
// task, every call brings tasks up to date first (syncTasks). Caller holds
// t.mu.
func (t *moveTask) publishDue() {
	next, ok := t.nextDue()
	if !ok {
		next = math.MaxInt64
	}
	t.due.Store(next)
	t.b.refreshTaskDue()
}

// refreshTaskDue recomputes the earliest step of all running tasks, of
// every scope of the endpoint. It stores under the world's mu, so the last
// store reflects every task's latest due: a minimum computed earlier,
// stored late, would hold a step as due that has been carried out, and
// callers of tasksDue would catch up forever.
func (b *Broker) refreshTaskDue() {
	b.w.mu.Lock()
	defer b.w.mu.Unlock()
	due := int64(math.MaxInt64)
	for _, t := range b.w.tasks.runningTasks() {
		if t.isActive() {
			due = min(due, t.due.Load())
		}
	}
	b.taskDue.Store(due)
}

// tasksDue reports whether a move task that may touch the queues named arns
// (see ownTasks) has a step due by now that has not been carried out. An
// operation reads its instant under its lock, after syncTasks ran without
// it; a step that fell due while it waited for the lock must come first,
// so the caller unlocks, runs syncTasks and reads the clock again. Each
// pass carries out the steps due by then, so this ends. Steps of other
// queues' tasks left behind do not count: they are not the caller's to
// wait for. It takes no lock.
func (b *Broker) tasksDue(now int64, arns ...string) bool {
	if b.runningTasks.Load() == 0 || b.taskDue.Load() > now {
		return false
	}
	for _, t := range ownTasks(b.w.tasks.runningTasks(), arns) {
		if t.due.Load() <= now {
			return true
		}
	}
	return false
}

// nextTaskStep is the earliest instant after now at which a running task
// has a step due: a parked receiver wakes then, as a task may move a
// message to its queue and nothing runs a task but calls. Steps due by now,
// of tasks left behind, are not waited for (tasksDue says whether the
// receiver's own are). It takes no lock.
func (b *Broker) nextTaskStep(now int64) int64 {
	if due := b.taskDue.Load(); due > now {
		return due
	}
	next := int64(math.MaxInt64)
	for _, t := range b.w.tasks.runningTasks() {
		if d := t.due.Load(); d > now && d < next && t.isActive() {
			next = d
		}
	}
	return next
}

// ownTasks returns the running tasks that a call on the queues named arns
// must bring up to date before it looks at them: those that may move
// messages out of or into one of them and, because the steps of tasks that
// share a queue must run in time order, those that share a queue with
// those, and so on. Tasks of unrelated queues are left out. It takes no
// lock.
func ownTasks(running []*moveTask, arns []string) []*moveTask {
	if len(arns) == 0 {
		return nil
	}
	var own []*moveTask
	var queues []string
	touched := slices.Clip(arns) // grows: never into the caller's array
	for grew := true; grew; {
		grew = false
		for _, t := range running {
			if !t.isActive() || slices.Contains(own, t) {
				continue
			}
			queues = t.appendQueues(queues[:0])
			if !slices.ContainsFunc(queues, func(q string) bool { return slices.Contains(touched, q) }) {
				continue
			}
			own = append(own, t)
			touched = append(touched, queues...)
			grew = true
		}
	}
	return own
}

// appendQueues appends the ARNs of the queues t may touch: its source, and
// its destination or, without one, every queue that has dead-lettered into
// the source (the sources its messages may go back to).
func (t *moveTask) appendQueues(dst []string) []string {
	dst = append(dst, t.source.arn)
	if t.destArn != "" {
		return append(dst, t.destArn)
	}
	return append(dst, t.source.deadLetterSources()...)
}

// noteDeadLetterSource records that the queue with ARN src has moved a
// message to q, its dead-letter queue: a move task of q without a
// destination may move messages back to it (see ownTasks). The list only
// grows, by one entry per source queue. Caller holds q.mu.
func (q *Queue) noteDeadLetterSource(src string) {
	old := q.deadLetterSources()
	if slices.Contains(old, src) {
		return
	}
	next := append(slices.Clip(old), src)
	q.dlSources.Store(&next)
}

// deadLetterSources returns the ARNs of the queues that have dead-lettered
// into q. The slice must not be changed. It takes no lock.
func (q *Queue) deadLetterSources() []string {
	if p := q.dlSources.Load(); p != nil {
		return *p
	}
	return nil
}

// rearmReceivers moves the timers of the parked receivers of every queue,
// of every scope (a task may move messages into another account's queue),
// that are armed for later than at to at. They stay parked.
func (b *Broker) rearmReceivers(at int64) {
	for _, q := range b.w.allQueues() {
		q.mu.Lock()
		// Read under q.mu, as the waiters' own timers were armed: an instant
		// read before the lock may predate a clock move, and a timer set
		// for at-now from it rings late by that move.
		var now int64
		if len(q.waiters) > 0 {
			now = b.clock.Now().UnixNano()
		}
		for w := range q.waiters {
			switch {
			case at <= now:
				q.wakeOne(w) // due already: a timer armed for now may only ring on the next move
			case w.until > at:
				w.until = at
				w.timer.Reset(time.Duration(at - now))
			}
		}
		q.mu.Unlock()
	}
}

func (t *moveTask) isActive() bool { return t.active.Load() }

// nextDue is the clock instant of the task's next step: its next message,
// or the end of its time. Caller holds t.mu.
func (t *moveTask) nextDue() (int64, bool) {
	switch t.status {
	case MoveTaskRunning:
		if t.moved >= t.toMove {
			return t.started, true // nothing (left) to move: done at once
		}
		return min(t.dueAt(t.moved), t.started+int64(moveTaskMaxDuration)), true
	case MoveTaskCancelling:
		return t.cancelTime + 1, true
	}
	return 0, false
}

// syncTasks brings the running move tasks up to the clock's now. It is
// called at the start of every operation, with no queue lock held, so that
// progress is visible to the very next call after the clock moves; arns
// name the queues the operation is about. Steps run in time order across
// tasks, each as of its own due instant, so the outcome does not depend on
// which calls happened in between. The tasks of every scope of the
// endpoint run, whichever broker is called: a task moves messages between
// queues of different accounts or regions.
//
// No call pays for more than a slice of other callers' work: it carries
// out at most moveTaskBatch steps in all, and beyond that only the steps of
// its own tasks (ownTasks of arns), the tasks that may move messages out of
// or into its queues. Those it carries out to the end, so what it sees of
// its queues, and a listing sees of a task, is exact. The tasks left behind
// touch none of its queues (ownTasks follows every shared queue), so
// running them later, each step still as of its own instant, gives what
// running them now would; a later call carries on with them. The order in
// which messages get their ids and observers hear of the moves across such
// unrelated queues is the only trace of it.
func (b *Broker) syncTasks(arns ...string) {
	if b.runningTasks.Load() == 0 {
		return
	}
	now := b.clock.Now().UnixNano()
	if b.taskDue.Load() > now { // no step due (taskDue never runs late)
		return
	}
	running := b.w.tasks.runningTasks()
	for budget := moveTaskBatch; ; budget-- {
		next := dueFirst(running, now)
		if next == nil {
			b.noteLag(running, now)
			return
		}
		if budget == 0 {
			break
		}
		next.step(now)
	}
	own := ownTasks(running, arns)
	for next := dueFirst(own, now); next != nil; next = dueFirst(own, now) {
		next.step(now)
	}
	b.noteLag(running, now)
}

// dueFirst returns the task whose next step is the earliest due by now, if
// one is.
func dueFirst(tasks []*moveTask, now int64) *moveTask {
	var next *moveTask
	best := int64(math.MaxInt64)
	for _, t := range tasks {
		if d := t.due.Load(); d <= now && d < best {
			best, next = d, t
		}
	}
	return next
}

// noteLag marks the tasks syncTasks left behind with steps due by now, and
// re-arms the parked receivers for the next step of those it caught up: a
// receiver that parked while a task lagged did not arm its timer for that
// task (see nextTaskStep), which, caught up, steps on time again and may
// move messages to the receiver's queue. Caller holds no queue lock.
func (b *Broker) noteLag(running []*moveTask, now int64) {
	rearm := int64(math.MaxInt64)
	for _, t := range running {
		switch d := t.due.Load(); {
		case !t.isActive():
		case d <= now:
			t.lagging.Store(true)
		case t.lagging.Load() && t.lagging.CompareAndSwap(true, false):
			rearm = min(rearm, d)
		}
	}
	if rearm != math.MaxInt64 {
		b.rearmReceivers(rearm)
	}
}

// step carries out the task's next step if it is due by now, as of the
// instant it is due: one message moved, or the status settled.
func (t *moveTask) step(now int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.publishDue()
	at, ok := t.nextDue()
	if !ok || at > now {
		return
	}
	switch t.status {
	case MoveTaskCancelling:
		t.finish(MoveTaskCancelled, "")
		return
	case MoveTaskRunning:
	default:
		return
	}
	if t.moved >= t.toMove {
		t.finish(MoveTaskCompleted, "")
		return
	}
	if at < t.dueAt(t.moved) { // the 36-hour limit came first
		t.finish(MoveTaskFailed, MoveTaskTimedOut)
		return
	}
	for {
		moved, failure, done := t.moveOne(at)
		switch {
		case failure != "":
			t.finish(MoveTaskFailed, failure)
		case done:
			t.finish(MoveTaskCompleted, "")
		case moved: // counted by moveOne
			if t.moved >= t.toMove {
				t.finish(MoveTaskCompleted, "")
			}
		default:
			continue // the source changed while unlocked: look again
		}
		return
	}
}

// dueAt is the clock instant the task moves its k-th message (from 0): the
// first one as soon as the clock moves past the start, then one every
// 1/rate seconds, so k messages take (k-1)/rate seconds (4 at 1/s: 3 s, as
// recorded on AWS).
func (t *moveTask) dueAt(k int64) int64 {
	return t.started + max(1, k*int64(time.Second)/int64(t.rate))
}

// finish ends the task. Caller holds t.mu.
func (t *moveTask) finish(status, failure string) {
	t.status, t.failure = status, failure
	if t.active.CompareAndSwap(true, false) {
		w := t.b.w
		w.mu.Lock()
		w.tasks.drop(t)
		w.mu.Unlock()
		t.b.runningTasks.Add(-1)
	}
}

// moveOne moves the oldest available message of the source to its
// destination as a new message, as of the instant at. done reports that the
// source has nothing left to move; failure ends the task.
func (t *moveTask) moveOne(at int64) (moved bool, failure string, done bool) {
	src := t.source
	src.mu.Lock()
	if src.deleted {
		src.mu.Unlock()
		return false, MoveTaskNonExistentQueue, false
	}
	src.advance(at)
	m := src.nextMovable()
	if m == nil {
		src.mu.Unlock()
		return false, "", true
	}
	destArn := t.destArn
	if destArn == "" && m.ext != nil {
		destArn = m.ext.dlqSource
	}
	src.mu.Unlock()
	if destArn == "" {
		return false, MoveTaskNonExistentQueue, false
	}
	t.b.mu.Lock()
	dst := t.b.queueByARNLocked(destArn)
	t.b.mu.Unlock()
	if dst == nil || dst == src {
		return false, MoveTaskNonExistentQueue, false
	}
	first, second := src, dst
	if dst.id < src.id {
		first, second = dst, src
	}
	first.mu.Lock()
	second.mu.Lock()
	pairJournal(src, dst)
	defer first.mu.Unlock()
	defer second.mu.Unlock()
	if dst.deleted || src.deleted {
		return false, MoveTaskNonExistentQueue, false
	}
	src.advance(at)
	dst.advance(at)
	if src.nextMovable() != m { // changed while unlocked: try again
		return false, "", false
	}
	ev := src.redriveTo(m, dst, at)
	// Counted before the observer, the user's code, is told of the move:
	// should it panic, the move is whole and counted.
	t.moved++
	if o := src.b.cfg.observer; o != nil {
		o.Observe(ev)
	}
	return true, "", false
}

// nextMovable is the message a move task takes next: the one a receive would
// return first. Caller holds q.mu.
func (q *Queue) nextMovable() *message {
	if q.fifo {
		for {
			e, ok := q.f.availGroups.Peek()
			if !ok {
				return nil
			}
			g := e.Val
			if e.Gen == g.gen && g.head < len(g.msgs) && g.msgs[g.head].state == stateAvailable {
				return g.msgs[g.head]
			}
			q.f.availGroups.Pop()
		}
	}
	for {
		e, ok := q.avail.Peek()
		if !ok {
			return nil
		}
		if e.Gen == e.Val.gen && e.Val.state == stateAvailable {
			return e.Val
		}
		q.avail.Pop()
	}
}

// redriveTo moves m to dst as a new message as of the instant at: new
// MessageId, enqueued at at, never received, subject to dst's delay; body,
// attributes and FIFO group and deduplication ids kept (§8.2). It returns
// the observer's event of the move. Caller holds q.mu and dst.mu.
func (q *Queue) redriveTo(m *message, dst *Queue, at int64) Event {
	nm := &message{id: q.b.ids(), body: m.body, sentAt: at / int64(time.Millisecond)}
	nm.md5.p.Store(m.md5.p.Load())
	if ext := dst.extFor(m); ext.attrs != nil || ext.sysAttrs != nil || ext.groupID != "" {
		ext.dlqSource = ""
		nm.ext = &ext
	}
	q.remove(m)
	q.counters.RedrivenOut++
	dst.store(nm, at, dst.settings.delay)
	dst.counters.RedrivenIn++
	dst.wakeFor(nm)
	ev := q.event(EventRedriven, at)
	ev.MessageID, ev.Body, ev.SentAt = m.id, m.body, time.UnixMilli(m.sentAt)
	ev.Destination, ev.NewMessageID = dst.name, nm.id
	return ev
}

// ListMoveTasks lists the most recent move tasks of a source queue, newest
// first (ListMessageMoveTasks). maxResults is 1–10, default 1. The tasks of
// every queue that had the ARN count; the broker keeps the 11 most recent.
func (b *Broker) ListMoveTasks(ctx context.Context, sourceArn string, maxResults Optional[int]) ([]MoveTask, error) {
	if b.closed() {
		return nil, ErrClosed
	}
	n := maxResults.Or(1)
	if n < 1 || n > 10 {
		return nil, invalidValue("MaxResults", n, "MaxResults must be an integer between 1 and 10.")
	}
	b.syncTasks(sourceArn)
	src := b.queueByARN(sourceArn)
	if src == nil {
		return nil, newError(CodeResourceNotFound, "The resource that you specified for the SourceArn parameter doesn't exist.")
	}
	b.w.mu.Lock()
	tasks := slices.Clone(b.w.tasks.bySource[sourceArn]) // in start order
	b.w.mu.Unlock()
	slices.Reverse(tasks)
	if len(tasks) > n {
		tasks = tasks[:n]
	}
	out := make([]MoveTask, 0, len(tasks))
	for _, t := range tasks {
		out = append(out, t.describe())
	}
	return out, nil
}

func (t *moveTask) describe() MoveTask {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := MoveTask{
		Status:                            t.status,
		SourceArn:                         t.source.arn,
		DestinationArn:                    t.destArn,
		ApproximateNumberOfMessagesMoved:  t.moved,
		ApproximateNumberOfMessagesToMove: t.toMove,
		StartedTimestamp:                  t.started / int64(time.Millisecond),
	}
	if t.status == MoveTaskRunning {
		d.TaskHandle = t.handle
	}
	if t.rateSet {
		d.MaxNumberOfMessagesPerSecond = Some(t.rate)
	}
	if t.status == MoveTaskFailed {
		d.FailureReason = t.failure
	}
	return d
}

// CancelMoveTask cancels a running move task (CancelMessageMoveTask) and
// returns how many messages it had moved; moved messages stay moved. The
// task reads CANCELLING until the clock moves on, then CANCELLED. Errors:
// InvalidParameterValue for a malformed handle or a task not RUNNING,
// ResourceNotFoundException for an unknown source queue or task (a task
// older than the 11 most recent of its source is forgotten).
func (b *Broker) CancelMoveTask(ctx context.Context, taskHandle string) (int64, error) {
	if b.closed() {
		return 0, ErrClosed
	}
	var h struct {
		TaskID    string `json:"taskId"`
		SourceArn string `json:"sourceArn"`
	}
	raw, err := base64.StdEncoding.DecodeString(taskHandle)
	if err != nil || json.Unmarshal(raw, &h) != nil || h.TaskID == "" || h.SourceArn == "" {
		return 0, newError(CodeInvalidParameterValue, "Value for parameter TaskHandle is invalid.")
	}
	b.syncTasks(h.SourceArn)
	src := b.queueByARN(h.SourceArn)
	var task *moveTask
	b.w.mu.Lock()
	for _, t := range b.w.tasks.bySource[h.SourceArn] { // a task forgotten is one that does not exist
		if t.id == h.TaskID {
			task = t
		}
	}
	b.w.mu.Unlock()
	switch {
	case src == nil:
		return 0, newError(CodeResourceNotFound, "The resource that you specified for the SourceArn parameter doesn't exist.")
	case task == nil:
		return 0, newError(CodeResourceNotFound, "Task does not exist.")
	}
	task.mu.Lock()
	// The cancel's instant, read under task.mu, which orders it against
	// the task's steps; a step due by then is carried out first.
	now := b.clock.Now().UnixNano()
	for b.tasksDue(now, h.SourceArn) {
		task.mu.Unlock()
		b.syncTasks(h.SourceArn) // may panic in the user's Observer, with task.mu not held
		task.mu.Lock()
		now = b.clock.Now().UnixNano()
	}
	defer task.mu.Unlock() // only now: a deferred unlock of a mutex not held is fatal
	if task.status != MoveTaskRunning {
		return 0, invalidValue("TaskHandle", taskHandle, "Only a task in the RUNNING status can be cancelled.")
	}
	task.status = MoveTaskCancelling
	task.cancelTime = now
	task.publishDue()
	return task.moved, nil
}
