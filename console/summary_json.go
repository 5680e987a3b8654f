package console

import (
	"slices"
	"strconv"

	"github.com/sqsq/sqsq/internal/jsontext"
)

// The page lists every queue each second, and encoding/json spent most of
// a 10,000-queue listing in reflection, sorting attribute keys and
// compacting what it had written; a summary is written by hand instead, in
// the field order and shape encoding/json gives (TestSummaryJSON checks).

// appendJSON appends s as JSON to b. keys, if not nil, holds the sorted
// attribute names of the queue before, reused when this one has the same
// (queues of one kind have the same attributes); it returns them.
func (s *queueSummary) appendJSON(b []byte, keys []string) ([]byte, []string) {
	b = appendField(b, '{', "name", s.Name)
	b = appendField(b, ',', "url", s.URL)
	b = appendField(b, ',', "arn", s.ARN)
	b = append(b, `,"fifo":`...)
	b = strconv.AppendBool(b, s.FIFO)
	b = append(b, `,"counts":{"available":`...)
	b = strconv.AppendInt(b, int64(s.Counts.Available), 10)
	b = append(b, `,"inflight":`...)
	b = strconv.AppendInt(b, int64(s.Counts.InFlight), 10)
	b = append(b, `,"delayed":`...)
	b = strconv.AppendInt(b, int64(s.Counts.Delayed), 10)
	b = append(b, `},"oldestAgeMs":`...)
	b = strconv.AppendInt(b, s.OldestAgeMs, 10)
	b = append(b, `,"oldestAvailableAgeMs":`...)
	b = strconv.AppendInt(b, s.OldestAvailableAgeMs, 10)
	if len(s.Attributes) > 0 {
		b = append(b, `,"attributes":`...)
		b, keys = s.Attributes.appendSorted(b, keys)
	}
	b = append(b, `,"deadLetterQueue":`...)
	if d := s.DeadLetterQueue; d == nil {
		b = append(b, "null"...)
	} else {
		b = d.queueRef.appendFields(b)
		b = appendField(b, ',', "arn", d.ARN)
		b = append(b, `,"maxReceiveCount":`...)
		b = strconv.AppendInt(b, int64(d.MaxReceiveCount), 10)
		b = append(b, '}')
	}
	if s.Sources == nil {
		return append(b, `,"sources":null}`...), keys
	}
	b = append(b, `,"sources":[`...)
	for i, r := range s.Sources {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(r.appendFields(b), '}')
	}
	return append(b, "]}"...), keys
}

// appendFields appends r as an object without its closing brace.
func (r *queueRef) appendFields(b []byte) []byte {
	b = appendField(b, '{', "name", r.Name)
	b = appendField(b, ',', "url", r.URL)
	b = appendField(b, ',', "account", r.Account)
	b = appendField(b, ',', "region", r.Region)
	b = append(b, `,"local":`...)
	return strconv.AppendBool(b, r.Local)
}

// appendSorted appends a as an object in key order. keys are the sorted
// names of another map, used if they are a's; it returns a's.
func (a attributes) appendSorted(b []byte, keys []string) ([]byte, []string) {
	if a == nil {
		return append(b, "null"...), keys
	}
	if !a.hasKeys(keys) {
		keys = make([]string, 0, len(a))
		for k := range a {
			keys = append(keys, k)
		}
		slices.Sort(keys)
	}
	sep := byte('{')
	for _, k := range keys {
		b = appendField(b, sep, k, a[k])
		sep = ','
	}
	if sep == '{' {
		b = append(b, '{')
	}
	return append(b, '}'), keys
}

// hasKeys reports whether keys are the names of a.
func (a attributes) hasKeys(keys []string) bool {
	if keys == nil || len(keys) != len(a) {
		return false
	}
	for _, k := range keys {
		if _, ok := a[k]; !ok {
			return false
		}
	}
	return true
}

func (a attributes) MarshalJSON() ([]byte, error) {
	b, _ := a.appendSorted(nil, nil)
	return b, nil
}

// appendField appends sep, then "key":"value".
func appendField(b []byte, sep byte, key, value string) []byte {
	b = jsontext.AppendString(append(b, sep), key)
	return jsontext.AppendString(append(b, ':'), value)
}
