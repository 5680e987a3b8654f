package chaos

import (
	"encoding/json"
	"fmt"
	"strings"
)

// LocalStackConfig is the state LocalStack's Chaos API sets: its fault
// rules (/_localstack/chaos/faults) and its network latency
// (/_localstack/chaos/effects).
type LocalStackConfig struct {
	Faults []LocalStackRule `json:"faults"`
	// Latency delays every request, in milliseconds (0 to 300,000).
	Latency int `json:"latency"`
}

// LocalStackRule is a rule of LocalStack's Chaos API, in its JSON form.
// Every field is optional: an empty rule fails every call.
type LocalStackRule struct {
	// Region is the region the rule hits; "" is any.
	Region string `json:"region,omitempty"`
	// Service is the AWS service, "sqs" here ("" is any); a rule for
	// another service is kept and listed, and never matches.
	Service string `json:"service,omitempty"`
	// Operation is the operation, as the wire names it ("SendMessage");
	// "" is any.
	Operation string `json:"operation,omitempty"`
	// Probability is the chance, 0 to 1, that the rule fires; nil means 1.
	Probability *float64 `json:"probability,omitempty"`
	// Description has no effect.
	Description string `json:"description,omitempty"`
	// Error is the error answered; nil, or an empty field, means
	// LocalStack's default: 503 ServiceUnavailable.
	Error *LocalStackError `json:"error,omitempty"`
}

// LocalStackError is the error of a [LocalStackRule].
type LocalStackError struct {
	StatusCode int    `json:"statusCode,omitempty"`
	Code       string `json:"code,omitempty"`
}

// LocalStack's defaults for a rule's error, and the message it answers
// with (LocalStack's rules have no message field).
const (
	localStackStatus = 503
	localStackCode   = "ServiceUnavailable"
)

func localStackMessage(service string) string {
	return "Service '" + service + "' not accessible due to an outage"
}

// appliesToSQS reports whether r can match an SQS call.
func (r LocalStackRule) appliesToSQS() bool {
	return r.Service == "" || strings.EqualFold(r.Service, "sqs")
}

func (c LocalStackConfig) clone() LocalStackConfig {
	out := LocalStackConfig{Latency: c.Latency, Faults: make([]LocalStackRule, len(c.Faults))}
	for i, r := range c.Faults {
		out.Faults[i] = r.clone()
	}
	return out
}

func (r LocalStackRule) clone() LocalStackRule {
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

// equal reports whether r and o are the same rule, as LocalStack's DELETE
// requires: every field alike, an absent one only like an absent one.
func (r LocalStackRule) equal(o LocalStackRule) bool {
	if r.Region != o.Region || r.Service != o.Service || r.Operation != o.Operation || r.Description != o.Description {
		return false
	}
	if (r.Probability == nil) != (o.Probability == nil) || r.Probability != nil && *r.Probability != *o.Probability {
		return false
	}
	if (r.Error == nil) != (o.Error == nil) || r.Error != nil && *r.Error != *o.Error {
		return false
	}
	return true
}

func (c LocalStackConfig) validate(at string) error {
	if err := validateLocalStackRules(at+".faults", c.Faults); err != nil {
		return err
	}
	return checkLatency(at+".latency", c.Latency)
}

func checkLatency(at string, ms int) error {
	if ms < 0 || ms > maxLatencyMs {
		return errAt(at, "%d is not between 0 and %d", ms, maxLatencyMs)
	}
	return nil
}

// validateLocalStackRules checks rules against the schema of LocalStack's
// API (FaultRule in its OpenAPI document), whose list is at.
func validateLocalStackRules(at string, rules []LocalStackRule) error {
	for i, r := range rules {
		if err := r.validate(fmt.Sprintf("%s[%d]", at, i)); err != nil {
			return err
		}
	}
	return nil
}

func (r LocalStackRule) validate(at string) error {
	if r.Region != "" && !matches(r.Region, isAlnum, '-') {
		return errAt(at+".region", "%q is not a region name (letters, digits and -)", r.Region)
	}
	if r.Service != "" && !matches(r.Service, isAlnum, '-', '_') {
		return errAt(at+".service", "%q is not a service name (letters, digits, - and _)", r.Service)
	}
	if r.Operation != "" {
		if !matches(r.Operation, isLetter) {
			return errAt(at+".operation", "%q is not an operation name (letters only)", r.Operation)
		}
		// A case slip would make the rule silently never match.
		if r.appliesToSQS() && !isOperation(r.Operation) {
			if s := spellingOf(r.Operation); s != "" {
				return errAt(at+".operation", "%q is not an SQS operation; did you mean %q?", r.Operation, s)
			}
		}
	}
	if err := checkProbability(at+".probability", r.Probability); err != nil {
		return err
	}
	if len(r.Description) > maxMessageLen {
		return errAt(at+".description", "%d bytes is longer than %d", len(r.Description), maxMessageLen)
	}
	if e := r.Error; e != nil {
		if e.StatusCode != 0 && (e.StatusCode < 400 || e.StatusCode > 599) {
			return errAt(at+".error.statusCode", "%d is not between 400 and 599", e.StatusCode)
		}
		if e.Code != "" && (!matches(e.Code, isAlnum) || len(e.Code) > maxNameLen) {
			return errAt(at+".error.code", "%q is not an error code (letters and digits)", e.Code)
		}
	}
	return nil
}

func isAlnum(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' }

// matches reports whether every byte of s is ok or one of extra.
func matches(s string, ok func(byte) bool, extra ...byte) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !ok(c) && !containsByte(extra, c) {
			return false
		}
	}
	return true
}

func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// parseLocalStackConfig types the "localstack" member of a configuration.
func parseLocalStackConfig(at string, raw json.RawMessage) (LocalStackConfig, *ConfigError) {
	members, cerr := object(at, raw, "faults", "latency")
	if cerr != nil {
		return LocalStackConfig{}, cerr
	}
	c := LocalStackConfig{Faults: []LocalStackRule{}}
	for _, m := range members {
		if isNull(m.value) {
			continue
		}
		switch m.name {
		case "faults":
			c.Faults, cerr = parseLocalStackRules(at+".faults", m.value)
		case "latency":
			c.Latency, cerr = intValue(at+".latency", m.value)
		}
		if cerr != nil {
			return LocalStackConfig{}, cerr
		}
	}
	return c, nil
}

// parseLocalStackRules types a JSON array of LocalStack rules, the body of
// POST, PATCH and DELETE on /_localstack/chaos/faults.
func parseLocalStackRules(at string, raw json.RawMessage) ([]LocalStackRule, *ConfigError) {
	elems, cerr := array(at, raw)
	if cerr != nil {
		return nil, cerr
	}
	rules := make([]LocalStackRule, 0, len(elems))
	for i, e := range elems {
		r, cerr := parseLocalStackRule(fmt.Sprintf("%s[%d]", at, i), e)
		if cerr != nil {
			return nil, cerr
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func parseLocalStackRule(at string, raw json.RawMessage) (LocalStackRule, *ConfigError) {
	members, cerr := object(at, raw, "region", "service", "operation", "probability", "description", "error")
	if cerr != nil {
		return LocalStackRule{}, cerr
	}
	var r LocalStackRule
	for _, m := range members {
		if isNull(m.value) {
			continue
		}
		field := at + "." + m.name
		switch m.name {
		case "region":
			r.Region, cerr = stringValue(field, m.value)
		case "service":
			r.Service, cerr = stringValue(field, m.value)
		case "operation":
			r.Operation, cerr = stringValue(field, m.value)
		case "probability":
			var p float64
			p, cerr = numberValue(field, m.value)
			r.Probability = &p
		case "description":
			r.Description, cerr = stringValue(field, m.value)
		case "error":
			r.Error, cerr = parseLocalStackError(field, m.value)
		}
		if cerr != nil {
			return LocalStackRule{}, cerr
		}
	}
	return r, nil
}

func parseLocalStackError(at string, raw json.RawMessage) (*LocalStackError, *ConfigError) {
	members, cerr := object(at, raw, "statusCode", "code")
	if cerr != nil {
		return nil, cerr
	}
	var e LocalStackError
	for _, m := range members {
		if isNull(m.value) {
			continue
		}
		switch m.name {
		case "statusCode":
			e.StatusCode, cerr = intValue(at+".statusCode", m.value)
		case "code":
			e.Code, cerr = stringValue(at+".code", m.value)
		}
		if cerr != nil {
			return nil, cerr
		}
	}
	return &e, nil
}
