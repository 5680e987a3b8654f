package sqsq

// Locked reports whether q's lock is held, for the black-box panic tests
// (panic_test.go): a queue left locked by a panic would hang the next call
// on it, where this fails at once.
func Locked(q *Queue) bool {
	if q.mu.TryLock() {
		q.mu.Unlock()
		return false
	}
	return true
}
