// Package racexit ends a test binary without the race detector's pause.
//
// A binary built with -race sleeps a second at exit (the detector's
// atexit_sleep_ms, which GORACE can change but a test cannot), so that
// other threads may still report. Go's testing package already fails a test
// during which the detector reported a race, so for a test binary that
// passed the pause only costs time: a second for each of sqsq's thirty test
// packages, about 20 s of the quick suite's wall time on two cores.
package racexit

import "testing"

// Exit ends the test binary with code, as os.Exit does. In a -race build
// whose tests passed, and which writes no coverage, it skips the detector's
// exit pause; a failing code, or a build without -race, goes through
// os.Exit unchanged.
func Exit(code int) { exit(code) }

// Main runs m's tests and exits with their code: the TestMain of a package
// that needs nothing else.
func Main(m *testing.M) { Exit(m.Run()) }
