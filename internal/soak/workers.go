package main

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// pending is a batch a producer is filling.
type pending struct {
	ns      []int
	entries []types.SendMessageBatchRequestEntry
}

// produce sends producer i's share of the messages (every producers-th
// number from i) in batches of ten: standard messages to the standard
// queue, FIFO ones round the producer's groups with explicit deduplication
// ids. It keeps no more than the backlog of messages unsettled, so the
// server works at a steady depth and its memory after warm-up compares with
// its memory at the end.
func (s *soak) produce(ctx context.Context, i int) {
	groups := s.plan.producerGroups(i)
	seqs := make([]int, len(groups))
	var std, fifo pending
	k := 0 // FIFO messages of this producer so far
	for n := i; n < s.plan.n && ctx.Err() == nil; n += s.plan.producers {
		if !s.plan.isFIFO(n) {
			s.l.planned(n, -1, -1)
			std.add(n, s.plan.body(n, -1, -1), nil, nil)
			if len(std.ns) == 10 {
				s.send(ctx, s.stdURL, &std)
			}
			continue
		}
		gi := k % len(groups)
		k++
		g, seq := groups[gi], seqs[gi]
		seqs[gi]++
		s.l.planned(n, g, seq)
		group, dedup := strconv.Itoa(g), "d"+strconv.Itoa(n)
		fifo.add(n, s.plan.body(n, g, seq), &group, &dedup)
		if len(fifo.ns) == 10 {
			s.send(ctx, s.fifoURL, &fifo)
		}
	}
	if len(std.ns) > 0 {
		s.send(ctx, s.stdURL, &std)
	}
	if len(fifo.ns) > 0 {
		s.send(ctx, s.fifoURL, &fifo)
	}
}

func (p *pending) add(n int, body string, group, dedup *string) {
	p.entries = append(p.entries, types.SendMessageBatchRequestEntry{
		Id:                     aws.String(strconv.Itoa(len(p.ns))),
		MessageBody:            aws.String(body),
		MessageGroupId:         group,
		MessageDeduplicationId: dedup,
	})
	p.ns = append(p.ns, n)
}

// send sends a batch once the backlog has room, records what was sent, and
// empties the batch.
func (s *soak) send(ctx context.Context, url string, p *pending) {
	defer func() { p.ns, p.entries = p.ns[:0], p.entries[:0] }()
	for s.l.sent.Load()-s.l.settled.Load() >= int64(s.cfg.backlog) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
	out, err := s.client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &url, Entries: p.entries})
	if err != nil {
		if ctx.Err() == nil {
			s.errs.add("SendMessageBatch", err)
		}
		return
	}
	for _, f := range out.Failed {
		s.errs.addf("SendMessageBatch entry %s: %s %s", str(f.Id), str(f.Code), str(f.Message))
	}
	for _, ok := range out.Successful {
		i, err := strconv.Atoi(str(ok.Id))
		if err != nil || i >= len(p.ns) {
			s.errs.addf("SendMessageBatch answered for an entry it was not sent: %q", str(ok.Id))
			continue
		}
		s.l.sentOK(p.ns[i], str(ok.MessageId))
	}
}

var receiveAttributes = []types.MessageSystemAttributeName{
	types.MessageSystemAttributeNameApproximateReceiveCount,
	types.MessageSystemAttributeNameMessageGroupId,
}

// consume long-polls the queue at url, with waits of 1 to 20 s, until
// polls ends; work is the run's context, for the calls that must finish.
func (s *soak) consume(polls, work context.Context, url string, fifo bool, rng *rand.Rand) {
	for polls.Err() == nil {
		req := s.l.now()
		out, err := s.client.ReceiveMessage(polls, &sqs.ReceiveMessageInput{
			QueueUrl:                    &url,
			MaxNumberOfMessages:         10,
			WaitTimeSeconds:             int32(1 + rng.IntN(20)),
			MessageSystemAttributeNames: receiveAttributes,
		})
		resp := s.l.now()
		if err != nil {
			if polls.Err() != nil {
				return
			}
			s.errs.add("ReceiveMessage", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		s.handle(work, url, fifo, s.l.received(fifo, out.Messages, req, resp), resp)
	}
}

// handle runs the handlers of one receive, answered at resp: successes are
// deleted in one DeleteMessageBatch, failures are given back in one
// ChangeMessageVisibilityBatch or left to time out, slow handlers go on in
// their own goroutines.
func (s *soak) handle(ctx context.Context, url string, fifo bool, ds []delivery, resp int64) {
	var del, nack []delivery
	for _, d := range ds {
		switch {
		case d.n < 0: // not the soak's: out of the way
			del = append(del, d)
		case d.fate == fateAlwaysFail || d.fate == fateFailOnce && d.count == 1:
			if s.plan.nacks(d.n) {
				nack = append(nack, d)
			} else {
				s.l.setOutcome(d, outDropped)
			}
		case d.fate == fateSlow && d.count == 1:
			s.slow.Add(1)
			go s.slowHandler(ctx, url, fifo, d, resp)
		default:
			del = append(del, d)
		}
	}
	if len(del) > 0 {
		s.deleteBatch(ctx, url, fifo, del, resp)
	}
	if len(nack) > 0 {
		s.nackBatch(ctx, url, nack)
	}
}

// inTime reports whether a handler that got its message at resp may still
// act on it, with a visibility timeout of vis: a handler lets go of a
// message in the second half of its timeout rather than race the timeout.
func (s *soak) inTime(resp int64, vis time.Duration) bool {
	return s.l.now()-resp < int64(vis)/2
}

func (s *soak) deleteBatch(ctx context.Context, url string, fifo bool, ds []delivery, resp int64) {
	if !s.inTime(resp, s.cfg.visibility) {
		for _, d := range ds {
			s.l.setOutcome(d, outLate)
		}
		return
	}
	entries := make([]types.DeleteMessageBatchRequestEntry, len(ds))
	for i, d := range ds {
		entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(d.handle)}
	}
	req := s.l.now()
	out, err := s.client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &url, Entries: entries})
	done := s.l.now()
	if err != nil {
		if ctx.Err() == nil {
			s.errs.add("DeleteMessageBatch", err)
		}
		return
	}
	for _, ok := range out.Successful {
		if i, err := strconv.Atoi(str(ok.Id)); err == nil && i < len(ds) {
			s.l.deleted(ds[i], req, done)
		}
	}
	for _, f := range out.Failed {
		i, err := strconv.Atoi(str(f.Id))
		if err != nil || i >= len(ds) {
			continue
		}
		// A FIFO handle whose visibility ended is refused: the receive it
		// came from no longer owns the message (semantics §4.5).
		if fifo && str(f.Code) == "InvalidParameterValue" {
			s.l.setOutcome(ds[i], outDeleteFailed)
			continue
		}
		s.errs.addf("DeleteMessageBatch entry of message %d: %s %s", ds[i].n, str(f.Code), str(f.Message))
	}
}

// nackBatch gives failed messages back at once.
func (s *soak) nackBatch(ctx context.Context, url string, ds []delivery) {
	entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(ds))
	for i, d := range ds {
		entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(d.handle)}
	}
	out, err := s.client.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: &url, Entries: entries})
	if err != nil {
		if ctx.Err() == nil {
			s.errs.add("ChangeMessageVisibilityBatch", err)
		}
		return
	}
	for _, ok := range out.Successful {
		if i, err := strconv.Atoi(str(ok.Id)); err == nil && i < len(ds) {
			s.l.setOutcome(ds[i], outNacked)
		}
	}
	for _, f := range out.Failed {
		// The nack came too late (a FIFO handle past its timeout): the
		// message comes back anyway.
		if i, err := strconv.Atoi(str(f.Id)); err == nil && i < len(ds) {
			s.l.setOutcome(ds[i], outDropped)
		}
	}
}

// slowHandler works on a message for longer than the queue's visibility
// timeout, having extended the visibility first, as a consumer with a long
// job does; then it deletes the message.
func (s *soak) slowHandler(ctx context.Context, url string, fifo bool, d delivery, resp int64) {
	defer s.slow.Done()
	extended := 5 * s.cfg.visibility
	_, err := s.client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: &url, ReceiptHandle: &d.handle, VisibilityTimeout: int32(extended / time.Second)})
	if err != nil {
		if ctx.Err() == nil && errorCode(err) != "InvalidParameterValue" { // not an extension that came too late
			s.errs.add("ChangeMessageVisibility", err)
		}
		s.l.setOutcome(d, outDropped)
		return
	}
	s.l.extended(d, s.l.now())
	select {
	case <-ctx.Done():
		return
	case <-time.After(s.cfg.visibility + s.cfg.visibility/4):
	}
	if !s.inTime(resp, extended) {
		s.l.setOutcome(d, outLate)
		return
	}
	req := s.l.now()
	if _, err := s.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: &d.handle}); err != nil {
		if fifo && errorCode(err) == "InvalidParameterValue" {
			s.l.setOutcome(d, outDeleteFailed)
		} else if ctx.Err() == nil {
			s.errs.add("DeleteMessage", err)
		}
		return
	}
	s.l.deleted(d, req, s.l.now())
}
