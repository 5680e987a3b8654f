//go:build !go1.25

package sqsq_test

import "pgregory.net/rapid"

func runJournal(t *rapid.T) { runJournalModel(t) }
