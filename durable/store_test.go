package durable

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"go.etcd.io/bbolt"
)

func TestLockSameProcess(t *testing.T) {
	t.Parallel()
	s, dir := setup(t)
	_, err := Open(dir)
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("second Open = %v; want ErrInUse", err)
	}
	want := fmt.Sprintf("durable: %s is in use by another sqsq (pid %d, this process); stop it or use another -data directory",
		filepath.Join(dir, FileName), os.Getpid())
	if err.Error() != want {
		t.Errorf("second Open = %q\nwant             %q", err, want)
	}
	// The failed Open must not have broken the first Store.
	mustSave(t, s, richWorld())
	checkWorld(t, richWorld(), mustLoad(t, s))

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir)
	if err != nil {
		t.Fatalf("Open after Close = %v", err)
	}
	defer s2.Close()
	checkWorld(t, richWorld(), mustLoad(t, s2))
}

func TestLockOtherProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := startChild(t, "hold", dir)
	_, err := Open(dir)
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("Open while a child holds the store = %v; want ErrInUse", err)
	}
	if want := fmt.Sprintf("in use by another sqsq (pid %d)", c.cmd.Process.Pid); !strings.Contains(err.Error(), want) {
		t.Errorf("Open = %q; want it to contain %q", err, want)
	}
	c.stdin.Close() // the child closes its store and exits
	if err := c.wait(t); err != nil {
		t.Fatalf("child: %v", err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatalf("Open after the child closed = %v", err)
	}
	s.Close()
}

// kill -9 releases the lock (the kernel drops a dead process's flock and
// bbolt's), and what the killed process saved is there.
func TestLockReleasedByKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := startChild(t, "hold-save", dir)
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = c.wait(t)
	s, err := Open(dir)
	if err != nil {
		t.Fatalf("Open after kill -9 = %v", err)
	}
	defer s.Close()
	checkWorld(t, richWorld(), mustLoad(t, s))
}

// writeBolt makes dir/sqsq.db with buckets of records, as another program
// or another version of sqsq would.
func writeBolt(t *testing.T, dir string, buckets map[string]map[string][]byte) string {
	t.Helper()
	path := filepath.Join(dir, FileName)
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		for name, kv := range buckets {
			b, err := tx.CreateBucket([]byte(name))
			if err != nil {
				return err
			}
			for k, v := range kv {
				if err := b.Put([]byte(k), v); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// A file of another format, or no sqsq file at all, is refused with a
// message that says what it is, and left as it was, even with Recover.
func TestFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		buckets map[string]map[string][]byte
		want    string
	}{
		{
			name: "newer format",
			buckets: map[string]map[string][]byte{bucketMeta: {
				keyFormat: formatValue(formatVersion + 1),
				keyWriter: sealRecord([]byte(keyWriter), []byte("sqsq v9.9.9")),
			}},
			want: fmt.Sprintf("is format %d; this sqsq reads format %d: use sqsq v9.9.9, which wrote it, or another -data directory",
				formatVersion+1, formatVersion),
		},
		{
			name:    "newer format, writer unknown",
			buckets: map[string]map[string][]byte{bucketMeta: {keyFormat: formatValue(formatVersion + 1)}},
			want: fmt.Sprintf("is format %d; this sqsq reads format %d: use the sqsq that wrote it or another -data directory",
				formatVersion+1, formatVersion),
		},
		{
			name:    "not a sqsq store",
			buckets: map[string]map[string][]byte{"widgets": {"w1": []byte("a widget")}},
			want:    "is not a sqsq store (it has no format record); use another -data directory",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := writeBolt(t, dir, tc.buckets)
			before := fileSum(t, path)
			for _, opts := range [][]Option{nil, {Recover()}} {
				_, err := Open(dir, opts...)
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("Open(%d options) = %v; want ErrFormat", len(opts), err)
				}
				if want := "durable: " + path + " " + tc.want; err.Error() != want {
					t.Errorf("Open = %q\nwant   %q", err, want)
				}
				if fileSum(t, path) != before {
					t.Fatal("Open changed the file")
				}
			}
			// The failed Open released the directory.
			l, _, err := lockDir(path + ".lock")
			if err != nil {
				t.Fatalf("directory still locked: %v", err)
			}
			l.unlock()
		})
	}
}

// goodFile saves richWorld twice (so both of bbolt's meta pages point at
// it) in a fresh directory and returns the file's path and bytes.
func goodFile(t testing.TB) (string, []byte) {
	t.Helper()
	s, dir := setup(t)
	mustSave(t, s, richWorld())
	mustSave(t, s, richWorld())
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

func TestRecover(t *testing.T) {
	t.Parallel()
	path, good := goodFile(t)
	dir := filepath.Dir(path)
	damagedBytes := good[:len(good)/2]
	if err := os.WriteFile(path, damagedBytes, 0o600); err != nil {
		t.Fatal(err)
	}

	s, err := Open(dir, Recover())
	if err != nil {
		t.Fatalf("Open with Recover = %v", err)
	}
	defer s.Close()
	moved, _ := filepath.Glob(path + ".damaged-*")
	if len(moved) != 1 || !regexp.MustCompile(`\.damaged-\d{8}T\d{6}Z$`).MatchString(moved[0]) {
		t.Fatalf("moved files = %q; want one sqsq.db.damaged-<UTC time>", moved)
	}
	if b, _ := os.ReadFile(moved[0]); string(b) != string(damagedBytes) {
		t.Error("the moved file is not the damaged file")
	}
	if got, want := s.Recovered(), path+" was damaged (truncated"; !strings.HasPrefix(got, want) ||
		!strings.HasSuffix(got, "; moved it to "+moved[0]+" and started empty") {
		t.Errorf("Recovered() = %q; want %q… moved it to %s and started empty", got, want, moved[0])
	}
	if w := mustLoad(t, s); w != nil {
		t.Errorf("Load after recovery = %v; want nil (empty)", w)
	}
	mustSave(t, s, richWorld())
	checkWorld(t, richWorld(), mustLoad(t, s))
	s.Close()

	t.Run("nothing to recover", func(t *testing.T) {
		s, err := Open(dir, Recover())
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if got := s.Recovered(); got != "" {
			t.Errorf("Recovered() = %q; want \"\"", got)
		}
		checkWorld(t, richWorld(), mustLoad(t, s))
	})
	t.Run("twice in one second", func(t *testing.T) {
		// A second damaged file must not replace the first one moved.
		if err := os.WriteFile(path, damagedBytes, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir, Recover())
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if moved, _ := filepath.Glob(path + ".damaged-*"); len(moved) != 2 {
			t.Errorf("moved files = %q; want two", moved)
		}
	})
}
