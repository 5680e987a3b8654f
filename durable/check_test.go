package durable

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqsq/sqsq/internal/state"
	"github.com/sqsq/sqsq/internal/testsize"
)

// damageWorld is richWorld with one more queue, big enough for branch
// pages; with the 70 kB message's overflow pages and the small queues'
// inline buckets, its file has every kind of bbolt page.
func damageWorld() *state.World {
	w := richWorld()
	q := state.Queue{ID: 11, Name: "many"}
	for i := range 400 {
		q.Messages = append(q.Messages, state.Message{ID: fmt.Sprint("many-", i), Body: strings.Repeat("m", 100), Seq: uint64(i + 1)})
	}
	w.Scopes[0].Queues = append(w.Scopes[0].Queues, q)
	return w
}

// compactFile saves w in a fresh directory and compacts the file, so
// that each record is in it once and both meta pages name the same
// commit; it returns the file's path and bytes.
func compactFile(t testing.TB, w *state.World) (string, []byte) {
	t.Helper()
	s, dir := setup(t)
	mustSave(t, s, w)
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// openDamaged writes b as the store file of a fresh directory and opens
// it. It fails the test unless Open either reports ErrDamaged with the
// full message, leaving the file as it was, or opens a store that loads
// want. It returns Open's error.
func openDamaged(t *testing.T, b []byte, want *state.World) error {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		prefix, suffix := "durable: "+path+" is damaged: ", "; start with -data-recover to move it aside and start empty"
		if !errors.Is(err, ErrDamaged) || !strings.HasPrefix(err.Error(), prefix) || !strings.HasSuffix(err.Error(), suffix) {
			t.Fatalf("Open = %v; want ErrDamaged: %q…%q", err, prefix, suffix)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
			t.Fatal("Open changed the damaged file")
		}
		return err
	}
	defer s.Close()
	checkWorld(t, want, mustLoad(t, s))
	return nil
}

func TestDamagedTruncated(t *testing.T) {
	t.Parallel()
	path, good := compactFile(t, damageWorld())
	rep, err := checkFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps, used := rep.pageSize, int(rep.pages)*rep.pageSize
	t.Logf("file: %d bytes, %d pages of %d in use or free", len(good), rep.pages, ps)
	for _, tc := range []struct {
		cut  int
		want string // in the error; "" for no error
		why  string
	}{
		{1, "truncated to 1 bytes", "not even a page header"},
		{100, "truncated to 100 bytes", "half of the first meta page"},
		{ps - 1, "truncated to", "the first meta page is there, but the second is cut"},
		{ps, "truncated to", "one meta page only"},
		{2 * ps, "truncated: its pages need", "both meta pages, no data"},
		{used / 2, "truncated: its pages need", "half the pages"},
		{used - ps, "truncated: its pages need", "one page short"},
		{used - 1, "truncated: its pages need", "one byte short"},
		{used, "", "bbolt grows its file ahead: what lies past the last page is unused"},
	} {
		t.Run(fmt.Sprint(tc.cut), func(t *testing.T) {
			err := openDamaged(t, good[:tc.cut], damageWorld())
			if got := fmt.Sprint(err); (tc.want == "") != (err == nil) || !strings.Contains(got, tc.want) {
				t.Errorf("Open of the file cut at %d = %v; want %q (%s)", tc.cut, err, tc.want, tc.why)
			}
		})
	}
}

// pageOf returns the offset of the page holding the first s in b.
func pageOf(t *testing.T, b []byte, s string, ps int) int {
	t.Helper()
	i := bytes.Index(b, []byte(s))
	if i < 0 || bytes.Index(b[i+1:], []byte(s)) >= 0 {
		t.Fatalf("%q is not in the file exactly once", s)
	}
	return i / ps * ps
}

func TestDamagedFlipped(t *testing.T) {
	t.Parallel()
	path, good := compactFile(t, damageWorld())
	rep, err := checkFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps := rep.pageSize
	msgID := "0b2a1c4e-0000-4000-8000-000000000001" // messages/7/1
	at := bytes.Index(good, []byte(msgID))
	leaf := pageOf(t, good, "many-200", ps) // a leaf page without overflow
	var branch int                          // the first branch page
	for off := 2 * ps; off < len(good); off += ps {
		if ne.Uint16(good[off+8:]) == flagBranch && ne.Uint64(good[off:]) == uint64(off/ps) {
			branch = off
			break
		}
	}
	if branch == 0 {
		t.Fatal("no branch page in the file")
	}
	// The store writes no freelist (bbolt's NoFreelistSync: writing it
	// at every commit cost most of a commit once many pages were free),
	// so a compacted file has no free page to flip.
	for _, tc := range []struct {
		name string
		at   []int  // bytes to flip
		want string // in the error; "" for no error
		why  string
	}{
		{"first meta page", []int{16}, "", "bbolt uses the other meta page, which names the same commit"},
		{"second meta page", []int{ps + 72}, "", "the same, for a bad checksum"},
		{"both meta pages", []int{16, ps + 16}, "both bbolt meta pages are invalid", "nothing says where the data is"},
		{"message body", []int{bytes.Index(good, []byte("hello"))}, "record messages/7/1: checksum mismatch", "bbolt has no checksum of its own for values"},
		{"message ID", []int{at}, "record messages/7/1: checksum mismatch", "the same"},
		{"message key", []int{at - 2}, "record messages/7/0: checksum mismatch", "the checksum covers the key: Seq 1 became 0"},
		{"page id", []int{leaf}, "says it is page", "a page that is not where its parent points"},
		{"page type", []int{leaf + 8}, "not a branch or leaf page", "an unknown page type"},
		{"element count", []int{leaf + 11}, "elements do not fit", "more elements than the page holds"},
		{"branch pointer", []int{branch + pageHeaderSize + 8}, "page", "a child pointer to another page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(good)
			for _, i := range tc.at {
				b[i] ^= 0x01
			}
			err := openDamaged(t, b, damageWorld())
			if got := fmt.Sprint(err); (tc.want == "") != (err == nil) || !strings.Contains(got, tc.want) {
				t.Errorf("Open = %v; want %q (%s)", err, tc.want, tc.why)
			}
		})
	}
}

// Random damage never crashes or hangs Open, and either is reported or
// loads what was saved.
func TestDamagedRandom(t *testing.T) {
	t.Parallel()
	_, good := compactFile(t, damageWorld())
	rng := rand.New(rand.NewPCG(1, 2))
	n := testsize.Scale(60, 300)
	damaged := 0
	for range n {
		b := bytes.Clone(good)
		flips := 1 + rng.IntN(8)
		for range flips {
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
		}
		if err := openDamaged(t, b, damageWorld()); err != nil {
			damaged++
		}
	}
	t.Logf("%d of %d damaged files reported, the rest loaded whole (damage in free or unused bytes)", damaged, n)
}

// FuzzOpenDamaged flips one byte of a good file. Its corpus (below, and
// no more without -fuzz) hits every page's header, elements and middle.
func FuzzOpenDamaged(f *testing.F) {
	path, good := compactFile(f, damageWorld())
	rep, err := checkFile(path)
	if err != nil {
		f.Fatal(err)
	}
	ps := rep.pageSize
	offsets := []int{0, 8, 10, 12, 16, 20, 24, 32, 40, 72, ps / 2, ps - 1}
	if !testsize.Long() {
		offsets = []int{0, 10, 16, ps / 2}
	}
	for page := range len(good) / ps {
		for _, off := range offsets {
			f.Add(uint32(page*ps+off), byte(0x01))
		}
	}
	f.Add(uint32(3*ps+17), byte(0xff))
	f.Fuzz(func(t *testing.T, at uint32, xor byte) {
		b := bytes.Clone(good)
		b[int(at)%len(b)] ^= max(xor, 1)
		_ = openDamaged(t, b, damageWorld())
	})
}
