// This file holds the message types: the public [Message] a receive returns,
// [MessageAttribute], and the stored message with its state and extension.
// The queue's indexes and state transitions live in queue.go.

package sqsq

import (
	"math"
	"sync/atomic"

	"github.com/sqsq/sqsq/internal/digest"
)

// Message is a received message.
type Message struct {
	MessageId     string
	ReceiptHandle string
	Body          string
	// Attributes are the requested system attributes, nil if none.
	Attributes map[string]string
	// MessageAttributes are the requested message attributes, nil if none.
	MessageAttributes map[string]MessageAttribute

	m *message
}

// MD5OfBody returns the hex MD5 of the body, computed once per message.
func (m Message) MD5OfBody() string {
	if m.m != nil {
		return m.m.bodyMD5()
	}
	return digest.Body(m.Body)
}

// MD5OfMessageAttributes returns the MD5 of the returned message attributes
// (only those), or "" when none are returned.
func (m Message) MD5OfMessageAttributes() string { return attributesMD5(m.MessageAttributes) }

// MessageAttribute is a message attribute (or a message system attribute) as
// SQS carries it: a data type of String, Number or Binary, optionally followed
// by a custom label ("Number.float", "Binary.gif"), and a value. String and
// Number attributes use StringValue; Binary attributes use BinaryValue.
type MessageAttribute struct {
	DataType    string
	StringValue string
	BinaryValue []byte
}

// notReceived marks a message never received (a mock clock starts at 0).
const notReceived = math.MinInt64

type msgState uint8

const (
	stateGone msgState = iota // deleted, expired, purged
	stateAvailable
	stateInflight
	stateDelayed
	stateHeld // received with visibility 0, visible again when the receive ends
)

// message is a stored message. Fields above the line never change after the
// send, so a returned [Message] may read them without the lock.
type message struct {
	id     string
	body   string
	ext    *messageExt // nil when the message has no attributes
	sentAt int64       // unix ms
	md5    atomicString

	// guarded by Queue.mu
	seq            uint64
	slot           uint32
	state          msgState
	gen            uint32 // bumped whenever avail/pending entries are pushed
	serial         uint32 // receives from this queue; names the latest handle
	receiveCount   int32  // ApproximateReceiveCount, across queues
	enqueuedAt     int64  // unix ns, retention counts from here
	visibleAt      int64  // unix ns, end of the delay or visibility timeout
	availableSince int64  // unix ns
	firstReceiveAt int64  // unix ms, notReceived until the first receive
	receivedAt     int64  // unix ns of the current receive (12-hour budget)
}

// messageExt holds what most messages lack, to keep message small.
type messageExt struct {
	attrs     map[string]MessageAttribute
	sysAttrs  map[string]MessageAttribute
	groupID   string
	dedupID   string
	size      int
	seqNum    uint64 // FIFO SequenceNumber
	dlqSource string // DeadLetterQueueSourceArn
	group     *group // FIFO group, guarded by Queue.mu
}

type atomicString struct{ p atomic.Pointer[string] }

func (m *message) bodyMD5() string {
	if p := m.md5.p.Load(); p != nil {
		return *p
	}
	s := digest.Body(m.body)
	m.md5.p.Store(&s)
	return s
}
