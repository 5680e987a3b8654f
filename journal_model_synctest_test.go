//go:build go1.25

package sqsq_test

import "pgregory.net/rapid"

// runJournal runs one check of TestJournalModel in a synctest bubble, as
// runRestart does.
func runJournal(t *rapid.T) { rapid.SyncTest(t, runJournalModel) }
