// Package present tells the awssqs adapter which int32 members of an SDK
// input a wire request sent as an explicit 0.
//
// The SDK for Go never sends a 0 for ReceiveMessage's MaxNumberOfMessages,
// VisibilityTimeout and WaitTimeSeconds nor for SendMessage's (and a batch
// entry's) DelaySeconds, and its input structs cannot tell an omitted member
// from a 0. Other SDKs can send the 0, and there it means 0: a receive that
// leaves its messages visible, a short poll on a long-poll queue, a send
// without the queue's delay. The HTTP handler decodes a request into the SDK
// input struct and records here the address of every such member it found
// sent as 0; the adapter, which is the one translation of SDK inputs to
// core calls, asks [Sent] before it reads a 0 as "not set". A caller of the
// adapter records nothing, so for it the SDK's rule holds.
package present

import "context"

// Zeros is the set of int32 members, by address, that a request sent as 0.
type Zeros map[*int32]struct{}

type key struct{}

// NewContext returns ctx carrying z for the call it is passed to.
func NewContext(ctx context.Context, z Zeros) context.Context {
	if len(z) == 0 {
		return ctx
	}
	return context.WithValue(ctx, key{}, z)
}

// Sent reports whether the request sent the member v points to: it is
// non-zero, or ctx records it as an explicit 0.
func Sent(ctx context.Context, v *int32) bool {
	if *v != 0 {
		return true
	}
	z, _ := ctx.Value(key{}).(Zeros)
	_, ok := z[v]
	return ok
}
