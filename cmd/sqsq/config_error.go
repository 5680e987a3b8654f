package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/sqsq/sqsq"
)

// configError is an error of the config file, in its words: where it is,
// the queue, the field, what is wrong, and SQS's own error when the core
// gave one:
//
//	queues.json:7:22: queue "orders": attributes.VisibilityTimeout: "90000" is not a valid value: it must be … (SQS: InvalidAttributeValue: …)
type configError struct {
	file      string
	line, col int         // 0 when unknown
	queue     string      // `queue "orders"`, or `queues[2]` when it has no name; "" outside the queues
	field     string      // within the queue, or the file: attributes.VisibilityTimeout
	msg       string      // what is wrong, in the words of the file
	sqs       *sqsq.Error // SQS's error, when there is one
}

func (e *configError) Error() string {
	var b strings.Builder
	b.WriteString(e.file)
	if e.line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.line, e.col)
	}
	for _, s := range []string{e.queue, e.field} {
		if s != "" {
			b.WriteString(": " + s)
		}
	}
	b.WriteString(": ")
	switch {
	case e.sqs == nil:
		b.WriteString(e.msg)
	case e.msg == "":
		fmt.Fprintf(&b, "%s: %s", e.sqs.Code, e.sqs.Message)
	default:
		fmt.Fprintf(&b, "%s (SQS: %s: %s)", e.msg, e.sqs.Code, e.sqs.Message)
	}
	return b.String()
}

// Unwrap returns SQS's error, for errors.Is and errors.As.
func (e *configError) Unwrap() error {
	if e.sqs == nil {
		return nil
	}
	return e.sqs
}

// with sets the message of e, and returns it.
func (e *configError) with(format string, args ...any) *configError {
	e.msg = fmt.Sprintf(format, args...)
	return e
}

// typeError words encoding/json's error for a value of the wrong type,
// placed on the value: the innermost one at the error's offset (which is
// just past a scalar, or just past the { or [ of an object or array).
func (s *source) typeError(cfg *config, te *json.UnmarshalTypeError) error {
	path, sp := "", span{start: -1}
	for p, v := range s.spans {
		if off := int(te.Offset) - 1; v.start <= off && off < v.end && v.start > sp.start {
			path, sp = p, v
		}
	}
	if sp.start < 0 {
		return &configError{file: s.file, msg: te.Error()}
	}
	text := string(s.data[sp.start:sp.end])
	if len(text) > 40 {
		text = strings.ToValidUTF8(text[:40], "") + "…"
	}
	var found string
	switch v := te.Value; {
	case v == "string":
		found = "the string " + text
	case strings.HasPrefix(v, "number"):
		found = "the number " + text
	case v == "bool":
		found = text
	default:
		found = "an " + v // array, object
	}
	e := s.errorAt(cfg, path, sp.start)
	t := te.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case path == "":
		return e.with(`the file must hold a JSON object such as {"queues": [{"name": "orders"}]}, not %s`, found)
	case path == "queues":
		return e.with(`want an array of queues such as [{"name": "orders"}], not %s`, found)
	case t.Kind() == reflect.String && (te.Value == "bool" || strings.HasPrefix(te.Value, "number")):
		return e.with("want a string, not %s: write it in quotes, %q, as SQS takes it", found, text)
	}
	want := map[reflect.Kind]string{reflect.String: "a string", reflect.Bool: "true or false", reflect.Int: "an integer",
		reflect.Slice: "an array", reflect.Map: "an object", reflect.Struct: "an object"}[t.Kind()]
	return e.with("want %s, not %s", cmp.Or(want, t.String()), found)
}

// errorAt starts an error about the value at path, at offset off of the
// file (-1: nowhere), naming its queue by name, else by index.
func (s *source) errorAt(cfg *config, path string, off int) *configError {
	e := &configError{file: s.file, field: path}
	if off >= 0 {
		off = min(off, len(s.data))
		e.line = 1 + bytes.Count(s.data[:off], []byte("\n"))
		e.col = off - bytes.LastIndexByte(s.data[:off], '\n')
	}
	if rest, ok := strings.CutPrefix(path, "queues["); ok {
		n, field, _ := strings.Cut(rest, "]")
		if i, err := strconv.Atoi(n); err == nil {
			e.queue, e.field = "queues["+n+"]", strings.TrimPrefix(field, ".")
			if i < len(cfg.Queues) && cfg.Queues[i].Name != "" {
				e.queue = fmt.Sprintf("queue %q", cfg.Queues[i].Name)
			}
		}
	}
	return e
}
