package sqsq_test

// Queue URLs name one queue from every scope of an endpoint: the default
// region's keep AWS's /{account}/{name}, another region's carry
// /queue/{region}/, and a regional host names its region.

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/sqsq/sqsq"
)

func TestQueueURLs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := sqsq.NewBroker(sqsq.WithBaseURL("http://127.0.0.1:9324"))
	create := func(b *sqsq.Broker) *sqsq.Queue {
		t.Helper()
		q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	home, partner := create(b), create(b.Scope(otherAccount, "us-east-1"))
	west, partnerWest := create(b.Scope("000000000000", "eu-west-1")), create(b.Scope(otherAccount, "eu-west-1"))
	tests := []struct {
		reason string
		q      *sqsq.Queue
		url    string
	}{
		{"the default namespace keeps AWS's shape", home, "http://127.0.0.1:9324/000000000000/orders"},
		{"another account of the default region needs no region", partner, "http://127.0.0.1:9324/111111111111/orders"},
		{"another region carries it", west, "http://127.0.0.1:9324/queue/eu-west-1/000000000000/orders"},
		{"another account and region", partnerWest, "http://127.0.0.1:9324/queue/eu-west-1/111111111111/orders"},
	}
	if qs := b.Scope(otherAccount, "us-east-1").Queues(); len(qs) != 1 || qs[0] != partner {
		t.Errorf("Queues() of account 111111111111 in us-east-1 = %v, want its queue", qs)
	}
	if _, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "a-first"}); err != nil {
		t.Fatal(err)
	}
	if qs := b.Queues(); len(qs) != 2 || qs[0].Name() != "a-first" || qs[1] != home {
		t.Errorf("Queues() = %v, want a-first and orders, in name order", qs)
	}
	scopes := b.Scopes()
	if len(scopes) != 4 {
		t.Fatalf("Scopes() has %d brokers, want 4", len(scopes))
	}
	for _, tt := range tests {
		if got := tt.q.URL(); got != tt.url {
			t.Errorf("%s: URL() = %s, want %s", tt.reason, got, tt.url)
		}
		if got := tt.q.URLAt("http://localhost:4566/"); got != "http://localhost:4566"+tt.url[len("http://127.0.0.1:9324"):] {
			t.Errorf("%s: URLAt = %s", tt.reason, got)
		}
		for _, s := range scopes { // every scope resolves the URL to the queue
			if got, err := s.GetQueue(ctx, tt.url); err != nil || got != tt.q {
				t.Errorf("%s: %s/%s GetQueue(%s) = %v, %v", tt.reason, s.AccountID(), s.Region(), tt.url, got, err)
			}
		}
	}
	// A regional host names the region, so URLs on it keep AWS's shape.
	if got := west.URLAt("https://sqs.eu-west-1.amazonaws.com"); got != "https://sqs.eu-west-1.amazonaws.com/000000000000/orders" {
		t.Errorf("URLAt a regional host = %s", got)
	}
	for _, u := range []string{
		"https://sqs.eu-west-1.amazonaws.com/000000000000/orders",
		"http://sqs.eu-west-1.localhost:9324/000000000000/orders",
		"/queue/eu-west-1/000000000000/orders",
		"http://h/some/prefix/queue/eu-west-1/000000000000/orders",
	} {
		if got, err := b.GetQueue(ctx, u); err != nil || got != west {
			t.Errorf("GetQueue(%s) = %v, %v; want the eu-west-1 queue", u, got, err)
		}
	}
	// A URL without a region is the default region's, from any region.
	if got, err := b.Scope("000000000000", "eu-west-1").GetQueue(ctx, "http://x/000000000000/orders"); err != nil || got != home {
		t.Errorf("a region-less URL from eu-west-1 = %v, %v; want the default region's queue", got, err)
	}
	// With the default base URL, a scope's host names its region.
	d := sqsq.NewBroker()
	dq := create(d.Scope("000000000000", "eu-west-1"))
	if got := dq.URL(); got != "https://sqs.eu-west-1.sqsq.invalid/000000000000/orders" {
		t.Errorf("default base URL of another region: %s", got)
	}
	if got, err := d.GetQueue(ctx, dq.URL()); err != nil || got != dq {
		t.Errorf("GetQueue(%s) from the default region = %v, %v", dq.URL(), got, err)
	}
}

// A queue of another region than the endpoint's default carries its region
// in its URL, and every scope resolves the URL to it.
func ExampleQueue_URLAt() {
	ctx := context.Background()
	b := sqsq.NewBroker() // us-east-1, the endpoint's default region
	defer b.Close()
	home, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	west, _ := b.Scope("000000000000", "eu-west-1").CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	fmt.Println(home.URLAt("http://127.0.0.1:9324"))
	fmt.Println(west.URLAt("http://127.0.0.1:9324"))
	fmt.Println(west.URLAt("https://sqs.eu-west-1.amazonaws.com")) // a regional host names it
	q, _ := b.GetQueue(ctx, "http://127.0.0.1:9324/queue/eu-west-1/000000000000/orders")
	fmt.Println(q.ARN())
	account, region, name, _ := b.Locate("http://localhost:4566/000000000000/orders")
	fmt.Println(account, region, name)
	for _, s := range b.Scopes() {
		fmt.Println("scope", s.AccountID(), s.Region())
	}
	// Output:
	// http://127.0.0.1:9324/000000000000/orders
	// http://127.0.0.1:9324/queue/eu-west-1/000000000000/orders
	// https://sqs.eu-west-1.amazonaws.com/000000000000/orders
	// arn:aws:sqs:eu-west-1:000000000000:orders
	// 000000000000 us-east-1 orders
	// scope 000000000000 eu-west-1
	// scope 000000000000 us-east-1
}

// GetQueue keeps the last reference it resolved; the queue it names is
// still the one a reference finds after the queue is deleted, recreated
// under the same name, or the broker reset.
func TestGetQueueAgainAfterDeleteAndRecreate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := sqsq.NewBroker(sqsq.WithRecreateDelay(0))
	defer b.Close()
	q1, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "jobs"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"jobs", q1.URL(), q1.ARN()} {
		if got, err := b.GetQueue(ctx, ref); err != nil || got != q1 {
			t.Fatalf("GetQueue(%q) = %p, %v; want the queue", ref, got, err)
		}
		if got, err := b.GetQueue(ctx, ref); err != nil || got != q1 { // from the last reference
			t.Fatalf("GetQueue(%q) again = %p, %v; want the queue", ref, got, err)
		}
	}
	ref := q1.URL()
	if err := b.DeleteQueue(ctx, "jobs"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.GetQueue(ctx, ref); !errors.Is(err, sqsq.ErrQueueDoesNotExist) {
		t.Fatalf("GetQueue after DeleteQueue: %v, want QueueDoesNotExist", err)
	}
	q2, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "jobs"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.GetQueue(ctx, ref); err != nil || got != q2 {
		t.Fatalf("GetQueue after re-creation = %p, %v; want the new queue %p (the old was %p)", got, err, q2, q1)
	}
	if err := b.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.GetQueue(ctx, ref); !errors.Is(err, sqsq.ErrQueueDoesNotExist) {
		t.Fatalf("GetQueue after Reset: %v, want QueueDoesNotExist", err)
	}
}
