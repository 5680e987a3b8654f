package sqsq_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

// Every failure SQS would report is an *sqsq.Error: match it with errors.Is
// against a sentinel, or take it apart with errors.As to read its Code and
// how that code travels on the wire.
func ExampleError() {
	ctx := context.Background()
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()))

	_, err := b.GetQueue(ctx, "missing")
	fmt.Println(errors.Is(err, sqsq.ErrQueueDoesNotExist))
	fmt.Println(errors.Is(err, sqsq.ErrReceiptHandleIsInvalid))

	var e *sqsq.Error
	if errors.As(err, &e) {
		info := e.Code.Info()
		fmt.Println(e.Code, e.Message)
		fmt.Println(info.QueryCode, info.HTTPStatus, "receiver fault:", e.Receiver)
	}

	// Wrapped errors match too.
	wrapped := fmt.Errorf("loading orders: %w", err)
	fmt.Println(errors.Is(wrapped, sqsq.ErrQueueDoesNotExist))
	// Output:
	// true
	// false
	// QueueDoesNotExist The specified queue does not exist.
	// AWS.SimpleQueueService.NonExistentQueue 400 receiver fault: false
	// true
}
