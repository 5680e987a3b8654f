package sqsq

import (
	"math"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/sqsq/sqsq/internal/state"
)

// world is what the brokers of one endpoint share: a broker per (account,
// region) scope, created by [Broker.Scope] on demand, all on one clock with
// the options of the [NewBroker] that made the first. Queues of different
// scopes are in different namespaces but can reach each other by ARN (a
// dead-letter queue of another account, a move task back to it), so the
// world keeps every live queue by ARN, the move tasks, and the count of
// parked receives.
type world struct {
	opts []Option // those of NewBroker, which every member is made with

	done      chan struct{} // closed by Close of any member
	closeOnce sync.Once

	// nextID numbers queues across members: a receive with a dead-letter
	// queue and a move-task step lock two queues, possibly of two scopes,
	// in id order.
	nextID atomic.Uint64

	runningTasks atomic.Int32 // move tasks not yet finished; read without mu
	taskDue      atomic.Int64 // earliest next step of a running task (MaxInt64: none)

	idleMu  sync.Mutex    // guards parked and idleSig (a leaf lock)
	parked  int           // long polls parked on any queue
	idleSig chan struct{} // closed when parked changes, if someone waits

	root *Broker // made by NewBroker: its region is the endpoint's default

	// srcMu guards sources (a leaf lock, taken under a Queue.mu).
	srcMu sync.Mutex
	// sources indexes redrive policies: the live queues, of any member,
	// whose policy names each dead-letter queue ARN, so that
	// ListDeadLetterSourceQueues costs the sources, not every queue.
	sources map[string]map[*Queue]struct{}

	// mu guards the fields below. It is a leaf lock: it is taken under a
	// Broker.mu, a moveTask.mu or nothing, and nothing is locked under it.
	mu      sync.Mutex
	members map[scopeKey]*Broker
	queues  map[string]*Queue // every live queue of every member, by ARN
	qpeak   mapPeak           // see shrinkMap
	tasks   taskTable

	jr *journal // the change journal, or nil (journal.go)
}

type scopeKey struct{ account, region string }

func newWorld(opts []Option) *world {
	w := &world{
		opts:    append([]Option(nil), opts...),
		done:    make(chan struct{}),
		members: map[scopeKey]*Broker{},
		queues:  map[string]*Queue{},
	}
	w.taskDue.Store(math.MaxInt64)
	return w
}

// joinWorld makes NewBroker add a member to w instead of starting a world.
func joinWorld(w *world) Option {
	return optionFunc(func(c *config) { c.world = w })
}

// Scope returns the broker of accountID in region on the same endpoint as
// b: another namespace of queues, with URLs and ARNs of that account and
// region, on b's clock and with the options b was created with (a
// [WithBaseURL] included). Its queue URLs name its region unless it is the
// endpoint's default (see [Queue.URLAt]), so a URL reaches its queue from
// every scope. It is
// created on the first call and the same broker is returned after; Scope
// of b's own account and region returns b.
//
// The brokers of one endpoint reach each other's queues by ARN, as AWS
// reaches queues of other accounts and regions when their policies allow:
// a RedrivePolicy may name a dead-letter queue of another scope when that
// queue's RedriveAllowPolicy is byQueue and lists the source (allowAll
// covers only its own account and region), messages are dead-lettered
// there, a move task takes them back, and [Broker.GetQueue] finds a queue
// of another account or region by its URL or ARN. Access policies are not enforced.
// Close of any of them closes them all: they are one endpoint.
//
// accountID and region must be non-empty and made of letters, digits, '-'
// and '_' (a real account id has 12 digits); Scope panics otherwise.
func (b *Broker) Scope(accountID, region string) *Broker {
	if !scopeName(accountID) || !scopeName(region) {
		panic("sqsq: Scope(" + accountID + ", " + region + "): account and region must be letters, digits, '-' and '_'")
	}
	w, k := b.w, scopeKey{accountID, region}
	w.mu.Lock()
	m := w.members[k]
	w.mu.Unlock()
	if m != nil {
		return m
	}
	opts := append(w.opts[:len(w.opts):len(w.opts)], WithClock(b.clock), WithAccountID(accountID), WithRegion(region), joinWorld(w))
	m = NewBroker(opts...)
	w.mu.Lock()
	defer w.mu.Unlock()
	if other := w.members[k]; other != nil { // another call made it first
		return other
	}
	w.members[k] = m
	if w.jr != nil {
		m.flushJournal() // m is not published yet: w.mu orders it before any use
	}
	return m
}

// Release forgets b, a namespace that [Broker.Scope] made, if it holds
// nothing: no queue, and no name of a queue deleted within the recreate
// delay (whose rule it keeps). It reports whether b is released. A later
// Scope call for the same account and region makes a new, empty broker,
// so a server can let the namespaces of made-up accounts and regions go.
// A released broker still works for a caller that holds it — a queue it
// creates goes to the namespace's current broker — and the broker
// [NewBroker] made is never released.
func (b *Broker) Release() bool {
	w := b.w
	if b == w.root {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.released {
		return true
	}
	b.deleted.expire(b.clock.Now().UnixNano())
	if len(b.queues) > 0 || b.deleted.len() > 0 {
		return false
	}
	k := scopeKey{b.cfg.accountID, b.cfg.region}
	w.mu.Lock()
	if w.members[k] == b {
		delete(w.members, k)
		if w.jr != nil && b.jsent {
			w.jr.emit(state.Change{Kind: state.ScopeDelete, Account: k.account, Region: k.region})
		}
	}
	w.mu.Unlock()
	b.released = true
	return true
}

// Scopes returns the brokers of b's endpoint: the one [NewBroker] made and
// every one [Broker.Scope] has made since, in order of account id, then
// region. It creates none.
func (b *Broker) Scopes() []*Broker {
	w := b.w
	w.mu.Lock()
	out := make([]*Broker, 0, len(w.members))
	for _, m := range w.members {
		out = append(out, m)
	}
	w.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].cfg.accountID != out[j].cfg.accountID {
			return out[i].cfg.accountID < out[j].cfg.accountID
		}
		return out[i].cfg.region < out[j].cfg.region
	})
	return out
}

// scopeName reports whether s can be an account id or region: it goes into
// ARNs (colon-separated) and URLs (slash-separated) unescaped.
func scopeName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// register makes q findable by ARN from every member. Caller holds q.b.mu.
func (w *world) register(q *Queue) {
	w.mu.Lock()
	w.queues[q.arn] = q
	w.qpeak.grew(len(w.queues))
	w.mu.Unlock()
}

// unregister forgets q, if it is still the queue of its ARN. Caller holds
// q.b.mu.
func (w *world) unregister(q *Queue) {
	w.mu.Lock()
	if w.queues[q.arn] == q {
		delete(w.queues, q.arn)
		w.queues = shrinkMap(w.queues, &w.qpeak)
	}
	w.mu.Unlock()
}

// queue returns the live queue with that ARN, of any member.
func (w *world) queue(arn string) *Queue {
	w.mu.Lock()
	q := w.queues[arn]
	w.mu.Unlock()
	return q
}

// allQueues returns the live queues of every member.
func (w *world) allQueues() []*Queue {
	w.mu.Lock()
	qs := make([]*Queue, 0, len(w.queues))
	for _, q := range w.queues {
		qs = append(qs, q)
	}
	w.mu.Unlock()
	return qs
}

// setSource moves q in the sources index from the dead-letter queue ARN
// from to to ("" for none).
func (w *world) setSource(q *Queue, from, to string) {
	if from == to {
		return
	}
	w.srcMu.Lock()
	defer w.srcMu.Unlock()
	if set := w.sources[from]; set != nil {
		delete(set, q)
		if len(set) == 0 {
			delete(w.sources, from)
		}
	}
	if to == "" {
		return
	}
	if w.sources == nil {
		w.sources = map[string]map[*Queue]struct{}{}
	}
	set := w.sources[to]
	if set == nil {
		set = map[*Queue]struct{}{}
		w.sources[to] = set
	}
	set[q] = struct{}{}
}

// sourcesOf returns the queues whose redrive policy names the ARN dlq.
func (w *world) sourcesOf(dlq string) []*Queue {
	w.srcMu.Lock()
	defer w.srcMu.Unlock()
	set := w.sources[dlq]
	out := make([]*Queue, 0, len(set))
	for q := range set {
		out = append(out, q)
	}
	return out
}

// sameScope reports whether q and other belong to the same account and
// region.
func (q *Queue) sameScope(other *Queue) bool { return q.b == other.b }
