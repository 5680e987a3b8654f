package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// testPlan is a small plan: the ledger tests pick message numbers by fate
// and queue from it.
var testPlan = plan{n: 400, fifoShare: 0.5, groups: 4, producers: 4, bodySize: 64,
	alwaysFail: alwaysFailShare, failOnce: failOnceShare, slow: slowShare}

// pick returns the first message number of the plan with the given queue
// and fate, after skip such numbers.
func pick(t *testing.T, fifo bool, f fate, skip int) int {
	t.Helper()
	for n := range testPlan.n {
		if testPlan.isFIFO(n) == fifo && testPlan.fate(n) == f {
			if skip == 0 {
				return n
			}
			skip--
		}
	}
	t.Fatalf("no message with fifo=%v fate=%v in the test plan", fifo, f)
	return 0
}

// msg is a received message: the body of message n, its MessageId, a
// receipt handle and the receive count.
func msg(n, group, seq, count int, handle string) types.Message {
	m := types.Message{
		Body:          aws.String(testPlan.body(n, group, seq)),
		MessageId:     aws.String("id-" + strconv.Itoa(n)),
		ReceiptHandle: aws.String(handle),
		Attributes:    map[string]string{string(types.MessageSystemAttributeNameApproximateReceiveCount): strconv.Itoa(count)},
	}
	if group >= 0 {
		m.Attributes[string(types.MessageSystemAttributeNameMessageGroupId)] = strconv.Itoa(group)
	}
	return m
}

// send records message n as sent, standard (group -1) or FIFO.
func send(l *ledger, n, group, seq int) {
	l.planned(n, group, seq)
	l.sentOK(n, "id-"+strconv.Itoa(n))
}

const sec = int64(time.Second)

// TestLedgerVerdicts feeds the ledger histories and checks its verdict:
// the violations each broken invariant must raise, and none for the
// histories SQS allows.
func TestLedgerVerdicts(t *testing.T) {
	t.Parallel()
	type story func(t *testing.T, l *ledger)
	tests := []struct {
		name      string
		story     story
		violation string // a violation the verdict must hold; "" for none
		check     func(t *testing.T, r report)
	}{
		{
			name: "deleted on the first receive",
			story: func(t *testing.T, l *ledger) {
				n := pick(t, false, fateOK, 0)
				send(l, n, -1, -1)
				d := l.received(false, []types.Message{msg(n, -1, -1, 1, "h1")}, 0, 1)
				l.deleted(d[0], 2, 3)
			},
			check: func(t *testing.T, r report) {
				if r.deleted != 1 || r.lost != 0 || r.redeliveries != 0 {
					t.Errorf("report %+v: want 1 deleted, nothing lost or redelivered", r)
				}
			},
		},
		{
			name: "a stale delete, then the current one, is at-least-once delivery",
			story: func(t *testing.T, l *ledger) {
				n := pick(t, false, fateOK, 0)
				send(l, n, -1, -1)
				d1 := l.received(false, []types.Message{msg(n, -1, -1, 1, "h1")}, 0, 1)
				d2 := l.received(false, []types.Message{msg(n, -1, -1, 2, "h2")}, 3*sec, 4*sec)
				l.deleted(d1[0], 3*sec, 5*sec) // answered after the second receive was sent: stale
				l.deleted(d2[0], 6*sec, 7*sec)
			},
			check: func(t *testing.T, r report) {
				if r.deleted != 1 || r.staleDeletes != 1 || r.redeliveries != 1 {
					t.Errorf("report %+v: want 1 deleted, 1 stale delete, 1 redelivery", r)
				}
			},
		},
		{
			name: "received again after its delete had answered",
			story: func(t *testing.T, l *ledger) {
				n := pick(t, false, fateOK, 0)
				send(l, n, -1, -1)
				d1 := l.received(false, []types.Message{msg(n, -1, -1, 1, "h1")}, 0, 1)
				l.deleted(d1[0], 2, 3)
				d2 := l.received(false, []types.Message{msg(n, -1, -1, 2, "h2")}, 4, 5)
				l.deleted(d2[0], 6, 7)
			},
			violation: "after the delete of receive 1 had answered",
		},
		{
			name: "lost: received and never deleted",
			story: func(t *testing.T, l *ledger) {
				n := pick(t, false, fateOK, 0)
				send(l, n, -1, -1)
				l.received(false, []types.Message{msg(n, -1, -1, 1, "h1")}, 0, 1)
			},
			violation: "lost",
			check: func(t *testing.T, r report) {
				if r.lost != 1 {
					t.Errorf("lost %d, want 1", r.lost)
				}
			},
		},
		{
			name: "lost: never received",
			story: func(t *testing.T, l *ledger) {
				send(l, pick(t, false, fateOK, 0), -1, -1)
			},
			violation: "never received",
		},
		{
			name: "the same receive count twice: in two consumers' hands at once",
			story: func(t *testing.T, l *ledger) {
				n := pick(t, false, fateOK, 0)
				send(l, n, -1, -1)
				l.received(false, []types.Message{msg(n, -1, -1, 1, "h1")}, 0, 1)
				d := l.received(false, []types.Message{msg(n, -1, -1, 1, "h2")}, 0, 1)
				l.deleted(d[0], 2, 3)
			},
			violation: "receive count 1 delivered twice",
		},
		{
			name: "received past maxReceiveCount instead of moved",
			story: func(t *testing.T, l *ledger) {
				n := pick(t, false, fateOK, 0)
				send(l, n, -1, -1)
				d := l.received(false, []types.Message{msg(n, -1, -1, maxReceiveCount+1, "h4")}, 0, 1)
				l.deleted(d[0], 2, 3)
			},
			violation: "ApproximateReceiveCount 4",
		},
		{
			name: "always failing, and in the dead-letter queue once",
			story: func(t *testing.T, l *ledger) {
				n := pick(t, false, fateAlwaysFail, 0)
				send(l, n, -1, -1)
				for c := 1; c <= maxReceiveCount; c++ {
					l.received(false, []types.Message{msg(n, -1, -1, c, "h"+strconv.Itoa(c))}, int64(c)*sec, int64(c)*sec+1)
				}
				l.dead(false, msg(n, -1, -1, maxReceiveCount+1, "d"))
			},
			check: func(t *testing.T, r report) {
				if r.dlq != 1 || r.dlqExpected != 1 || r.dlqExtra != 0 || r.lost != 0 {
					t.Errorf("report %+v: want 1 expected in the dead-letter queue", r)
				}
			},
		},
		{
			name: "always failing, and not in the dead-letter queue",
			story: func(t *testing.T, l *ledger) {
				n := pick(t, false, fateAlwaysFail, 0)
				send(l, n, -1, -1)
				for c := 1; c <= maxReceiveCount; c++ {
					l.received(false, []types.Message{msg(n, -1, -1, c, "h"+strconv.Itoa(c))}, int64(c)*sec, int64(c)*sec+1)
				}
			},
			violation: "(always-fail): lost: not deleted and not in a dead-letter queue (last received with count 3)",
		},
		{
			name: "in the dead-letter queue twice",
			story: func(t *testing.T, l *ledger) {
				n := pick(t, false, fateAlwaysFail, 0)
				send(l, n, -1, -1)
				l.received(false, []types.Message{msg(n, -1, -1, 1, "h1")}, 0, 1)
				l.dead(false, msg(n, -1, -1, 2, "d1"))
				l.dead(false, msg(n, -1, -1, 3, "d2"))
			},
			violation: "in a dead-letter queue 2 times",
		},
		{
			name: "deleted, and in the dead-letter queue",
			story: func(t *testing.T, l *ledger) {
				n := pick(t, false, fateOK, 0)
				send(l, n, -1, -1)
				d := l.received(false, []types.Message{msg(n, -1, -1, 1, "h1")}, 0, 1)
				l.deleted(d[0], 2, 3)
				l.dead(false, msg(n, -1, -1, 2, "d1"))
			},
			violation: "deleted, and in a dead-letter queue",
		},
		{
			name: "an extended message received twice",
			story: func(t *testing.T, l *ledger) {
				n := pick(t, false, fateSlow, 0)
				send(l, n, -1, -1)
				d1 := l.received(false, []types.Message{msg(n, -1, -1, 1, "h1")}, 0, 1)
				l.extended(d1[0], 2) // in time
				d2 := l.received(false, []types.Message{msg(n, -1, -1, 2, "h2")}, 3*sec, 3*sec+1)
				l.deleted(d2[0], 4*sec, 4*sec+1)
			},
			violation: "though its visibility was extended",
		},
		{
			name: "an unknown message",
			story: func(t *testing.T, l *ledger) {
				l.received(false, []types.Message{{Body: aws.String("hello"), MessageId: aws.String("x"), ReceiptHandle: aws.String("h")}}, 0, 1)
			},
			violation: "unknown message",
			check: func(t *testing.T, r report) {
				if r.unknown != 1 {
					t.Errorf("unknown %d, want 1", r.unknown)
				}
			},
		},
		{
			name: "FIFO: first deliveries in order, a redelivery in between",
			story: func(t *testing.T, l *ledger) {
				a, b := pick(t, true, fateOK, 0), pick(t, true, fateOK, 1)
				send(l, a, 2, 0)
				send(l, b, 2, 1)
				d := l.received(true, []types.Message{msg(a, 2, 0, 1, "a1")}, 0, 1)
				d = append(d, l.received(true, []types.Message{msg(a, 2, 0, 2, "a2"), msg(b, 2, 1, 1, "b1")}, 2, 3)...)
				l.deleted(d[1], 4, 5)
				l.deleted(d[2], 4, 5)
			},
		},
		{
			name: "FIFO: a later message of the group delivered first",
			story: func(t *testing.T, l *ledger) {
				a, b := pick(t, true, fateOK, 0), pick(t, true, fateOK, 1)
				send(l, a, 2, 0)
				send(l, b, 2, 1)
				d := l.received(true, []types.Message{msg(b, 2, 1, 1, "b1"), msg(a, 2, 0, 1, "a1")}, 0, 1)
				l.deleted(d[0], 2, 3)
				l.deleted(d[1], 2, 3)
			},
			violation: "delivered before seq 0 was",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := newLedger(testPlan, 2*time.Second, maxReceiveCount)
			tt.story(t, l)
			r := l.verify()
			all := strings.Join(r.first, "\n")
			switch {
			case tt.violation == "" && r.violations > 0:
				t.Errorf("unexpected violations:\n%s", all)
			case tt.violation != "" && !strings.Contains(all, tt.violation):
				t.Errorf("violations %q: want one saying %q", all, tt.violation)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

func TestParseBodyRoundTrip(t *testing.T) {
	t.Parallel()
	for _, want := range []parsedBody{{n: 7, group: -1, seq: -1}, {n: 12345, group: 999, seq: 3, fifo: true}} {
		got, err := parseBody(testPlan.body(want.n, want.group, want.seq))
		if err != nil || got != want {
			t.Errorf("parseBody(body(%+v)) = %+v, %v", want, got, err)
		}
	}
	for _, bad := range []string{"", "soak", "soak x s", "soak 1 f 2", "soak -1 s", "other 1 s"} {
		if _, err := parseBody(bad); err == nil {
			t.Errorf("parseBody(%q): no error", bad)
		}
	}
}
