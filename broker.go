package sqsq

import (
	"context"
	"encoding/base64"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	idgen "github.com/sqsq/sqsq/internal/ids"
	"github.com/sqsq/sqsq/internal/receipt"
	"github.com/sqsq/sqsq/internal/state"

	"github.com/benbjohnson/clock"
)

// Broker is one emulated SQS endpoint as one account in one region sees it:
// the queues of that account and region. The endpoint serves other accounts
// and regions too, each through its own Broker (see [Broker.Scope]). All
// methods are safe for concurrent use. The zero Broker is not usable; create
// one with [NewBroker].
//
// A Broker starts no goroutines of its own: time-driven state (delays,
// visibility timeouts, retention) is brought up to date from the clock at the
// start of every operation, and only parked long polls wait on clock timers.
type Broker struct {
	cfg   config
	clock clock.Clock
	ids   func() string
	// receipts signs the receipt handles of every queue, so a handle of
	// another broker or one guessed from the layout is not valid here.
	receipts receipt.Key

	w    *world        // the endpoint's scopes (see Scope)
	done chan struct{} // the world's: closed by Close
	// ownURL is every queue URL of b but the name, when resolve reads
	// such a URL back as b's (see ownName); "" if it does not. Made on
	// first use: a broker that is never given a URL does not pay for it.
	ownURL     string
	ownURLOnce sync.Once
	// The world's move-task state, read by every operation (see syncTasks).
	runningTasks *atomic.Int32
	taskDue      *atomic.Int64
	// lastRef is the reference GetQueue last resolved to one of b's own
	// queues (see GetQueue).
	lastRef atomic.Pointer[queueRef]

	mu         scopeMutex // guards the fields below; Unlock journals (journal.go)
	queues     map[string]*Queue
	queuesPeak mapPeak               // see shrinkMap
	deleted    expiringMap[struct{}] // names deleted within the recreate delay (recreate.go)
	released   bool                  // by Release: the namespace has another broker now

	// The scope as the journal last wrote it (journal.go).
	jsent bool
	jlast state.Scope
}

// NewBroker returns an empty broker configured by opts.
func NewBroker(opts ...Option) *Broker {
	cfg := defaultConfig()
	for _, o := range opts {
		o.apply(&cfg)
	}
	if cfg.baseURL == "" {
		cfg.baseURL = "https://sqs." + cfg.region + ".sqsq.invalid"
	}
	if cfg.senderID == "" {
		cfg.senderID = cfg.accountID
	}
	cfg.arnPrefix = "arn:" + cfg.partition + ":sqs:" + cfg.region + ":" + cfg.accountID + ":"
	ids := cfg.idFunc
	var key receipt.Key // pinned ids pin the handles too (see WithIDFunc)
	if ids == nil {
		ids = idgen.NewRandom()
		key = receipt.NewKey()
	}
	b := &Broker{
		cfg:      cfg,
		clock:    cfg.clock,
		ids:      ids,
		receipts: key,
		queues:   map[string]*Queue{},
	}
	b.mu.b = b
	b.w = cfg.world
	if b.w == nil { // a new endpoint, of which b is the first scope
		b.w = newWorld(opts)
		b.w.root = b
		b.w.members[scopeKey{cfg.accountID, cfg.region}] = b
		if cfg.journal != nil {
			b.w.jr = &journal{f: cfg.journal}
			b.flushJournal()
		}
	}
	b.done, b.runningTasks, b.taskDue = b.w.done, &b.w.runningTasks, &b.w.taskDue
	return b
}

// Clock returns the clock the broker reads time from.
func (b *Broker) Clock() clock.Clock { return b.clock }

// Region returns the broker's region.
func (b *Broker) Region() string { return b.cfg.region }

// AccountID returns the broker's account id.
func (b *Broker) AccountID() string { return b.cfg.accountID }

// Close wakes every parked long poll (they return [ErrClosed]) and makes every
// later call fail with ErrClosed. It closes every scope of the endpoint (see
// [Broker.Scope]), not b alone. It is idempotent and always returns nil.
func (b *Broker) Close() error {
	b.w.closeOnce.Do(func() { close(b.w.done) })
	return nil
}

func (b *Broker) closed() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// CreateQueueInput is the input of [Broker.CreateQueue].
type CreateQueueInput struct {
	// QueueName is 1–80 characters of [A-Za-z0-9_-]; FIFO names end in ".fifo".
	QueueName  string
	Attributes QueueAttributes
	Tags       map[string]string
}

// CreateQueue creates a queue, or returns the existing queue of that name
// when every attribute the input sets equals the queue's current value (SQS's
// idempotency rule). It fails with QueueNameExists when a set attribute
// differs, QueueDeletedRecently within the recreate delay after a DeleteQueue
// of the same name, InvalidParameterValue for a bad name, and
// InvalidAttributeName or InvalidAttributeValue for bad attributes.
func (b *Broker) CreateQueue(ctx context.Context, in CreateQueueInput) (*Queue, error) {
	if b.closed() {
		return nil, ErrClosed
	}
	fifo := in.Attributes.FifoQueue.Or(false)
	if err := validateQueueName(in.QueueName, fifo); err != nil {
		return nil, err
	}
	if err := in.Attributes.validate(); err != nil {
		return nil, err
	}
	if _, set := in.Attributes.FifoQueue.Get(); set && !fifo {
		return nil, errUnknownAttr(AttrFifoQueue)
	}
	if err := in.Attributes.checkType(fifo, defaultSettings()); err != nil {
		return nil, err
	}
	if err := validateTags(in.Tags); err != nil {
		return nil, err
	}
	if len(in.Tags) > maxTags {
		return nil, errTooManyTags(in.QueueName)
	}
	arn := b.queueARN(in.QueueName)
	b.syncTasks(arn) // a task's step may need the queue's absence first
	b.mu.Lock()
	// The instant is read under b.mu, which orders CreateQueue against
	// DeleteQueue: one read before it could predate a delete made while
	// this call waited, and the name would look deleted in the future.
	now := b.clock.Now()
	for b.tasksDue(now.UnixNano(), arn) { // a step fell due while waiting for b.mu
		b.mu.Unlock()
		b.syncTasks(arn) // may panic in the user's Observer, with b.mu not held
		b.mu.Lock()
		now = b.clock.Now()
	}
	if b.released { // the namespace's queues go to its current broker
		b.mu.Unlock()
		return b.w.root.Scope(b.cfg.accountID, b.cfg.region).CreateQueue(ctx, in)
	}
	defer b.mu.Unlock() // only now: a deferred unlock of a mutex not held is fatal
	if q, ok := b.queues[in.QueueName]; ok {
		q.mu.Lock()
		name := q.settings.differs(in.Attributes, q.fifo)
		q.mu.Unlock()
		if name != "" {
			return nil, newError(CodeQueueNameExists, "A queue already exists with the same name and a different value for attribute %s", name)
		}
		return q, nil
	}
	if b.deletedRecently(in.QueueName, now) {
		return nil, newError(CodeQueueDeletedRecently, "You must wait 60 seconds after deleting a queue before you can create another with the same name.")
	}
	if p, _ := in.Attributes.RedrivePolicy.Get(); p != nil {
		target := b.queueByARNLocked(p.DeadLetterTargetArn)
		if err := b.checkRedriveTarget(*p, in.Attributes.redriveJSON, arn, fifo, target); err != nil {
			return nil, err
		}
	}
	q := newQueue(b, b.w.nextID.Add(1), in.QueueName, fifo, now)
	q.settings.apply(in.Attributes)
	q.syncRedriveTarget()
	for k, v := range in.Tags {
		q.tags[k] = v
	}
	if q.jr != nil { // journal the new queue before anyone can change it
		q.mu.Lock()
		q.mu.Unlock()
	}
	b.queues[in.QueueName] = q
	b.queuesPeak.grew(len(b.queues))
	b.w.register(q)
	return q, nil
}

// GetQueue finds a queue by name, URL or ARN (semantics §1.3: a URL's last
// two path segments are account and name; its scheme and host are ignored,
// but for a regional host such as sqs.eu-west-1.amazonaws.com, which names
// the region). A name is of b's account and region; a URL is of the region
// it names — /queue/{region}/ before the account, or a regional host —
// else of the endpoint's default region (see [Queue.URLAt]); an ARN of its
// account and region; another scope's queue is found if that scope exists
// (see [Broker.Scope]). It fails with QueueDoesNotExist.
func (b *Broker) GetQueue(ctx context.Context, ref string) (*Queue, error) {
	if b.closed() {
		return nil, ErrClosed
	}
	b.syncTasks()
	// A client names the same queue call after call: a reference that
	// resolved to a queue still does while the queue lives, since a name
	// names another queue only once its queue is deleted.
	if last := b.lastRef.Load(); last != nil && last.ref == ref && !last.q.gone.Load() {
		return last.q, nil
	}
	name, foreign, ok := b.resolve(ref)
	if !ok {
		return nil, errQueueDoesNotExist()
	}
	if foreign != "" {
		if q := b.w.queue(foreign); q != nil {
			return q, nil
		}
		return nil, errQueueDoesNotExist()
	}
	b.mu.Lock()
	q := b.queues[name]
	b.mu.Unlock()
	if q == nil {
		return nil, errQueueDoesNotExist()
	}
	b.lastRef.Store(&queueRef{ref, q})
	return q, nil
}

// queueRef is a reference to a queue by name, URL or ARN, resolved.
type queueRef struct {
	ref string
	q   *Queue
}

// DeleteQueue deletes a queue and its messages. Every later call on it fails
// with QueueDoesNotExist, parked receives on it return that error, and the
// name cannot be reused for the recreate delay (60 s of clock time).
func (b *Broker) DeleteQueue(ctx context.Context, ref string) error {
	q, err := b.GetQueue(ctx, ref)
	if err != nil {
		return err
	}
	if q.b != b { // another account's queue: its broker keeps the name table
		return q.b.DeleteQueue(ctx, q.arn)
	}
	b.mu.Lock()
	now := b.clock.Now() // under b.mu, as CreateQueue reads it
	for b.tasksDue(now.UnixNano(), q.arn) {
		b.mu.Unlock()
		b.syncTasks(q.arn)
		b.mu.Lock()
		now = b.clock.Now()
	}
	if b.queues[q.name] == q {
		q.gone.Store(true) // under b.mu, for GetQueue's lastRef: before the name is free
		delete(b.queues, q.name)
		b.queues = shrinkMap(b.queues, &b.queuesPeak)
		b.noteDeleted(q.name, now)
		b.w.unregister(q)
	}
	b.mu.Unlock()
	q.markDeleted()
	return nil
}

// ListQueuesInput is the input of [Broker.ListQueues].
type ListQueuesInput struct {
	// QueueNamePrefix keeps the queues whose name starts with it (case-sensitive).
	QueueNamePrefix string
	// MaxResults, 1–1,000, pages the result; unset returns up to 1,000 queues
	// and never a NextToken.
	MaxResults Optional[int]
	// NextToken continues a paged listing.
	NextToken string
}

// ListQueuesOutput is the result of [Broker.ListQueues].
type ListQueuesOutput struct {
	// QueueURLs in lexicographic order of queue name.
	QueueURLs []string
	NextToken string
}

// ListQueues lists queue URLs by name prefix, in name order. A malformed
// NextToken or MaxResults outside 1–1,000 fails with InvalidParameterValue.
func (b *Broker) ListQueues(ctx context.Context, in ListQueuesInput) (ListQueuesOutput, error) {
	if b.closed() {
		return ListQueuesOutput{}, ErrClosed
	}
	b.syncTasks()
	b.mu.Lock()
	names := make([]string, 0, len(b.queues))
	for name := range b.queues {
		if strings.HasPrefix(name, in.QueueNamePrefix) {
			names = append(names, name)
		}
	}
	b.mu.Unlock()
	sort.Strings(names)
	page, next, err := paginate(names, in.MaxResults, in.NextToken)
	if err != nil {
		return ListQueuesOutput{}, err
	}
	out := ListQueuesOutput{NextToken: next}
	for _, name := range page {
		out.QueueURLs = append(out.QueueURLs, b.queueURL(name))
	}
	return out, nil
}

// Queues returns the queues of b's account and region in name order, as
// ListQueues lists them but all at once and as queues: for tools that
// show every queue, without ListQueues' pages of URLs to resolve again.
func (b *Broker) Queues() []*Queue {
	b.syncTasks()
	b.mu.Lock()
	qs := make([]*Queue, 0, len(b.queues))
	for _, q := range b.queues {
		qs = append(qs, q)
	}
	b.mu.Unlock()
	slices.SortFunc(qs, func(a, b *Queue) int { return strings.Compare(a.name, b.name) })
	return qs
}

// paginate returns the page of sorted names after token. Tokens are the
// base64 of the last name returned.
func paginate(names []string, maxResults Optional[int], token string) ([]string, string, error) {
	limit, paged := maxResults.Get()
	if paged && (limit < 1 || limit > 1000) {
		return nil, "", invalidValue("MaxResults", limit, "MaxResults must be an integer between 1 and 1000.")
	}
	if !paged {
		limit = 1000
	}
	if token != "" {
		last, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil || len(last) == 0 {
			return nil, "", invalidValue("NextToken", token, "Invalid NextToken value.")
		}
		i := sort.SearchStrings(names, string(last))
		if i < len(names) && names[i] == string(last) {
			i++
		}
		names = names[i:]
	}
	if len(names) <= limit {
		return names, "", nil
	}
	page := names[:limit]
	if !paged {
		return page, "", nil
	}
	return page, base64.RawURLEncoding.EncodeToString([]byte(page[len(page)-1])), nil
}

func (b *Broker) queueARN(name string) string { return b.arnPrefix() + name }

// arnPrefix is every queue ARN of this broker but the name.
func (b *Broker) arnPrefix() string { return b.cfg.arnPrefix }
