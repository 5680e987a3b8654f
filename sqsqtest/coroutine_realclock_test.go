package sqsqtest

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// A thread blocked outside the kit fails the run once the watchdog, on the
// real clock, has waited for it; the run ends when the thread returns. The
// thread waits on a channel that the watchdog's message closes, so the
// test waits for the watchdog, not for a guess at its time.
func TestWatchdogFailsABlockedRun(t *testing.T) {
	defer func(d time.Duration, w io.Writer) { watchdog, watchdogOut = d, w }(watchdog, watchdogOut)
	said := &release{ch: make(chan struct{})}
	watchdog, watchdogOut = 20*time.Millisecond, said
	s := Scenario{Messages: []string{"a"},
		Consumer: func(env *Env) Handler {
			q := env.Queue()
			return func(ctx context.Context, m Msg) error {
				<-said.ch // blocked outside the kit
				return q.Delete(ctx, m.ReceiptHandle)
			}
		},
	}
	o := s.Run(Lucky())
	if o.Err == nil || !strings.Contains(o.Err.Error(), "neither called the kit nor returned") {
		t.Fatalf("Err = %v, want the watchdog's", o.Err)
	}
	if !strings.Contains(said.text.String(), "The run fails if it ever returns") {
		t.Errorf("the watchdog said %q", said.text.String())
	}
}

// release is a writer that keeps what it is told and closes ch at the
// first write.
type release struct {
	once sync.Once
	ch   chan struct{}
	text strings.Builder
}

func (r *release) Write(p []byte) (int, error) {
	r.text.Write(p)
	r.once.Do(func() { close(r.ch) })
	return len(p), nil
}
