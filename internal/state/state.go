// Package state is the whole state of a sqsq endpoint as plain data: what
// a durable store writes and reads back, so that a restarted broker is as
// if it had never stopped. Package sqsq fills it (Export) and builds a
// broker from it (Import); package durable stores it. A broker made with
// the Journal option also reports each change as a Change, and Apply
// replays them on a World (change.go). Nothing else here has behaviour:
// the rules live in package sqsq.
//
// Times are Unix nanoseconds of the broker's clock unless a field says
// otherwise; 0 means unset where a field says so.
package state

// Export and Import are set by package sqsq when it is initialised, so
// that package durable reaches a broker's state without a public API for
// it. Export takes a *sqsq.Broker (any namespace of the endpoint) and
// returns the whole endpoint's state, consistent as of one instant;
// Import takes a World and the []sqsq.Option of NewBroker (the clock among
// them) and returns the *sqsq.Broker of the first scope, with every other
// scope made, every queue and message restored. Export locks the whole
// endpoint for the copy, so it must not be called from a broker's
// Observer or Faults policy (they run under a queue lock).
var (
	Export func(b any) (*World, error)
	Import func(w *World, opts any) (any, error)
)

// Version is the format of this package's data. A store records it and
// refuses data of another version with a clear message.
const Version = 2

// World is one endpoint: every namespace, the move tasks, and the clock.
type World struct {
	// Now is the clock's instant when the state was taken. On a virtual
	// clock a restart resumes from it; on the real clock it only says how
	// long the endpoint was down.
	Now int64
	// NextQueueID is the last queue id issued: receipt handles name
	// queues by id, so ids never repeat across restarts.
	NextQueueID uint64
	// Scopes are the namespaces, the one NewBroker made first.
	Scopes []Scope
	// Tasks are the move tasks every source keeps (running and finished),
	// in start order; NextTaskSeq numbers them.
	Tasks       []Task
	NextTaskSeq uint64
}

// Scope is one namespace (account and region) and its queues.
type Scope struct {
	Account, Region string
	// ReceiptKey is the secret the namespace signs receipt handles with
	// (two 64-bit halves; zero when message ids are pinned), so handles
	// issued before a restart still work after it.
	ReceiptKey [2]uint64
	Queues     []Queue
	// Deleted are the names deleted within the recreate delay, with the
	// instant each may be used again.
	Deleted []Expiring
}

// Expiring is a name remembered until an instant.
type Expiring struct {
	Key     string
	Expires int64
}

// Queue is one queue with its messages.
type Queue struct {
	ID   uint64
	Name string
	FIFO bool
	// Attributes are the settable attributes in wire form, as
	// GetQueueAttributes answers them (Policy, RedrivePolicy… included).
	Attributes map[string]string
	Tags       map[string]string
	Created    int64
	Modified   int64
	Purged     int64 // 0: never, unless WasPurged
	// WasPurged says Purged is an instant even when it is 0: a mock clock
	// starts at the epoch, and a purge then still blocks the next one.
	WasPurged bool
	// Seq is the last message sequence number issued (send order).
	Seq uint64
	// FIFOSeq is the last SequenceNumber counter of a FIFO queue.
	FIFOSeq uint64
	// Messages are the stored messages, in send order (Seq).
	Messages []Message
	// Dedup are a FIFO queue's deduplication windows: by id (ByID) and
	// by group and id (ByPair, key group + "\x00" + id).
	DedupByID, DedupByPair []Dedup
	// Attempts are a FIFO queue's ReceiveRequestAttemptIds still
	// retriable.
	Attempts []Attempt
	// DeadLetterSources are the ARNs of the queues that have
	// dead-lettered into this one.
	DeadLetterSources []string
	// Counters are the queue's statistics (sqsq.Counters), by field name,
	// in the order of their names.
	Counters []Counter
}

// Counter is one of a queue's statistics. A list, not a map: the journal
// writes a queue's counters at nearly every call, and a list of twenty is
// one allocation where a map is twenty hashes.
type Counter struct {
	Name  string
	Value int64
}

// Message is one stored message.
type Message struct {
	ID     string
	Body   string
	SentAt int64 // Unix milliseconds
	// Attributes and SystemAttributes are message attributes as sent.
	Attributes       map[string]Attribute
	SystemAttributes map[string]Attribute
	GroupID          string
	DedupID          string
	SequenceNumber   uint64 // FIFO SequenceNumber, 0 on standard queues
	DeadLetterSource string // DeadLetterQueueSourceArn, if dead-lettered

	Seq  uint64
	Slot uint32
	// State is one of Available, Inflight, Delayed.
	State uint8
	// Serial counts the receives from this queue and names the latest
	// receipt handle; Gen is the message's internal generation, which a
	// FIFO receive attempt remembers.
	Serial         uint32
	Gen            uint32
	ReceiveCount   int32
	EnqueuedAt     int64 // retention counts from here
	VisibleAt      int64 // end of the delay or visibility timeout
	AvailableSince int64
	FirstReceiveAt int64 // Unix milliseconds; NotReceived until the first receive
	ReceivedAt     int64 // the current receive (the 12-hour budget)
}

// Message states.
const (
	Available uint8 = 1
	Inflight  uint8 = 2
	Delayed   uint8 = 3
)

// NotReceived is Message.FirstReceiveAt of a message never received.
const NotReceived int64 = -1 << 63

// Attribute is a message attribute.
type Attribute struct {
	DataType    string
	StringValue string
	BinaryValue []byte
}

// Dedup is one deduplication window entry of a FIFO queue.
type Dedup struct {
	Key       string
	MessageID string
	SeqNum    uint64
	Expires   int64
}

// Attempt is a FIFO ReceiveRequestAttemptId and what its first receive
// returned.
type Attempt struct {
	ID        string
	Expires   int64
	Vis       int64 // the visibility timeout, nanoseconds
	SysNames  []string
	AttrNames []string
	Msgs      []AttemptMsg
}

// AttemptMsg names a message an attempt returned, as it was then.
type AttemptMsg struct {
	Seq    uint64
	Slot   uint32
	Serial uint32
	Gen    uint32
}

// Task is a message move task.
type Task struct {
	ID, Handle string
	Seq        uint64
	// Source is the dead-letter queue's ARN; SourceID its queue id.
	Source   string
	SourceID uint64
	Dest     string // DestinationArn, "" for the sources
	Rate     int
	RateSet  bool
	Started  int64
	Status   string
	Failure  string
	ToMove   int64
	Moved    int64
	Cancel   int64 // the instant of CancelMoveTask, 0 if none
}
