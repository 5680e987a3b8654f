package durable_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/durable"
	"github.com/sqsq/sqsq/internal/state"
)

// A real endpoint, exported by package sqsq, saved, loaded and imported
// again, is the endpoint it was: the same exported state, its messages
// receivable, its receipt handles still valid.
func TestRestartThroughStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewMock()
	clk.Set(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	defer b.Close()
	std, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders", Tags: map[string]string{"team": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	fifo, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders.fifo",
		Attributes: sqsq.QueueAttributes{FifoQueue: sqsq.Some(true), ContentBasedDeduplication: sqsq.Some(true)}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		if _, err := std.Send(ctx, sqsq.SendInput{MessageBody: fmt.Sprint("std-", i), MessageAttributes: map[string]sqsq.MessageAttribute{
			"bin": {DataType: "Binary", BinaryValue: []byte{byte(i), 0, 0xff}},
		}}); err != nil {
			t.Fatal(err)
		}
		if _, err := fifo.Send(ctx, sqsq.SendInput{MessageBody: fmt.Sprint("fifo-", i), MessageGroupId: fmt.Sprint("g", i%3)}); err != nil {
			t.Fatal(err)
		}
	}
	inflight, err := std.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	if err != nil || len(inflight) != 10 {
		t.Fatalf("Receive = %d messages, %v", len(inflight), err)
	}
	if _, err := fifo.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 5}); err != nil {
		t.Fatal(err)
	}
	clk.Add(time.Second)

	want, err := state.Export(b)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, err := durable.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(want); err != nil {
		t.Fatal(err)
	}
	store.Close()

	store, err = durable.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	got, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatal("the loaded World is not the saved one")
	}
	clk2 := clock.NewMock()
	clk2.Set(clk.Now())
	rb, err := state.Import(got, []sqsq.Option{sqsq.WithClock(clk2)})
	if err != nil {
		t.Fatal(err)
	}
	restarted := rb.(*sqsq.Broker)
	defer restarted.Close()
	again, err := state.Export(restarted)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, again) {
		t.Fatal("the restarted endpoint exports another World")
	}

	rq, err := restarted.GetQueue(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	if err := rq.Delete(ctx, inflight[0].ReceiptHandle); err != nil {
		t.Errorf("Delete with a handle from before the restart: %v", err)
	}
	msgs, err := rq.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	if err != nil || len(msgs) != 10 || msgs[0].Body != "std-10" {
		t.Errorf("Receive after the restart = %d messages (first %q), %v; want 10 from std-10", len(msgs), firstBody(msgs), err)
	}
}

func firstBody(msgs []sqsq.Message) string {
	if len(msgs) == 0 {
		return ""
	}
	return msgs[0].Body
}
