package chaos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The strict reader of the rule format. encoding/json's
// DisallowUnknownFields names no path ("json: unknown field …"), so the
// document is walked object by object, and each error names the field it
// is about ("rules[1]: unknown field …", "rules[0].probability: … is not a
// number"). Values are only typed here; Validate checks their ranges.

// member is one name and value of a JSON object, in document order.
type member struct {
	name  string
	value json.RawMessage
}

// document reads data as exactly one JSON value, with nothing after it.
func document(data []byte) (json.RawMessage, *ConfigError) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errAt("", "the configuration is empty: want a JSON object such as {\"seed\": 1, \"rules\": []}")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return nil, syntaxError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errAt("", "unexpected data after the JSON value (at byte %d)", dec.InputOffset())
	}
	return v, nil
}

// syntaxError describes a JSON syntax error with its line and column.
func syntaxError(data []byte, err error) *ConfigError {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		pos := min(max(int(se.Offset)-1, 0), len(data)) // Offset counts the bad byte
		line := 1 + bytes.Count(data[:pos], []byte("\n"))
		col := pos - bytes.LastIndexByte(data[:pos], '\n')
		return errAt("", "not valid JSON: line %d, column %d: %v", line, col, se)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errAt("", "not valid JSON: it ends too early")
	}
	return errAt("", "not valid JSON: %v", err)
}

// object returns the members of the JSON object raw (at is its path),
// refusing one not named in fields and one given twice.
func object(at string, raw json.RawMessage, fields ...string) ([]member, *ConfigError) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errAt(at, "%s is not a JSON object", describe(raw))
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errAt(at, "%v", err)
		}
		name := tok.(string) // a key: raw is valid JSON
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errAt(at, "%v", err)
		}
		if !contains(fields, name) {
			return nil, unknownField(at, name, fields)
		}
		for _, m := range out {
			if m.name == name {
				return nil, errAt(at, "field %q is given twice", name)
			}
		}
		out = append(out, member{name, v})
	}
	return out, nil
}

func unknownField(at, name string, fields []string) *ConfigError {
	for _, f := range fields {
		if strings.EqualFold(f, name) {
			return errAt(at, "unknown field %q; did you mean %q?", name, f)
		}
	}
	return errAt(at, "unknown field %q (the fields are %s)", name, strings.Join(fields, ", "))
}

// array returns the elements of the JSON array raw.
func array(at string, raw json.RawMessage) ([]json.RawMessage, *ConfigError) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, errAt(at, "%s is not a JSON array", describe(raw))
	}
	var out []json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, errAt(at, "%v", err)
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

func stringValue(at string, raw json.RawMessage) (string, *ConfigError) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", errAt(at, "%s is not a string", describe(raw))
	}
	return s, nil
}

func numberValue(at string, raw json.RawMessage) (float64, *ConfigError) {
	var f float64
	if !isNumber(raw) || json.Unmarshal(raw, &f) != nil {
		return 0, errAt(at, "%s is not a number", describe(raw))
	}
	return f, nil
}

func intValue(at string, raw json.RawMessage) (int, *ConfigError) {
	if !isNumber(raw) {
		return 0, errAt(at, "%s is not a number", describe(raw))
	}
	n, err := strconv.ParseInt(string(raw), 10, 32)
	if err != nil {
		if f, ferr := strconv.ParseFloat(string(raw), 64); ferr == nil && f == float64(int64(f)) && f >= -1<<31 && f < 1<<31 {
			return int(f), nil // 1e3, 2.0
		}
		return 0, errAt(at, "%s is not a whole number (of at most 32 bits)", describe(raw))
	}
	return int(n), nil
}

func uintValue(at string, raw json.RawMessage) (uint64, *ConfigError) {
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil {
		return 0, errAt(at, "%s is not a whole number from 0 to %d", describe(raw), uint64(1<<64-1))
	}
	return n, nil
}

func isNumber(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// describe shows a JSON value in an error, shortened.
func describe(raw json.RawMessage) string {
	s := string(raw)
	if len(s) > 40 {
		s = s[:37] + "…"
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseConfig types a configuration; Validate checks it.
func parseConfig(data []byte) (Config, error) {
	raw, cerr := document(data)
	if cerr != nil {
		return Config{}, cerr
	}
	if raw[0] != '{' {
		return Config{}, errAt("", "the configuration %s is not a JSON object such as {\"seed\": 1, \"rules\": []}", describe(raw))
	}
	members, cerr := object("", raw, "seed", "rules", "localstack")
	if cerr != nil {
		return Config{}, cerr
	}
	cfg := Config{Rules: []Rule{}}
	for _, m := range members {
		if isNull(m.value) {
			continue
		}
		switch m.name {
		case "seed":
			if cfg.Seed, cerr = uintValue("seed", m.value); cerr != nil {
				return Config{}, cerr
			}
		case "rules":
			elems, cerr := array("rules", m.value)
			if cerr != nil {
				return Config{}, cerr
			}
			for i, e := range elems {
				r, err := parseRule(fmt.Sprintf("rules[%d]", i), e)
				if err != nil {
					return Config{}, err
				}
				cfg.Rules = append(cfg.Rules, r)
			}
		case "localstack":
			ls, err := parseLocalStackConfig("localstack", m.value)
			if err != nil {
				return Config{}, err
			}
			cfg.LocalStack = &ls
		}
	}
	return cfg, nil
}

var ruleFields = []string{"operation", "queue", "account", "region", "probability", "fault", "error", "latencyMs"}

func parseRule(at string, raw json.RawMessage) (Rule, *ConfigError) {
	members, cerr := object(at, raw, ruleFields...)
	if cerr != nil {
		return Rule{}, cerr
	}
	var r Rule
	for _, m := range members {
		if isNull(m.value) {
			continue
		}
		field := at + "." + m.name
		switch m.name {
		case "operation":
			r.Operation, cerr = stringValue(field, m.value)
		case "queue":
			r.Queue, cerr = stringValue(field, m.value)
		case "account":
			r.Account, cerr = stringValue(field, m.value)
		case "region":
			r.Region, cerr = stringValue(field, m.value)
		case "probability":
			var p float64
			p, cerr = numberValue(field, m.value)
			r.Probability = &p
		case "fault":
			var s string
			s, cerr = stringValue(field, m.value)
			r.Fault = Kind(s)
		case "error":
			r.Error, cerr = parseErrorSpec(field, m.value)
		case "latencyMs":
			r.LatencyMs, cerr = intValue(field, m.value)
		}
		if cerr != nil {
			return Rule{}, cerr
		}
	}
	return r, nil
}

func parseErrorSpec(at string, raw json.RawMessage) (*ErrorSpec, *ConfigError) {
	members, cerr := object(at, raw, "code", "statusCode", "message")
	if cerr != nil {
		return nil, cerr
	}
	var s ErrorSpec
	for _, m := range members {
		if isNull(m.value) {
			continue
		}
		field := at + "." + m.name
		switch m.name {
		case "code":
			s.Code, cerr = stringValue(field, m.value)
		case "statusCode":
			s.StatusCode, cerr = intValue(field, m.value)
		case "message":
			s.Message, cerr = stringValue(field, m.value)
		}
		if cerr != nil {
			return nil, cerr
		}
	}
	return &s, nil
}
