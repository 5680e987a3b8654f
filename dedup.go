package sqsq

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/sqsq/sqsq/internal/pq"
)

// dedupInterval is how long a FIFO queue remembers a deduplication id.
const dedupInterval = 5 * time.Minute

// dedupCache remembers the deduplication ids of a FIFO queue's sends for the
// dedup interval, with their original message's id and sequence number. It
// indexes every id both alone and with its group, so that a change of
// DeduplicationScope applies at once to the ids already remembered.
type dedupCache struct {
	byID    map[string]dedupEntry // latest entry per id, any group
	byPair  map[string]dedupEntry // per group + "\x00" + id
	expires pq.Queue[string]      // pair keys by expiry; expiries are monotone, so this stays a ring
}

type dedupEntry struct {
	expires   int64
	messageID string
	seqNum    uint64
}

func (d *dedupCache) init() {
	d.byID = map[string]dedupEntry{}
	d.byPair = map[string]dedupEntry{}
}

func pairKey(groupID, dedupID string) string { return groupID + "\x00" + dedupID }

// expire forgets ids whose interval ended at or before now. Group ids cannot
// hold a NUL, so the id is what follows the first one.
func (d *dedupCache) expire(now int64) {
	for {
		e, ok := d.expires.Peek()
		if !ok || e.Key > now {
			return
		}
		d.expires.Pop()
		if cur, ok := d.byPair[e.Val]; ok && cur.expires == e.Key {
			delete(d.byPair, e.Val)
		}
		id := e.Val[strings.IndexByte(e.Val, 0)+1:]
		if cur, ok := d.byID[id]; ok && cur.expires <= now {
			delete(d.byID, id)
		}
	}
}

// lookup finds a remembered send of dedupID under the given scope.
func (d *dedupCache) lookup(scope, groupID, dedupID string) (dedupEntry, bool) {
	if scope == dedupScopeGroup {
		e, ok := d.byPair[pairKey(groupID, dedupID)]
		return e, ok
	}
	e, ok := d.byID[dedupID]
	return e, ok
}

func (d *dedupCache) add(groupID, dedupID string, e dedupEntry) {
	key := pairKey(groupID, dedupID)
	d.byPair[key] = e
	d.byID[dedupID] = e
	d.expires.Push(pq.Entry[string]{Key: e.expires, Val: key})
}

func (d *dedupCache) reset() {
	clear(d.byID)
	clear(d.byPair)
	d.expires.Reset()
}

// contentDedupID is the deduplication id of content-based deduplication:
// the hex SHA-256 of the body alone.
func contentDedupID(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}
