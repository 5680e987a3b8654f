package sqsqtest

import (
	"sort"
	"time"
)

// Ledger is the durable side of a harness run: a small transactional store
// the consumer commits its effects to (through [Env.Commit]), plus the
// counters that §11.3 of the semantics insists be kept apart, because one
// committed effect is not one delivery:
//
//   - Deliveries: times a message was handed to a handler (delivery attempts);
//   - Effects: commits of each effect key (effect commits);
//   - Suppressed: duplicate suppressions the consumer reported;
//   - MovedToDLQ and Redriven: dead-letter moves and redrives;
//   - OldestAge: the largest age of the oldest stored message seen.
//
// It also counts Concurrent deliveries: a message handed to a consumer while
// another live consumer was still handling it. Messages are named by their
// labels (A, B, …), which survive a redrive's new MessageId.
type Ledger struct {
	Deliveries map[string]int
	Effects    map[string]int
	Suppressed map[string]int
	MovedToDLQ int
	Redriven   int
	OldestAge  time.Duration
	Concurrent int
	// Log is every committed effect, in commit order.
	Log []EffectRecord

	kv map[string]string
}

func newLedger() *Ledger {
	return &Ledger{Deliveries: map[string]int{}, Effects: map[string]int{}, Suppressed: map[string]int{}, kv: map[string]string{}}
}

// Get reads a committed key of the consumer's store.
func (l *Ledger) Get(key string) (string, bool) {
	v, ok := l.kv[key]
	return v, ok
}

// Keys returns the committed keys of the consumer's store, sorted.
func (l *Ledger) Keys() []string {
	keys := make([]string, 0, len(l.kv))
	for k := range l.kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Tx is one transaction on the [Ledger]: reads see the committed state and
// the transaction's own writes; nothing is visible to others until the
// transaction commits, and a transaction whose function returns an error
// (or whose consumer crashes) leaves no trace.
type Tx struct {
	l *Ledger
	// writes are the transaction's Puts in order: a transaction writes a
	// few keys, fewer than make a map worth its allocation.
	writes     []write
	effects    []string
	suppressed []string
}

type write struct{ key, value string }

// Get reads key.
func (tx *Tx) Get(key string) (string, bool) {
	for i := len(tx.writes) - 1; i >= 0; i-- { // the last Put of key
		if w := tx.writes[i]; w.key == key {
			return w.value, true
		}
	}
	return tx.l.Get(key)
}

// Put writes key (for example an inbox row keyed by a business id).
func (tx *Tx) Put(key, value string) { tx.writes = append(tx.writes, write{key, value}) }

// Effect records a side effect under key ("charge:order-7"): the ledger
// counts its commits, and invariants such as [EffectOnce] read them.
func (tx *Tx) Effect(key string) { tx.effects = append(tx.effects, key) }

// Suppress records that the consumer recognised a duplicate of key and
// skipped its effect.
func (tx *Tx) Suppress(key string) { tx.suppressed = append(tx.suppressed, key) }

// EffectRecord is one committed effect.
type EffectRecord struct {
	Key      string
	At       time.Time
	Consumer string
}

func (tx *Tx) apply(at time.Time, consumer string) {
	for _, w := range tx.writes {
		tx.l.kv[w.key] = w.value
	}
	for _, k := range tx.effects {
		tx.l.Effects[k]++
		tx.l.Log = append(tx.l.Log, EffectRecord{Key: k, At: at, Consumer: consumer})
	}
	for _, k := range tx.suppressed {
		tx.l.Suppressed[k]++
	}
}
