package durable

import (
	"errors"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/state"
)

// Snapshot returns the whole state of b's endpoint (every namespace, queue,
// message, move task and the clock's instant), consistent as of one
// instant, to [Store.Save]. It must not be called from a fault policy or an
// observer, which run under a queue's lock.
func Snapshot(b *sqsq.Broker) (*state.World, error) {
	return state.Export(b)
}

// Restore builds the endpoint w describes: the broker of its default
// namespace, made with opts (the clock among them), and every other
// namespace, queue, message and move task as they were, brought up to date
// with the clock — a message whose visibility timeout ended while the
// server was down is visible, retention and delays count across the
// downtime. Receipt handles issued before still work. w's default
// namespace (account and region) wins over opts'. A virtual clock should
// be set to w.Now first, to resume where it stopped.
func Restore(w *state.World, opts ...sqsq.Option) (*sqsq.Broker, error) {
	if w == nil || len(w.Scopes) == 0 {
		return nil, errors.New("durable: no state to restore")
	}
	b, err := state.Import(w, opts)
	if err != nil {
		return nil, err
	}
	return b.(*sqsq.Broker), nil
}
