//go:build go1.25

package sqsq_test

import "pgregory.net/rapid"

// runRestart runs one check of TestRestartModel in a synctest bubble,
// where the mock clock's 1 ms real sleep per advance costs nothing.
func runRestart(t *rapid.T) { rapid.SyncTest(t, runRestartModel) }
