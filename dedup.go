package sqsq

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// dedupInterval is how long a FIFO queue remembers a deduplication id.
const dedupInterval = 5 * time.Minute

// dedupCache remembers the deduplication ids of a FIFO queue's sends for the
// dedup interval, with their original message's id and sequence number. It
// indexes every id both alone and with its group, so that a change of
// DeduplicationScope applies at once to the ids already remembered.
type dedupCache struct {
	byID   expiringMap[dedupEntry] // latest send per id, any group
	byPair expiringMap[dedupEntry] // per group + "\x00" + id
}

type dedupEntry struct {
	messageID string
	seqNum    uint64
}

func (d *dedupCache) expire(now int64) {
	d.byID.expire(now)
	d.byPair.expire(now)
}

// lookup finds a remembered send of dedupID under the given scope.
func (d *dedupCache) lookup(scope, groupID, dedupID string) (dedupEntry, bool) {
	if scope == dedupScopeGroup {
		return d.byPair.get(groupID + "\x00" + dedupID)
	}
	return d.byID.get(dedupID)
}

// add remembers a send until expires.
func (d *dedupCache) add(groupID, dedupID string, e dedupEntry, expires int64) {
	d.byPair.put(groupID+"\x00"+dedupID, e, expires)
	d.byID.put(dedupID, e, expires)
}

func (d *dedupCache) reset() {
	d.byID.reset()
	d.byPair.reset()
}

// contentDedupID is the deduplication id of content-based deduplication:
// the hex SHA-256 of the body alone.
func contentDedupID(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}
