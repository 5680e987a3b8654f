package main

import (
	"fmt"
	"time"

	"github.com/sqsq/sqsq/internal/sqsqproc"
)

// startServer starts bin on data dir and addr (127.0.0.1:0 the first
// time; then the port of the last run, so that connections and queue URLs
// look as they would to a real client of a restarted server) and returns
// once it answers its health check. extra are more flags (-data-sync).
func startServer(bin, data, addr string, log *sqsqproc.Tail, extra []string) (*sqsqproc.Server, error) {
	return sqsqproc.Start(bin, sqsqproc.Options{
		Args:          append([]string{"-addr", addr, "-data", data, "-log-level", "warn"}, extra...),
		Log:           log,
		StartWithin:   30 * time.Second,
		HealthyWithin: 10 * time.Second,
	})
}

// crash ends the server: SIGKILL (a crash: nothing saved unless saved
// already), or with graceful SIGTERM, which writes what is left on the way
// out. It returns once the process is gone.
func crash(s *sqsqproc.Server, graceful bool) error {
	select {
	case <-s.Exited():
		return fmt.Errorf("sqsq exited before it was killed: %v", s.Err())
	default:
	}
	if !graceful {
		s.Kill()
		return nil
	}
	_, err := s.Stop(30 * time.Second)
	return err
}
