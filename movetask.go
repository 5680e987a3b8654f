package sqsq

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"
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
	active  atomic.Bool  // RUNNING or CANCELLING; read under world.mu, so atomic
	due     atomic.Int64 // nextDue, for Broker.refreshTaskDue

	mu         sync.Mutex // guards the fields below
	status     string
	failure    string
	toMove     int64
	moved      int64
	cancelTime int64 // clock instant of CancelMoveTask
}

// taskTable is the move tasks of every scope of an endpoint, guarded by
// world.mu.
type taskTable struct {
	all     []*moveTask
	nextSeq uint64
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
	b.syncTasks()
	// Source and destination may be queues of other accounts or regions of
	// the endpoint (see Scope); the task belongs to the source's.
	src := b.queueByARN(in.SourceArn)
	var dst *Queue
	if in.DestinationArn != "" {
		dst = b.queueByARN(in.DestinationArn)
	}
	w := b.w
	active := 0 // of the source's account and region
	w.mu.Lock()
	for _, t := range w.tasks.all {
		if t.isActive() {
			if t.source == src {
				w.mu.Unlock()
				return "", newError(CodeInvalidParameterValue, "There is already a task running. Only one active task is allowed for a source queue arn at a given time.")
			}
			if src != nil && t.source.sameScope(src) {
				active++
			}
		}
	}
	w.mu.Unlock()
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
	t.due.Store(t.dueAt(0)) // a refresh may see t before publishDue below
	w.mu.Lock()
	for _, other := range w.tasks.all { // lost a race with another start?
		if other.source == src && other.isActive() {
			w.mu.Unlock()
			return "", newError(CodeInvalidParameterValue, "There is already a task running. Only one active task is allowed for a source queue arn at a given time.")
		}
	}
	w.tasks.nextSeq++
	t.seq = w.tasks.nextSeq
	t.active.Store(true)
	w.tasks.all = append(w.tasks.all, t)
	b.runningTasks.Add(1)
	w.mu.Unlock()
	t.mu.Lock()
	t.publishDue()
	t.mu.Unlock()
	// Receivers parked on a destination must wake for the task's first step.
	b.rearmReceivers(t.dueAt(0))
	return t.handle, nil
}

// publishDue records the task's next step for parked receivers, which wake
// at the earliest step of any task (see longPoll): no goroutine runs a task,
// every call brings tasks up to date first (syncTasks). Caller holds t.mu.
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
	for _, t := range b.w.tasks.all {
		if t.isActive() {
			due = min(due, t.due.Load())
		}
	}
	b.taskDue.Store(due)
}

// tasksDue reports whether a move task has a step due by now that has not
// been carried out. An operation reads its instant under its lock, after
// syncTasks ran without it; a step that fell due while it waited for the
// lock must come first, so the caller unlocks, runs syncTasks and reads the
// clock again. Each pass carries out the steps due by then, so this ends.
func (b *Broker) tasksDue(now int64) bool {
	return b.runningTasks.Load() > 0 && b.taskDue.Load() <= now
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

// syncTasks brings every running move task up to the clock's now. It is
// called at the start of every operation, with no queue lock held, so that
// progress is visible to the very next call after the clock moves. Steps
// run in time order across tasks, each as of its own due instant, so the
// outcome does not depend on which calls happened in between. The tasks of
// every scope of the endpoint run, whichever broker is called: a task moves
// messages between queues of different accounts or regions.
func (b *Broker) syncTasks() {
	if b.runningTasks.Load() == 0 {
		return
	}
	now := b.clock.Now().UnixNano()
	b.w.mu.Lock()
	var active []*moveTask
	for _, t := range b.w.tasks.all {
		if t.isActive() {
			active = append(active, t)
		}
	}
	b.w.mu.Unlock()
	for {
		var next *moveTask
		best := int64(math.MaxInt64)
		for _, t := range active {
			if d := t.due.Load(); d <= now && d < best {
				best, next = d, t
			}
		}
		if next == nil {
			return
		}
		next.step(now)
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
		case moved:
			t.moved++
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
	src.redriveTo(m, dst, at)
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
// attributes and FIFO group and deduplication ids kept (§8.2). Caller holds
// q.mu and dst.mu.
func (q *Queue) redriveTo(m *message, dst *Queue, at int64) {
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
	if o := q.b.cfg.observer; o != nil {
		o.Observe(Event{Kind: EventRedriven, At: time.Unix(0, at), Queue: q.name, MessageID: m.id, Body: m.body,
			SentAt: time.UnixMilli(m.sentAt), Destination: dst.name, NewMessageID: nm.id})
	}
	dst.wakeFor(nm)
}

// ListMoveTasks lists the most recent move tasks of a source queue, newest
// first (ListMessageMoveTasks). maxResults is 1–10, default 1.
func (b *Broker) ListMoveTasks(ctx context.Context, sourceArn string, maxResults Optional[int]) ([]MoveTask, error) {
	if b.closed() {
		return nil, ErrClosed
	}
	n := maxResults.Or(1)
	if n < 1 || n > 10 {
		return nil, invalidValue("MaxResults", n, "MaxResults must be an integer between 1 and 10.")
	}
	b.syncTasks()
	src := b.queueByARN(sourceArn)
	if src == nil {
		return nil, newError(CodeResourceNotFound, "The resource that you specified for the SourceArn parameter doesn't exist.")
	}
	var tasks []*moveTask
	b.w.mu.Lock()
	for _, t := range b.w.tasks.all {
		if t.source.arn == sourceArn {
			tasks = append(tasks, t)
		}
	}
	b.w.mu.Unlock()
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].seq > tasks[j].seq })
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
// ResourceNotFoundException for an unknown source queue or task.
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
	b.syncTasks()
	src := b.queueByARN(h.SourceArn)
	var task *moveTask
	b.w.mu.Lock()
	for _, t := range b.w.tasks.all {
		if t.id == h.TaskID && t.source.arn == h.SourceArn {
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
	defer task.mu.Unlock()
	// The cancel's instant, read under task.mu, which orders it against
	// the task's steps; a step due by then is carried out first.
	now := b.clock.Now().UnixNano()
	for b.tasksDue(now) {
		task.mu.Unlock()
		b.syncTasks()
		task.mu.Lock()
		now = b.clock.Now().UnixNano()
	}
	if task.status != MoveTaskRunning {
		return 0, invalidValue("TaskHandle", taskHandle, "Only a task in the RUNNING status can be cancelled.")
	}
	task.status = MoveTaskCancelling
	task.cancelTime = now
	task.publishDue()
	return task.moved, nil
}
