package chaos

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/sqshttp"
)

// Engine injects the faults of a [Config]: install it in a broker with
// sqsq.WithFaults (the SQS-semantic faults) and in its HTTP handler with
// sqshttp.WithInterceptor (errors and latency on the wire). Serve
// [Engine.Handler] to change its rules while it runs.
//
// The zero Engine has no rules and is ready to use. An Engine is safe for
// concurrent use: the rules in force are an immutable compiled set behind
// an atomic pointer, which a change replaces whole, so a decision sees
// either the old rules or the new ones.
type Engine struct {
	rules atomic.Pointer[ruleset] // nil: no rules, seed 0

	mu  sync.Mutex // serialises changes of the rules
	log injectionLog
}

var (
	_ sqsq.Faults           = (*Engine)(nil)
	_ sqsq.VisibilityFaults = (*Engine)(nil)
	_ sqshttp.Interceptor   = (*Engine)(nil)
)

// New returns an Engine with cfg in force, or cfg's [*ConfigError].
func New(cfg Config) (*Engine, error) {
	e := &Engine{}
	if err := e.Set(cfg); err != nil {
		return nil, err
	}
	return e, nil
}

// Config returns the rules in force and their seed. The result is a copy:
// changing it changes nothing.
func (e *Engine) Config() Config {
	rs := e.rules.Load()
	if rs == nil {
		return Config{Rules: []Rule{}}
	}
	return rs.cfg.clone()
}

// Set validates cfg and puts it in force, restarting every decision
// sequence. On a [*ConfigError] it changes nothing.
func (e *Engine) Set(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.store(cfg.clone())
	return nil
}

// Clear removes every rule, LocalStack's and its latency too, and keeps
// the seed and the injection log.
func (e *Engine) Clear() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.store(Config{Seed: e.seed()})
}

// SetSeed draws the decisions from seed from now on, restarting every
// decision sequence; the rules stay.
func (e *Engine) SetSeed(seed uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	cfg := e.Config()
	cfg.Seed = seed
	e.store(cfg)
}

// Reset is Clear, and empties the injection log and its counts too: the
// Engine is as new, but for its seed. cmd/sqsq calls it when it resets
// the endpoint's state.
func (e *Engine) Reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.store(Config{Seed: e.seed()})
	e.log.reset()
}

// Injected returns the latest 1,000 injections, oldest first.
func (e *Engine) Injected() []Injection {
	list, _ := e.log.list()
	return list
}

// Counts returns how many injections of each kind the Engine made since
// it was made or Reset, all of them, not only those Injected keeps.
func (e *Engine) Counts() map[Kind]uint64 {
	return e.log.count()
}

// seed is the seed in force. Caller holds e.mu.
func (e *Engine) seed() uint64 {
	if rs := e.rules.Load(); rs != nil {
		return rs.seed
	}
	return 0
}

// store puts cfg, valid and owned, in force. Caller holds e.mu.
func (e *Engine) store(cfg Config) {
	if cfg.Rules == nil {
		cfg.Rules = []Rule{}
	}
	if ls := cfg.LocalStack; ls != nil && len(ls.Faults) == 0 && ls.Latency == 0 {
		cfg.LocalStack = nil
	}
	e.rules.Store(compile(cfg))
}

// update applies change to a copy of the Config in force and puts the
// result in force if it is valid, atomically with respect to other
// changes. It returns the Config now in force.
func (e *Engine) update(change func(*Config)) (Config, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	cfg := e.Config()
	change(&cfg)
	if err := cfg.Validate(); err != nil {
		return e.Config(), err
	}
	e.store(cfg)
	return e.Config(), nil
}

// Intercept implements [sqshttp.Interceptor]: it answers a request with
// the error and latency rules that match it and fire. Latencies of every
// firing rule add up (LocalStack's latency effect to them); the first
// firing error is answered, after the delay. Rules are consulted in order,
// the Config's before LocalStack's. With no error or latency rule it is an
// atomic load and a return.
func (e *Engine) Intercept(_ context.Context, c sqshttp.Call) sqshttp.Intervention {
	rs := e.rules.Load()
	if rs == nil || len(rs.wire) == 0 && rs.latency == 0 {
		return sqshttp.Intervention{}
	}
	iv := sqshttp.Intervention{Delay: rs.latency}
	if rs.latency > 0 {
		e.log.record(Injection{Kind: KindLatency, Rule: -1, LocalStack: true, Operation: c.Operation, Queue: c.Queue,
			Account: c.Account, Region: c.Region, LatencyMs: rs.latency.Milliseconds()})
	}
	var h, n uint64
	counted := false
	for i := range rs.wire {
		r := &rs.wire[i]
		if r.op != "" && r.op != c.Operation || !r.match(c.Account, c.Region, c.Queue) {
			continue
		}
		if !counted {
			h, n = rs.next(point{c.Operation, c.Account, c.Region, c.Queue})
			counted = true
		}
		if !r.fires(rs.seed, h, n) {
			continue
		}
		in := Injection{Rule: r.rule, LocalStack: r.localStack, Operation: c.Operation, Queue: c.Queue,
			Account: c.Account, Region: c.Region, Decision: n}
		if r.delay > 0 {
			iv.Delay += r.delay
			in.Kind, in.LatencyMs = KindLatency, r.delay.Milliseconds()
			e.log.record(in)
			in.LatencyMs = 0
		}
		if r.code != "" && iv.Code == "" {
			iv.Code, iv.Status, iv.Message = r.code, r.status, r.message
			in.Kind, in.Code, in.StatusCode = KindError, r.code, r.status
			e.log.record(in)
		}
	}
	return iv
}
