package sqsq

import (
	"fmt"
	"math"
	"strings"

	"github.com/sqsq/sqsq/internal/state"
)

// importTasks builds the move tasks of a saved endpoint (see export.go),
// unpublished. A task whose source queue was deleted keeps a stand-in
// for it: the deleted queue of that id and ARN, in its scope, which the
// task's listing names and its next step finds gone, as before the
// restart.
func (root *Broker) importTasks(tasks []state.Task, byID map[uint64]*Queue) ([]*moveTask, error) {
	out := make([]*moveTask, 0, len(tasks))
	gone := map[uint64]*Queue{}
	activeFor := map[*Queue]*moveTask{}
	var prev uint64
	for i := range tasks {
		st := &tasks[i]
		where := fmt.Sprintf("sqsq: import: move task %q (seq %d) of %s", st.ID, st.Seq, st.Source)
		if st.Seq <= prev {
			return nil, fmt.Errorf("%s: not after task seq %d: tasks must be in start order", where, prev)
		}
		prev = st.Seq
		var active bool
		switch st.Status {
		case MoveTaskRunning, MoveTaskCancelling:
			active = true
		case MoveTaskCancelled, MoveTaskCompleted, MoveTaskFailed:
		default:
			return nil, fmt.Errorf("%s: unknown status %q", where, st.Status)
		}
		if st.Rate < 1 || st.Rate > 500 {
			return nil, fmt.Errorf("%s: rate %d outside 1–500", where, st.Rate)
		}
		src := byID[st.SourceID]
		switch {
		case st.SourceID == 0:
			return nil, fmt.Errorf("%s: source queue id 0", where)
		case src != nil && src.arn != st.Source:
			return nil, fmt.Errorf("%s: source queue id %d is %s", where, st.SourceID, src.arn)
		case src == nil:
			src = gone[st.SourceID]
		}
		if src == nil {
			var err error
			if src, err = root.goneQueue(st.SourceID, st.Source); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			gone[st.SourceID] = src
		}
		if other := activeFor[src]; active && other != nil {
			return nil, fmt.Errorf("%s: task %q of the same source is active too", where, other.id)
		}
		t := &moveTask{
			b: src.b, id: st.ID, handle: st.Handle, seq: st.Seq,
			source: src, destArn: st.Dest, rate: st.Rate, rateSet: st.RateSet, started: st.Started,
			status: st.Status, failure: st.Failure, toMove: st.ToMove, moved: st.Moved, cancelTime: st.Cancel,
		}
		t.mu.t = t
		t.due.Store(math.MaxInt64)
		if active {
			t.active.Store(true)
			activeFor[src] = t
		}
		out = append(out, t)
	}
	return out, nil
}

// goneQueue is the stand-in for a deleted queue that a saved task names.
func (root *Broker) goneQueue(id uint64, arn string) (*Queue, error) {
	parts := strings.Split(arn, ":")
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "sqs" || parts[5] == "" ||
		!scopeName(parts[3]) || !scopeName(parts[4]) {
		return nil, fmt.Errorf("source %q is not a queue ARN", arn)
	}
	region, account := parts[3], parts[4]
	root.w.mu.Lock()
	b := root.w.members[scopeKey{account, region}]
	root.w.mu.Unlock()
	if b == nil { // a scope released since: a broker of its own, released again
		b = root.Scope(account, region)
		b.Release()
	}
	q := &Queue{b: b, id: id, name: parts[5], arn: arn, deleted: true, settings: defaultSettings()}
	q.gone.Store(true)
	return q, nil
}

// publishTasks puts the imported tasks in the world's table, as
// StartMoveTask and the steps left it: each source's history in start
// order, the active ones running, with their next steps due. Caller owns
// the endpoint (nothing else runs on it yet).
func (root *Broker) publishTasks(tasks []*moveTask, nextSeq uint64) {
	w := root.w
	w.mu.Lock()
	tt := &w.tasks
	tt.bySource = map[string][]*moveTask{}
	var running []*moveTask
	for _, t := range tasks {
		h := append(tt.bySource[t.source.arn], t)
		if len(h) > moveTaskHistory {
			h = h[len(h)-moveTaskHistory:]
		}
		tt.bySource[t.source.arn] = h
		if t.isActive() {
			running = append(running, t)
		}
		nextSeq = max(nextSeq, t.seq)
	}
	tt.running.Store(&running)
	tt.nextSeq = nextSeq
	root.runningTasks.Store(int32(len(running)))
	w.mu.Unlock()
	for _, t := range running {
		t.mu.Lock()
		t.publishDue()
		t.mu.Unlock()
	}
}
