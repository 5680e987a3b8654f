package sqsq_test

// Black-box tests of FIFO queues: deduplication (docs/sqs-semantics.md §6.5).
// The FIFO helpers are in fifo_helpers_test.go; the shared ones (setup,
// fixture, wantErr, diff, bodies, stats) in broker_test.go.

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

func TestFIFODeduplication(t *testing.T) {
	t.Parallel()
	send := func(t *testing.T, f *fixture, in sqsq.SendInput) sqsq.SendResult {
		t.Helper()
		return f.sendInput(t, f.q, in)
	}

	t.Run("a duplicate within 5 minutes succeeds with the original's ids and stores nothing", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		orig := send(t, f, sqsq.SendInput{MessageBody: "first", MessageGroupId: "g", MessageDeduplicationId: "d"})
		f.clk.Add(5*time.Minute - time.Millisecond)
		dup := send(t, f, sqsq.SendInput{MessageBody: "second", MessageGroupId: "g", MessageDeduplicationId: "d"})
		if dup.MessageId != orig.MessageId || dup.SequenceNumber != orig.SequenceNumber {
			t.Errorf("duplicate = (%s, %s), want the original's (%s, %s) (§6.5)", dup.MessageId, dup.SequenceNumber, orig.MessageId, orig.SequenceNumber)
		}
		if want := fifoMD5("second"); dup.MD5OfMessageBody() != want {
			t.Errorf("duplicate MD5OfMessageBody = %s, want %s, the MD5 of this request's body (§6.5)", dup.MD5OfMessageBody(), want)
		}
		s := stats(t, f.q)
		if s.Visible != 1 || s.Sent != 1 || s.DuplicatesSuppressed != 1 {
			t.Errorf("stats: visible=%d sent=%d duplicates=%d, want 1, 1, 1", s.Visible, s.Sent, s.DuplicatesSuppressed)
		}
		if d := diff([]string{"first"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("stored:\n%s", d)
		}
	})

	t.Run("exactly 5 minutes later the same id is a new message", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		orig := send(t, f, sqsq.SendInput{MessageBody: "first", MessageGroupId: "g", MessageDeduplicationId: "d"})
		f.clk.Add(5 * time.Minute)
		again := send(t, f, sqsq.SendInput{MessageBody: "second", MessageGroupId: "g", MessageDeduplicationId: "d"})
		if again.MessageId == orig.MessageId || fifoSeqCmp(t, again.SequenceNumber, orig.SequenceNumber) <= 0 {
			t.Errorf("resend after the interval = (%s, %s), want a new id and a larger sequence number than (%s, %s)",
				again.MessageId, again.SequenceNumber, orig.MessageId, orig.SequenceNumber)
		}
		if s := stats(t, f.q); s.Visible != 2 || s.DuplicatesSuppressed != 0 {
			t.Errorf("stats: visible=%d duplicates=%d, want 2, 0", s.Visible, s.DuplicatesSuppressed)
		}
	})

	t.Run("the id is still remembered after the original is deleted", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		orig := send(t, f, sqsq.SendInput{MessageBody: "first", MessageGroupId: "g", MessageDeduplicationId: "d"})
		f.fifoDeleteAll(t, f.fifoRecv(t, 10, -1))
		f.clk.Add(time.Minute)
		dup := send(t, f, sqsq.SendInput{MessageBody: "first", MessageGroupId: "g", MessageDeduplicationId: "d"})
		if dup.MessageId != orig.MessageId {
			t.Errorf("resend after delete got id %s, want the original %s (§6.5)", dup.MessageId, orig.MessageId)
		}
		if s := stats(t, f.q); s.Visible+s.InFlight+s.Delayed != 0 || s.Groups != 0 {
			t.Errorf("stats %+v: the duplicate must not be stored", s)
		}
	})

	t.Run("content-based: the SHA-256 of the body only, attributes excluded", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{ContentBasedDeduplication: sqsq.Some(true)})
		orig := send(t, f, sqsq.SendInput{MessageBody: "hello", MessageGroupId: "g",
			MessageAttributes: map[string]sqsq.MessageAttribute{"k": {DataType: "String", StringValue: "1"}}})
		dup := send(t, f, sqsq.SendInput{MessageBody: "hello", MessageGroupId: "g",
			MessageAttributes: map[string]sqsq.MessageAttribute{"k": {DataType: "String", StringValue: "2"}}})
		if dup.MessageId != orig.MessageId {
			t.Errorf("same body, other attributes: id %s, want the original %s (§6.5)", dup.MessageId, orig.MessageId)
		}
		other := send(t, f, sqsq.SendInput{MessageBody: "hello!", MessageGroupId: "g"})
		if other.MessageId == orig.MessageId {
			t.Error("a different body was deduplicated")
		}
		msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, MessageSystemAttributeNames: fifoSysAll})
		if d := diff([]string{"hello", "hello!"}, bodies(msgs)); d != "" {
			t.Fatalf("stored:\n%s", d)
		}
		sum := sha256.Sum256([]byte("hello"))
		if got, want := msgs[0].Attributes[sqsq.SysMessageDeduplicationId], hex.EncodeToString(sum[:]); got != want {
			t.Errorf("MessageDeduplicationId = %q, want the hex SHA-256 of the body %q (§6.5)", got, want)
		}
	})

	t.Run("an explicit id overrides content-based deduplication", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{ContentBasedDeduplication: sqsq.Some(true)})
		gen := send(t, f, sqsq.SendInput{MessageBody: "x", MessageGroupId: "g"})
		explicit := send(t, f, sqsq.SendInput{MessageBody: "x", MessageGroupId: "g", MessageDeduplicationId: "mine"})
		if explicit.MessageId == gen.MessageId {
			t.Error("same body with an explicit id was deduplicated against the generated id")
		}
		sum := sha256.Sum256([]byte("x"))
		same := send(t, f, sqsq.SendInput{MessageBody: "y", MessageGroupId: "g", MessageDeduplicationId: hex.EncodeToString(sum[:])})
		if same.MessageId != gen.MessageId {
			t.Errorf("an explicit id equal to a generated one is a duplicate of it (§6.5): got %s, want %s", same.MessageId, gen.MessageId)
		}
		msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, MessageSystemAttributeNames: []string{sqsq.SysMessageDeduplicationId}})
		if len(msgs) != 2 || msgs[1].Attributes[sqsq.SysMessageDeduplicationId] != "mine" {
			t.Errorf("received %+v, want two messages, the second with MessageDeduplicationId mine", msgs)
		}
	})

	t.Run("scope", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			reason      string
			scope       string
			group2      string
			wantStored  int
			wantDupOfG1 bool
		}{
			{"queue scope: the same id in another group is a duplicate (§6.5)", "queue", "g2", 1, true},
			{"queue scope: the same id in the same group is a duplicate", "queue", "g1", 1, true},
			{"messageGroup scope: the same id in another group is a new message (§6.5)", "messageGroup", "g2", 2, false},
			{"messageGroup scope: the same id in the same group is a duplicate", "messageGroup", "g1", 1, true},
		}
		for _, tt := range tests {
			t.Run(tt.reason, func(t *testing.T) {
				t.Parallel()
				f := setupFIFO(t, sqsq.QueueAttributes{DeduplicationScope: sqsq.Some(tt.scope)})
				a := send(t, f, sqsq.SendInput{MessageBody: "a", MessageGroupId: "g1", MessageDeduplicationId: "d"})
				b := send(t, f, sqsq.SendInput{MessageBody: "b", MessageGroupId: tt.group2, MessageDeduplicationId: "d"})
				if (a.MessageId == b.MessageId) != tt.wantDupOfG1 {
					t.Errorf("second send id %s, first %s: duplicate = %v, want %v\nreason: %s",
						b.MessageId, a.MessageId, a.MessageId == b.MessageId, tt.wantDupOfG1, tt.reason)
				}
				if s := stats(t, f.q); s.Visible != tt.wantStored {
					t.Errorf("stored %d, want %d\nreason: %s", s.Visible, tt.wantStored, tt.reason)
				}
			})
		}
	})

	t.Run("a DeduplicationScope change applies at once to the ids already remembered", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			reason   string
			from, to string
			group2   string
		}{
			{"queue → messageGroup: the same id in the same group is a duplicate under both scopes", "queue", "messageGroup", "g1"},
			{"messageGroup → queue: the same id in another group is now a duplicate", "messageGroup", "queue", "g2"},
		}
		for _, tt := range tests {
			f := setupFIFO(t, sqsq.QueueAttributes{DeduplicationScope: sqsq.Some(tt.from)})
			a := send(t, f, sqsq.SendInput{MessageBody: "a", MessageGroupId: "g1", MessageDeduplicationId: "d"})
			f.set(t, sqsq.QueueAttributes{DeduplicationScope: sqsq.Some(tt.to)})
			b := send(t, f, sqsq.SendInput{MessageBody: "b", MessageGroupId: tt.group2, MessageDeduplicationId: "d"})
			if b.MessageId != a.MessageId {
				t.Errorf("second send got a new id %s, want the original %s\nreason: %s", b.MessageId, a.MessageId, tt.reason)
			}
			if s := stats(t, f.q); s.Visible != 1 {
				t.Errorf("stored %d, want 1\nreason: %s", s.Visible, tt.reason)
			}
		}
	})

	t.Run("PurgeQueue clears the deduplication cache", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		orig := send(t, f, sqsq.SendInput{MessageBody: "a", MessageGroupId: "g", MessageDeduplicationId: "d"})
		if err := f.q.Purge(f.ctx); err != nil {
			t.Fatalf("Purge: %v", err)
		}
		again := send(t, f, sqsq.SendInput{MessageBody: "a", MessageGroupId: "g", MessageDeduplicationId: "d"})
		if again.MessageId == orig.MessageId {
			t.Error("a resend right after PurgeQueue was deduplicated (§3.7)")
		}
		if d := diff([]string{"a"}, bodies(f.fifoRecv(t, 10, -1))); d != "" {
			t.Errorf("stored after the purge:\n%s", d)
		}
	})

	t.Run("duplicates inside one SendBatch", func(t *testing.T) {
		t.Parallel()
		f := setupFIFO(t, sqsq.QueueAttributes{})
		res, err := f.q.SendBatch(f.ctx, []sqsq.SendBatchEntry{
			{Id: "one", SendInput: sqsq.SendInput{MessageBody: "a", MessageGroupId: "g", MessageDeduplicationId: "d"}},
			{Id: "two", SendInput: sqsq.SendInput{MessageBody: "b", MessageGroupId: "g", MessageDeduplicationId: "d"}},
		})
		if err != nil || len(res.Successful) != 2 {
			t.Fatalf("SendBatch = %+v, %v; want both entries successful", res, err)
		}
		if res.Successful[0].MessageId != res.Successful[1].MessageId || res.Successful[0].SequenceNumber != res.Successful[1].SequenceNumber {
			t.Errorf("entries %+v and %+v: the second is a duplicate of the first", res.Successful[0], res.Successful[1])
		}
		if s := stats(t, f.q); s.Visible != 1 || s.DuplicatesSuppressed != 1 {
			t.Errorf("stats: visible=%d duplicates=%d, want 1, 1", s.Visible, s.DuplicatesSuppressed)
		}
	})
}

// fifoSeqCmp compares two SequenceNumbers as the decimal integers they are.
func fifoSeqCmp(t *testing.T, a, b string) int {
	t.Helper()
	x, ok1 := new(big.Int).SetString(a, 10)
	y, ok2 := new(big.Int).SetString(b, 10)
	if !ok1 || !ok2 {
		t.Fatalf("sequence numbers %q, %q are not decimal integers", a, b)
	}
	return x.Cmp(y)
}

// fifoMD5 is the hex MD5 of s, as MD5OfMessageBody reports it (§5.8).
func fifoMD5(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}
