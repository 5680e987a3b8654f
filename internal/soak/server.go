package main

import (
	"fmt"
	"time"

	"github.com/sqsq/sqsq/internal/procstat"
	"github.com/sqsq/sqsq/internal/sqsqproc"
)

// startServer starts bin on 127.0.0.1:0 and waits for the line that says
// where it serves.
func startServer(bin string) (*sqsqproc.Server, error) {
	return sqsqproc.Start(bin, sqsqproc.Options{
		Args:        []string{"-addr", "127.0.0.1:0", "-log-level", "warn"},
		StartWithin: 30 * time.Second,
	})
}

// usage reads the server's CPU time and resident memory.
func usage(s *sqsqproc.Server) (time.Duration, procstat.Memory, error) {
	cpu, err := procstat.CPU(s.Pid())
	if err != nil {
		return 0, procstat.Memory{}, err
	}
	mem, err := procstat.ReadMemory(s.Pid())
	return cpu, mem, err
}

// stop sends SIGTERM and waits up to timeout for a clean exit (status 0).
// A server still running then is killed.
func stop(s *sqsqproc.Server, timeout time.Duration) error {
	select {
	case <-s.Exited():
		return fmt.Errorf("sqsq exited before the end of the soak: %v", s.Err())
	default:
	}
	_, err := s.Stop(timeout)
	return err
}
