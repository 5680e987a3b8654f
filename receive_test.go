package sqsq_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

func TestReceiveParameterErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		in     sqsq.ReceiveInput
		msg    string
	}{
		{"MaxNumberOfMessages 11 is above 10", sqsq.ReceiveInput{MaxNumberOfMessages: 11},
			"Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided."},
		{"MaxNumberOfMessages -1 is below 1", sqsq.ReceiveInput{MaxNumberOfMessages: -1},
			"Value -1 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided."},
		{"WaitTimeSeconds 21 is above 20", sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(21 * time.Second)},
			"Value 21 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided."},
		{"WaitTimeSeconds -1 is below 0", sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(-time.Second)},
			"Value -1 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided."},
		{"WaitTimeSeconds must be whole seconds", sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(1500 * time.Millisecond)}, ""},
		{"VisibilityTimeout 43201 is above 12 h", sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(43201 * time.Second)}, ""},
		{"VisibilityTimeout -1 is below 0", sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(-time.Second)}, ""},
		{"VisibilityTimeout must be whole seconds", sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Millisecond)}, ""},
		{"a ReceiveRequestAttemptId with a space is malformed", sqsq.ReceiveInput{ReceiveRequestAttemptId: "a b"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			f.send(t, f.q, "m")
			before := stats(t, f.q)
			msgs, err := f.q.Receive(f.ctx, tt.in)
			wantErr(t, err, sqsq.CodeInvalidParameterValue, tt.msg, tt.reason)
			if msgs != nil {
				t.Errorf("a failed Receive returned %v\nreason: %s", bodies(msgs), tt.reason)
			}
			if d := diff(before, stats(t, f.q)); d != "" {
				t.Errorf("a failed Receive changed the queue:\n%s\nreason: %s", d, tt.reason)
			}
		})
	}
}

func TestReceiveMaxNumberOfMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		stored int
		max    int
		want   int
	}{
		{"0 means the default, 1", 3, 0, 1},
		{"1 returns one", 3, 1, 1},
		{"10 is the maximum", 12, 10, 10},
		{"the maximum is an upper bound only", 3, 5, 3},
		{"an empty queue returns nothing", 0, 10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			for i := 0; i < tt.stored; i++ {
				f.send(t, f.q, fmt.Sprint(i))
			}
			msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: tt.max})
			if len(msgs) != tt.want {
				t.Errorf("received %d messages, want %d\nreason: %s", len(msgs), tt.want, tt.reason)
			}
			if tt.want == 0 && msgs != nil {
				t.Errorf("an empty receive returned %#v, want nil (Messages absent, §3.10)\nreason: %s", msgs, tt.reason)
			}
			s := stats(t, f.q)
			if s.InFlight != tt.want || s.Visible != tt.stored-tt.want || s.Received != int64(tt.want) {
				t.Errorf("after the receive: %+v\nreason: %s", s, tt.reason)
			}
		})
	}
}

func TestReceiveCounters(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.receive(t, f.q, sqsq.ReceiveInput{})
	f.send(t, f.q, "m")
	f.receiveOne(t, f.q, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(0 * time.Second)})
	f.receiveOne(t, f.q, sqsq.ReceiveInput{})
	s := stats(t, f.q)
	got := []int64{s.ReceiveCalls, s.EmptyReceives, s.Received, s.Redelivered}
	if d := diff([]int64{3, 1, 2, 1}, got); d != "" {
		t.Errorf("ReceiveCalls, EmptyReceives, Received, Redelivered:\n%s", d)
	}
}

func TestReceiveVisibilityOverride(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "m")
	f.receiveOne(t, f.q, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(100 * time.Second)})
	f.clk.Add(99 * time.Second)
	if msgs := f.receive(t, f.q, sqsq.ReceiveInput{}); len(msgs) != 0 {
		t.Fatalf("received %v at 99 s of a 100 s per-call visibility (§4.2)", bodies(msgs))
	}
	f.clk.Add(time.Second)
	f.receiveOne(t, f.q, sqsq.ReceiveInput{}) // visible again at exactly 100 s (§4.1)

	// The override did not change the queue: this receive used the default 30 s.
	got, err := f.q.GetAttributes(f.ctx, "VisibilityTimeout")
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(map[string]string{"VisibilityTimeout": "30"}, got); d != "" {
		t.Errorf("the queue attribute after a per-call override:\n%s", d)
	}
	f.clk.Add(30*time.Second - time.Millisecond)
	if s := stats(t, f.q); s.Visible != 0 {
		t.Fatalf("visible before the queue's 30 s ended")
	}
	f.clk.Add(time.Millisecond)
	if s := stats(t, f.q); s.Visible != 1 {
		t.Fatalf("not visible when the queue's 30 s ended")
	}
}

func TestReceiveVisibilityZero(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "m")
	msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(0 * time.Second),
		MessageSystemAttributeNames: []string{"ApproximateReceiveCount"}})
	if len(msgs) != 1 {
		t.Fatalf("a receive with visibility 0 returned %v; want the message exactly once", bodies(msgs))
	}
	if s := stats(t, f.q); s.Visible != 1 || s.InFlight != 0 {
		t.Errorf("after a receive with visibility 0: visible %d, in flight %d; want 1 and 0 (§3.10)", s.Visible, s.InFlight)
	}
	again := f.receiveOne(t, f.q, sqsq.ReceiveInput{MessageSystemAttributeNames: []string{"ApproximateReceiveCount"}})
	if again.ReceiptHandle == msgs[0].ReceiptHandle {
		t.Error("the second receive returned the same receipt handle; every receive yields a new one (§1.1)")
	}
	if d := diff([]string{"1", "2"}, []string{msgs[0].Attributes["ApproximateReceiveCount"], again.Attributes["ApproximateReceiveCount"]}); d != "" {
		t.Errorf("ApproximateReceiveCount of the two receives:\n%s", d)
	}
}

func TestReceiveSystemAttributes(t *testing.T) {
	t.Parallel()
	sent := strconv.FormatInt(epoch.UnixMilli(), 10)
	received := strconv.FormatInt(epoch.Add(1500*time.Millisecond).UnixMilli(), 10)
	tests := []struct {
		reason string
		names  []string
		want   map[string]string
	}{
		{"none requested: no attributes", nil, nil},
		{"All returns every applicable one", []string{"All"}, map[string]string{
			"SenderId": "000000000000", "SentTimestamp": sent, "ApproximateReceiveCount": "1",
			"ApproximateFirstReceiveTimestamp": received}},
		{"a single name", []string{"SentTimestamp"}, map[string]string{"SentTimestamp": sent}},
		{"two names", []string{"ApproximateReceiveCount", "SenderId"},
			map[string]string{"ApproximateReceiveCount": "1", "SenderId": "000000000000"}},
		{"the first receive's timestamp is the receive instant in ms", []string{"ApproximateFirstReceiveTimestamp"},
			map[string]string{"ApproximateFirstReceiveTimestamp": received}},
		{"FIFO-only and absent attributes are not returned, without error",
			[]string{"SequenceNumber", "MessageDeduplicationId", "MessageGroupId", "DeadLetterQueueSourceArn", "AWSTraceHeader"}, nil},
		{"an unknown name is ignored", []string{"Bogus"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			f.send(t, f.q, "m")
			f.clk.Add(1500 * time.Millisecond)
			m := f.receiveOne(t, f.q, sqsq.ReceiveInput{MessageSystemAttributeNames: tt.names})
			if d := diff(tt.want, m.Attributes); d != "" {
				t.Errorf("Attributes for %v:\n%s\nreason: %s", tt.names, d, tt.reason)
			}
		})
	}
}

func TestReceiveCountAndFirstReceiveTimestamp(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "m")
	f.clk.Add(time.Second)
	first := strconv.FormatInt(f.clk.Now().UnixMilli(), 10)
	sent := strconv.FormatInt(epoch.UnixMilli(), 10)
	for i := 1; i <= 3; i++ {
		m := f.receiveOne(t, f.q, sqsq.ReceiveInput{MessageSystemAttributeNames: []string{"All"}})
		want := map[string]string{"SenderId": "000000000000", "SentTimestamp": sent,
			"ApproximateReceiveCount": strconv.Itoa(i), "ApproximateFirstReceiveTimestamp": first}
		if d := diff(want, m.Attributes); d != "" {
			t.Errorf("receive %d: the count increments, the first-receive time stays (§5.4):\n%s", i, d)
		}
		f.clk.Add(30 * time.Second)
	}
}

func TestReceiveSenderIdOption(t *testing.T) {
	t.Parallel()
	f := setup(t, sqsq.WithSenderID("AIDAEXAMPLE"))
	f.send(t, f.q, "m")
	m := f.receiveOne(t, f.q, sqsq.ReceiveInput{MessageSystemAttributeNames: []string{"SenderId"}})
	if d := diff(map[string]string{"SenderId": "AIDAEXAMPLE"}, m.Attributes); d != "" {
		t.Errorf("SenderId with WithSenderID:\n%s", d)
	}
}

func TestReceiveMessageAttributeFilters(t *testing.T) {
	t.Parallel()
	general, hello, help := str("Kenobi"), str("There"), str("Me")
	tests := []struct {
		reason string
		names  []string
		want   map[string]sqsq.MessageAttribute
		md5    string
	}{
		{"omitted: no attributes and no digest", nil, nil, ""},
		{"All returns all", []string{"All"},
			map[string]sqsq.MessageAttribute{"General": general, "Hello": hello, "Help.Me": help}, "4c360f3fdafd970e05fae2f149d997f5"},
		{".* returns all", []string{".*"},
			map[string]sqsq.MessageAttribute{"General": general, "Hello": hello, "Help.Me": help}, "4c360f3fdafd970e05fae2f149d997f5"},
		{"* returns all", []string{"*"},
			map[string]sqsq.MessageAttribute{"General": general, "Hello": hello, "Help.Me": help}, "4c360f3fdafd970e05fae2f149d997f5"},
		{"an exact name", []string{"Hello"}, map[string]sqsq.MessageAttribute{"Hello": hello}, "a311262e065454b75da111d535b8dacd"},
		{"two exact names", []string{"General", "Hello"},
			map[string]sqsq.MessageAttribute{"General": general, "Hello": hello}, "fca026605781cb4126a1e9044df24232"},
		{"Hel.* matches Hello and Help.Me", []string{"Hel.*"},
			map[string]sqsq.MessageAttribute{"Hello": hello, "Help.Me": help}, "83fee93c1bcd8b9a5a923ffacdc636c7"},
		{"Help does not match Help.Me", []string{"Help"}, nil, ""},
		{"a prefix is case-sensitive", []string{"hel.*"}, nil, ""},
		{"names are case-sensitive", []string{"hello"}, nil, ""},
		{"a name the message lacks is ignored", []string{"Nope", "Hello"},
			map[string]sqsq.MessageAttribute{"Hello": hello}, "a311262e065454b75da111d535b8dacd"},
		{"illegal filter names match nothing, without error", []string{"AWS.", "..foo"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "m", MessageAttributes: map[string]sqsq.MessageAttribute{
				"General": general, "Hello": hello, "Help.Me": help}})
			m := f.receiveOne(t, f.q, sqsq.ReceiveInput{MessageAttributeNames: tt.names})
			if d := diff(tt.want, m.MessageAttributes); d != "" {
				t.Errorf("MessageAttributes for %v (§5.5):\n%s\nreason: %s", tt.names, d, tt.reason)
			}
			if got := m.MD5OfMessageAttributes(); got != tt.md5 {
				t.Errorf("MD5OfMessageAttributes for %v (-want +got):\n-%q\n+%q\nthe digest covers only the returned attributes (§5.8)\nreason: %s",
					tt.names, tt.md5, got, tt.reason)
			}
		})
	}
}

func TestReceiveAttributesAreCopies(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "m", MessageAttributes: map[string]sqsq.MessageAttribute{
		"bin": {DataType: "Binary", BinaryValue: []byte("abc")}}})
	m := f.receiveOne(t, f.q, sqsq.ReceiveInput{MessageAttributeNames: []string{"All"}, VisibilityTimeout: sqsq.Some(0 * time.Second)})
	m.MessageAttributes["bin"].BinaryValue[0] = 'X'
	again := f.receiveOne(t, f.q, sqsq.ReceiveInput{MessageAttributeNames: []string{"All"}})
	if got := string(again.MessageAttributes["bin"].BinaryValue); got != "abc" {
		t.Errorf("changing a received binary value changed the stored message: %q", got)
	}
}

func TestReceiveOrder(t *testing.T) {
	t.Parallel()
	t.Run("messages come in the order they became available", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		for i := 1; i <= 5; i++ {
			f.send(t, f.q, fmt.Sprint(i))
		}
		msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
		if d := diff([]string{"1", "2", "3", "4", "5"}, bodies(msgs)); d != "" {
			t.Errorf("order (§5.3):\n%s", d)
		}
	})
	t.Run("a redelivered message goes behind messages available earlier", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		f.send(t, f.q, "A")
		f.receiveOne(t, f.q, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(10 * time.Second)})
		f.clk.Add(5 * time.Second)
		f.send(t, f.q, "B")
		f.send(t, f.q, "C")
		f.clk.Add(5 * time.Second) // A is available again, since +10 s
		f.send(t, f.q, "D")        // available since +10 s too, but sent after A
		f.clk.Add(time.Second)
		f.send(t, f.q, "E")
		msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
		if d := diff([]string{"B", "C", "A", "D", "E"}, bodies(msgs)); d != "" {
			t.Errorf("order by (available-since, enqueue order) (§5.3):\n%s", d)
		}
	})
	t.Run("a delayed message takes its place when its delay ends", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "delayed", DelaySeconds: sqsq.Some(10 * time.Second)})
		f.clk.Add(5 * time.Second)
		f.send(t, f.q, "early")
		f.clk.Add(10 * time.Second)
		f.send(t, f.q, "late")
		msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
		if d := diff([]string{"early", "delayed", "late"}, bodies(msgs)); d != "" {
			t.Errorf("order:\n%s", d)
		}
	})
}

func TestReceiveInFlightLimit(t *testing.T) {
	t.Parallel()
	f := setup(t, sqsq.WithInFlightLimit(2))
	for i := 1; i <= 4; i++ {
		f.send(t, f.q, fmt.Sprint(i))
	}
	msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	if d := diff([]string{"1", "2"}, bodies(msgs)); d != "" {
		t.Errorf("a receive stops at the in-flight limit:\n%s", d)
	}
	before := stats(t, f.q)
	_, err := f.q.Receive(f.ctx, sqsq.ReceiveInput{})
	wantErr(t, err, sqsq.CodeOverLimit, "", "a short poll at the in-flight limit fails with OverLimit (§4.6)")
	if got := sqsq.CodeOverLimit.Info().HTTPStatus; got != 403 {
		t.Errorf("OverLimit HTTP status = %d, want 403", got)
	}
	after := stats(t, f.q)
	if after.Visible != before.Visible || after.InFlight != before.InFlight || after.Received != before.Received {
		t.Errorf("OverLimit moved messages:\nbefore %+v\nafter  %+v", before, after)
	}
	if err := f.q.Delete(f.ctx, msgs[0].ReceiptHandle); err != nil {
		t.Fatal(err)
	}
	m := f.receiveOne(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	if m.Body != "3" {
		t.Errorf("after a delete under the limit, received %q, want 3", m.Body)
	}
	f.clk.Add(30 * time.Second) // visibility ends: 2 and 3 leave flight
	msgs = f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	if d := diff([]string{"4", "2"}, bodies(msgs)); d != "" {
		t.Errorf("after the visibility ended:\n%s", d)
	}
}

func TestRetention(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, sqsq.QueueAttributes{MessageRetentionPeriod: sqsq.Some(60 * time.Second)})
	f.send(t, f.q, "in flight")
	inflight := f.receiveOne(t, f.q, sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(time.Hour)})
	f.send(t, f.q, "available")
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "delayed", DelaySeconds: sqsq.Some(900 * time.Second)})
	f.clk.Add(30 * time.Second)
	f.send(t, f.q, "younger")

	f.clk.Add(30*time.Second - time.Millisecond)
	if s := stats(t, f.q); s.Visible+s.InFlight+s.Delayed != 4 || s.Expired != 0 {
		t.Fatalf("1 ms before the retention period ends: %+v", s)
	}
	f.clk.Add(time.Millisecond)
	s := stats(t, f.q)
	got := []int64{int64(s.Visible), int64(s.InFlight), int64(s.Delayed), s.Expired}
	if d := diff([]int64{1, 0, 0, 3}, got); d != "" {
		t.Errorf("visible, in flight, delayed, expired at the end of retention (every state expires, §5.2):\n%s", d)
	}
	msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(0 * time.Second)})
	if d := diff([]string{"younger"}, bodies(msgs)); d != "" {
		t.Errorf("receivable after the others expired:\n%s", d)
	}
	wantErr(t, f.q.Delete(f.ctx, inflight.ReceiptHandle), "", "", "deleting an expired message's handle succeeds (§4.5)")
	wantErr(t, f.q.ChangeVisibility(f.ctx, inflight.ReceiptHandle, time.Minute), sqsq.CodeInvalidParameterValue,
		"Value "+inflight.ReceiptHandle+" for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change.",
		"an expired message cannot change visibility (§4.5)")

	f.clk.Add(30 * time.Second)
	if s := stats(t, f.q); s.Visible != 0 || s.Expired != 4 {
		t.Errorf("after the youngest message's retention: %+v", s)
	}
}

func TestRetentionShortenedExpiresAtOnce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "old")
	f.clk.Add(100 * time.Second)
	f.send(t, f.q, "new")
	f.set(t, sqsq.QueueAttributes{MessageRetentionPeriod: sqsq.Some(60 * time.Second)})
	s := stats(t, f.q)
	if s.Visible != 1 || s.Expired != 1 {
		t.Errorf("after shortening retention below the old message's age: visible %d, expired %d; want 1 and 1 (§5.2)", s.Visible, s.Expired)
	}
	if m := f.receiveOne(t, f.q, sqsq.ReceiveInput{}); m.Body != "new" {
		t.Errorf("received %q, want new", m.Body)
	}
}

func TestStatsOldestAge(t *testing.T) {
	t.Parallel()
	f := setup(t)
	if s := stats(t, f.q); s.OldestAge != 0 || s.OldestAvailableAge != 0 {
		t.Errorf("empty queue: %+v", s)
	}
	f.send(t, f.q, "A")
	f.clk.Add(10 * time.Second)
	f.send(t, f.q, "B")
	s := stats(t, f.q)
	if d := diff([]time.Duration{10 * time.Second, 10 * time.Second}, []time.Duration{s.OldestAge, s.OldestAvailableAge}); d != "" {
		t.Errorf("OldestAge, OldestAvailableAge with A 10 s old:\n%s", d)
	}
	f.receiveOne(t, f.q, sqsq.ReceiveInput{}) // A goes in flight
	f.clk.Add(5 * time.Second)
	s = stats(t, f.q)
	if d := diff([]time.Duration{15 * time.Second, 5 * time.Second}, []time.Duration{s.OldestAge, s.OldestAvailableAge}); d != "" {
		t.Errorf("with A in flight: OldestAge counts every state, OldestAvailableAge only available ones:\n%s", d)
	}
	f.clk.Add(25 * time.Second) // +40 s: A's 30 s visibility ends, A is available since now
	s = stats(t, f.q)
	if d := diff([]time.Duration{40 * time.Second, 30 * time.Second}, []time.Duration{s.OldestAge, s.OldestAvailableAge}); d != "" {
		t.Errorf("after A's visibility ended (B available longest):\n%s", d)
	}
}
