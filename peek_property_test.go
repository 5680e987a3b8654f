package sqsq_test

// Property test of Peek's promise to change nothing. rapid draws schedules
// of sends (delayed or not, with attributes and group ids), receives (1–10
// messages, visibility 0 to a minute), visibility changes and deletes with
// any handle issued, deletes by id, clock advances, and peeks with drawn
// filters, limits and body prefixes, on a standard and a FIFO queue that
// dead-letter into their own DLQs. Every action but the peeks runs on two
// brokers alike, with pinned ids (so pinned handles) and mock clocks moved
// together; the peeks run on the first only. After every step the twins must
// agree on everything observable: what each call returned (ids, handles,
// bodies, attributes, errors), Stats with every counter, GetAttributes and
// the parked receivers. A peek that moved a message, counted a receive,
// issued a handle or touched a counter would show as a difference at once
// or at the next receive. Each peek is also checked against the queue:
// send order, states agreeing with Stats, held messages exactly those
// behind a message in flight or delayed of their group.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"pgregory.net/rapid"

	"github.com/sqsq/sqsq"
)

// peekTwin is one of the two brokers.
type peekTwin struct {
	clk    *clock.Mock
	b      *sqsq.Broker
	queues []*sqsq.Queue // std, dlq, q.fifo, dlq.fifo
}

var peekTwinQueues = []string{"std", "dlq", "q.fifo", "dlq.fifo"}

func newPeekTwin(t *rapid.T) *peekTwin {
	clk := clock.NewMock()
	clk.Set(epoch)
	n := 0
	b := sqsq.NewBroker(sqsq.WithClock(clk), sqsq.WithIDFunc(func() string {
		n++
		return fmt.Sprintf("m-%06d", n)
	}))
	ctx := context.Background()
	create := func(name string, attrs sqsq.QueueAttributes) *sqsq.Queue {
		q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: name, Attributes: attrs})
		if err != nil {
			t.Fatalf("CreateQueue(%s): %v", name, err)
		}
		return q
	}
	dlq := create("dlq", sqsq.QueueAttributes{})
	fdlq := create("dlq.fifo", sqsq.QueueAttributes{FifoQueue: sqsq.Some(true), DelaySeconds: sqsq.Some(5 * time.Second)})
	std := create("std", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 3})})
	fifo := create("q.fifo", sqsq.QueueAttributes{FifoQueue: sqsq.Some(true), ContentBasedDeduplication: sqsq.Some(true),
		RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: fdlq.ARN(), MaxReceiveCount: 3})})
	return &peekTwin{clk: clk, b: b, queues: []*sqsq.Queue{std, dlq, fifo, fdlq}}
}

// peekView is everything observable of a twin but its messages.
type peekView struct {
	Stats  []sqsq.Stats
	Attrs  []map[string]string
	Parked []int
}

func (tw *peekTwin) view(t *rapid.T) peekView {
	var v peekView
	for _, q := range tw.queues {
		s, err := q.Stats()
		if err != nil {
			t.Fatalf("Stats: %v", err)
		}
		a, err := q.GetAttributes(context.Background(), sqsq.AttrAll)
		if err != nil {
			t.Fatalf("GetAttributes: %v", err)
		}
		v.Stats = append(v.Stats, s)
		v.Attrs = append(v.Attrs, a)
		v.Parked = append(v.Parked, q.ParkedReceivers())
	}
	return v
}

func TestPeekHasNoSideEffects(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		twins := [2]*peekTwin{newPeekTwin(t), newPeekTwin(t)}
		var handles [2][]string // [twin][i]: the queue index, a space, the handle
		var sent []string       // message ids, the same on both twins
		bodies := 0

		// both runs do on each twin and compares what it returned.
		both := func(what string, do func(tw *peekTwin, twin int) string) {
			a, b := do(twins[0], 0), do(twins[1], 1)
			if a != b {
				t.Fatalf("%s: the peeked twin got\n%s\nthe other\n%s", what, a, b)
			}
		}
		show := func(v any, err error) string { return fmt.Sprintf("%+v err=%v", v, err) }

		t.Repeat(map[string]func(*rapid.T){
			"sendStandard": func(t *rapid.T) {
				bodies++
				in := sqsq.SendInput{MessageBody: "body-é-" + strconv.Itoa(bodies)}
				if rapid.Bool().Draw(t, "delayed") {
					in.DelaySeconds = sqsq.Some(time.Duration(rapid.SampledFrom([]int{5, 30}).Draw(t, "delay")) * time.Second)
				}
				if rapid.Bool().Draw(t, "attr") {
					in.MessageAttributes = map[string]sqsq.MessageAttribute{"n": {DataType: "Number", StringValue: strconv.Itoa(bodies)}}
				}
				if rapid.Bool().Draw(t, "group") {
					in.MessageGroupId = rapid.SampledFrom([]string{"g1", "g2"}).Draw(t, "groupId")
				}
				var id string
				both("send", func(tw *peekTwin, _ int) string {
					r, err := tw.queues[0].Send(ctx, in)
					id = r.MessageId
					return show(r.MessageId, err)
				})
				sent = append(sent, id)
			},
			"sendFIFO": func(t *rapid.T) {
				bodies++
				in := sqsq.SendInput{
					MessageBody:    "fifo-" + strconv.Itoa(bodies),
					MessageGroupId: rapid.SampledFrom([]string{"g1", "g2", "g3"}).Draw(t, "group"),
				}
				var id string
				both("sendFIFO", func(tw *peekTwin, _ int) string {
					r, err := tw.queues[2].Send(ctx, in)
					id = r.MessageId
					return show([]string{r.MessageId, r.SequenceNumber, r.MD5OfMessageBody()}, err)
				})
				sent = append(sent, id)
			},
			"receive": func(t *rapid.T) {
				qi := rapid.IntRange(0, 3).Draw(t, "queue")
				in := sqsq.ReceiveInput{
					MaxNumberOfMessages:         rapid.IntRange(1, 10).Draw(t, "max"),
					VisibilityTimeout:           sqsq.Some(time.Duration(rapid.SampledFrom([]int{0, 10, 30, 60}).Draw(t, "vis")) * time.Second),
					WaitTimeSeconds:             sqsq.Some(time.Duration(0)),
					MessageSystemAttributeNames: []string{sqsq.SysAll},
					MessageAttributeNames:       []string{"All"},
				}
				both("receive", func(tw *peekTwin, twin int) string {
					msgs, err := tw.queues[qi].Receive(ctx, in)
					for _, m := range msgs {
						handles[twin] = append(handles[twin], strconv.Itoa(qi)+" "+m.ReceiptHandle)
					}
					return show(peekTwinMessages(msgs), err)
				})
			},
			"changeVisibility": func(t *rapid.T) {
				if len(handles[0]) == 0 {
					t.Skip("no handle yet")
				}
				i := rapid.IntRange(0, len(handles[0])-1).Draw(t, "handle")
				vis := time.Duration(rapid.SampledFrom([]int{0, 10, 60}).Draw(t, "vis")) * time.Second
				both("changeVisibility", func(tw *peekTwin, twin int) string {
					qi, rh := splitPeekHandle(handles[twin][i])
					return show(nil, tw.queues[qi].ChangeVisibility(ctx, rh, vis))
				})
			},
			"delete": func(t *rapid.T) {
				if len(handles[0]) == 0 {
					t.Skip("no handle yet")
				}
				i := rapid.IntRange(0, len(handles[0])-1).Draw(t, "handle")
				both("delete", func(tw *peekTwin, twin int) string {
					qi, rh := splitPeekHandle(handles[twin][i])
					return show(nil, tw.queues[qi].Delete(ctx, rh))
				})
			},
			"deleteById": func(t *rapid.T) {
				if len(sent) == 0 {
					t.Skip("nothing sent yet")
				}
				id := rapid.SampledFrom(sent).Draw(t, "id")
				qi := rapid.IntRange(0, 3).Draw(t, "queue")
				both("deleteById", func(tw *peekTwin, _ int) string {
					return show(tw.queues[qi].DeleteMessageById(ctx, id))
				})
			},
			"advance": func(t *rapid.T) {
				d := time.Duration(rapid.SampledFrom([]int{1, 5, 10, 31}).Draw(t, "seconds")) * time.Second
				for _, tw := range twins {
					tw.clk.Add(d)
				}
			},
			"peek": func(t *rapid.T) {
				qi := rapid.IntRange(0, 3).Draw(t, "queue")
				in := sqsq.PeekInput{
					States:     rapid.SliceOfDistinct(rapid.SampledFrom([]sqsq.MessageState{sqsq.StateAvailable, sqsq.StateDelayed, sqsq.StateInFlight, sqsq.StateHeld}), func(s sqsq.MessageState) sqsq.MessageState { return s }).Draw(t, "states"),
					GroupId:    rapid.SampledFrom([]string{"", "", "g1", "g3"}).Draw(t, "group"),
					Limit:      rapid.IntRange(0, 7).Draw(t, "limit"),
					BodyPrefix: rapid.IntRange(0, 9).Draw(t, "prefix"),
				}
				tw := twins[0]
				q := tw.queues[qi]
				before := tw.view(t)
				var all []sqsq.PeekedMessage
				for pages := rapid.IntRange(1, 50).Draw(t, "pages"); pages > 0; pages-- {
					out, err := q.Peek(ctx, in)
					if err != nil {
						t.Fatalf("Peek(%+v): %v", in, err)
					}
					if len(out.Messages) > cmpOr(in.Limit, 100) {
						t.Fatalf("a page of %d messages over the limit %d", len(out.Messages), in.Limit)
					}
					all = append(all, out.Messages...)
					if out.NextCursor == "" {
						break
					}
					in.Cursor = out.NextCursor
				}
				if d := diff(before, tw.view(t)); d != "" {
					t.Fatalf("Peek(%s) changed the queue:\n%s", peekTwinQueues[qi], d)
				}
				checkPeeked(t, q, in, all)
				full := peekAllRapid(t, q)
				checkFullPeek(t, q, full)
			},
			"": func(t *rapid.T) {
				if d := diff(twins[0].view(t), twins[1].view(t)); d != "" {
					t.Fatalf("the twins differ:\n%s", d)
				}
			},
		})
	})
}

// peekTwinMessages is what a receive returned, without the pointer to the
// stored message that a Message carries.
func peekTwinMessages(msgs []sqsq.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, fmt.Sprintf("%s %s %q %v %v", m.MessageId, m.ReceiptHandle, m.Body, m.Attributes, m.MessageAttributes))
	}
	return out
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func splitPeekHandle(s string) (int, string) {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			qi, _ := strconv.Atoi(s[:i])
			return qi, s[i+1:]
		}
	}
	return 0, s
}

func peekAllRapid(t *rapid.T, q *sqsq.Queue) []sqsq.PeekedMessage {
	var all []sqsq.PeekedMessage
	in := sqsq.PeekInput{Limit: 3}
	for {
		out, err := q.Peek(context.Background(), in)
		if err != nil {
			t.Fatalf("Peek: %v", err)
		}
		all = append(all, out.Messages...)
		if out.NextCursor == "" {
			return all
		}
		in.Cursor = out.NextCursor
	}
}

// checkPeeked checks what a filtered peek returned: only messages that
// pass the filters, bodies cut as asked.
func checkPeeked(t *rapid.T, q *sqsq.Queue, in sqsq.PeekInput, got []sqsq.PeekedMessage) {
	for _, p := range got {
		if len(in.States) > 0 && !slices.Contains(in.States, p.State) {
			t.Fatalf("Peek(%+v) returned a message in state %s", in, p.State)
		}
		if in.GroupId != "" && p.GroupId != in.GroupId {
			t.Fatalf("Peek(%+v) returned a message of group %q", in, p.GroupId)
		}
		if in.BodyPrefix > 0 && len(p.Body) > in.BodyPrefix || p.BodyTruncated != (len(p.Body) < p.BodySize) {
			t.Fatalf("Peek(%+v): body %q of %d bytes, truncated %v", in, p.Body, p.BodySize, p.BodyTruncated)
		}
	}
}

// checkFullPeek checks a walk of the whole queue against Stats, the send
// order (FIFO sequence numbers; ids on the standard source queue, which
// issues them in order) and the held rule of semantics §6.4.
func checkFullPeek(t *rapid.T, q *sqsq.Queue, all []sqsq.PeekedMessage) {
	s, err := q.Stats()
	if err != nil {
		t.Fatal(err)
	}
	count := map[sqsq.MessageState]int{}
	blocked := map[string]bool{} // FIFO groups with a message in flight or delayed so far
	for i, p := range all {
		count[p.State]++
		if i > 0 {
			prev := all[i-1]
			if q.FIFO() && len(prev.SequenceNumber) == len(p.SequenceNumber) && prev.SequenceNumber >= p.SequenceNumber ||
				q.Name() == "std" && prev.MessageId >= p.MessageId {
				t.Fatalf("%s: %s before %s: not in send order", q.Name(), prev.MessageId, p.MessageId)
			}
		}
		if q.FIFO() {
			switch p.State {
			case sqsq.StateInFlight, sqsq.StateDelayed:
				blocked[p.GroupId] = true
			case sqsq.StateHeld, sqsq.StateAvailable:
				if want := blocked[p.GroupId]; (p.State == sqsq.StateHeld) != want {
					t.Fatalf("%s: %s is %s; an earlier message of its group is in flight or delayed: %v", q.Name(), p.MessageId, p.State, want)
				}
			}
		} else if p.State == sqsq.StateHeld {
			t.Fatalf("%s: a held message on a standard queue", q.Name())
		}
		if (p.State == sqsq.StateInFlight || p.State == sqsq.StateDelayed) == p.Until.IsZero() {
			t.Fatalf("%s: %s is %s with Until %v", q.Name(), p.MessageId, p.State, p.Until)
		}
	}
	if count[sqsq.StateAvailable]+count[sqsq.StateHeld] != s.Visible || count[sqsq.StateInFlight] != s.InFlight || count[sqsq.StateDelayed] != s.Delayed {
		t.Fatalf("%s: Peek counts %v; Stats visible %d, in flight %d, delayed %d", q.Name(), count, s.Visible, s.InFlight, s.Delayed)
	}
}
