package durable

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqsq/sqsq/internal/state"
)

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// emptied is w with every message gone.
func emptied(w *state.World) *state.World {
	for i := range w.Scopes {
		for j := range w.Scopes[i].Queues {
			w.Scopes[i].Queues[j].Messages = nil
		}
	}
	return w
}

// bbolt keeps the pages a Save frees; Compact gives them back, keeps the
// records and the lock, and leaves a Store that works.
func TestCompact(t *testing.T) {
	t.Parallel()
	s, dir := setup(t)
	path := filepath.Join(dir, FileName)
	mustSave(t, s, bigWorld(2000, 1024))
	full := fileSize(t, path)
	mustSave(t, s, emptied(bigWorld(2000, 1024)))
	if got := fileSize(t, path); got != full {
		t.Errorf("file after saving no messages = %d bytes; want %d, as bbolt never shrinks", got, full)
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	if got := fileSize(t, path); got*10 > full {
		t.Errorf("file after Compact = %d bytes; want less than a tenth of %d", got, full)
	}
	t.Logf("2000 messages of 1 KiB: %d bytes; no messages, compacted: %d bytes", full, fileSize(t, path))
	checkWorld(t, emptied(bigWorld(2000, 1024)), mustLoad(t, s))
	if _, err := Open(dir); !errors.Is(err, ErrInUse) {
		t.Errorf("Open during and after Compact = %v; want ErrInUse", err)
	}
	if _, err := os.Stat(path + ".compact"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("sqsq.db.compact left behind: %v", err)
	}

	mustSave(t, s, richWorld())
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	checkWorld(t, richWorld(), mustLoad(t, s))
	// Compact leaves both of bbolt's meta pages naming the whole copy.
	rep, err := checkFile(path)
	if err != nil || rep.badMeta {
		t.Fatalf("checkFile after Compact = %+v, %v", rep, err)
	}
	b, _ := os.ReadFile(path)
	if m0, m1 := parseMeta(b), parseMeta(b[rep.pageSize:]); m0.root != m1.root {
		t.Errorf("meta pages name roots %d and %d; want the same", m0.root, m1.root)
	}
}

// Open compacts a file that is mostly free space, and removes what a
// compaction cut short left behind.
func TestCompactAtOpen(t *testing.T) {
	t.Parallel()
	s, dir := setup(t)
	path := filepath.Join(dir, FileName)
	mustSave(t, s, bigWorld(3000, 1024))
	mustSave(t, s, richWorld())
	s.Close()
	full := fileSize(t, path)
	if err := os.WriteFile(path+".compact", []byte("a compaction cut short"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := fileSize(t, path); got*10 > full {
		t.Errorf("file after Open = %d bytes; want less than a tenth of %d", got, full)
	}
	if _, err := os.Stat(path + ".compact"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("sqsq.db.compact left behind: %v", err)
	}
	checkWorld(t, richWorld(), mustLoad(t, s))
}
