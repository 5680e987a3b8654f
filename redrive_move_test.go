package sqsq_test

// Black-box tests of dead-letter queues: the automatic move to the dead-letter
// queue during a receive (docs/sqs-semantics.md §7.2, §7.3, §5.2). The fixture
// (setupDLQ) and helpers are in redrive_helpers_test.go.

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

func TestDeadLetterAfterMaxReceiveCount(t *testing.T) {
	t.Parallel()
	for _, fifo := range []bool{false, true} {
		name := map[bool]string{false: "standard", true: "FIFO"}[fifo]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			srcName, dlqName := "src", "dlq"
			in := sqsq.SendInput{MessageBody: "poison"}
			if fifo {
				srcName, dlqName = "src.fifo", "dlq.fifo"
				in.MessageGroupId, in.MessageDeduplicationId = "g", "d"
			}
			src, dlq := f.pair(t, srcName, dlqName, 2)
			sent := f.put(t, src, in)
			// Receives 1 and 2 deliver it; each time the consumer fails and
			// the 30 s visibility timeout ends.
			for i := 1; i <= 2; i++ {
				msgs := f.get(t, src, recvAll)
				if len(msgs) != 1 || msgs[0].MessageId != sent.MessageId {
					t.Fatalf("receive %d = %v, want the message: max 2 allows 2 deliveries", i, msgBodies(msgs))
				}
				if got := msgs[0].Attributes[sqsq.SysApproximateReceiveCount]; got != strconv.Itoa(i) {
					t.Errorf("receive %d: ApproximateReceiveCount %s, want %d", i, got, i)
				}
				f.clk.Add(30 * time.Second)
			}
			// Receive 3 moves it and does not return it.
			if got := f.getBodies(t, src, recvAll); got != nil {
				t.Fatalf("receive 3 = %v, want nothing: the receive that moves a message does not return it (§7.2)", got)
			}
			ss, ds := dlqStats(t, src), dlqStats(t, dlq)
			if ss.Visible+ss.InFlight+ss.Delayed != 0 || ss.MovedToDLQ != 1 || ss.DeadLetterFailures != 0 {
				t.Errorf("source stats %+v: want empty, MovedToDLQ 1", ss)
			}
			if ds.Visible != 1 || ds.DeadLettered != 1 || ds.Sent != 0 {
				t.Errorf("DLQ stats %+v: want 1 visible, DeadLettered 1, Sent 0 (a DLQ move is not a send, §7.3)", ds)
			}
			msgs := f.get(t, dlq, recvAll)
			if len(msgs) != 1 || msgs[0].MessageId != sent.MessageId || msgs[0].Body != "poison" {
				t.Fatalf("DLQ receive = %+v, want the same message (same MessageId)", msgs)
			}
			if got := msgs[0].Attributes[sqsq.SysApproximateReceiveCount]; got != "3" {
				t.Errorf("first DLQ receive: ApproximateReceiveCount %s, want 3 (the count carries over)", got)
			}
		})
	}
}

func TestDeadLetterPreservesTheMessage(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	attrs := map[string]sqsq.MessageAttribute{
		"tenant": {DataType: "String", StringValue: "acme"},
		"blob":   {DataType: "Binary", BinaryValue: []byte{1, 2, 3}},
	}
	const trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1"
	sent := f.put(t, src, sqsq.SendInput{
		MessageBody:             "poison",
		MessageAttributes:       attrs,
		MessageSystemAttributes: map[string]sqsq.MessageAttribute{"AWSTraceHeader": {DataType: "String", StringValue: trace}},
	})
	sentAt := f.clk.Now()
	first := f.get(t, src, recvAll)
	if len(first) != 1 {
		t.Fatalf("first receive = %d messages, want 1", len(first))
	}
	f.clk.Add(time.Minute)
	if got := f.getBodies(t, src, recvAll); got != nil {
		t.Fatalf("second receive = %v, want nothing: max 1 moves it on the next receive (§7.2)", got)
	}
	f.clk.Add(time.Minute)
	msgs := f.get(t, dlq, recvAll)
	if len(msgs) != 1 {
		t.Fatalf("DLQ receive = %d messages, want 1", len(msgs))
	}
	m := msgs[0]
	checks := []struct {
		reason    string
		got, want any
	}{
		{"MessageId is kept on a redrive-policy move", m.MessageId, sent.MessageId},
		{"the body is kept", m.Body, "poison"},
		{"MD5OfBody is kept", m.MD5OfBody(), sent.MD5OfMessageBody()},
		{"message attributes are kept", m.MessageAttributes, attrs},
		{"MD5OfMessageAttributes is kept", m.MD5OfMessageAttributes(), sent.MD5OfMessageAttributes()},
		{"ApproximateReceiveCount carries over: the first DLQ receive after a max=1 move reports 2",
			m.Attributes[sqsq.SysApproximateReceiveCount], "2"},
		{"DeadLetterQueueSourceArn is the source's ARN", m.Attributes[sqsq.SysDeadLetterQueueSourceArn], src.ARN()},
		{"SentTimestamp is kept", m.Attributes[sqsq.SysSentTimestamp], strconv.FormatInt(sentAt.UnixMilli(), 10)},
		{"ApproximateFirstReceiveTimestamp is the first receive, in the source",
			m.Attributes[sqsq.SysApproximateFirstReceiveTimestamp], first[0].Attributes[sqsq.SysApproximateFirstReceiveTimestamp]},
		{"AWSTraceHeader is kept", m.Attributes[sqsq.SysAWSTraceHeader], trace},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("got %v, want %v\nreason: %s", c.got, c.want, c.reason)
		}
	}
	if _, ok := first[0].Attributes[sqsq.SysDeadLetterQueueSourceArn]; ok {
		t.Errorf("a message in its source has no DeadLetterQueueSourceArn")
	}
}

func TestDeadLetterRetention(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	tests := []struct {
		reason string
		fifo   bool
		left   time.Duration // how long the message lives in the DLQ after the move
	}{
		{"standard: retention keeps counting from the original send, so a 1-day-old message lives 1 more day in a 2-day DLQ (§5.2)", false, day},
		{"FIFO: retention restarts at the move, so the message lives the DLQ's full 2 days (§5.2)", true, 2 * day},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			srcName, dlqName := "src", "dlq"
			in := sqsq.SendInput{MessageBody: "poison"}
			if tt.fifo {
				srcName, dlqName = "src.fifo", "dlq.fifo"
				in.MessageGroupId, in.MessageDeduplicationId = "g", "d"
			}
			dlq := f.queue(t, dlqName, sqsq.QueueAttributes{MessageRetentionPeriod: sqsq.Some(2 * day)})
			src := f.queue(t, srcName, sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
				DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1,
			})})
			f.put(t, src, in)
			if got := f.getBodies(t, src, sqsq.ReceiveInput{}); len(got) != 1 {
				t.Fatalf("first receive = %v, want the message", got)
			}
			f.clk.Add(day)
			if got := f.getBodies(t, src, sqsq.ReceiveInput{}); got != nil {
				t.Fatalf("receive after a day = %v, want nothing (moved)", got)
			}
			if s := dlqStats(t, dlq); s.Visible != 1 || s.OldestAge != 2*day-tt.left {
				// OldestAge is counted from the enqueue time retention uses.
				t.Errorf("DLQ just after the move: %d visible, OldestAge %v; want 1, %v", s.Visible, s.OldestAge, 2*day-tt.left)
			}
			f.clk.Add(tt.left - time.Second)
			if s := dlqStats(t, dlq); s.Visible != 1 || s.Expired != 0 {
				t.Fatalf("DLQ 1 s before the end of retention: %+v; want the message still there", s)
			}
			f.clk.Add(time.Second)
			if s := dlqStats(t, dlq); s.Visible != 0 || s.Expired != 1 {
				t.Errorf("DLQ at the end of retention: %+v; want it expired", s)
			}
		})
	}
}

func TestDeadLetterFIFO(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src.fifo", "dlq.fifo", 1)
	var sent []sqsq.SendResult
	for _, body := range []string{"A", "B", "C"} {
		sent = append(sent, f.put(t, src, sqsq.SendInput{MessageBody: body, MessageGroupId: "g", MessageDeduplicationId: "dedup-" + body}))
	}
	f.put(t, src, sqsq.SendInput{MessageBody: "X", MessageGroupId: "other", MessageDeduplicationId: "dedup-X"})

	// A, the head of g, is delivered once and its consumer fails; while it is
	// in flight the group is locked.
	if got := f.getBodies(t, src, sqsq.ReceiveInput{}); !reflect.DeepEqual(got, []string{"A"}) {
		t.Fatalf("first receive = %v, want [A]", got)
	}
	if got := f.getBodies(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Hour)}); !reflect.DeepEqual(got, []string{"X"}) {
		t.Fatalf("receive while A is in flight = %v, want [X]: group g is locked", got)
	}
	f.clk.Add(30 * time.Second)
	// The next receive moves A and goes on with B and C, in order.
	if got := f.getBodies(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"B", "C"}) {
		t.Fatalf("receive after A's timeout = %v, want [B C]: A moved, the group continues in order in the same receive (§6.4, §7.2)", got)
	}
	msgs := f.get(t, dlq, recvAll)
	if len(msgs) != 1 {
		t.Fatalf("DLQ receive = %v, want [A]", msgBodies(msgs))
	}
	m := msgs[0]
	checks := []struct {
		reason    string
		got, want string
	}{
		{"MessageId is kept", m.MessageId, sent[0].MessageId},
		{"the body is kept", m.Body, "A"},
		{"MessageGroupId is kept", m.Attributes[sqsq.SysMessageGroupId], "g"},
		{"MessageDeduplicationId is replaced by the MessageId (§7.3)", m.Attributes[sqsq.SysMessageDeduplicationId], sent[0].MessageId},
		{"DeadLetterQueueSourceArn is the source", m.Attributes[sqsq.SysDeadLetterQueueSourceArn], src.ARN()},
		{"ApproximateReceiveCount carries over", m.Attributes[sqsq.SysApproximateReceiveCount], "2"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("got %q, want %q\nreason: %s", c.got, c.want, c.reason)
		}
	}
	if m.Attributes[sqsq.SysSequenceNumber] == "" {
		t.Errorf("a message in a FIFO DLQ has a SequenceNumber")
	}
}

// TestDeadLetterFIFOHeadBeforeDeletedMessage: the receive that dead-letters
// a group's head must step over a later message of the group that is
// already deleted (found by TestMoveTaskConservation).
func TestDeadLetterFIFOHeadBeforeDeletedMessage(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src.fifo", "dlq.fifo", 1)
	f.put(t, src, sqsq.SendInput{MessageBody: "A", MessageGroupId: "g", MessageDeduplicationId: "a"})
	f.put(t, src, sqsq.SendInput{MessageBody: "B", MessageGroupId: "g", MessageDeduplicationId: "b"})
	msgs := f.get(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	if !reflect.DeepEqual(msgBodies(msgs), []string{"A", "B"}) {
		t.Fatalf("receive = %v, want [A B]", msgBodies(msgs))
	}
	if err := src.Delete(f.ctx, msgs[1].ReceiptHandle); err != nil {
		t.Fatal(err)
	}
	f.clk.Add(30 * time.Second)
	if got := f.getBodies(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); got != nil {
		t.Errorf("receive = %v, want nothing: A is moved, B is deleted", got)
	}
	if got := f.getBodies(t, dlq, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"A"}) {
		t.Errorf("DLQ holds %v, want [A]", got)
	}
}

func TestDeadLetterFIFOSharedDedupIDsStayApart(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src.fifo", "dlq.fifo", 1)
	// Two independent messages share a deduplication id (allowed in
	// different groups with messageGroup scope).
	if err := src.SetAttributes(f.ctx, sqsq.QueueAttributes{DeduplicationScope: sqsq.Some("messageGroup")}); err != nil {
		t.Fatal(err)
	}
	f.put(t, src, sqsq.SendInput{MessageBody: "one", MessageGroupId: "g1", MessageDeduplicationId: "same"})
	f.put(t, src, sqsq.SendInput{MessageBody: "two", MessageGroupId: "g2", MessageDeduplicationId: "same"})
	f.get(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	f.clk.Add(30 * time.Second)
	f.get(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	if got := f.getBodies(t, dlq, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); len(got) != 2 {
		t.Errorf("DLQ holds %v, want both: their deduplication ids became their MessageIds (§7.3)", got)
	}
}

func TestDeadLetterDLQDeleted(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.putBody(t, src, "poison")
	f.get(t, src, recvVisZero)
	if err := f.b.DeleteQueue(f.ctx, dlq.ARN()); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 3; i++ {
		msgs := f.get(t, src, recvVisZero)
		if len(msgs) != 1 || msgs[0].Attributes[sqsq.SysApproximateReceiveCount] != strconv.Itoa(i) {
			t.Fatalf("receive %d = %+v; want the message delivered normally: its DLQ is gone (§7.2 [EMU])", i, msgs)
		}
	}
	s := dlqStats(t, src)
	if s.DeadLetterFailures != 2 || s.MovedToDLQ != 0 {
		t.Errorf("source stats: DeadLetterFailures %d, MovedToDLQ %d; want 2, 0", s.DeadLetterFailures, s.MovedToDLQ)
	}
	if _, ok := f.attrs(t, src)[sqsq.AttrRedrivePolicy]; !ok {
		t.Errorf("the policy stays although its DLQ is gone")
	}
	// A new queue of the same name is a DLQ again.
	f.clk.Add(time.Minute)
	dlq2 := f.queue(t, "dlq", sqsq.QueueAttributes{})
	if got := f.getBodies(t, src, recvVisZero); got != nil {
		t.Errorf("receive with the DLQ back = %v, want nothing (moved)", got)
	}
	if got := storedIn(t, dlq2); got != 1 {
		t.Errorf("the recreated DLQ holds %d messages, want 1", got)
	}
}

func TestDeadLetterAllowPolicyChangedLater(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.putBody(t, src, "poison")
	f.get(t, src, recvVisZero)
	deny := sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveDenyAll})}
	if err := dlq.SetAttributes(f.ctx, deny); err != nil {
		t.Fatal(err)
	}
	if got := f.getBodies(t, src, recvVisZero); !reflect.DeepEqual(got, []string{"poison"}) {
		t.Fatalf("receive = %v, want the message delivered: the DLQ now forbids the source (§7.4 [EMU])", got)
	}
	if s := dlqStats(t, src); s.DeadLetterFailures != 1 || s.MovedToDLQ != 0 {
		t.Errorf("source: DeadLetterFailures %d, MovedToDLQ %d; want 1, 0", s.DeadLetterFailures, s.MovedToDLQ)
	}
	if got := storedIn(t, dlq); got != 0 {
		t.Errorf("DLQ holds %d messages, want 0", got)
	}
	// Allowing it again by name moves it.
	allow := sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{
		RedrivePermission: sqsq.RedriveByQueue, SourceQueueArns: []string{src.ARN()}})}
	if err := dlq.SetAttributes(f.ctx, allow); err != nil {
		t.Fatal(err)
	}
	if got := f.getBodies(t, src, recvVisZero); got != nil {
		t.Errorf("receive = %v, want nothing: the source is allowed again", got)
	}
	if got := storedIn(t, dlq); got != 1 {
		t.Errorf("DLQ holds %d messages, want 1", got)
	}
}

func TestDeadLetterCounters(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	dlq := f.queue(t, "dlq", sqsq.QueueAttributes{})
	policy := sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})}
	a := f.queue(t, "src-a", policy)
	b := f.queue(t, "src-b", policy)
	for i := 0; i < 3; i++ {
		f.putBody(t, a, "a"+strconv.Itoa(i))
	}
	f.putBody(t, b, "b0")
	f.putBody(t, dlq, "sent directly")
	for _, q := range []*sqsq.Queue{a, b} {
		f.get(t, q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Duration(0))})
		if got := f.getBodies(t, q, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); got != nil {
			t.Fatalf("%s: second receive = %v, want nothing (all moved)", q.Name(), got)
		}
	}
	sa, sb, sd := dlqStats(t, a), dlqStats(t, b), dlqStats(t, dlq)
	if sa.MovedToDLQ != 3 || sb.MovedToDLQ != 1 {
		t.Errorf("MovedToDLQ = %d, %d; want 3, 1", sa.MovedToDLQ, sb.MovedToDLQ)
	}
	if sd.DeadLettered != 4 || sd.Sent != 1 || sd.Visible != 5 {
		t.Errorf("DLQ: DeadLettered %d, Sent %d, Visible %d; want 4, 1 (only the explicit send), 5", sd.DeadLettered, sd.Sent, sd.Visible)
	}
	if sa.Received != 3 || sa.EmptyReceives != 1 {
		t.Errorf("source a: Received %d, EmptyReceives %d; want 3 and 1 (the moving receive returned nothing)", sa.Received, sa.EmptyReceives)
	}
}

func TestDeadLetterWakesLongPollOnDLQ(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.putBody(t, src, "poison")
	f.get(t, src, recvVisZero)

	type result struct {
		msgs []sqsq.Message
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		msgs, err := dlq.Receive(f.ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		ch <- result{msgs, err}
	}()
	if err := dlq.WaitForReceivers(f.ctx, 1); err != nil {
		t.Fatal(err)
	}
	start := f.clk.Now()
	if got := f.getBodies(t, src, recvVisZero); got != nil {
		t.Fatalf("source receive = %v, want nothing (moved)", got)
	}
	r := <-ch
	if r.err != nil || !reflect.DeepEqual(msgBodies(r.msgs), []string{"poison"}) {
		t.Fatalf("DLQ long poll = %v, %v; want [poison]: a DLQ move wakes it (§5.3)", msgBodies(r.msgs), r.err)
	}
	if d := f.clk.Now().Sub(start); d != 0 {
		t.Errorf("the long poll returned after %v of clock time, want 0", d)
	}
}

func TestDeadLetterTimeAloneNeverMoves(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 1)
	f.putBody(t, src, "poison")
	f.get(t, src, sqsq.ReceiveInput{})
	f.clk.Add(time.Hour)
	if s := dlqStats(t, src); s.Visible != 1 || s.MovedToDLQ != 0 {
		t.Errorf("source after an hour: %+v; want the message visible, not moved: only a receive moves (§7.2)", s)
	}
	if got := storedIn(t, dlq); got != 0 {
		t.Errorf("DLQ holds %d, want 0", got)
	}
}
