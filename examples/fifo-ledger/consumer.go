package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// This file is the service code, as it runs in production: it knows
// nothing of sqsq or of its test kit. It takes the messages of one receive
// from a FIFO queue whose message group is the account, and posts each
// entry to the account's ledger through a database interface of its own;
// main.go hands it the kit's SDK-shaped client and a database backed by
// the kit's ledger (TestServiceCodeDoesNotImportTheKit keeps it so).

// API is the part of *sqs.Client the consumer uses.
type API interface {
	DeleteMessageBatch(context.Context, *sqs.DeleteMessageBatchInput, ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
	ChangeMessageVisibilityBatch(context.Context, *sqs.ChangeMessageVisibilityBatchInput, ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
}

// In production the API is the SDK's client.
var _ API = (*sqs.Client)(nil)

// Entry is one ledger entry: the Seq-th of an account, for Amount cents.
// A message's body is "alice#2 -30".
type Entry struct {
	Account string
	Seq     int
	Amount  int
}

// ID names the entry: "alice#2".
func (e Entry) ID() string { return e.Account + "#" + strconv.Itoa(e.Seq) }

// ParseEntry reads a message body.
func ParseEntry(body string) (Entry, error) {
	id, amount, ok1 := strings.Cut(body, " ")
	account, seq, ok2 := strings.Cut(id, "#")
	n, err1 := strconv.Atoi(seq)
	a, err2 := strconv.Atoi(amount)
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return Entry{}, fmt.Errorf("bad entry %q", body)
	}
	return Entry{Account: account, Seq: n, Amount: a}, nil
}

// Books is the consumer's ledger database. Post records an entry on its
// account unless it is recorded already (the entry id is a unique key),
// in one transaction; posted reports whether this call recorded it.
type Books interface {
	Post(ctx context.Context, e Entry) (posted bool, err error)
}

// Processor handles the messages of one receive.
type Processor func(ctx context.Context, api API, queueURL string, books Books, msgs []types.Message)

// Sequential posts the entries one by one, in the order received. At an
// account's first failure it stops that account for the rest of the batch
// and gives back the failed message and the account's later ones at once
// (visibility 0), so that they come back in order; other accounts go on.
// It deletes the posted messages in one batch at the end.
func Sequential(ctx context.Context, api API, queueURL string, books Books, msgs []types.Message) {
	var done, giveBack []types.Message
	stopped := map[string]bool{}
	for _, m := range msgs {
		group := m.Attributes[string(types.MessageSystemAttributeNameMessageGroupId)]
		if stopped[group] {
			giveBack = append(giveBack, m)
			continue
		}
		if err := post(ctx, books, m); err != nil {
			stopped[group] = true
			giveBack = append(giveBack, m)
			continue
		}
		done = append(done, m)
	}
	release(ctx, api, queueURL, giveBack)
	deleteAll(ctx, api, queueURL, done)
}

// PastFailure posts the entries one by one, leaving a failed one to come
// back later, but goes on with the account's later entries: the bug.
func PastFailure(ctx context.Context, api API, queueURL string, books Books, msgs []types.Message) {
	var done []types.Message
	for _, m := range msgs {
		if err := post(ctx, books, m); err == nil {
			done = append(done, m)
		}
	}
	deleteAll(ctx, api, queueURL, done)
}

// Concurrent posts every entry of the batch at once, a goroutine each,
// waits for them and deletes the posted ones: fast, and the bug — one
// account's entries race each other.
func Concurrent(ctx context.Context, api API, queueURL string, books Books, msgs []types.Message) {
	var (
		mu   sync.Mutex
		done []types.Message
		wg   sync.WaitGroup
	)
	for _, m := range msgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := post(ctx, books, m); err == nil {
				mu.Lock()
				done = append(done, m)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	deleteAll(ctx, api, queueURL, done)
}

// post posts the entry a message carries.
func post(ctx context.Context, books Books, m types.Message) error {
	e, err := ParseEntry(aws.ToString(m.Body))
	if err != nil {
		return err
	}
	_, err = books.Post(ctx, e) // a second post of an entry changes nothing
	return err
}

// release makes msgs visible again at once, in order. If it fails they
// come back at the end of their visibility timeout instead, still in
// order: a FIFO queue delivers nothing of a group while one of its
// messages is in flight.
func release(ctx context.Context, api API, queueURL string, msgs []types.Message) {
	if len(msgs) == 0 {
		return
	}
	var entries []types.ChangeMessageVisibilityBatchRequestEntry
	for i, m := range msgs {
		entries = append(entries, types.ChangeMessageVisibilityBatchRequestEntry{
			Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0})
	}
	_, _ = api.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(queueURL), Entries: entries})
}

// deleteAll deletes msgs in one batch; those it fails to delete come back,
// and posting them again changes nothing.
func deleteAll(ctx context.Context, api API, queueURL string, msgs []types.Message) {
	if len(msgs) == 0 {
		return
	}
	var entries []types.DeleteMessageBatchRequestEntry
	for i, m := range msgs {
		entries = append(entries, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
	}
	_, _ = api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(queueURL), Entries: entries})
}
