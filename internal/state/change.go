package state

import (
	"cmp"
	"fmt"
	"slices"
)

// Journal is set by package sqsq when it is initialised, like Export and
// Import: Journal(f) returns a sqsq.Option (as any) that makes a broker's
// endpoint call f with each change of its state, under the locks of the
// change, before the call that made it answers. Package durable will use
// it to make an acknowledged call durable without a public API for it.
//
// f must not block for long and must not call the broker: it runs under
// queue and scope locks. Each Change is f's to keep, but read-only: a
// record may share its maps with the records before it. The Changes
// slice of a Group is not: the broker reuses it once f returns, so f
// copies the Changes it keeps.
var Journal func(f func(Change)) any

// Kind says which member of a [Change] is set.
type Kind uint8

// Change kinds.
const (
	// MessagePut stores Message (whole) in queue QueueID, replacing the
	// message of the same Seq or adding it in Seq order.
	MessagePut Kind = iota + 1
	// MessageDelete removes message Seq from queue QueueID.
	MessageDelete
	// QueuePut stores Queue without its messages and windows
	// (Queue.Messages, DedupByID, DedupByPair and Attempts are ignored;
	// the stored ones are kept) in scope Account/Region. A queue changes
	// its counters and settings together, so one record of the small
	// per-queue state is simpler and as cheap as a record per field.
	QueuePut
	// QueueDelete removes queue QueueID and its messages.
	QueueDelete
	// ScopePut stores Scope without its queues (Scope.Queues is ignored).
	ScopePut
	// ScopeDelete removes scope Account/Region, which holds no queue
	// (Broker.Release).
	ScopeDelete
	// TaskPut stores Task, replacing the task of the same Seq.
	TaskPut
	// TaskDelete removes the task numbered TaskSeq.
	TaskDelete
	// HeaderPut sets World.Now, NextQueueID and NextTaskSeq.
	HeaderPut
	// WindowPut stores an entry of window Window of queue QueueID: Dedup
	// (DedupByID, DedupByPair) or Attempt (Attempts), replacing the entry
	// of the same key, which moves to the end. A window is in expiry
	// order, which is the order of the puts: every entry of a window
	// lasts as long.
	WindowPut
	// WindowDelete removes the entry Key of window Window of queue
	// QueueID.
	WindowDelete
	// Group is Changes, which a store must write together or not at all:
	// a move between two queues.
	Group
)

// Window names one of a FIFO queue's windows, in a WindowPut or a
// WindowDelete.
type Window uint8

// The windows.
const (
	WindowDedupByID Window = iota + 1
	WindowDedupByPair
	WindowAttempts
)

// Change is one change of a [World]: a tagged union, plain data, so that
// a store can write it as it is. Kind says which fields mean something.
// Applying a broker's changes, in the order its journal received them, to
// the World it last exported gives the World it would export now (see
// [Apply]).
type Change struct {
	Kind            Kind
	Account, Region string // QueuePut, ScopePut
	QueueID         uint64 // MessagePut, MessageDelete, QueuePut, QueueDelete
	Seq             uint64 // MessageDelete
	TaskSeq         uint64 // TaskDelete
	Message         *Message
	Queue           *Queue
	Scope           *Scope
	Task            *Task
	// Group
	Changes []Change
	// WindowPut, WindowDelete
	Window  Window
	Key     string // WindowDelete
	Dedup   *Dedup
	Attempt *Attempt
	// HeaderPut
	Now                      int64
	NextQueueID, NextTaskSeq uint64
}

// Apply applies cs to w in order. It fails, leaving w partly changed, on a
// change that names a queue or scope w does not have: that is a journal
// that lost a record, and a store must then save a whole World again.
func Apply(w *World, cs []Change) error {
	for i := range cs {
		if err := apply(w, &cs[i]); err != nil {
			return fmt.Errorf("state: change %d: %w", i, err)
		}
	}
	return nil
}

func apply(w *World, c *Change) error {
	switch c.Kind {
	case MessagePut:
		q := findQueue(w, c.QueueID)
		if q == nil {
			return fmt.Errorf("message %d of unknown queue %d", c.Message.Seq, c.QueueID)
		}
		i, found := slices.BinarySearchFunc(q.Messages, c.Message.Seq, func(m Message, s uint64) int { return cmp.Compare(m.Seq, s) })
		if found {
			q.Messages[i] = *c.Message
		} else {
			q.Messages = slices.Insert(q.Messages, i, *c.Message)
		}
	case MessageDelete:
		q := findQueue(w, c.QueueID)
		if q == nil {
			return fmt.Errorf("delete of message %d of unknown queue %d", c.Seq, c.QueueID)
		}
		i, found := slices.BinarySearchFunc(q.Messages, c.Seq, func(m Message, s uint64) int { return cmp.Compare(m.Seq, s) })
		if found {
			q.Messages = slices.Delete(q.Messages, i, i+1)
		}
		if len(q.Messages) == 0 {
			q.Messages = nil
		}
	case QueuePut:
		nq := *c.Queue
		if q := findQueue(w, c.QueueID); q != nil {
			nq.Messages, nq.DedupByID, nq.DedupByPair, nq.Attempts = q.Messages, q.DedupByID, q.DedupByPair, q.Attempts
			*q = nq
			return nil
		}
		s := findScope(w, c.Account, c.Region)
		if s == nil {
			return fmt.Errorf("queue %d of unknown scope %s/%s", c.QueueID, c.Account, c.Region)
		}
		nq.Messages, nq.DedupByID, nq.DedupByPair, nq.Attempts = nil, nil, nil, nil
		i, _ := slices.BinarySearchFunc(s.Queues, nq.ID, func(q Queue, id uint64) int { return cmp.Compare(q.ID, id) })
		s.Queues = slices.Insert(s.Queues, i, nq)
	case QueueDelete:
		for si := range w.Scopes {
			s := &w.Scopes[si]
			s.Queues = slices.DeleteFunc(s.Queues, func(q Queue) bool { return q.ID == c.QueueID })
			if len(s.Queues) == 0 {
				s.Queues = nil
			}
		}
	case ScopePut:
		ns := *c.Scope
		if s := findScope(w, ns.Account, ns.Region); s != nil {
			ns.Queues = s.Queues
			*s = ns
			return nil
		}
		ns.Queues = nil
		// The first scope is the root; the others follow by account and
		// region, as Export orders them.
		i := len(w.Scopes)
		for j := 1; j < len(w.Scopes); j++ {
			if c := cmp.Or(cmp.Compare(w.Scopes[j].Account, ns.Account), cmp.Compare(w.Scopes[j].Region, ns.Region)); c > 0 {
				i = j
				break
			}
		}
		w.Scopes = slices.Insert(w.Scopes, i, ns)
	case ScopeDelete:
		w.Scopes = slices.DeleteFunc(w.Scopes, func(s Scope) bool { return s.Account == c.Account && s.Region == c.Region })
	case TaskPut:
		i, found := slices.BinarySearchFunc(w.Tasks, c.Task.Seq, func(t Task, s uint64) int { return cmp.Compare(t.Seq, s) })
		if found {
			w.Tasks[i] = *c.Task
		} else {
			w.Tasks = slices.Insert(w.Tasks, i, *c.Task)
		}
	case TaskDelete:
		w.Tasks = slices.DeleteFunc(w.Tasks, func(t Task) bool { return t.Seq == c.TaskSeq }) // never nil: Export's is not
	case HeaderPut:
		w.Now, w.NextQueueID, w.NextTaskSeq = c.Now, c.NextQueueID, c.NextTaskSeq
	case Group:
		for i := range c.Changes {
			if err := apply(w, &c.Changes[i]); err != nil {
				return err
			}
		}
	case WindowPut, WindowDelete:
		q := findQueue(w, c.QueueID)
		if q == nil {
			return fmt.Errorf("window entry of unknown queue %d", c.QueueID)
		}
		return applyWindow(q, c)
	default:
		return fmt.Errorf("unknown kind %d", c.Kind)
	}
	return nil
}

func findQueue(w *World, id uint64) *Queue {
	for si := range w.Scopes {
		s := &w.Scopes[si]
		for qi := range s.Queues {
			if s.Queues[qi].ID == id {
				return &s.Queues[qi]
			}
		}
	}
	return nil
}

func findScope(w *World, account, region string) *Scope {
	for i := range w.Scopes {
		if w.Scopes[i].Account == account && w.Scopes[i].Region == region {
			return &w.Scopes[i]
		}
	}
	return nil
}

// EntryKey is the key of the window entry a WindowPut or WindowDelete
// sets: Key, Dedup.Key or Attempt.ID. ok is false for a WindowPut without
// a value.
func (c *Change) EntryKey() (key string, ok bool) {
	switch {
	case c.Kind == WindowDelete:
		return c.Key, true
	case c.Dedup != nil:
		return c.Dedup.Key, true
	case c.Attempt != nil:
		return c.Attempt.ID, true
	}
	return "", false
}

// applyWindow applies a WindowPut or WindowDelete to q.
func applyWindow(q *Queue, c *Change) error {
	key, ok := c.EntryKey()
	if !ok {
		return fmt.Errorf("window entry of queue %d without a value", c.QueueID)
	}
	switch c.Window {
	case WindowDedupByID, WindowDedupByPair:
		ds := &q.DedupByID
		if c.Window == WindowDedupByPair {
			ds = &q.DedupByPair
		}
		*ds = slices.DeleteFunc(*ds, func(d Dedup) bool { return d.Key == key })
		if c.Kind == WindowPut {
			*ds = append(*ds, *c.Dedup)
		}
		if len(*ds) == 0 {
			*ds = nil
		}
	case WindowAttempts:
		q.Attempts = slices.DeleteFunc(q.Attempts, func(a Attempt) bool { return a.ID == key })
		if c.Kind == WindowPut {
			q.Attempts = append(q.Attempts, *c.Attempt)
		}
		if len(q.Attempts) == 0 {
			q.Attempts = nil
		}
	default:
		return fmt.Errorf("unknown window %d", c.Window)
	}
	return nil
}
