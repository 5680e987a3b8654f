package sqsq

import (
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq/internal/state"
)

// Option configures a [Broker]. Options are sealed: only this package
// implements them.
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	clock              clock.Clock
	region             string
	accountID          string
	partition          string
	arnPrefix          string // derived
	baseURL            string
	senderID           string
	idFunc             func() string
	maxInFlight        int
	recreateDelay      time.Duration
	purgeInterval      time.Duration
	staleDeleteRemoves bool
	strictNotInflight  bool
	faults             Faults
	observer           Observer
	world              *world             // set by Broker.Scope: join this endpoint
	journal            func(state.Change) // state.Journal (journal.go)
}

func defaultConfig() config {
	return config{
		clock:         clock.New(),
		region:        "us-east-1",
		accountID:     "000000000000",
		partition:     "aws",
		maxInFlight:   120000,
		recreateDelay: 60 * time.Second,
		purgeInterval: 60 * time.Second,
	}
}

// WithClock makes the broker read time from c. Pass a *clock.Mock to move
// time by hand: every delay, visibility timeout, retention period and long
// poll follows it. The default is the real clock.
func WithClock(c clock.Clock) Option {
	return optionFunc(func(cfg *config) {
		if c != nil {
			cfg.clock = c
		}
	})
}

// WithRegion sets the region in queue URLs and ARNs (default "us-east-1").
func WithRegion(region string) Option {
	return optionFunc(func(cfg *config) { cfg.region = region })
}

// WithAccountID sets the account id in queue URLs and ARNs (default
// "000000000000"). It is also the default SenderId of messages.
func WithAccountID(id string) Option {
	return optionFunc(func(cfg *config) { cfg.accountID = id })
}

// WithBaseURL sets the scheme and host of queue URLs, for example
// "http://127.0.0.1:9324"; a queue's URL is base + "/" + account + "/" +
// name, with "/queue/" + region before the account for a queue of another
// region than the endpoint's default (see [Queue.URLAt]). The default is
// "https://sqs.{region}.sqsq.invalid", which never resolves.
func WithBaseURL(base string) Option {
	return optionFunc(func(cfg *config) { cfg.baseURL = trimSlash(base) })
}

// WithSenderID sets the SenderId system attribute of sent messages (default:
// the account id).
func WithSenderID(id string) Option {
	return optionFunc(func(cfg *config) { cfg.senderID = id })
}

// WithIDFunc makes the broker take message ids from f, so tests can pin them.
// f must return a distinct string of at most 100 characters on each call; it
// is called with the queue's lock held, so it must not call back into the
// broker. If it panics, the panic reaches the caller and the message it was
// called for is not stored. The default returns random UUIDs.
//
// It pins receipt handles too: by default a broker signs its handles with a
// random secret, so a handle of another broker or one forged from the layout
// is not valid (ReceiptHandleIsInvalid); with WithIDFunc it signs them with a
// fixed public key, so the same calls give the same handles in every run, and
// brokers with pinned ids accept each other's handles.
func WithIDFunc(f func() string) Option {
	return optionFunc(func(cfg *config) { cfg.idFunc = f })
}

// WithInFlightLimit sets how many messages a standard queue may have in flight
// before short-poll receives fail with OverLimit and long polls return empty
// (default 120,000, as AWS documents). n ≤ 0 restores the default.
func WithInFlightLimit(n int) Option {
	return optionFunc(func(cfg *config) {
		if n > 0 {
			cfg.maxInFlight = n
		}
	})
}

// WithRecreateDelay sets how long after DeleteQueue a queue of the same name
// cannot be created again (default 60 s; 0 disables the rule). A broker
// remembers the names of its last 10,000 deletes within the delay: on a
// clock that does not move, an older name can be used again.
func WithRecreateDelay(d time.Duration) Option {
	return optionFunc(func(cfg *config) { cfg.recreateDelay = max(d, 0) })
}

// WithPurgeInterval sets how long after a PurgeQueue another purge of the same
// queue fails with PurgeQueueInProgress (default 60 s; 0 disables the rule).
func WithPurgeInterval(d time.Duration) Option {
	return optionFunc(func(cfg *config) { cfg.purgeInterval = max(d, 0) })
}

// WithStaleDeleteRemoves makes a DeleteMessage with a stale receipt handle (the
// message was received again since) delete the message. By default it succeeds
// without deleting, the unlucky case of AWS's "might not be deleted".
func WithStaleDeleteRemoves(remove bool) Option {
	return optionFunc(func(cfg *config) { cfg.staleDeleteRemoves = remove })
}

// WithStrictNotInflight makes ChangeMessageVisibility on a standard-queue
// message whose visibility already ended fail with MessageNotInflight. By
// default it succeeds and changes nothing, as observed on AWS.
func WithStrictNotInflight(strict bool) Option {
	return optionFunc(func(cfg *config) { cfg.strictNotInflight = strict })
}

// WithFaults installs a fault policy: the broker consults f at its decision
// points to inject duplicates, reordering, short-poll sampling, lost
// responses, failed deletes and visibility changes, and throttling (see
// [Faults]). Package sqsqtest provides policies. nil, the default, injects
// nothing.
func WithFaults(f Faults) Option {
	return optionFunc(func(cfg *config) { cfg.faults = f })
}

// WithObserver makes the broker tell o of every receive, delete, visibility
// change and dead-letter move (see [Observer]). nil, the default, costs
// nothing.
func WithObserver(o Observer) Option {
	return optionFunc(func(cfg *config) { cfg.observer = o })
}

func trimSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}
