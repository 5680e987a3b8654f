package sqshttp

import (
	"math/big"
	"reflect"
	"sync"
	"time"

	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/document"
	"github.com/aws/smithy-go/traits"
)

// A shape is the decoding plan of one SDK input struct (an operation's
// input, a batch entry, a message attribute value): its members with their
// wire names. The names are not written down here: they are read from the
// SDK's own serializer (see [probe]), so a request member is accepted under
// exactly the name the SDK sends it, "tags" of CreateQueue included.
type shape struct {
	typ     reflect.Type
	members []member
	byJSON  map[string]*member
	byQuery map[string]*member
}

// member is one member of a shape.
type member struct {
	field  int    // index of the Go field
	json   string // the member name of the AWS JSON protocol
	query  string // the name of the Query protocol (xmlName, else the member name)
	flat   bool   // a flattened list or map in the Query protocol
	item   string // a non-flattened list's item name ("member")
	key    string // a map's key and value names ("Name"/"Value", "key"/"value")
	value  string
	typ    reflect.Type
	elem   *shape // the struct shape of the member, its items or its values
	schema *smithy.Schema
}

var shapes sync.Map // reflect.Type → *shape

// shapeOf returns the plan of struct type t, whose pointer has the SDK's
// SerializeMembers method.
func shapeOf(t reflect.Type) *shape {
	if s, ok := shapes.Load(t); ok {
		return s.(*shape)
	}
	s := &shape{typ: t, byJSON: map[string]*member{}, byQuery: map[string]*member{}}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Name == "ResultMetadata" {
			continue
		}
		schema := probe(t, i)
		if schema == nil {
			continue // the SDK does not serialize it
		}
		m := member{field: i, json: schema.MemberName(), typ: f.Type, schema: schema}
		m.query = m.json
		if xn, ok := smithy.SchemaTrait[*traits.XMLName](schema); ok {
			m.query = xn.Name
		}
		_, m.flat = smithy.SchemaTrait[*traits.XMLFlattened](schema)
		m.item, m.key, m.value = "member", "key", "value"
		if lm := schema.ListMember(); lm != nil {
			if xn, ok := smithy.SchemaTrait[*traits.XMLName](lm); ok {
				m.item = xn.Name
			}
		}
		if mk := schema.MapKey(); mk != nil {
			if xn, ok := smithy.SchemaTrait[*traits.XMLName](mk); ok {
				m.key = xn.Name
			}
		}
		if mv := schema.MapValue(); mv != nil {
			if xn, ok := smithy.SchemaTrait[*traits.XMLName](mv); ok {
				m.value = xn.Name
			}
		}
		if et := structElem(f.Type); et != nil {
			m.elem = shapeOf(et)
		}
		s.members = append(s.members, m)
	}
	for i := range s.members {
		m := &s.members[i]
		s.byJSON[m.json] = m
		s.byQuery[m.query] = m
		// Query clients also send a flattened list under the singular of
		// its member name (MessageSystemAttributeName.1 for
		// MessageSystemAttributeNames, whose xmlName is AttributeName).
		if alias := m.json[:len(m.json)-1]; m.flat && m.json[len(m.json)-1] == 's' && s.byQuery[alias] == nil {
			s.byQuery[alias] = m
		}
	}
	actual, _ := shapes.LoadOrStore(t, s)
	return actual.(*shape)
}

// structElem returns the struct type that t is, or holds as list items or
// map values; nil for scalars.
func structElem(t reflect.Type) reflect.Type {
	switch t.Kind() {
	case reflect.Struct:
		return t
	case reflect.Slice, reflect.Map:
		if e := t.Elem(); e.Kind() == reflect.Struct {
			return e
		}
	}
	return nil
}

type membersSerializer interface {
	SerializeMembers(smithy.ShapeSerializer)
}

// probe sets field i of a new t to a non-zero value, lets the SDK serialize
// the struct, and returns the schema of the one member it writes: the
// member's wire name and traits as the SDK's model has them. nil means the
// SDK writes nothing for the field.
func probe(t reflect.Type, i int) *smithy.Schema {
	v := reflect.New(t)
	sample(v.Elem().Field(i))
	ms, ok := v.Interface().(membersSerializer)
	if !ok {
		return nil
	}
	var r recorder
	ms.SerializeMembers(&r)
	return r.first
}

// sample sets v to a non-zero value of its type.
func sample(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		sample(v.Elem())
	case reflect.String:
		v.SetString("x")
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		v.SetInt(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		sample(s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		k.SetString("k")
		if e.Kind() != reflect.Struct {
			sample(e)
		}
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}

// recorder is a smithy.ShapeSerializer that remembers the schema of the
// first top-level write.
type recorder struct {
	depth int
	first *smithy.Schema
}

func (r *recorder) note(s *smithy.Schema) {
	if r.depth == 0 && r.first == nil {
		r.first = s
	}
}

func (r *recorder) Bytes() []byte                        { return nil }
func (r *recorder) WriteInt8(s *smithy.Schema, _ int8)   { r.note(s) }
func (r *recorder) WriteInt16(s *smithy.Schema, _ int16) { r.note(s) }
func (r *recorder) WriteInt32(s *smithy.Schema, _ int32) { r.note(s) }
func (r *recorder) WriteInt64(s *smithy.Schema, _ int64) { r.note(s) }
func (r *recorder) WriteFloat32(s *smithy.Schema, _ float32) {
	r.note(s)
}
func (r *recorder) WriteFloat64(s *smithy.Schema, _ float64) {
	r.note(s)
}
func (r *recorder) WriteBool(s *smithy.Schema, _ bool)     { r.note(s) }
func (r *recorder) WriteString(s *smithy.Schema, _ string) { r.note(s) }
func (r *recorder) WriteBigInt(s *smithy.Schema, _ *big.Int) {
	r.note(s)
}
func (r *recorder) WriteBigFloat(s *smithy.Schema, _ *big.Float) {
	r.note(s)
}
func (r *recorder) WriteBlob(s *smithy.Schema, _ []byte)    { r.note(s) }
func (r *recorder) WriteTime(s *smithy.Schema, _ time.Time) { r.note(s) }
func (r *recorder) WriteUnion(s, _ *smithy.Schema)          { r.note(s); r.depth++ }
func (r *recorder) CloseUnion()                             { r.depth-- }
func (r *recorder) WriteDocument(s *smithy.Schema, _ document.Value) {
	r.note(s)
}
func (r *recorder) WriteNil(s *smithy.Schema)           { r.note(s) }
func (r *recorder) WriteStruct(s *smithy.Schema)        { r.note(s); r.depth++ }
func (r *recorder) CloseStruct()                        { r.depth-- }
func (r *recorder) WriteList(s *smithy.Schema)          { r.note(s); r.depth++ }
func (r *recorder) CloseList()                          { r.depth-- }
func (r *recorder) WriteMap(s *smithy.Schema)           { r.note(s); r.depth++ }
func (r *recorder) WriteKey(_ *smithy.Schema, _ string) {}
func (r *recorder) CloseMap()                           { r.depth-- }
