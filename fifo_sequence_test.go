package sqsq_test

// Black-box tests of FIFO queues: sequence numbers (docs/sqs-semantics.md
// §6.7). The FIFO helpers are in fifo_helpers_test.go; the shared ones (setup,
// fixture, wantErr, diff, bodies, stats) in broker_test.go.

import (
	"math/big"
	"strings"
	"testing"

	"github.com/sqsq/sqsq"
)

func TestFIFOSequenceNumber(t *testing.T) {
	t.Parallel()
	f := setupFIFO(t, sqsq.QueueAttributes{})
	var seqs []string
	for i, g := range []string{"g1", "g2", "g1", "g3"} {
		res := f.fifoSend(t, g, "m"+string(rune('0'+i)))
		seqs = append(seqs, res.SequenceNumber)
	}
	dup := f.fifoSend(t, "g2", "m1")
	if dup.SequenceNumber != seqs[1] {
		t.Errorf("duplicate's SequenceNumber %s, want the original's %s", dup.SequenceNumber, seqs[1])
	}
	res, err := f.q.SendBatch(f.ctx, []sqsq.SendBatchEntry{
		{Id: "a", SendInput: sqsq.SendInput{MessageBody: "b1", MessageGroupId: "g1", MessageDeduplicationId: "b1"}},
		{Id: "b", SendInput: sqsq.SendInput{MessageBody: "b2", MessageGroupId: "g1", MessageDeduplicationId: "b2"}},
	})
	if err != nil || len(res.Successful) != 2 {
		t.Fatalf("SendBatch = %+v, %v", res, err)
	}
	for _, e := range res.Successful {
		seqs = append(seqs, e.SequenceNumber)
	}
	one := big.NewInt(1)
	for i, s := range seqs {
		if len(s) != 20 || strings.Trim(s, "0123456789") != "" {
			t.Errorf("SequenceNumber %q is not 20 decimal digits (§5.4)", s)
		}
		if i == 0 {
			continue
		}
		prev, _ := new(big.Int).SetString(seqs[i-1], 10)
		cur, _ := new(big.Int).SetString(s, 10)
		if cur == nil || prev == nil || new(big.Int).Sub(cur, prev).Cmp(one) != 0 {
			t.Errorf("SequenceNumber %s after %s: want the next number; the duplicate must not use one (§6.7)", s, seqs[i-1])
		}
	}

	msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, MessageSystemAttributeNames: []string{sqsq.SysSequenceNumber}})
	got := map[string]string{}
	for _, m := range msgs {
		got[m.Body] = m.Attributes[sqsq.SysSequenceNumber]
	}
	want := map[string]string{"m0": seqs[0], "m1": seqs[1], "m2": seqs[2], "m3": seqs[3], "b1": seqs[4], "b2": seqs[5]}
	if d := diff(want, got); d != "" {
		t.Errorf("SequenceNumber system attributes (by body):\n%s", d)
	}

	std := f.create(t, "test-queue", sqsq.QueueAttributes{})
	sres := f.sendInput(t, std, sqsq.SendInput{MessageBody: "s", MessageGroupId: "g"})
	if sres.SequenceNumber != "" {
		t.Errorf("standard queue send returned SequenceNumber %q, want none (§3.8)", sres.SequenceNumber)
	}
	smsgs := f.receive(t, std, sqsq.ReceiveInput{MessageSystemAttributeNames: fifoSysAll})
	if len(smsgs) != 1 {
		t.Fatalf("standard receive: %d messages", len(smsgs))
	}
	if v, ok := smsgs[0].Attributes[sqsq.SysSequenceNumber]; ok {
		t.Errorf("standard queue message has SequenceNumber %q, want none (§5.4)", v)
	}
}
