//go:build go1.25

package sqsqtest_test

import "testing"

// The consumer that parks poison messages in its errors queue, with the
// tag, list and attribute calls of its start, played by rapid inside a
// testing/synctest bubble: its long polls wait on the bubble's clock.
func TestSQSLoopErrorsQueueInBubble(t *testing.T) {
	t.Parallel()
	errorsQueueScenario().Test(t)
}
