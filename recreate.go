package sqsq

import "time"

// A queue name cannot be used again for the recreate delay after its queue
// is deleted (QueueDeletedRecently, semantics §9.2). The broker remembers
// each deleted name until the delay ends and then forgets it: the names
// expire on the next CreateQueue or DeleteQueue after that, so a broker
// that deletes many distinct queues holds only those of the last delay.

// maxDeletedNames bounds the deleted names a broker remembers. On a clock
// that never moves (a mock nobody advances) the recreate delay never ends,
// so beyond this many the names deleted first are forgotten: a queue of
// such a name can be created again before its delay is over. That takes
// 10,000 deletes of other names within one delay; AWS's limit applies to
// whoever deletes that many queues a minute, sqsq's only to them.
const maxDeletedNames = 10_000

// noteDeleted remembers that the queue name was deleted at now. Caller
// holds b.mu.
func (b *Broker) noteDeleted(name string, now time.Time) {
	if b.cfg.recreateDelay <= 0 { // the rule is off: nothing to remember
		return
	}
	t := now.UnixNano()
	b.deleted.expire(t)
	b.deleted.put(name, struct{}{}, t+int64(b.cfg.recreateDelay))
	b.deleted.limit(maxDeletedNames)
}

// deletedRecently reports whether a queue of that name was deleted less
// than the recreate delay before now. Caller holds b.mu.
func (b *Broker) deletedRecently(name string, now time.Time) bool {
	b.deleted.expire(now.UnixNano())
	_, ok := b.deleted.get(name)
	return ok
}
