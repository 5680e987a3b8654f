package chaos

import (
	"fmt"
	"math"
	"os"
	"path"
	"strings"
)

// Config is a set of fault rules and the seed that draws their decisions.
// Its JSON form is the rule format of the package doc; [ParseConfig] reads
// it strictly.
type Config struct {
	// Seed draws every decision (see "Determinism" in the package doc).
	Seed uint64 `json:"seed"`
	// Rules are the rules in force, in order.
	Rules []Rule `json:"rules"`
	// LocalStack holds the rules and latency set through LocalStack's
	// Chaos API (see [Engine.Handler]); nil when there are none.
	LocalStack *LocalStackConfig `json:"localstack,omitempty"`
}

// Rule says which calls a fault hits, how often and what it does. Fields
// left empty match any call.
type Rule struct {
	// Operation is an SQS operation as the wire names it ("SendMessage",
	// "DeleteMessageBatch"); "" or "*" is any.
	Operation string `json:"operation,omitempty"`
	// Queue is a queue name, or a pattern in path.Match syntax
	// ("orders*"); "" is any, including calls that name no queue.
	Queue string `json:"queue,omitempty"`
	// Account and Region name a namespace exactly; "" is any.
	Account string `json:"account,omitempty"`
	Region  string `json:"region,omitempty"`
	// Probability is the chance, 0 to 1, that the rule fires on a call it
	// matches; nil means 1.
	Probability *float64 `json:"probability,omitempty"`

	// The effect: Fault, or Error and/or LatencyMs.

	// Fault is an SQS-semantic fault the broker injects (see [Kind]).
	Fault Kind `json:"fault,omitempty"`
	// Error is answered instead of the call.
	Error *ErrorSpec `json:"error,omitempty"`
	// LatencyMs delays the answer, 0 to 300,000 ms.
	LatencyMs int `json:"latencyMs,omitempty"`
}

// ErrorSpec is the error a rule answers instead of a call.
type ErrorSpec struct {
	// Code is the error code, such as "ServiceUnavailable"; required.
	Code string `json:"code"`
	// StatusCode is the HTTP status, 400 to 599; 0 is AWS's for Code.
	StatusCode int `json:"statusCode,omitempty"`
	// Message is the error's message; "" is AWS's for Code.
	Message string `json:"message,omitempty"`
}

// Kind names what an injection did: one of the faults a [Rule] names, or
// an error or latency injected on the wire.
type Kind string

// The faults a rule's Fault may name, and the kinds of wire injections.
const (
	KindDuplicate           Kind = "duplicate"           // ReceiveMessage delivers an in-flight message again
	KindSample              Kind = "sample"              // a short poll returns fewer of the waiting messages
	KindReorder             Kind = "reorder"             // a receive returns its messages shuffled
	KindLostResponse        Kind = "lostResponse"        // the call is applied, the caller gets ServiceUnavailable
	KindVisibilityEndsEarly Kind = "visibilityEndsEarly" // a received message becomes visible before its timeout
	KindError               Kind = "error"               // an error answered instead of the call
	KindLatency             Kind = "latency"             // a delay before the answer
)

// faultKinds are the kinds a rule's Fault may name, in the order errors
// list them.
var faultKinds = []Kind{KindDuplicate, KindSample, KindReorder, KindLostResponse, KindVisibilityEndsEarly}

// Limits of the rule format.
const (
	maxLatencyMs  = 300_000
	maxMessageLen = 8192
	maxNameLen    = 256
)

// ConfigError is the error of a configuration that is not valid: Field is
// the path of the offending field ("rules[2].probability", "" for the
// document itself) and Message says what is wrong with it.
type ConfigError struct {
	Field   string
	Message string
}

func (e *ConfigError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

func errAt(field, format string, args ...any) *ConfigError {
	return &ConfigError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// ParseConfig reads a configuration in the rule format of the package doc
// and validates it. It is strict: an unknown or repeated field, a value of
// the wrong type, a value out of range or trailing data is an error. It
// returns one error, a [*ConfigError] naming the first offending field.
func ParseConfig(data []byte) (Config, error) {
	cfg, err := parseConfig(data)
	if err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// LoadFile reads the configuration in the file at name (cmd/sqsq's -faults
// FILE) with [ParseConfig]. Its errors begin with the file's name.
func LoadFile(name string) (Config, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return Config{}, err // *fs.PathError names the file
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", name, err)
	}
	return cfg, nil
}

// Validate checks c as [ParseConfig] does, for a Config built in Go, and
// returns a [*ConfigError] naming the first offending field, or nil.
func (c Config) Validate() error {
	for i, r := range c.Rules {
		if err := r.validate(fmt.Sprintf("rules[%d]", i)); err != nil {
			return err
		}
	}
	if c.LocalStack != nil {
		if err := c.LocalStack.validate("localstack"); err != nil {
			return err
		}
	}
	return nil
}

// validate checks r, whose path is at. Fields are checked in the order
// they are declared, so the first error named is stable.
func (r Rule) validate(at string) error {
	if err := checkOperation(at+".operation", r.Operation); err != nil {
		return err
	}
	if err := checkQueue(at+".queue", r.Queue); err != nil {
		return err
	}
	if err := checkExact(at+".account", r.Account); err != nil {
		return err
	}
	if err := checkExact(at+".region", r.Region); err != nil {
		return err
	}
	if err := checkProbability(at+".probability", r.Probability); err != nil {
		return err
	}
	if r.Fault != "" && !isFaultKind(r.Fault) {
		return errAt(at+".fault", "%q is not one of %s", string(r.Fault), kindList())
	}
	if r.Error != nil {
		if err := r.Error.validate(at + ".error"); err != nil {
			return err
		}
	}
	if r.LatencyMs < 0 || r.LatencyMs > maxLatencyMs {
		return errAt(at+".latencyMs", "%d is not between 0 and %d", r.LatencyMs, maxLatencyMs)
	}
	switch {
	case r.Fault != "" && (r.Error != nil || r.LatencyMs != 0):
		return errAt(at, "a rule with a fault has no error or latencyMs: make them two rules")
	case r.Fault == "" && r.Error == nil && r.LatencyMs == 0:
		return errAt(at, "the rule has no effect: give it a fault, or an error and/or latencyMs")
	}
	if r.Fault != "" && !anyOperation(r.Operation) {
		if ops := faultOperations(r.Fault); !ops[r.Operation] {
			return errAt(at+".operation", "fault %q applies to %s, not %s", string(r.Fault), joinOps(r.Fault), r.Operation)
		}
	}
	return nil
}

func (s *ErrorSpec) validate(at string) error {
	switch {
	case s.Code == "":
		return errAt(at+".code", "required, such as \"ServiceUnavailable\"")
	case !isCode(s.Code):
		return errAt(at+".code", "%q is not an error code: letters, digits and dots, starting with a letter, at most %d", s.Code, maxNameLen)
	case s.StatusCode != 0 && (s.StatusCode < 400 || s.StatusCode > 599):
		return errAt(at+".statusCode", "%d is not between 400 and 599", s.StatusCode)
	case len(s.Message) > maxMessageLen:
		return errAt(at+".message", "%d bytes is longer than %d", len(s.Message), maxMessageLen)
	}
	return nil
}

func anyOperation(op string) bool { return op == "" || op == "*" }

func checkOperation(at, op string) error {
	if anyOperation(op) || isOperation(op) {
		return nil
	}
	if s := spellingOf(op); s != "" {
		return errAt(at, "%q is not an SQS operation; did you mean %q?", op, s)
	}
	return errAt(at, "%q is not an SQS operation, such as \"SendMessage\" (%d operations: see the package doc)", op, len(operations))
}

func checkQueue(at, q string) error {
	if len(q) > maxNameLen {
		return errAt(at, "%d bytes is longer than %d", len(q), maxNameLen)
	}
	if _, err := path.Match(q, ""); err != nil {
		return errAt(at, "%q is not a valid pattern (path.Match syntax: * ? [a-z] \\)", q)
	}
	return nil
}

// checkExact checks an account or region: a name, or "" or "*" for any.
func checkExact(at, s string) error {
	switch {
	case s == "*":
		return nil
	case strings.ContainsAny(s, "*?["):
		return errAt(at, "%q: an account or region is exact (patterns are for queue)", s)
	case len(s) > maxNameLen:
		return errAt(at, "%d bytes is longer than %d", len(s), maxNameLen)
	case strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return errAt(at, "%q contains spaces or control characters", s)
	}
	return nil
}

func checkProbability(at string, p *float64) error {
	if p != nil && !(*p >= 0 && *p <= 1) { // also catches NaN
		return errAt(at, "%s is not between 0 and 1", formatFloat(*p))
	}
	return nil
}

func formatFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Sprint(f)
	}
	return fmt.Sprintf("%g", f)
}

func isFaultKind(k Kind) bool {
	for _, f := range faultKinds {
		if f == k {
			return true
		}
	}
	return false
}

func kindList() string {
	s := make([]string, len(faultKinds))
	for i, k := range faultKinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// faultOperations are the operations a fault applies to.
func faultOperations(k Kind) map[string]bool {
	if k == KindLostResponse {
		m := make(map[string]bool, len(coreOps))
		for op := range coreOps {
			m[op] = true
		}
		return m
	}
	return map[string]bool{"ReceiveMessage": true}
}

func joinOps(k Kind) string {
	if k == KindLostResponse {
		return "ReceiveMessage, DeleteMessage, DeleteMessageBatch, ChangeMessageVisibility and ChangeMessageVisibilityBatch"
	}
	return "ReceiveMessage only"
}

// isCode reports whether s can be an error code: it travels in a header
// (x-amzn-query-error) and an XML element, so letters, digits and dots
// ("AWS.SimpleQueueService.NonExistentQueue") only.
func isCode(s string) bool {
	if len(s) == 0 || len(s) > maxNameLen || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !(c >= '0' && c <= '9') && c != '.' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// clone returns a copy of c that shares nothing with it.
func (c Config) clone() Config {
	out := Config{Seed: c.Seed, Rules: make([]Rule, len(c.Rules))}
	for i, r := range c.Rules {
		out.Rules[i] = r.clone()
	}
	if c.LocalStack != nil {
		ls := c.LocalStack.clone()
		out.LocalStack = &ls
	}
	return out
}

func (r Rule) clone() Rule {
	if r.Probability != nil {
		p := *r.Probability
		r.Probability = &p
	}
	if r.Error != nil {
		e := *r.Error
		r.Error = &e
	}
	return r
}
