package sqsq_test

import (
	"context"
	"fmt"

	"github.com/sqsq/sqsq"
)

// Empty an endpoint between tests without a new broker: every queue of
// every namespace goes, and names are free again at once.
func ExampleBroker_Reset() {
	ctx := context.Background()
	b := sqsq.NewBroker()
	defer b.Close()
	_, _ = b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	_, _ = b.Scope("111111111111", "eu-west-1").CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})

	_ = b.Reset(ctx)
	fmt.Println("queues:", len(b.Queues()), "namespaces:", len(b.Scopes()))
	_, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	fmt.Println("create again at once:", err)
	// Output:
	// queues: 0 namespaces: 1
	// create again at once: <nil>
}
