package durable

import (
	"os"
	"syscall"
)

// fdatasync syncs f's data and what reading it back needs (its size), not
// its times: the log's sync, as bbolt syncs its file.
func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
