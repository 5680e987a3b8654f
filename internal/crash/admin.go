package main

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// admin is the goroutine that changes queues: it creates and deletes
// scratch queues (names never reused: SQS forbids recreating a name for
// 60 s), sets their VisibilityTimeout and the standard queue's, tags the
// main queues, and starts move tasks that send dead-lettered messages
// back. It alone sets each attribute, so the ledger knows their order.
type admin struct {
	rng      *rand.Rand
	n        int
	scratch  []string // created (acknowledged or not), not deleted
	sets     int
	lastMove time.Time
}

// The attributes the admin sets, besides the scratch queues'.
const (
	tagKey       = "round"
	maxScratch   = 8
	adminPeriod  = 20 * time.Millisecond // a few calls a round, not a flood of queues
	movePeriod   = 500 * time.Millisecond
	moveRate     = 500 // messages a second, SQS's most: a task ends soon after a restart
	visibilityVT = "VisibilityTimeout"
)

// tagged are the queues whose tag the admin sets.
var tagged = []string{qStd, qFIFO}

func newAdmin(seed uint64) *admin { return &admin{rng: rand.New(rand.NewPCG(seed, 0))} }

func (a *admin) run(ctx context.Context, e *env) {
	t := time.NewTicker(adminPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var err error
		switch r := a.rng.IntN(10); {
		case r < 3 && len(a.scratch) < maxScratch:
			err = a.create(ctx, e)
		case r < 5 && len(a.scratch) > 0:
			err = a.deleteQueue(ctx, e)
		case r < 7:
			err = a.setVisibility(ctx, e)
		case r < 9:
			err = a.tag(ctx, e)
		case time.Since(a.lastMove) > movePeriod:
			a.lastMove = time.Now()
			// Fails while a task still runs; a move changes where a
			// message is and its id, which the ledger allows, not
			// whether it exists.
			_, err = e.sqs.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(e.dlqArn),
				MaxNumberOfMessagesPerSecond: aws.Int32(moveRate)})
		default:
			continue
		}
		e.calls.Add(1)
		if err != nil {
			e.fails.add(err)
		}
	}
}

func (a *admin) create(ctx context.Context, e *env) error {
	a.n++
	name := "crash-sc-" + strconv.Itoa(a.n)
	attrs := map[string]string{visibilityVT: strconv.Itoa(5 + a.rng.IntN(60))}
	e.l.creatingQueue(name, attrs)
	a.scratch = append(a.scratch, name)
	_, err := e.sqs.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	e.l.createdQueue(name, err == nil)
	return err
}

func (a *admin) deleteQueue(ctx context.Context, e *env) error {
	i := a.rng.IntN(len(a.scratch))
	name := a.scratch[i]
	a.scratch = append(a.scratch[:i], a.scratch[i+1:]...)
	e.l.deletingQueue(name)
	_, err := e.sqs.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: e.url(name)})
	e.l.deletedQueue(name, err == nil)
	return err
}

// setVisibility sets the VisibilityTimeout of a scratch queue or of the
// standard queue (the clients receive with their own timeouts: it changes
// nothing of theirs).
func (a *admin) setVisibility(ctx context.Context, e *env) error {
	queue := qStd
	if len(a.scratch) > 0 && a.rng.IntN(2) == 0 {
		queue = a.scratch[a.rng.IntN(len(a.scratch))]
	}
	v := strconv.Itoa(5 + a.rng.IntN(60))
	e.l.settingAttr(queue, visibilityVT, v)
	_, err := e.sqs.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: e.url(queue),
		Attributes: map[string]string{visibilityVT: v}})
	e.l.setAttr(queue, visibilityVT, v, err == nil)
	return err
}

func (a *admin) tag(ctx context.Context, e *env) error {
	queue := tagged[a.rng.IntN(len(tagged))]
	a.sets++
	v := "v" + strconv.Itoa(a.sets)
	e.l.settingAttr(queue, "tag:"+tagKey, v)
	_, err := e.sqs.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: e.url(queue), Tags: map[string]string{tagKey: v}})
	e.l.setAttr(queue, "tag:"+tagKey, v, err == nil)
	return err
}
