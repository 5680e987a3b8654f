package main

import (
	"fmt"
	"time"

	"github.com/sqsq/sqsq/internal/sqsqproc"
)

// startServer execs bin on data dir and returns once it answers its health
// check. A store of a million messages loads before the server listens, so
// the waits are generous.
func startServer(bin, data string, extra []string) (*sqsqproc.Server, error) {
	return sqsqproc.Start(bin, sqsqproc.Options{
		Args:          append([]string{"-addr", "127.0.0.1:0", "-data", data, "-log-level", "warn"}, extra...),
		Log:           sqsqproc.NewTail(8 << 10),
		StartWithin:   5 * time.Minute,
		HealthyWithin: time.Minute,
	})
}

// stop sends SIGTERM and returns how long the graceful shutdown took.
func stop(s *sqsqproc.Server) (time.Duration, error) {
	d, err := s.Stop(5 * time.Minute)
	if err != nil {
		return d, fmt.Errorf("%w\n%s", err, s.Log)
	}
	return d, nil
}
