//go:build !go1.25

package sqsqtest

// Before Go 1.25 there is no testing/synctest: runs count their own
// goroutines.
func inBubble() bool { return false }

func bubbleWait() { panic("sqsqtest: no testing/synctest before Go 1.25") }
