package durable

import (
	"fmt"
	"os"
	"time"

	"go.etcd.io/bbolt"

	"github.com/sqsq/sqsq"
)

// Compact rewrites the file without its free pages. bbolt never shrinks
// its file: pages freed by deletes, or by a Save replacing a larger state,
// are reused but stay on disk. Compact copies every record into
// sqsq.db.compact, syncs it, and renames it over sqsq.db, all while the
// Store keeps the directory locked; a crash leaves either file whole, and
// the next Open removes a leftover sqsq.db.compact. If Compact fails the
// old file stays in use, unless it cannot be reopened: then the Store is
// closed and the error says so.
func (s *Store) Compact() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return ErrClosed
	}
	return s.compact()
}

// compact does Compact; s.db is open.
func (s *Store) compact() error {
	tmp := s.path + ".compact"
	_ = os.Remove(tmp)
	// No sync per transaction: one Sync at the end covers them all, and
	// until the rename the copy is nothing but a temporary file.
	opts := boltOptions(s.fileSize(), false)
	opts.NoSync = true
	dst, err := bbolt.Open(tmp, 0o600, opts)
	if err != nil {
		return fmt.Errorf("durable: compact %s: %w", s.path, err)
	}
	err = guard(func() error { return bbolt.Compact(dst, s.db, compactTxSize) })
	if err == nil {
		// bbolt.Compact commits every compactTxSize bytes, so the meta
		// page before the last names a partial copy; bbolt would fall
		// back to it if the last were damaged. One more commit makes
		// both meta pages name the whole copy.
		err = dst.Update(func(*bbolt.Tx) error { return nil })
	}
	var size int64
	if err == nil {
		err = dst.View(func(tx *bbolt.Tx) error { size = tx.Size(); return nil })
	}
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// bbolt grows a file ahead of its pages; a compacted file has
		// no use for the room.
		err = truncate(tmp, size)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("durable: compact %s: %w", s.path, err)
	}
	if err := s.db.Close(); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("durable: compact %s: %w", s.path, err)
	}
	s.db = nil
	renameErr := os.Rename(tmp, s.path)
	if renameErr != nil {
		_ = os.Remove(tmp)
	} else {
		syncDir(s.dir)
	}
	db, err := openBolt(s.path, 0, false)
	if err != nil {
		return fmt.Errorf("durable: compact %s: reopen: %w; the store is closed", s.path, err)
	}
	s.db, s.mapped = db, s.fileSize()
	if renameErr != nil {
		return fmt.Errorf("durable: compact %s: %w", s.path, renameErr)
	}
	return nil
}

// fileSize is the size of the store file, 0 if unknown.
func (s *Store) fileSize() int64 {
	info, err := os.Stat(s.path)
	if err != nil {
		return 0
	}
	return info.Size()
}

// truncate cuts the file at path to size bytes, durably.
func truncate(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Compaction while the committer writes: the file shrinks back once most
// of it is free (messages deleted, queues purged), without a restart.
const (
	// compactEvery is how often the committer looks at the free space.
	compactEvery = 10 * time.Second
	// compactLiveMax bounds the live data compacted while serving: the
	// copy holds up commits, for about 10 ms per MiB on the project's
	// machine. Larger stores compact at the next Open.
	compactLiveMax = 64 << 20
)

// idleWork writes the log into the file, cuts the log to its header, and
// compacts the file when more than two thirds of it, and at least
// compactAtOpenMin bytes, are free, and the live data is small enough to
// copy quickly.
func (s *Store) idleWork(b *sqsq.Broker) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil
	}
	if err := s.checkpoint(b); err != nil {
		return err
	}
	if err := s.wal.shrink(); err != nil {
		return err
	}
	// Live is what the pages below the high water mark hold but the free
	// ones and those freed by the last commit; bbolt grows the file ahead
	// of the mark.
	var used int64
	if err := s.view(func(tx *bbolt.Tx) error { used = tx.Size(); return nil }); err != nil {
		return err
	}
	st := s.db.Stats()
	size := s.fileSize()
	live := used - int64(st.FreeAlloc) - int64(st.PendingPageN)*int64(s.db.Info().PageSize)
	if size-live < compactAtOpenMin || live > size/3 || live > compactLiveMax {
		return nil
	}
	return s.compact()
}
