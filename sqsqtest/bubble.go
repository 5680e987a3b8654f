//go:build go1.25

package sqsqtest

import "testing/synctest"

// inBubble reports whether the caller runs inside a testing/synctest
// bubble: synctest.Wait panics outside one.
func inBubble() (in bool) {
	defer func() {
		if recover() != nil {
			in = false
		}
	}()
	synctest.Wait()
	return true
}

// bubbleWait waits until every other goroutine of the bubble is durably
// blocked: the engine's quiescence inside a bubble.
func bubbleWait() { synctest.Wait() }
