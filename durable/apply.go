package durable

import (
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"
	bberrors "go.etcd.io/bbolt/errors"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/state"
)

// shape is what a commit must know of the file besides the records it
// writes: the counts that the records of scopes, queues and the world
// hold (Load checks them), and the records those live in. A queue's
// record changes with nearly every call anyway; the count is its own.
// shape is the committer's, and guarded by Store.mu.
type shape struct {
	wroteWriter bool // meta/sqsq names this program
	head        worldHead
	scopes      map[string]*scopeShape // by scopeKey
	queues      map[uint64]*queueShape
}

type scopeShape struct {
	s      state.Scope // without its queues
	queues int
}

type queueShape struct {
	q               state.Queue // without its messages and windows; shares maps with the broker's journal
	account, region string
	messages        int
	windows         int    // entries in its windows
	windowOrder     uint64 // the number of the next window entry
}

// headerOnly is q without its messages and windows, which are records of
// their own: what a queue's record holds.
func headerOnly(q state.Queue) state.Queue {
	q.Messages, q.DedupByID, q.DedupByPair, q.Attempts = nil, nil, nil, nil
	return q
}

// read builds the shape from the file. Caller holds s.mu.
func (sh *shape) read(s *Store) error {
	return s.view(func(tx *bbolt.Tx) error {
		w, jobs, err := readWorld(tx)
		if err != nil {
			return err
		}
		if w == nil {
			return errors.New("no state")
		}
		*sh = shape{head: headOf(w), scopes: map[string]*scopeShape{}, queues: map[uint64]*queueShape{}}
		byQueue := make(map[*state.Queue]msgJob, len(jobs))
		for _, j := range jobs {
			byQueue[j.q] = j
		}
		for i := range w.Scopes {
			sc := &w.Scopes[i]
			ss := &scopeShape{s: *sc, queues: len(sc.Queues)}
			ss.s.Queues = nil
			sh.scopes[string(scopeKey(sc.Account, sc.Region))] = ss
			for j := range sc.Queues {
				q := &sc.Queues[j]
				j := byQueue[q]
				qs := &queueShape{q: headerOnly(*q), account: sc.Account, region: sc.Region, messages: j.n, windows: j.windows, windowOrder: j.windowOrder}
				sh.queues[q.ID] = qs
			}
		}
		return nil
	})
}

// logCommit makes batch durable: it appends it to the log (wal.go), and
// writes the log's changes into the file once there are enough of them,
// or they are old enough (a checkpoint). A checkpoint that fails is tried
// again later: the log keeps the changes meanwhile.
func (s *Store) logCommit(batch []state.Change, b *sqsq.Broker) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return ErrClosed
	}
	now := b.Clock().Now().UnixNano()
	if err := s.wal.append(batch, now); err != nil {
		return err
	}
	s.unapplied, s.unappliedNow = append(s.unapplied, batch), now
	if s.wal.size >= checkpointBytes || time.Since(s.checkpointed) >= checkpointEvery {
		if err := s.checkpoint(b); err != nil {
			s.log("durable: writing the log into the file (the log keeps the changes): " + err.Error())
		}
	}
	return nil
}

// Checkpoints: when the log holds checkpointBytes, or its oldest change
// is checkpointEvery old. A larger log coalesces more but takes longer to
// replay at Open, and the changes it holds stay in memory.
const (
	checkpointBytes = 16 << 20
	checkpointEvery = time.Second
)

// checkpoint writes the changes of the log into the file, and cuts the
// log. b is the broker, for the case the changes do not fit the file (see
// apply). Caller holds s.mu; s.db is open.
func (s *Store) checkpoint(b *sqsq.Broker) error {
	s.checkpointed = time.Now()
	if len(s.unapplied) == 0 {
		return nil
	}
	if err := s.applyChanges(coalesce(s.unapplied), s.unappliedNow, b); err != nil {
		return err
	}
	s.unapplied = nil
	return s.wal.reset()
}

// applyChanges writes changes in one transaction. If they do not fit the
// file (a change of a queue it does not have: a bug of the journal), it
// saves b's whole state instead, when there is a b. On failure nothing is
// written, and the shape is read again from the file. Caller holds s.mu.
func (s *Store) applyChanges(changes []*state.Change, now int64, b *sqsq.Broker) error {
	err := s.update(func(tx *bbolt.Tx) error { return s.shape.apply(tx, changes, now, s.opts.version) })
	if err == nil {
		s.shape.wroteWriter = true
		return nil
	}
	if rerr := s.shape.read(s); rerr != nil {
		return errors.Join(err, rerr)
	}
	var mis mismatch
	if !errors.As(err, &mis) || b == nil {
		return err
	}
	// The records do not fit: a lost record, which package sqsq's journal
	// tests say cannot happen. Nothing is lost yet; save everything.
	s.log(fmt.Sprintf("durable: %v; saving the whole state", err))
	w, err := state.Export(b)
	if err != nil {
		return err
	}
	if err := s.save(w); err != nil {
		return err
	}
	return s.shape.read(s)
}

// mismatch is a change that does not fit the stored state.
type mismatch string

func (m mismatch) Error() string { return string(m) }

// apply writes batch into tx, and the records of the counts it changed.
func (sh *shape) apply(tx *bbolt.Tx, batch []*state.Change, now int64, writer string) error {
	var (
		a       = arena{size: 16 << 10} // a commit holds a few calls' records
		scratch enc
	)
	record := func(key []byte, fill func(e *enc)) []byte {
		scratch = scratch[:0]
		fill(&scratch)
		return sealRecord(key, a.copy(scratch, crcSize))
	}
	meta, scopes, queues, messages, tasks, windows := tx.Bucket([]byte(bucketMeta)), tx.Bucket([]byte(bucketScopes)),
		tx.Bucket([]byte(bucketQueues)), tx.Bucket([]byte(bucketMessages)), tx.Bucket([]byte(bucketTasks)), tx.Bucket([]byte(bucketWindows))
	if meta == nil || scopes == nil || queues == nil || messages == nil || tasks == nil || windows == nil {
		return mismatch("a bucket is missing")
	}
	dirtyQueues := map[uint64]bool{}
	dirtyScopes := map[string]bool{}
	var mb *bbolt.Bucket // the messages of mbID
	var mbID uint64
	bucketOf := func(id uint64) (*bbolt.Bucket, error) {
		if mb != nil && mbID == id {
			return mb, nil
		}
		mb, mbID = messages.Bucket(a.key8(id)), id
		if mb == nil {
			return nil, mismatch(fmt.Sprintf("no messages bucket of queue %d", id))
		}
		return mb, nil
	}
	for _, c := range batch {
		switch c.Kind {
		case state.MessagePut:
			qs := sh.queues[c.QueueID]
			if qs == nil {
				return mismatch(fmt.Sprintf("message %d of unknown queue %d", c.Message.Seq, c.QueueID))
			}
			b, err := bucketOf(c.QueueID)
			if err != nil {
				return err
			}
			k := a.key8(c.Message.Seq)
			if b.Get(k) == nil {
				qs.messages++
				dirtyQueues[c.QueueID] = true
			}
			m := c.Message
			if err := b.Put(k, record(k, func(e *enc) { e.message(m) })); err != nil {
				return err
			}
		case state.MessageDelete:
			qs := sh.queues[c.QueueID]
			if qs == nil {
				return mismatch(fmt.Sprintf("delete of message %d of unknown queue %d", c.Seq, c.QueueID))
			}
			b, err := bucketOf(c.QueueID)
			if err != nil {
				return err
			}
			k := a.key8(c.Seq)
			if b.Get(k) != nil {
				if err := b.Delete(k); err != nil {
					return err
				}
				qs.messages--
				dirtyQueues[c.QueueID] = true
			}
		case state.QueuePut:
			if qs := sh.queues[c.QueueID]; qs != nil {
				qs.q = headerOnly(*c.Queue)
				dirtyQueues[c.QueueID] = true
				continue
			}
			sk := string(scopeKey(c.Account, c.Region))
			ss := sh.scopes[sk]
			if ss == nil {
				return mismatch(fmt.Sprintf("queue %d of unknown scope %s/%s", c.QueueID, c.Account, c.Region))
			}
			qs := &queueShape{q: headerOnly(*c.Queue), account: c.Account, region: c.Region}
			sh.queues[c.QueueID] = qs
			ss.queues++
			dirtyScopes[sk], dirtyQueues[c.QueueID] = true, true
			nb, err := messages.CreateBucketIfNotExists(a.key8(c.QueueID))
			if err != nil {
				return err
			}
			nb.FillPercent = 0.9 // messages come in Seq order, and leave from the front
		case state.QueueDelete:
			qs := sh.queues[c.QueueID]
			if qs == nil {
				continue
			}
			k := a.key8(c.QueueID)
			if err := messages.DeleteBucket(k); err != nil {
				return err
			}
			if mbID == c.QueueID {
				mb = nil
			}
			if err := queues.Delete(k); err != nil {
				return err
			}
			if err := windows.DeleteBucket(k); err != nil && !errors.Is(err, bberrors.ErrBucketNotFound) {
				return err
			}
			delete(sh.queues, c.QueueID)
			delete(dirtyQueues, c.QueueID)
			sk := string(scopeKey(qs.account, qs.region))
			if ss := sh.scopes[sk]; ss != nil {
				ss.queues--
				dirtyScopes[sk] = true
			}
		case state.ScopePut:
			sk := string(scopeKey(c.Scope.Account, c.Scope.Region))
			if ss := sh.scopes[sk]; ss != nil {
				ss.s = *c.Scope
				ss.s.Queues = nil
			} else {
				ss := &scopeShape{s: *c.Scope}
				ss.s.Queues = nil
				sh.scopes[sk] = ss
				sh.head.scopes++
				sh.head.scopesNil = false
			}
			dirtyScopes[sk] = true
		case state.ScopeDelete:
			sk := string(scopeKey(c.Account, c.Region))
			if sh.scopes[sk] == nil {
				continue
			}
			if err := scopes.Delete([]byte(sk)); err != nil {
				return err
			}
			delete(sh.scopes, sk)
			delete(dirtyScopes, sk)
			sh.head.scopes--
		case state.TaskPut:
			k := a.key8(c.Task.Seq)
			if tasks.Get(k) == nil {
				sh.head.tasks++
				sh.head.tasksNil = false
			}
			t := c.Task
			if err := tasks.Put(k, record(k, func(e *enc) { e.task(t) })); err != nil {
				return err
			}
		case state.TaskDelete:
			k := a.key8(c.TaskSeq)
			if tasks.Get(k) != nil {
				if err := tasks.Delete(k); err != nil {
					return err
				}
				sh.head.tasks--
			}
		case state.WindowPut, state.WindowDelete:
			qs := sh.queues[c.QueueID]
			if qs == nil {
				return mismatch(fmt.Sprintf("window entry of unknown queue %d", c.QueueID))
			}
			key, ok := c.EntryKey()
			if !ok {
				return fmt.Errorf("window entry of queue %d without a value", c.QueueID)
			}
			k := windowKey(c.Window, key)
			if c.Kind == state.WindowDelete {
				if wb := windows.Bucket(a.key8(c.QueueID)); wb != nil && wb.Get(k) != nil {
					if err := wb.Delete(k); err != nil {
						return err
					}
					qs.windows--
					dirtyQueues[c.QueueID] = true
				}
				continue
			}
			wb, err := windows.CreateBucketIfNotExists(a.key8(c.QueueID))
			if err != nil {
				return err
			}
			order := qs.windowOrder
			qs.windowOrder++
			dirtyQueues[c.QueueID] = true
			v := record(k, func(e *enc) {
				if c.Dedup != nil {
					e.dedup(order, c.Dedup)
				} else {
					e.attempt(order, c.Attempt)
				}
			})
			if wb.Get(k) == nil {
				qs.windows++
			}
			if err := wb.Put(k, v); err != nil {
				return err
			}
		case 0: // Checkpoint's
		case state.HeaderPut:
			sh.head.w.NextQueueID, sh.head.w.NextTaskSeq = c.NextQueueID, c.NextTaskSeq
		default:
			return fmt.Errorf("unknown change kind %d", c.Kind)
		}
	}
	for id := range dirtyQueues {
		qs := sh.queues[id]
		k := a.key8(id)
		if err := queues.Put(k, record(k, func(e *enc) {
			e.queue(qs.account, qs.region, &qs.q, qs.messages, qs.messages == 0, qs.windows, qs.windowOrder)
		})); err != nil {
			return err
		}
	}
	for sk := range dirtyScopes {
		ss := sh.scopes[sk]
		k := []byte(sk)
		if err := scopes.Put(k, record(k, func(e *enc) { e.scope(&ss.s, ss.queues, ss.queues == 0) })); err != nil {
			return err
		}
	}
	sh.head.w.Now = now
	k := []byte(keyWorld)
	if err := meta.Put(k, record(k, func(e *enc) { e.world(&sh.head) })); err != nil {
		return err
	}
	if !sh.wroteWriter {
		k = []byte(keyWriter)
		if err := meta.Put(k, sealRecord(k, []byte(writer))); err != nil {
			return err
		}
	}
	return nil
}
