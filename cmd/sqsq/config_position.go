package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
)

// source is the text of a config file, kept to say where in it a problem
// is: encoding/json gives offsets for some of its errors only, and none
// for the values it decoded well that the checks then refuse.
type source struct {
	file    string
	data    []byte
	spans   map[string]span // where each value is, by path: queues[0].attributes.VisibilityTimeout
	unknown *unknownKey     // the first key, in file order, that names no field
}

// span is where one value is: the offset of its key (-1 for an array
// element or the document), and its bytes.
type span struct{ key, start, end int }

// unknownKey is a key of the file that names no field of its object.
type unknownKey struct {
	in, key string // the path of the object, the key
	off     int
	known   []string // the object's fields
}

// decode decodes the file into cfg and maps where each value is. It
// refuses what encoding/json lets through (unknown fields, text after the
// object, null) and says where each syntax or type error is.
func (s *source) decode(cfg *config) error {
	if len(bytes.TrimSpace(s.data)) == 0 {
		return &configError{file: s.file, msg: `the file is empty: want a JSON object such as {"queues": [{"name": "orders"}]}`}
	}
	dec := json.NewDecoder(bytes.NewReader(s.data))
	dec.DisallowUnknownFields()
	err := dec.Decode(cfg)
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		return s.errorAt(cfg, "", int(syntax.Offset)-1).with("invalid JSON: %v", syntax)
	case errors.Is(err, io.ErrUnexpectedEOF):
		end := len(bytes.TrimRight(s.data, " \t\r\n"))
		return s.errorAt(cfg, "", end).with("invalid JSON: the file ends before the object does (a } or ] is missing)")
	}
	s.scan() // the object is well-formed JSON
	var typ *json.UnmarshalTypeError
	top := s.offset("", false)
	switch {
	case errors.As(err, &typ):
		return s.typeError(cfg, typ)
	case err != nil && s.unknown != nil:
		u := s.unknown
		return s.errorAt(cfg, u.in, u.off).with("unknown field %q (known fields: %s)", u.key, strings.Join(u.known, ", "))
	case err != nil:
		return &configError{file: s.file, msg: err.Error()}
	case top >= 0 && s.data[top] == 'n':
		return s.errorAt(cfg, "", top).with(`the file must hold a JSON object such as {"queues": [{"name": "orders"}]}, not null`)
	}
	if rest := skip(s.data, int(dec.InputOffset()), " \t\r\n"); rest < len(s.data) {
		word, _, _ := strings.Cut(string(s.data[rest:min(rest+20, len(s.data))]), "\n")
		return s.errorAt(cfg, "", rest).with("unexpected %q after the end of the JSON object: the file holds one object", strings.TrimSpace(word))
	}
	return nil
}

// offset is where the value at path starts (its key's offset if key), or
// else where its nearest enclosing value starts; -1 if none is known.
func (s *source) offset(path string, key bool) int {
	for p := path; ; {
		if sp, ok := s.spans[p]; ok {
			if key && p == path && sp.key >= 0 {
				return sp.key
			}
			return sp.start
		}
		if p == "" {
			return -1
		}
		p = p[:max(strings.LastIndexAny(p, ".["), 0)]
	}
}

// lineOf is " (line n)" for the value at path, or "".
func (s *source) lineOf(path string) string {
	sp, ok := s.spans[path]
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (line %d)", 1+bytes.Count(s.data[:sp.start], []byte("\n")))
}

// inFileOrder returns the keys of m, the object at path, in the order of
// the file, so that the first error reported is the first in the file.
func (s *source) inFileOrder(path string, m map[string]string) []string {
	at := func(k string) int {
		if sp, ok := s.spans[path+"."+k]; ok {
			return sp.key
		}
		return math.MaxInt
	}
	keys := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(at(a), at(b)) })
	return keys
}

// scan maps where each value of the file's object is, walking its tokens
// along the type it decodes into: a struct's keys are mapped to their
// fields' names, as encoding/json matches them, and the first key that
// names no field is kept.
func (s *source) scan() {
	s.spans = map[string]span{}
	_ = s.walk(json.NewDecoder(bytes.NewReader(s.data)), "", -1, reflect.TypeOf(config{}))
}

func (s *source) walk(dec *json.Decoder, path string, key int, t reflect.Type) error {
	start := skip(s.data, int(dec.InputOffset()), " \t\r\n,:")
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			off := skip(s.data, int(dec.InputOffset()), " \t\r\n,")
			k, err := dec.Token()
			if err != nil {
				return err
			}
			name, ft := s.field(path, t, k.(string), off)
			if err := s.walk(dec, join(path, name), off, ft); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		var et reflect.Type
		if t != nil && t.Kind() == reflect.Slice {
			et = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := s.walk(dec, fmt.Sprintf("%s[%d]", path, i), -1, et); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	s.spans[path] = span{key: key, start: start, end: int(dec.InputOffset())}
	return err
}

// field is the name and type of the key k of an object of type t (nil:
// unknown), at offset off. A struct's field matches its JSON name exactly,
// else regardless of case, as in encoding/json.
func (s *source) field(path string, t reflect.Type, k string, off int) (string, reflect.Type) {
	switch {
	case t == nil:
		return k, nil
	case t.Kind() == reflect.Map:
		return k, t.Elem()
	case t.Kind() != reflect.Struct:
		return k, nil
	}
	var known []string
	var fold *reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		known = append(known, name)
		if name == k {
			return name, f.Type
		}
		if fold == nil && strings.EqualFold(name, k) {
			fold = &f
		}
	}
	if fold != nil {
		name, _, _ := strings.Cut(fold.Tag.Get("json"), ",")
		return name, fold.Type
	}
	if s.unknown == nil {
		s.unknown = &unknownKey{in: path, key: k, off: off, known: known}
	}
	return k, nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// skip returns the offset of the first byte of data at or after off that
// is not in set.
func skip(data []byte, off int, set string) int {
	for off < len(data) && strings.IndexByte(set, data[off]) >= 0 {
		off++
	}
	return off
}
