//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package durable

// dirLock does nothing here: bbolt's own lock on sqsq.db (held while the
// file is open) is the only guard, and an error cannot name the owner's pid.
type dirLock struct{}

func lockDir(string) (*dirLock, int, error) { return &dirLock{}, 0, nil }

func (*dirLock) unlock() error { return nil }
