//go:build !go1.25

package sqsq_test

import "pgregory.net/rapid"

// runRestart runs one check of TestRestartModel (see the go1.25 file).
func runRestart(t *rapid.T) { runRestartModel(t) }
