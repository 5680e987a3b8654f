package sqsq_test

import (
	"context"
	"time"
)

// realTickEvery paces the move-task starter of TestStressClock/real: on the
// mock clock each advance rings it, on the real clock this does. Unpaced,
// the starts would pile up finished tasks as fast as the CPU allows.
const realTickEvery = 2 * time.Millisecond

// realTicks rings ticks, without blocking, every realTickEvery of real time
// until ctx ends.
func realTicks(ctx context.Context, ticks chan<- struct{}) {
	tk := time.NewTicker(realTickEvery)
	defer tk.Stop()
	for {
		select {
		case <-tk.C:
			select {
			case ticks <- struct{}{}:
			default:
			}
		case <-ctx.Done():
			return
		}
	}
}
