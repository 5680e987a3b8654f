//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package durable

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// dirLock is an exclusive flock on dir/sqsq.db.lock, which holds the pid
// of its owner. The kernel drops it when the owner exits, however it
// exits. It guards the whole directory, so a compaction or a recovery can
// close and rename sqsq.db without letting anyone in.
type dirLock struct{ f *os.File }

// lockDir takes the lock or, if another Store holds it, returns the
// owner's pid (0 if unknown) and errLocked.
//
// A lock held with no pid in the file has just been let go: its owner
// emptied the file, and a process this one forked holds a copy of the
// descriptor until it execs. lockDir tries again for a moment then.
func lockDir(path string) (*dirLock, int, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, 0, err
	}
	for deadline := time.Now().Add(time.Second); ; time.Sleep(10 * time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		pid := 0
		if errors.Is(err, syscall.EWOULDBLOCK) {
			var b [32]byte
			n, _ := f.ReadAt(b[:], 0)
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b[:n])))
			if pid == 0 && time.Now().Before(deadline) {
				continue
			}
			err = errLocked
		}
		f.Close()
		return nil, pid, err
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dirLock{f: f}, 0, nil
}

// unlock empties the pid and releases the lock. The file stays: removing
// it would let two processes lock two different files of the same name.
func (l *dirLock) unlock() error {
	_ = l.f.Truncate(0)
	return l.f.Close()
}
