package sqsq_test

// Helpers shared by the black-box tests of FIFO queues (fifo_*_test.go). They
// build on the shared helpers of broker_test.go (setup, fixture, wantErr,
// diff, bodies, stats).

import (
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

// setupFIFO is setup with f.q replaced by the FIFO queue "test.fifo",
// created with attrs (FifoQueue is set here). The standard queue setup made
// is still there as "test-queue".
func setupFIFO(t *testing.T, attrs sqsq.QueueAttributes, opts ...sqsq.Option) *fixture {
	t.Helper()
	f := setup(t, opts...)
	attrs.FifoQueue = sqsq.Some(true)
	f.q = f.create(t, "test.fifo", attrs)
	return f
}

// fifoSend sends body to group of f.q, using the body as its explicit
// deduplication id, and fails the test on error.
func (f *fixture) fifoSend(t *testing.T, group, body string) sqsq.SendResult {
	t.Helper()
	return f.sendInput(t, f.q, sqsq.SendInput{MessageBody: body, MessageGroupId: group, MessageDeduplicationId: body})
}

// fifoRecv short-polls up to max messages from f.q. vis < 0 uses the
// queue's visibility timeout.
func (f *fixture) fifoRecv(t *testing.T, max int, vis time.Duration) []sqsq.Message {
	t.Helper()
	in := sqsq.ReceiveInput{MaxNumberOfMessages: max, WaitTimeSeconds: sqsq.Some(time.Duration(0))}
	if vis >= 0 {
		in.VisibilityTimeout = sqsq.Some(vis)
	}
	return f.receive(t, f.q, in)
}

// fifoDelete deletes with rh and fails the test on error.
func (f *fixture) fifoDelete(t *testing.T, rh string) {
	t.Helper()
	if err := f.q.Delete(f.ctx, rh); err != nil {
		t.Fatalf("Delete: %v", err)
	}
}

// fifoDeleteAll deletes every message of msgs with its handle.
func (f *fixture) fifoDeleteAll(t *testing.T, msgs []sqsq.Message) {
	t.Helper()
	for _, m := range msgs {
		f.fifoDelete(t, m.ReceiptHandle)
	}
}

// fifoSnapshot is what a failed operation must leave as it was: all of
// Stats, except the counter of refused expired handles (which counts the
// refusal itself), and every attribute. The clock does not move between two
// snapshots, so the ages in Stats compare too.
type fifoSnapshot struct {
	Stats sqsq.Stats
	Attrs map[string]string
}

func (f *fixture) fifoSnap(t *testing.T, q *sqsq.Queue) fifoSnapshot {
	t.Helper()
	s := stats(t, q)
	s.ExpiredHandleRejections = 0
	return fifoSnapshot{Stats: s, Attrs: f.allAttrs(t, q)}
}

// fifoUnchanged fails unless q is as it was when before was taken.
func (f *fixture) fifoUnchanged(t *testing.T, q *sqsq.Queue, before fifoSnapshot, reason string) {
	t.Helper()
	if d := diff(before, f.fifoSnap(t, q)); d != "" {
		t.Errorf("a failed call changed the queue:\n%s\nreason: %s", d, reason)
	}
}

// fifoSysAll asks a receive for every system attribute.
var fifoSysAll = []string{sqsq.SysAll}
