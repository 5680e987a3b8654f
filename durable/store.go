package durable

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"go.etcd.io/bbolt"
	bberrors "go.etcd.io/bbolt/errors"

	"github.com/sqsq/sqsq/internal/state"
)

// FileName is the name of the store file in its directory.
const FileName = "sqsq.db"

// The format this package writes and reads: the version of package state.
// A change to the encoding here changes state.Version too.
const formatVersion = state.Version

const (
	// lockTimeout bounds the wait for bbolt's lock on sqsq.db. The
	// directory lock is taken first and fails at once, so bbolt waits only
	// when something that is not sqsq (the bbolt tool, say) has the file,
	// or for a moment after a Close under load: 100 ms once proved too
	// short on a loaded machine (a reopen refused as "in use").
	lockTimeout = 2 * time.Second
	// compactTxSize is how many bytes Compact copies per transaction.
	compactTxSize = 64 << 20
	// compactAtOpenMin is how many bytes Open must win before it compacts.
	compactAtOpenMin = 1 << 20
	// remapMin is the smallest mapping Save grows before it writes.
	remapMin = 4 << 20
	// maxMapSize bounds what Save asks bbolt to map ahead (1 TiB: address
	// space, not memory).
	maxMapSize = 1 << 40
)

// Bucket and key names. The package doc describes the layout.
const (
	bucketMeta     = "meta"
	bucketScopes   = "scopes"
	bucketQueues   = "queues"
	bucketMessages = "messages"
	bucketTasks    = "tasks"
	bucketWindows  = "windows"
	keyFormat      = "format"
	keyWriter      = "sqsq"
	keyWorld       = "world"
)

// Errors that Open, Save and Load wrap, for [errors.Is]. The errors
// themselves say what happened and what to do.
var (
	// ErrInUse: another Store (in this or another process) has the
	// directory.
	ErrInUse = errors.New("durable: store in use")
	// ErrFormat: the file is of another format version, or not a sqsq
	// store at all. The file is left as it is.
	ErrFormat = errors.New("durable: unsupported format")
	// ErrDamaged: the file is truncated or corrupt. Open with [Recover]
	// moves it aside.
	ErrDamaged = errors.New("durable: store damaged")
	// ErrClosed: the Store was closed.
	ErrClosed = errors.New("durable: store closed")
)

var errLocked = errors.New("locked")

// storeError is an error with its own message that matches one of the
// sentinels above.
type storeError struct {
	kind error
	msg  string
	err  error // the cause, if any
}

func (e *storeError) Error() string        { return e.msg }
func (e *storeError) Is(target error) bool { return target == e.kind }
func (e *storeError) Unwrap() error        { return e.err }

// damagedLog is damaged for the log, which Recover moves aside without
// emptying the store.
func damagedLog(path string, cause error) error {
	return &storeError{
		kind: ErrDamaged,
		msg:  fmt.Sprintf("durable: %s is damaged: %v; start with -data-recover to move it aside, losing the changes it holds", path, cause),
		err:  cause,
	}
}

func damaged(path string, cause error) error {
	return &storeError{
		kind: ErrDamaged,
		msg:  fmt.Sprintf("durable: %s is damaged: %v; start with -data-recover to move it aside and start empty", path, cause),
		err:  cause,
	}
}

// An Option configures [Open].
type Option interface{ apply(*options) }

type options struct {
	recover     bool
	version     string
	commitEvery time.Duration
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// Recover makes Open move a damaged file aside, to
// sqsq.db.damaged-<UTC time>, and start with an empty store, instead of
// failing with [ErrDamaged]. [Store.Recovered] says what it moved. A file
// of another format is never moved.
func Recover() Option { return optionFunc(func(o *options) { o.recover = true }) }

// Version is the version of the program using the store, such as
// "sqsq v1.2.0". Save records it, and an error about the format of a file
// names the version that wrote it.
func Version(v string) Option { return optionFunc(func(o *options) { o.version = v }) }

// Store is a directory holding one endpoint's state in a bbolt file. It
// is safe for concurrent use; its methods run one at a time. While it is
// open, no other Store, in this process or another, can open the same
// directory.
type Store struct {
	mu        sync.Mutex
	dir, path string
	opts      options
	lock      *dirLock
	db        *bbolt.DB // nil once closed
	mapped    int64     // bytes of the file bbolt maps, at least
	recovered string
	c         *committer // the changes to write (Journal, Attach, Sync)
	shape     shape      // the committer's picture of the file
	// The log (wal.go) and the changes in it not yet in the file, commit
	// by commit: one slice of them all would be copied again and again as
	// it grows, some 8 µs per message at 16 workers (measured).
	wal          *wal
	unapplied    [][]state.Change
	unappliedNow int64
	checkpointed time.Time
}

// Open opens the store in dir, creating dir and an empty store if needed.
//
// It fails at once with [ErrInUse] if another Store has the directory,
// with [ErrFormat] if the file is of another format version (leaving it
// untouched), and with [ErrDamaged] if the file is truncated or corrupt,
// unless [Recover] is given. Before it opens the file with bbolt, Open
// reads every page and every record of it, so a damaged file is reported
// here, never by a crash or a hang, and a Store that opened loads.
//
// When more than two thirds of the file are free space (bbolt never
// shrinks its file), Open compacts it, as [Store.Compact] does.
func Open(dir string, opts ...Option) (*Store, error) {
	s := &Store{dir: dir, path: filepath.Join(dir, FileName)}
	for _, o := range opts {
		o.apply(&s.opts)
	}
	s.c = newCommitter(s)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	lock, pid, err := lockDir(s.path + ".lock")
	if errors.Is(err, errLocked) {
		return nil, s.inUse(pid)
	}
	if err != nil {
		return nil, fmt.Errorf("durable: lock %s: %w", s.dir, err)
	}
	s.lock = lock
	if err := s.open(); err != nil {
		_ = lock.unlock()
		return nil, err
	}
	if err := s.openLog(); err != nil {
		_ = s.db.Close()
		_ = lock.unlock()
		return nil, err
	}
	return s, nil
}

// openLog opens the log and writes the changes it holds, left by a crash,
// into the file. A damaged log (a whole frame that does not decode, or
// changes that do not fit the file) is an error naming it, or with Recover
// is moved aside, losing its changes.
func (s *Store) openLog() error {
	path := filepath.Join(s.dir, walName)
	err := s.replayLog(path)
	if errors.Is(err, ErrDamaged) && s.opts.recover {
		if s.wal != nil {
			_ = s.wal.close()
			s.wal = nil
		}
		to := path + ".damaged-" + time.Now().UTC().Format("20060102T150405Z")
		if rerr := os.Rename(path, to); rerr != nil {
			return fmt.Errorf("%w; and it could not be moved aside: %v", err, rerr)
		}
		syncDir(s.dir)
		s.note(fmt.Sprintf("%v; moved it to %s: the changes it held are lost", err, to))
		err = s.replayLog(path)
	}
	if err != nil && s.wal != nil {
		_ = s.wal.close()
		s.wal = nil
	}
	return err
}

// replayLog opens the log at path as s.wal and writes its changes into
// the file.
func (s *Store) replayLog(path string) error {
	w, changes, now, note, err := openWAL(path)
	if err != nil {
		return err
	}
	s.wal = w
	s.checkpointed = time.Now()
	if note != "" {
		s.note(note)
	}
	if len(changes) == 0 {
		return nil
	}
	if err := s.shape.read(s); err != nil {
		return damagedLog(path, fmt.Errorf("it holds changes of a store %s has not: %w", s.path, err))
	}
	if err := s.applyChanges(coalesce([][]state.Change{changes}), now, nil); err != nil {
		var mis mismatch
		if errors.As(err, &mis) {
			return damagedLog(path, err)
		}
		return fmt.Errorf("durable: writing %s into %s: %w", path, s.path, err)
	}
	return s.wal.reset()
}

// note adds to what Recovered says.
func (s *Store) note(msg string) {
	if s.recovered != "" {
		s.recovered += "; "
	}
	s.recovered += msg
}

func (s *Store) inUse(pid int) error {
	who := "another process"
	switch pid {
	case 0:
	case os.Getpid():
		who = fmt.Sprintf("pid %d, this process", pid)
	default:
		who = fmt.Sprintf("pid %d", pid)
	}
	return &storeError{
		kind: ErrInUse,
		msg:  fmt.Sprintf("durable: %s is in use by another sqsq (%s); stop it or use another -data directory", s.path, who),
	}
}

// open opens the file, moving it aside first if it is damaged and
// Recover is on, and compacts it if it is mostly free space. The
// directory is locked.
func (s *Store) open() error {
	_ = os.Remove(s.path + ".compact") // left by a compaction that did not finish
	rep, err := s.openChecked()
	var d damage
	if errors.As(err, &d) {
		if !s.opts.recover {
			return damaged(s.path, err)
		}
		if err := s.moveAside(d); err != nil {
			return err
		}
		rep, err = s.openChecked() // no file now: a new store
	}
	if err != nil {
		return err
	}
	// A Save writes the new state beside the old, whose pages are free
	// only after the commit: half free is the steady state of a store
	// saved again and again, and compacting it would only make the next
	// Save grow the file again. Two thirds free is a store that shrank.
	if live := int64(rep.pages-rep.free) * int64(rep.pageSize); rep.size-live >= compactAtOpenMin && live < rep.size/3 {
		if err := s.compact(); err != nil {
			if s.db != nil {
				_ = s.db.Close()
				s.db = nil
			}
			return err
		}
	}
	return nil
}

// openChecked checks the file, opens it with bbolt, and checks that its
// records make a World: after it, Load fails only if this package has a
// bug. A damaged file is a damage error. s.db is set only on success.
func (s *Store) openChecked() (fileReport, error) {
	rep, err := checkFile(s.path)
	var d damage
	if errors.As(err, &d) {
		return rep, err
	}
	if err != nil {
		return rep, fmt.Errorf("durable: read %s: %w", s.path, err)
	}
	if !rep.empty {
		switch {
		case rep.format == 0:
			return rep, &storeError{kind: ErrFormat, msg: fmt.Sprintf(
				"durable: %s is not a sqsq store (it has no format record); use another -data directory", s.path)}
		case rep.format != formatVersion:
			by := "the sqsq that wrote it"
			if rep.writer != "" {
				by = rep.writer + ", which wrote it,"
			}
			return rep, &storeError{kind: ErrFormat, msg: fmt.Sprintf(
				"durable: %s is format %d; this sqsq reads format %d: use %s or another -data directory",
				s.path, rep.format, formatVersion, by)}
		}
	}
	if rep.badRecord != nil {
		return rep, rep.badRecord
	}
	if rep.badMeta {
		s.recovered = fmt.Sprintf("%s: one of bbolt's two meta pages was invalid (a crash during a commit, or damage); "+
			"opened the commit the other names, which is the one before the last if the bad page was the last", s.path)
	}

	db, err := openBolt(s.path, 0, true)
	if errors.Is(err, bberrors.ErrTimeout) {
		return rep, s.inUse(0)
	}
	if err != nil {
		// checkFile read the file as bbolt does; this is a second line.
		return rep, damage(err.Error())
	}
	if rep.empty {
		err = guard(func() error {
			return db.Update(func(tx *bbolt.Tx) error {
				b, err := tx.CreateBucketIfNotExists([]byte(bucketMeta))
				if err == nil {
					err = b.Put([]byte(keyFormat), formatValue(formatVersion))
				}
				return err
			})
		})
		if err != nil {
			_ = db.Close()
			return rep, fmt.Errorf("durable: initialise %s: %w", s.path, err)
		}
	} else {
		// Every record has its checksum; what is left is a record or a
		// bucket that is missing altogether (a page's element count
		// flipped, say). readWorld reads all but the messages, which
		// checkFile counted.
		err = guard(func() error {
			return db.View(func(tx *bbolt.Tx) error {
				_, jobs, err := readWorld(tx)
				if err == nil {
					err = checkCounts(jobs, rep.messages)
				}
				return err
			})
		})
		if err != nil {
			_ = db.Close()
			return rep, damage(err.Error())
		}
	}
	s.db, s.mapped = db, rep.size
	return rep, nil
}

// moveAside renames a damaged file to sqsq.db.damaged-<UTC time>.
func (s *Store) moveAside(why damage) error {
	base := s.path + ".damaged-" + time.Now().UTC().Format("20060102T150405Z")
	to := base
	for i := 1; ; i++ {
		if _, err := os.Lstat(to); errors.Is(err, os.ErrNotExist) {
			break
		}
		to = fmt.Sprintf("%s-%d", base, i)
	}
	if err := os.Rename(s.path, to); err != nil {
		return fmt.Errorf("durable: %s is damaged (%v) and could not be moved aside: %w", s.path, why, err)
	}
	// The log holds changes of the damaged file: it goes with it.
	wal := filepath.Join(s.dir, walName)
	if data, err := os.ReadFile(wal); err == nil && logEmpty(data) {
		_ = os.Remove(wal) // nothing in it
	} else if !errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(wal, to+".wal"); err != nil {
			return fmt.Errorf("durable: %s is damaged (%v); its log %s could not be moved aside: %w", s.path, why, wal, err)
		}
	}
	syncDir(s.dir)
	s.recovered = fmt.Sprintf("%s was damaged (%v); moved it to %s and started empty", s.path, why, to)
	return nil
}

// Recovered says what Open recovered from, or "" if nothing: a damaged
// file moved aside ("dir/sqsq.db was damaged (…); moved it to … and
// started empty"), or one of bbolt's two meta pages found invalid. bbolt
// commits by writing one meta page, alternately the first and the second,
// so a crash during a commit leaves the newest one torn and the other
// naming the commit before: bbolt opens that one, and so the Store may
// hold the state of the Save before the last. A caller should log it.
func (s *Store) Recovered() string { return s.recovered }

// Path is the store file, dir/sqsq.db.
func (s *Store) Path() string { return s.path }

// Close writes the changes reported so far (see [Store.Attach]), closes
// the file and releases the directory. Changes reported after are
// dropped. Closing a closed Store does nothing.
func (s *Store) Close() error {
	s.c.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return nil
	}
	var err error
	if s.wal != nil {
		if s.db != nil {
			err = s.checkpoint(nil) // a failure leaves the log, which the next Open writes
			if err == nil {
				err = s.wal.shrink()
			}
		}
		if cerr := s.wal.close(); err == nil {
			err = cerr
		}
		s.wal = nil
	}
	if s.db != nil {
		if cerr := s.db.Close(); err == nil {
			err = cerr
		}
		s.db = nil
	}
	if uerr := s.lock.unlock(); err == nil {
		err = uerr
	}
	s.lock = nil
	return err
}

// openBolt opens path with bbolt, mapping at least mapSize bytes.
func openBolt(path string, mapSize int64, populate bool) (db *bbolt.DB, err error) {
	err = guard(func() error {
		var err error
		db, err = bbolt.Open(path, 0o600, boltOptions(mapSize, populate))
		return err
	})
	return db, err
}

// populate reads the whole file into the mapping at once, for a Load;
// after it, pages are read as bbolt needs them, so that the file does not
// stay resident in the process's memory.
func boltOptions(mapSize int64, populate bool) *bbolt.Options {
	o := &bbolt.Options{Timeout: lockTimeout, InitialMmapSize: int(min(mapSize, maxMapSize)), NoFreelistSync: true, FreelistType: bbolt.FreelistMapType}
	if populate {
		o.MmapFlags = mmapFlags
	}
	return o
}

// guard runs fn, turning a panic, or a memory fault in bbolt's mapping of
// the file, into an error. bbolt trusts its file; checkFile makes that
// trust safe, and guard is for what it cannot foresee.
func guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bbolt: %v", r)
		}
	}()
	return fn()
}

func (s *Store) update(fn func(*bbolt.Tx) error) error {
	return guard(func() error { return s.db.Update(fn) })
}

func (s *Store) view(fn func(*bbolt.Tx) error) error {
	return guard(func() error { return s.db.View(fn) })
}

// log reports what a caller cannot be told by an error: a commit of the
// committer that failed at Close, a journal that did not fit the file.
func (s *Store) log(msg string) { slog.Default().Error(msg, "data", s.dir) }

// syncDir makes a rename in dir durable. Errors are ignored: some
// systems cannot sync a directory, and the rename itself succeeded.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
