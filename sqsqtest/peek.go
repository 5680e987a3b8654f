package sqsqtest

import (
	"context"

	"github.com/sqsq/sqsq"
)

// Peek returns every message q stores, oldest first, in the state it is
// in, following [sqsq.Queue.Peek]'s cursor to the end; it fails t on error.
// Like Peek it changes nothing: a test asserts on what a consumer left
// behind without receiving (which would move messages in flight and count
// receives).
func Peek(t Fataler, q *sqsq.Queue) []sqsq.PeekedMessage {
	if h, ok := t.(helperT); ok {
		h.Helper() // here, in the function that reports: Helper marks its caller
	}
	var all []sqsq.PeekedMessage
	in := sqsq.PeekInput{Limit: 1000}
	for {
		out, err := q.Peek(context.Background(), in)
		if err != nil {
			t.Fatalf("sqsqtest.Peek(%s): %v", q.Name(), err)
			return nil
		}
		all = append(all, out.Messages...)
		if out.NextCursor == "" {
			return all
		}
		in.Cursor = out.NextCursor
	}
}
