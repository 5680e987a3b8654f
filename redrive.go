package sqsq

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"
)

// RedrivePolicy sends a queue's messages to a dead-letter queue after
// MaxReceiveCount deliveries: the receive after the last allowed delivery
// moves the message instead of returning it (semantics §7).
type RedrivePolicy struct {
	// DeadLetterTargetArn is the ARN of the dead-letter queue: an existing
	// queue of the same type, in the same account and region, or in another
	// scope of the endpoint (see [Broker.Scope]) whose RedriveAllowPolicy
	// is byQueue and lists the source.
	DeadLetterTargetArn string
	// MaxReceiveCount, 1–1,000.
	MaxReceiveCount int
}

// String returns the policy in the JSON form SQS returns.
func (p RedrivePolicy) String() string {
	b, _ := json.Marshal(struct {
		DeadLetterTargetArn string `json:"deadLetterTargetArn"`
		MaxReceiveCount     int    `json:"maxReceiveCount"`
	}{p.DeadLetterTargetArn, p.MaxReceiveCount})
	return string(b)
}

// Redrive permissions of a [RedriveAllowPolicy].
const (
	RedriveAllowAll = "allowAll"
	RedriveDenyAll  = "denyAll"
	RedriveByQueue  = "byQueue"
)

// RedriveAllowPolicy says which source queues may use a queue as their
// dead-letter queue. Without one, or with allowAll, every queue of the
// account and region may; queues of other accounts or regions only when
// byQueue lists them.
type RedriveAllowPolicy struct {
	// RedrivePermission is allowAll, denyAll or byQueue.
	RedrivePermission string
	// SourceQueueArns lists up to 10 allowed sources, with byQueue only.
	SourceQueueArns []string
}

// String returns the policy in the JSON form SQS returns.
func (p RedriveAllowPolicy) String() string {
	b, _ := json.Marshal(struct {
		RedrivePermission string   `json:"redrivePermission"`
		SourceQueueArns   []string `json:"sourceQueueArns,omitempty"`
	}{p.RedrivePermission, p.SourceQueueArns})
	return string(b)
}

// allows reports whether the queue with ARN src may use the owner as DLQ;
// local says src is of the owner's account and region, which is all that
// allowAll (and no policy) covers (semantics §7.4).
func (p *RedriveAllowPolicy) allows(src string, local bool) bool {
	if p == nil {
		return local
	}
	switch p.RedrivePermission {
	case RedriveDenyAll:
		return false
	case RedriveByQueue:
		for _, a := range p.SourceQueueArns {
			if a == src {
				return true
			}
		}
		return false
	}
	return local
}

func errRedrive(policy, reason string) *Error {
	return invalidValue("RedrivePolicy", policy, reason)
}

// ParseRedrivePolicy parses the JSON form of a RedrivePolicy attribute. The
// errors are AWS's: InvalidParameterValue naming the policy and the reason.
func ParseRedrivePolicy(s string) (RedrivePolicy, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return RedrivePolicy{}, errRedrive(s, "Invalid JSON.")
	}
	count, ok := raw["maxReceiveCount"]
	if !ok {
		return RedrivePolicy{}, errRedrive(s, "Redrive policy does not contain mandatory attribute: maxReceiveCount.")
	}
	target, ok := raw["deadLetterTargetArn"]
	if !ok {
		return RedrivePolicy{}, errRedrive(s, "Redrive policy does not contain mandatory attribute: deadLetterTargetArn.")
	}
	var p RedrivePolicy
	if err := json.Unmarshal(target, &p.DeadLetterTargetArn); err != nil || p.DeadLetterTargetArn == "" {
		return RedrivePolicy{}, errRedrive(s, "Invalid value for deadLetterTargetArn.")
	}
	// AWS returns a number but accepts the string form the console sends.
	text := string(bytes.Trim(count, `"`))
	n, err := strconv.Atoi(text)
	if err != nil {
		return RedrivePolicy{}, errRedrive(s, "Invalid value for maxReceiveCount: "+text+", valid values are from 1 to 1000 both inclusive.")
	}
	p.MaxReceiveCount = n
	if err := p.validate(s); err != nil {
		return RedrivePolicy{}, err
	}
	return p, nil
}

// validate checks ranges; quoted is the policy as the caller sent it, which
// AWS quotes in its errors ("" for the re-encoded typed value).
func (p RedrivePolicy) validate(quoted string) *Error {
	if p.MaxReceiveCount < 1 || p.MaxReceiveCount > 1000 {
		return p.invalid(quoted, "Invalid value for maxReceiveCount: "+strconv.Itoa(p.MaxReceiveCount)+", valid values are from 1 to 1000 both inclusive.")
	}
	if !strings.HasPrefix(p.DeadLetterTargetArn, "arn:") || strings.Count(p.DeadLetterTargetArn, ":") != 5 {
		return p.invalid(quoted, "Invalid value for deadLetterTargetArn.")
	}
	return nil
}

// invalid is the InvalidParameterValue for p, quoting quoted, or p
// encoded if quoted is "": only an error needs the encoding, and making it
// for every policy was a seventh of a CreateQueue's time.
func (p RedrivePolicy) invalid(quoted, reason string) *Error {
	if quoted == "" {
		quoted = p.String()
	}
	return errRedrive(quoted, reason)
}

// ParseRedriveAllowPolicy parses the JSON form of a RedriveAllowPolicy
// attribute, failing with InvalidParameterValue.
func ParseRedriveAllowPolicy(s string) (RedriveAllowPolicy, error) {
	var raw struct {
		RedrivePermission *string  `json:"redrivePermission"`
		SourceQueueArns   []string `json:"sourceQueueArns"`
	}
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return RedriveAllowPolicy{}, invalidValue("RedriveAllowPolicy", s, "Invalid JSON.")
	}
	if raw.RedrivePermission == nil {
		return RedriveAllowPolicy{}, invalidValue("RedriveAllowPolicy", s, "Redrive allow policy does not contain mandatory attribute: redrivePermission.")
	}
	p := RedriveAllowPolicy{RedrivePermission: *raw.RedrivePermission, SourceQueueArns: raw.SourceQueueArns}
	if err := p.validate(); err != nil {
		return RedriveAllowPolicy{}, err
	}
	return p, nil
}

func (p RedriveAllowPolicy) validate() *Error {
	bad := func(reason string) *Error { return invalidValue("RedriveAllowPolicy", p.String(), reason) }
	switch p.RedrivePermission {
	case RedriveAllowAll, RedriveDenyAll:
		if len(p.SourceQueueArns) > 0 {
			return bad("sourceQueueArns can only be specified when redrivePermission is byQueue.")
		}
	case RedriveByQueue:
		if len(p.SourceQueueArns) == 0 || len(p.SourceQueueArns) > 10 {
			return bad("byQueue needs between 1 and 10 sourceQueueArns.")
		}
		for _, a := range p.SourceQueueArns {
			if !strings.HasPrefix(a, "arn:") || strings.Count(a, ":") != 5 {
				return bad("Invalid value for sourceQueueArns.")
			}
		}
	default:
		return bad("Invalid value for redrivePermission.")
	}
	return nil
}

// checkRedriveTarget applies the broker-level rules of a RedrivePolicy set on
// the queue named src (ARN srcArn, type fifo): the DLQ exists, has the same
// type, and allows src; a DLQ of another account or region must list src in
// a byQueue allow policy. target is the DLQ found by queueByARNLocked; the
// caller holds b.mu or has looked it up.
func (b *Broker) checkRedriveTarget(p RedrivePolicy, quoted, srcArn string, fifo bool, target *Queue) *Error {
	if target != nil && target.arn != p.DeadLetterTargetArn {
		target = nil
	}
	parts := strings.Split(p.DeadLetterTargetArn, ":")
	local := parts[4] == b.cfg.accountID && parts[3] == b.cfg.region
	if !local && (target == nil || !target.allowsSource(srcArn, false)) {
		// AWS's own rule was the same account and region; a byQueue
		// policy naming the source is the opt-in that lifts it.
		if parts[4] != b.cfg.accountID {
			return p.invalid(quoted, "Dead-letter target owner should be same as the source.")
		}
		return p.invalid(quoted, "Dead-letter target must be in same region as the source.")
	}
	switch {
	case target == nil:
		return p.invalid(quoted, "Dead letter target does not exist.")
	case target.fifo != fifo:
		return p.invalid(quoted, "Dead-letter queue must be same type of queue as the source.")
	}
	if !target.allowsSource(srcArn, local) {
		return p.invalid(quoted, "Dead-letter target does not allow this queue as a source.")
	}
	return nil
}

// allowsSource reports whether q's RedriveAllowPolicy lets the queue with
// ARN src use q as its dead-letter queue.
func (q *Queue) allowsSource(src string, local bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.settings.allow.allows(src, local)
}

// queueByARNLocked returns the live queue with that ARN, of b or of another
// scope of the endpoint, without allocating (it runs on every receive of a
// queue with a redrive policy). Caller holds b.mu.
func (b *Broker) queueByARNLocked(arn string) *Queue {
	prefix := b.arnPrefix()
	if len(arn) <= len(prefix) || arn[:len(prefix)] != prefix {
		return b.w.queue(arn)
	}
	return b.queues[arn[len(prefix):]]
}

// queueByARN is queueByARNLocked for a caller that does not hold b.mu.
func (b *Broker) queueByARN(arn string) *Queue {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.queueByARNLocked(arn)
}

// ListDeadLetterSourceQueuesInput is the input of
// [Queue.ListDeadLetterSourceQueues].
type ListDeadLetterSourceQueuesInput struct {
	MaxResults Optional[int] // 1–1,000; unset returns up to 1,000 and no NextToken
	NextToken  string
}

// ListDeadLetterSourceQueues lists, in name order, the URLs of the queues
// whose RedrivePolicy names q as dead-letter queue, those of other accounts
// and regions included (after the same name of q's own).
func (q *Queue) ListDeadLetterSourceQueues(ctx context.Context, in ListDeadLetterSourceQueuesInput) (ListQueuesOutput, error) {
	if _, err := q.lock(); err != nil {
		return ListQueuesOutput{}, err
	}
	q.mu.Unlock()
	sources := q.b.sourcesOf(q.arn)
	// Page by name, or by name, account and region for a source of
	// another scope, so equal names stay distinct and tokens stay names.
	keys := make([]string, len(sources))
	byKey := make(map[string]*Queue, len(sources))
	for i, s := range sources {
		keys[i] = s.name
		if !s.sameScope(q) {
			keys[i] = s.name + "\x00" + s.b.cfg.accountID + "\x00" + s.b.cfg.region
		}
		byKey[keys[i]] = s
	}
	sort.Strings(keys)
	page, next, err := paginate(keys, in.MaxResults, in.NextToken)
	if err != nil {
		return ListQueuesOutput{}, err
	}
	out := ListQueuesOutput{NextToken: next}
	for _, k := range page {
		out.QueueURLs = append(out.QueueURLs, byKey[k].url)
	}
	return out, nil
}

// sourcesOf returns the queues, of any scope, whose redrive policy targets
// the ARN dlq, from the world's index (O(sources), not O(queues)).
func (b *Broker) sourcesOf(dlq string) []*Queue {
	sources := b.w.sourcesOf(dlq)
	live := sources[:0]
	for _, q := range sources {
		q.mu.Lock()
		if p := q.settings.redrive; p != nil && p.DeadLetterTargetArn == dlq && !q.deleted {
			live = append(live, q)
		}
		q.mu.Unlock()
	}
	return live
}

// syncRedriveTarget publishes the DLQ ARN of the current policy, and
// indexes q as its source. Caller holds q.mu or owns q exclusively.
func (q *Queue) syncRedriveTarget() {
	from := ""
	if old := q.redriveTarget.Load(); old != nil {
		from = *old
	}
	to := ""
	if p := q.settings.redrive; p != nil && !q.deleted {
		to = p.DeadLetterTargetArn
	}
	if to != "" {
		q.redriveTarget.Store(&to)
	} else {
		q.redriveTarget.Store(nil)
	}
	q.b.w.setSource(q, from, to)
}

// lockReceive locks q for a receive and, when q has a redrive policy whose
// dead-letter queue exists, that queue too, both in queue-id order so that
// chains and cycles of DLQs cannot deadlock. dlq is nil when there is none.
func (q *Queue) lockReceive() (now int64, dlq *Queue, err error) {
	for {
		target := q.redriveTarget.Load()
		dlq = nil
		if target != nil {
			q.b.mu.Lock()
			dlq = q.b.queueByARNLocked(*target)
			q.b.mu.Unlock()
		}
		if dlq == nil || dlq == q { // no DLQ to lock (or the queue is its own)
			now, err := q.lock()
			if err == nil && q.redriveTarget.Load() != target {
				q.mu.Unlock() // the policy changed meanwhile
				continue
			}
			return now, nil, err
		}
		if q.b.closed() {
			return 0, nil, ErrClosed
		}
		q.b.syncTasks(q.arn, dlq.arn)
		first, second := q, dlq
		if dlq.id < q.id {
			first, second = dlq, q
		}
		first.mu.Lock()
		second.mu.Lock()
		pairJournal(q, dlq)
		if q.deleted {
			q.mu.Unlock()
			dlq.mu.Unlock()
			return 0, nil, errQueueDoesNotExist()
		}
		if q.redriveTarget.Load() != target {
			q.mu.Unlock()
			dlq.mu.Unlock()
			continue
		}
		// The instant is read under both locks (see Queue.lock): a dead
		// letter changes dlq too, so dlq's operations order it as well.
		now = q.b.clock.Now().UnixNano()
		if q.b.tasksDue(now, q.arn, dlq.arn) {
			q.mu.Unlock()
			dlq.mu.Unlock()
			continue
		}
		q.advance(now)
		if dlq.deleted {
			dlq.mu.Unlock()
			return now, nil, nil
		}
		dlq.advance(now)
		return now, dlq, nil
	}
}

func (q *Queue) unlockReceive(dlq *Queue) {
	if dlq != nil {
		dlq.mu.Unlock()
	}
	q.mu.Unlock()
}

// deadLetter moves m to dlq instead of delivering it when m has used up the
// deliveries its redrive policy allows (§7.2). It reports whether it moved
// m. Caller holds q.mu and dlq.mu.
func (q *Queue) deadLetter(m *message, dlq *Queue, now int64) bool {
	p := q.settings.redrive
	if p == nil || int(m.receiveCount) < p.MaxReceiveCount {
		return false
	}
	if dlq == nil || !dlq.settings.allow.allows(q.arn, q.sameScope(dlq)) {
		q.counters.DeadLetterFailures++
		return false
	}
	moved := &message{
		id:             m.id,
		body:           m.body,
		sentAt:         m.sentAt,
		receiveCount:   m.receiveCount,
		firstReceiveAt: m.firstReceiveAt,
	}
	moved.md5.p.Store(m.md5.p.Load())
	ext := dlq.extFor(m)
	ext.dlqSource = q.arn
	// A move task of dlq without a destination may send it back to q.
	dlq.noteDeadLetterSource(q.arn)
	enqueued := m.enqueuedAt // standard: retention keeps counting
	if dlq.fifo {
		ext.dedupID = m.id // independent messages that shared an id stay apart
		enqueued = now     // FIFO: retention restarts
	}
	moved.ext = &ext
	q.remove(m)
	q.counters.MovedToDLQ++
	dlq.storeAt(moved, enqueued, now, 0)
	dlq.counters.DeadLettered++
	dlq.wakeFor(moved)
	if q.b.cfg.observer != nil { // told when the selection is whole (see tell)
		ev := q.event(EventDeadLettered, now)
		ev.MessageID, ev.Body, ev.SentAt = m.id, m.body, time.UnixMilli(m.sentAt)
		ev.ReceiveCount, ev.DeadLetterQueue = int(m.receiveCount), dlq.name
		q.told = append(q.told, ev)
	}
	return true
}

// extFor copies m's extension for a copy of m that q is about to store: the
// FIFO group link is q's to make, and q issues the sequence number.
func (q *Queue) extFor(m *message) messageExt {
	var ext messageExt
	if m.ext != nil {
		ext = *m.ext
	}
	ext.group, ext.seqNum = nil, 0
	if q.fifo {
		ext.seqNum = q.f.nextSeq()
	}
	return ext
}
