package chaos

import (
	"path"
	"strings"
	"sync"
	"time"
)

// ruleset is a Config compiled for matching: immutable once built, but
// for the decision counters, which start at zero with it (so a new rule
// set restarts every sequence). An Engine swaps whole rulesets.
type ruleset struct {
	cfg  Config // as set, for Config()
	seed uint64

	wire    []wireRule    // error and latency rules: the Config's, then LocalStack's
	latency time.Duration // LocalStack's latency effect, on every request
	faults  [numFaults][]faultRule

	mu       sync.Mutex
	counters map[point]*counter // guarded by mu
}

// The core's fault kinds, indexing ruleset.faults.
const (
	fDuplicate = iota
	fSample
	fReorder
	fLost
	fEarly
	numFaults
)

var faultIndex = map[Kind]int{
	KindDuplicate: fDuplicate, KindSample: fSample, KindReorder: fReorder,
	KindLostResponse: fLost, KindVisibilityEndsEarly: fEarly,
}

// localStackBase offsets the rule index of LocalStack's rules in the
// seeded draws, so the native rules before them do not shift their draws.
const localStackBase = 1 << 32

// target is what a rule matches on: namespace and queue.
type target struct {
	account, region string // "" is any
	queue           nameMatch
	threshold       uint64 // fires when the draw's top 53 bits are below it
	index           uint64 // the rule's index in the draws
}

func (t *target) match(account, region, queue string) bool {
	return (t.account == "" || t.account == account) &&
		(t.region == "" || t.region == region) &&
		t.queue.match(queue)
}

// wireRule is a compiled error or latency rule.
type wireRule struct {
	target
	op         string // "" is any
	delay      time.Duration
	code       string // "" injects no error
	status     int
	message    string
	rule       int // index in its list, for Injection.Rule
	localStack bool
}

// faultRule is a compiled fault rule.
type faultRule struct {
	target
	ops  uint8 // bit 1<<sqsq.Op of each core operation it applies to
	rule int
}

// nameMatch matches a queue name: any, exactly, by prefix, by a pattern
// whose only wildcard is * (split at the stars), or by path.Match. A call
// with no queue matches no pattern.
type nameMatch struct {
	kind  uint8
	s     string
	parts []string // matchStars: the pattern between its stars
}

const (
	matchAny uint8 = iota
	matchExact
	matchPrefix
	matchStars
	matchGlob
)

func compileName(pattern string) nameMatch {
	switch {
	case pattern == "" || pattern == "*":
		return nameMatch{kind: matchAny}
	case !strings.ContainsAny(pattern, `*?[\`):
		return nameMatch{kind: matchExact, s: pattern}
	case strings.ContainsAny(pattern, `?[\`):
		return nameMatch{kind: matchGlob, s: pattern}
	case strings.Count(pattern, "*") == 1 && strings.HasSuffix(pattern, "*"):
		return nameMatch{kind: matchPrefix, s: pattern[:len(pattern)-1]}
	}
	return nameMatch{kind: matchStars, s: pattern, parts: strings.Split(pattern, "*")}
}

func (m *nameMatch) match(name string) bool {
	switch m.kind {
	case matchAny:
		return true
	case matchExact:
		return name == m.s
	case matchPrefix:
		return name != "" && strings.HasPrefix(name, m.s)
	case matchStars:
		return name != "" && matchParts(m.parts, name)
	}
	ok, _ := path.Match(m.s, name) // validated
	return ok && name != ""
}

// matchParts reports whether name is parts joined by runs of any bytes
// (queue names are ASCII): it begins with the first part, ends with the
// last, and holds the others in order between.
func matchParts(parts []string, name string) bool {
	first, last := parts[0], parts[len(parts)-1]
	if len(name) < len(first)+len(last) || !strings.HasPrefix(name, first) || !strings.HasSuffix(name, last) {
		return false
	}
	name = name[len(first) : len(name)-len(last)]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(name, p)
		if i < 0 {
			return false
		}
		name = name[i+len(p):]
	}
	return true
}

func exact(s string) string {
	if s == "*" {
		return ""
	}
	return s
}

// threshold turns a probability (nil: 1) into the bound of a 53-bit draw.
func threshold(p *float64) uint64 {
	if p == nil || *p >= 1 {
		return 1 << 53
	}
	return uint64(*p * (1 << 53))
}

// compile builds the ruleset of cfg, which is valid and owned by it.
func compile(cfg Config) *ruleset {
	rs := &ruleset{cfg: cfg, seed: cfg.Seed, counters: make(map[point]*counter)}
	for i, r := range cfg.Rules {
		t := target{account: exact(r.Account), region: exact(r.Region), queue: compileName(r.Queue), threshold: threshold(r.Probability), index: uint64(i)}
		if r.Fault != "" {
			fr := faultRule{target: t, rule: i}
			if anyOperation(r.Operation) {
				for op := range faultOperations(r.Fault) {
					fr.ops |= 1 << coreOps[op]
				}
			} else {
				fr.ops = 1 << coreOps[r.Operation]
			}
			k := faultIndex[r.Fault]
			rs.faults[k] = append(rs.faults[k], fr)
			continue
		}
		w := wireRule{target: t, rule: i, delay: time.Duration(r.LatencyMs) * time.Millisecond}
		if !anyOperation(r.Operation) {
			w.op = r.Operation
		}
		if e := r.Error; e != nil {
			w.code, w.status, w.message = e.Code, e.StatusCode, e.Message
			if w.status == 0 {
				w.status = defaultStatus(e.Code)
			}
			if w.message == "" {
				w.message = defaultMessage(e.Code)
			}
		}
		rs.wire = append(rs.wire, w)
	}
	if ls := cfg.LocalStack; ls != nil {
		rs.latency = time.Duration(ls.Latency) * time.Millisecond
		for j, r := range ls.Faults {
			if !r.appliesToSQS() {
				continue
			}
			w := wireRule{
				target: target{region: r.Region, queue: nameMatch{kind: matchAny}, threshold: threshold(r.Probability), index: localStackBase + uint64(j)},
				op:     r.Operation, code: localStackCode, status: localStackStatus, message: localStackMessage("sqs"),
				rule: j, localStack: true,
			}
			if e := r.Error; e != nil {
				if e.Code != "" {
					w.code = e.Code
				}
				if e.StatusCode != 0 {
					w.status = e.StatusCode
				}
			}
			rs.wire = append(rs.wire, w)
		}
	}
	return rs
}
