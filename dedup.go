package sqsq

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/sqsq/sqsq/internal/pq"
)

// dedupInterval is how long a FIFO queue remembers a deduplication id.
const dedupInterval = 5 * time.Minute

// dedupCache remembers the deduplication ids of a FIFO queue's sends for the
// dedup interval, with their original message's id and sequence number.
type dedupCache struct {
	byKey   map[string]dedupEntry
	expires pq.Queue[string] // keys by expiry; expiries are monotone, so this stays a ring
}

type dedupEntry struct {
	expires   int64
	messageID string
	seqNum    uint64
}

func (d *dedupCache) init() { d.byKey = map[string]dedupEntry{} }

// expire forgets ids whose interval ended at or before now.
func (d *dedupCache) expire(now int64) {
	for {
		e, ok := d.expires.Peek()
		if !ok || e.Key > now {
			return
		}
		d.expires.Pop()
		if cur, ok := d.byKey[e.Val]; ok && cur.expires == e.Key {
			delete(d.byKey, e.Val)
		}
	}
}

func (d *dedupCache) lookup(key string) (dedupEntry, bool) {
	e, ok := d.byKey[key]
	return e, ok
}

func (d *dedupCache) add(key string, e dedupEntry) {
	d.byKey[key] = e
	d.expires.Push(pq.Entry[string]{Key: e.expires, Val: key})
}

func (d *dedupCache) reset() {
	clear(d.byKey)
	d.expires.Reset()
}

// dedupKey is the cache key of a send under the queue's DeduplicationScope.
func (q *Queue) dedupKey(groupID, dedupID string) string {
	if q.settings.dedupScope == dedupScopeGroup {
		return groupID + "\x00" + dedupID
	}
	return dedupID
}

// contentDedupID is the deduplication id of content-based deduplication:
// the hex SHA-256 of the body alone.
func contentDedupID(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}
