package sqsq

import (
	"time"
)

// Counters are a queue's running totals since it was created. The names with
// an AWS CloudWatch metric of the same meaning say so; the others are sqsq's.
type Counters struct {
	Sent                  int64 // NumberOfMessagesSent
	Received              int64 // NumberOfMessagesReceived: messages returned by receives
	Deleted               int64 // messages really removed by a delete
	DeleteRequests        int64 // NumberOfMessagesDeleted: successful delete calls and entries, including no-ops
	EmptyReceives         int64 // NumberOfEmptyReceives
	ReceiveCalls          int64 // receive calls that passed validation
	LongPolls             int64 // receives that parked
	LongPollWakeups       int64 // times a parked receive was woken before its wait ended
	Redelivered           int64 // receives of a message that had been received before
	VisibilityExpirations int64 // in-flight messages made visible again by their timeout
	VisibilityChanges     int64 // applied ChangeVisibility calls and entries
	StaleHandleDeletes    int64 // deletes with a handle of an earlier receive
	Expired               int64 // messages dropped at the end of their retention period
	Purged                int64 // messages dropped by PurgeQueue
	MovedToDLQ            int64 // messages this queue moved to its dead-letter queue
	DeadLetterFailures    int64 // moves due but not made: the DLQ is gone or forbids this source
	DeadLettered          int64 // messages moved into this queue as a dead-letter queue
	RedrivenOut           int64 // messages a move task took out of this queue
	RedrivenIn            int64 // messages a move task brought into this queue
	// FIFO queues
	DuplicatesSuppressed    int64 // NumberOfDeduplicatedSentMessages: sends answered from the dedup cache
	ExpiredHandleRejections int64 // deletes and visibility changes refused with an expired handle
}

// Stats is a snapshot of a queue's state: the SQS approximate counts (exact
// here), the age of its oldest message and its counters.
type Stats struct {
	Visible  int // ApproximateNumberOfMessages
	InFlight int // ApproximateNumberOfMessagesNotVisible
	Delayed  int // ApproximateNumberOfMessagesDelayed
	// OldestAvailableAge is how long the longest-waiting available message has
	// been available (ApproximateAgeOfOldestMessage); 0 when none is.
	OldestAvailableAge time.Duration
	// OldestAge is the age of the oldest stored message of any state, counted
	// from its enqueue time (which retention counts from).
	OldestAge time.Duration
	// Groups is the number of FIFO message groups with stored messages.
	Groups int
	// LockedGroups is the number of FIFO groups with a message in flight
	// (ApproximateNumberOfGroupsWithInflightMessages).
	LockedGroups int
	Counters
}

// Stats returns a snapshot of the queue, brought up to the clock's now.
// It costs O(1) amortized.
func (q *Queue) Stats() (Stats, error) {
	now, err := q.lock()
	if err != nil {
		return Stats{}, err
	}
	defer q.mu.Unlock()
	s := Stats{Visible: q.nAvail, InFlight: q.nInflight, Delayed: q.nDelayed, Counters: q.counters}
	if q.fifo {
		s.Groups, s.LockedGroups = len(q.f.groups), q.f.locked
	}
	for {
		e, ok := q.avail.Peek()
		if !ok {
			break
		}
		if e.Gen == e.Val.gen && e.Val.state == stateAvailable {
			s.OldestAvailableAge = time.Duration(now - e.Key)
			break
		}
		q.avail.Pop()
	}
	for {
		e, ok := q.byEnqueue.Peek()
		if !ok {
			break
		}
		if e.Val.state != stateGone {
			s.OldestAge = time.Duration(now - e.Val.enqueuedAt)
			break
		}
		q.byEnqueue.Pop()
	}
	return s, nil
}
