// Package history keeps a delivery history per message of a [sqsq.Broker]:
// what happened to each message, in order, so that a test can assert on it
// afterwards — "each order was received at least twice and charged once" —
// in Go, or in any language through the console's JSON API.
//
// # Recording
//
// A [Recorder] is a [sqsq.Observer]. Install it when making the broker:
//
//	rec := history.New()
//	b := sqsq.NewBroker(sqsq.WithObserver(rec))
//
// It sees every namespace of the broker's endpoint ([sqsq.Broker.Scope]),
// and records, per message id, one [Entry] per event:
//
//   - sent: a send stored the message (with its delay);
//   - received: a receive handed it out, with the receipt handle, the
//     receive count and the visibility timeout; a delivery the fault policy
//     injected is marked duplicate, and a timeout the policy ended early
//     gives endsEarlyMs;
//   - receiveLost: the same, but the fault policy lost the response — the
//     message is in flight and its receiver never saw it (the broker tells
//     of the delivery and of its loss: they make one entry);
//   - visibilityChanged, deleted: each ChangeMessageVisibility and
//     DeleteMessage call or batch entry, with the handle used, whether it
//     was applied, whether a delete removed the message, the SQS error code
//     it returned and whether the fault policy injected it;
//   - deadLettered: a receive moved it to its dead-letter queue, where it
//     keeps its id;
//   - redriven: a move task took it out of a dead-letter queue. The message
//     gets a new id there, so the old id's history ends with an entry that
//     names the new id (newMessageId), and the new id's starts with one that
//     names the old (fromMessageId).
//
// A delete or visibility change whose handle names no stored message (it
// was deleted already) carries no message id; the recorder finds the
// message by the handle, which it remembers from the receive that handed
// it out. So a late delete by a consumer whose message went to another
// shows up in the history as a delete that removed nothing.
//
// # Reading
//
// [Recorder.Message] returns one message's history, [Recorder.Queue] those
// of every message that had an event on a queue, oldest first, in time
// proportional to that queue's messages. [MessageHistory] and [Entry]
// marshal to the JSON the console serves (see console.WithHistory):
//
//	GET /_sqsq/api/queues/orders/messages/{id}/history
//	GET /_sqsq/api/queues/orders/history
//
// Times are the broker's clock, so they are exact on a virtual clock.
//
// # Bounds
//
// Recording is bounded, so that a long-running server does not grow
// without end. The recorder keeps the histories of at most
// [DefaultMaxMessages] messages ([WithMaxMessages]); a new message's
// history replaces that of the message seen least recently. A history
// keeps at most [DefaultMaxEntries] entries ([WithMaxEntries]): the first
// (the send) and the most recent, with a count of those dropped between.
// The recorder remembers a receipt handle as long as it keeps the entry of
// the receive that handed it out. [Recorder.Reset] forgets everything;
// [Recorder.SetEnabled](false) pauses recording, after which Observe costs
// an atomic load.
//
// A history keeps the first 256 bytes of the message's body ([MaxBody]),
// copied when the body is longer so that the broker's copy can go. The
// other strings — ids, receipt handles, queue names, error codes — are the
// broker's, shared rather than copied; an entry is 56 bytes besides them.
//
// # Cost
//
// Measured with 10,000 messages through a real broker and the heap read
// before and after Reset (go test -run '^$' -bench MemoryPerMessage
// -benchtime 3x ./history), a history keeps about 850 bytes alive for a
// message sent, received 3 times and deleted, and about 10 KB for one at
// the entry bound (64 entries, 63 of them receives, each with its own
// 48-byte handle): roughly 150 bytes per receive. So 100,000 short
// histories take about 85 MB, and the default bounds allow about 1 GB
// for 100,000 messages received 63 times each; lower WithMaxEntries or
// WithMaxMessages where that matters. An event costs about half a
// microsecond (BenchmarkObserve).
//
// A Recorder is safe for concurrent use: the broker calls Observe with
// queue locks held, and Observe takes one mutex for a few map and list
// operations and never calls back into the broker.
//
// # Limits
//
// An event names a message's dead-letter queue and a redrive's destination
// by name only. The recorder takes them to be in the namespace of the
// event, as AWS requires unless a byQueue RedriveAllowPolicy allows
// another; a message dead-lettered into another namespace joins that
// namespace's queue in [Recorder.Queue] at its first event there.
package history
