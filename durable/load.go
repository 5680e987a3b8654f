package durable

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/sqsq/sqsq/internal/state"
)

// Load reads the stored state: nil, nil if nothing was ever saved. An
// error names the record it could not read (messages/7/42 is the message
// of Seq 42 in the queue of ID 7) and matches [ErrDamaged].
func (s *Store) Load() (*state.World, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil, ErrClosed
	}
	if err := s.checkpoint(nil); err != nil { // the log's changes first
		return nil, fmt.Errorf("durable: writing the log into %s: %w", s.path, err)
	}
	var w *state.World
	err := s.view(func(tx *bbolt.Tx) error {
		var (
			jobs []msgJob
			err  error
		)
		w, jobs, err = readWorld(tx)
		for _, j := range jobs {
			if err != nil {
				break
			}
			j.q.Messages, err = readMessages(tx, j)
		}
		return err
	})
	if err != nil {
		return nil, damaged(s.path, err)
	}
	// Reading touched every page of the file's mapping, which then counts
	// in the process's memory as long as it stays mapped: a fresh mapping
	// gives them back (the kernel keeps them cached all the same).
	if err := s.db.Close(); err != nil {
		s.db = nil
		return nil, fmt.Errorf("durable: %s: %w", s.path, err)
	}
	if s.db, err = openBolt(s.path, s.mapped, false); err != nil {
		s.db = nil
		return nil, fmt.Errorf("durable: reopen %s: %w; the store is closed", s.path, err)
	}
	return w, nil
}

// decodeRecord checks the record k, v of bucket path and decodes it with fn.
func decodeRecord(path []string, k, v []byte, fn func(*dec)) error {
	if v == nil {
		return fmt.Errorf("record %s: a bucket, not a record", recordName(path, k))
	}
	body, err := openRecord(k, v)
	if err == nil {
		d := dec{s: string(body)}
		fn(&d)
		err = d.done()
	}
	if err != nil {
		return fmt.Errorf("record %s: %w", recordName(path, k), err)
	}
	return nil
}

// msgJob is a queue whose messages readWorld left to read: n of them,
// in the bucket messages/<key>.
type msgJob struct {
	q           *state.Queue
	key         []byte
	n           int
	isNil       bool
	windows     int    // the queue record's count of window entries
	windowOrder uint64 // the queue record's: above every window entry's order
}

// readWorld reads the World in tx but the messages, and returns the
// queues whose messages are to be read.
func readWorld(tx *bbolt.Tx) (*state.World, []msgJob, error) {
	meta := tx.Bucket([]byte(bucketMeta))
	if meta == nil {
		return nil, nil, errors.New("no meta bucket")
	}
	k := []byte(keyWorld)
	v := meta.Get(k)
	if v == nil {
		for _, name := range []string{bucketScopes, bucketQueues, bucketMessages, bucketTasks, bucketWindows} {
			if tx.Bucket([]byte(name)) != nil {
				return nil, nil, fmt.Errorf("no meta/world record, but a %s bucket", name)
			}
		}
		return nil, nil, nil // never saved
	}
	var h worldHead
	if err := decodeRecord([]string{bucketMeta}, k, v, func(d *dec) { h = d.world() }); err != nil {
		return nil, nil, err
	}
	w := &h.w
	var b [5]*bbolt.Bucket
	for i, name := range []string{bucketScopes, bucketQueues, bucketMessages, bucketTasks, bucketWindows} {
		if b[i] = tx.Bucket([]byte(name)); b[i] == nil {
			return nil, nil, fmt.Errorf("no %s bucket", name)
		}
	}
	scopes, queues, messages, tasks, windows := b[0], b[1], b[2], b[3], b[4]

	// Counts size slices only up to a bound: they are checked against
	// the records, not trusted.
	if !h.scopesNil {
		w.Scopes = make([]state.Scope, 0, min(h.scopes, 1<<16))
	}
	type scopeHead struct {
		key       string
		queues    int
		queuesNil bool
	}
	var heads []scopeHead
	path := []string{bucketScopes}
	rootKey := string(scopeKey(h.rootAccount, h.rootRegion))
	c := scopes.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		account, region, ok := splitScopeKey(k)
		if !ok {
			return nil, nil, fmt.Errorf("record %s: not a scope key", recordName(path, k))
		}
		var sc state.Scope
		sh := scopeHead{key: string(k)}
		if err := decodeRecord(path, k, v, func(d *dec) { sc, sh.queues, sh.queuesNil = d.scope() }); err != nil {
			return nil, nil, err
		}
		if sc.Account != account || sc.Region != region {
			return nil, nil, fmt.Errorf("record %s: holds scope %s/%s", recordName(path, k), sc.Account, sc.Region)
		}
		w.Scopes = append(w.Scopes, sc)
		heads = append(heads, sh)
		if sh.key == rootKey && len(w.Scopes) > 1 { // the root comes first
			last := len(w.Scopes) - 1
			copy(w.Scopes[1:], w.Scopes[:last])
			copy(heads[1:], heads[:last])
			w.Scopes[0], heads[0] = sc, sh
		}
	}
	if len(w.Scopes) != h.scopes {
		return nil, nil, fmt.Errorf("meta/world counts %d scopes; the scopes bucket has %d", h.scopes, len(w.Scopes))
	}
	if len(w.Scopes) > 0 && heads[0].key != rootKey {
		return nil, nil, fmt.Errorf("meta/world names scope %s/%s first; the scopes bucket has no such scope", h.rootAccount, h.rootRegion)
	}
	scopeIndex := make(map[string]int, len(heads))
	for i, sh := range heads {
		scopeIndex[sh.key] = i
	}

	// Queues are keyed by ID, so a scope's queues come in ID order.
	byScope := make([][]queueHead, len(w.Scopes))
	keys := make([][][]byte, len(w.Scopes))
	var jobs []msgJob
	path = []string{bucketQueues}
	c = queues.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 8 {
			return nil, nil, fmt.Errorf("record %s: not a queue ID", recordName(path, k))
		}
		var qh queueHead
		if err := decodeRecord(path, k, v, func(d *dec) { qh = d.queue(binary.BigEndian.Uint64(k)) }); err != nil {
			return nil, nil, err
		}
		si, ok := scopeIndex[string(scopeKey(qh.account, qh.region))]
		if !ok {
			return nil, nil, fmt.Errorf("record %s: scope %s/%s does not exist", recordName(path, k), qh.account, qh.region)
		}
		byScope[si] = append(byScope[si], qh)
		keys[si] = append(keys[si], bytes.Clone(k))
	}
	for i, qs := range byScope {
		sc, sh := &w.Scopes[i], heads[i]
		if len(qs) != sh.queues {
			return nil, nil, fmt.Errorf("record %s: counts %d queues; %d queues are in it", recordName([]string{bucketScopes}, []byte(sh.key)), sh.queues, len(qs))
		}
		if sh.queuesNil {
			continue
		}
		sc.Queues = make([]state.Queue, len(qs))
		for j := range qs {
			sc.Queues[j] = qs[j].q
			jobs = append(jobs, msgJob{q: &sc.Queues[j], key: keys[i][j], n: qs[j].messages, isNil: qs[j].messagesNil, windows: qs[j].windows, windowOrder: qs[j].windowOrder})
		}
	}
	for _, j := range jobs {
		if err := readWindows(windows, j); err != nil {
			return nil, nil, err
		}
	}
	c = windows.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if queues.Get(k) == nil {
			return nil, nil, fmt.Errorf("bucket %s: no such queue", recordName([]string{bucketWindows}, k))
		}
	}
	// A message bucket without its queue would be lost silently.
	c = messages.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if queues.Get(k) == nil {
			return nil, nil, fmt.Errorf("bucket %s: no such queue", recordName([]string{bucketMessages}, k))
		}
	}

	if !h.tasksNil {
		w.Tasks = make([]state.Task, 0, min(h.tasks, 1<<16))
	}
	path = []string{bucketTasks}
	c = tasks.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 8 {
			return nil, nil, fmt.Errorf("record %s: not a task Seq", recordName(path, k))
		}
		var t state.Task
		if err := decodeRecord(path, k, v, func(d *dec) { t = d.task() }); err != nil {
			return nil, nil, err
		}
		if t.Seq != binary.BigEndian.Uint64(k) {
			return nil, nil, fmt.Errorf("record %s: holds task Seq %d", recordName(path, k), t.Seq)
		}
		w.Tasks = append(w.Tasks, t)
	}
	if len(w.Tasks) != h.tasks {
		return nil, nil, fmt.Errorf("meta/world counts %d tasks; the tasks bucket has %d", h.tasks, len(w.Tasks))
	}
	return w, jobs, nil
}

// readWindows reads the entries of j's windows into j.q, each window in
// the order of its entries' numbers.
func readWindows(windows *bbolt.Bucket, j msgJob) error {
	wb := windows.Bucket(j.key)
	if wb == nil {
		if j.windows != 0 {
			return fmt.Errorf("queue %s counts %d window entries; it has no bucket %s", keyString(j.key), j.windows, recordName([]string{bucketWindows}, j.key))
		}
		return nil
	}
	path := []string{bucketWindows, string(j.key)}
	// Each window is in the order of its entries' numbers (the order of
	// the puts); a key is in its bucket once.
	type entry struct {
		order uint64
		win   state.Window
		d     state.Dedup   // DedupByID, DedupByPair
		a     state.Attempt // Attempts
	}
	var entries []entry
	c := wb.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) == 0 {
			return fmt.Errorf("record %s: an empty key", recordName(path, k))
		}
		key := string(k[1:])
		e := entry{win: state.Window(k[0])}
		var err error
		switch e.win {
		case state.WindowDedupByID, state.WindowDedupByPair:
			err = decodeRecord(path, k, v, func(dc *dec) { e.order, e.d = dc.dedup(key) })
		case state.WindowAttempts:
			err = decodeRecord(path, k, v, func(dc *dec) { e.order, e.a = dc.attempt(key) })
		default:
			return fmt.Errorf("record %s: unknown window %d", recordName(path, k), k[0])
		}
		if err != nil {
			return err
		}
		if e.order >= j.windowOrder {
			return fmt.Errorf("record %s: number %d; queue %s numbers its entries below %d", recordName(path, k), e.order, keyString(j.key), j.windowOrder)
		}
		entries = append(entries, e)
	}
	if len(entries) != j.windows {
		return fmt.Errorf("queue %s counts %d window entries; its bucket %s holds %d", keyString(j.key), j.windows, recordName([]string{bucketWindows}, j.key), len(entries))
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.order, b.order) })
	for _, e := range entries {
		switch e.win {
		case state.WindowDedupByID:
			j.q.DedupByID = append(j.q.DedupByID, e.d)
		case state.WindowDedupByPair:
			j.q.DedupByPair = append(j.q.DedupByPair, e.d)
		default:
			j.q.Attempts = append(j.q.Attempts, e.a)
		}
	}
	return nil
}

// checkCounts checks that each queue's bucket holds the messages its
// record counts, given the counts by bucket: Open's check, without
// reading the messages through bbolt.
func checkCounts(jobs []msgJob, counts map[string]int) error {
	for _, j := range jobs {
		n, ok := counts[string(j.key)]
		if !ok {
			return fmt.Errorf("bucket %s: missing", recordName([]string{bucketMessages}, j.key))
		}
		if n != j.n {
			return fmt.Errorf("queue %s counts %d messages; its bucket messages/%[1]s holds %d", keyString(j.key), j.n, n)
		}
	}
	return nil
}

// readMessages reads the messages of j, in Seq order. This is the loop
// that counts: it makes one allocation per message (the string its
// fields share) and one per map or binary attribute value.
func readMessages(tx *bbolt.Tx, j msgJob) ([]state.Message, error) {
	mb := tx.Bucket([]byte(bucketMessages)).Bucket(j.key)
	if mb == nil {
		return nil, fmt.Errorf("bucket %s: missing", recordName([]string{bucketMessages}, j.key))
	}
	var msgs []state.Message
	if !j.isNil {
		msgs = make([]state.Message, 0, j.n) // Open checked j.n against the records
	}
	c := mb.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 8 || v == nil {
			return nil, fmt.Errorf("record %s: not a message", recordName([]string{bucketMessages, string(j.key)}, k))
		}
		body, err := openRecord(k, v)
		if err == nil {
			msgs = append(msgs, state.Message{Seq: binary.BigEndian.Uint64(k)})
			d := dec{s: string(body)}
			d.message(&msgs[len(msgs)-1])
			err = d.done()
		}
		if err != nil {
			return nil, fmt.Errorf("record %s: %w", recordName([]string{bucketMessages, string(j.key)}, k), err)
		}
	}
	if len(msgs) != j.n {
		return nil, fmt.Errorf("queue %s counts %d messages; its bucket messages/%[1]s holds %d", keyString(j.key), j.n, len(msgs))
	}
	return msgs, nil
}
