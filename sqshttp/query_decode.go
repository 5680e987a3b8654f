package sqshttp

import (
	"encoding/base64"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/present"
)

// This file decodes the Query protocol's flattened parameters
// (Attribute.1.Name=VisibilityTimeout&Attribute.1.Value=60,
// SendMessageBatchRequestEntry.2.MessageAttribute.1.Value.DataType=String,
// …) into the SDK's input structs, with the names of the model's xmlName
// and xmlFlattened traits (see [shape]).

// maxQueryParams bounds the parameters of one request: a full batch of ten
// messages with ten attributes each needs about 500.
const maxQueryParams = 5000

// qnode is one dotted path segment of the parameters: "Attribute.1.Name"
// is root → Attribute → 1 → Name.
type qnode struct {
	value    string
	more     []string // further values of a repeated parameter
	has      bool
	children map[string]*qnode
}

func (n *qnode) child(name string) *qnode {
	if n == nil {
		return nil
	}
	return n.children[name]
}

// queryTree arranges params by path, leaving out Action and Version.
func queryTree(params url.Values) (*qnode, error) {
	root := &qnode{}
	count := 0
	for k, vs := range params {
		count += len(vs)
		if count > maxQueryParams {
			return nil, newWireError(codeMalformedQueryString, "The request has more than "+strconv.Itoa(maxQueryParams)+" parameters.").err
		}
		if k == "Action" || k == "Version" || len(vs) == 0 {
			continue
		}
		n := root
		for seg := range strings.SplitSeq(k, ".") {
			c := n.children[seg]
			if c == nil {
				if n.children == nil {
					n.children = map[string]*qnode{}
				}
				c = &qnode{}
				n.children[seg] = c
			}
			n = c
		}
		n.value, n.more, n.has = vs[0], vs[1:], true
	}
	return root, nil
}

type queryDecoder struct {
	zeros present.Zeros
}

// decodeQuery decodes params into v, a pointer to an SDK input struct, and
// returns the int32 members sent as 0. A value that does not parse is an
// InvalidParameterValue error, as SQS answers it.
func decodeQuery(params url.Values, v any) (present.Zeros, error) {
	root, err := queryTree(params)
	if err != nil {
		return nil, err
	}
	rv := reflect.ValueOf(v).Elem()
	d := &queryDecoder{}
	if err := d.structure(rv, shapeOf(rv.Type()), root, ""); err != nil {
		return nil, err
	}
	return d.zeros, nil
}

func (d *queryDecoder) structure(v reflect.Value, s *shape, n *qnode, path string) error {
	if n == nil {
		return nil
	}
	for name, c := range n.children {
		m := s.byQuery[name]
		if m == nil {
			continue
		}
		if err := d.value(v.Field(m.field), m.typ, m, c, path+name, true); err != nil {
			return err
		}
	}
	return nil
}

// value decodes node n into v of type t; top tells that v is a member
// itself, not an item or a map value.
func (d *queryDecoder) value(v reflect.Value, t reflect.Type, m *member, n *qnode, path string, top bool) error {
	switch t.Kind() {
	case reflect.Pointer:
		if !n.has && t.Elem().Kind() != reflect.Struct {
			return nil
		}
		p := reflect.New(t.Elem())
		if err := d.value(p.Elem(), t.Elem(), m, n, path, false); err != nil {
			return err
		}
		v.Set(p)
	case reflect.String:
		v.SetString(n.value)
	case reflect.Int32, reflect.Int64:
		if !n.has {
			return nil
		}
		i, err := strconv.ParseInt(strings.TrimSpace(n.value), 10, t.Bits())
		if err != nil {
			return sqsq.InvalidParameter(path, n.value, "Must be an integer.")
		}
		v.SetInt(i)
		if i == 0 && top && t.Kind() == reflect.Int32 {
			if d.zeros == nil {
				d.zeros = present.Zeros{}
			}
			d.zeros[(*int32)(unsafe.Pointer(v.UnsafeAddr()))] = struct{}{}
		}
	case reflect.Bool:
		if !n.has {
			return nil
		}
		b, err := strconv.ParseBool(n.value)
		if err != nil {
			return sqsq.InvalidParameter(path, n.value, "Must be true or false.")
		}
		v.SetBool(b)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			b, err := base64.StdEncoding.DecodeString(n.value)
			if err != nil {
				return sqsq.InvalidParameter(path, n.value, "Must be base64.")
			}
			v.SetBytes(b)
			return nil
		}
		items, prefix := n, path+"."
		if !m.flat {
			items, prefix = n.child(m.item), path+"."+m.item+"."
		}
		ixs := indexes(items)
		// Sized up front: explicit zeros are recorded by address.
		out := reflect.MakeSlice(t, len(ixs), len(ixs))
		for i, ix := range ixs {
			item := items.children[ix]
			if err := d.value(out.Index(i), t.Elem(), m, item, prefix+ix, false); err != nil {
				return err
			}
			// A repeated item of names: the SDK sends AttributeNames and
			// MessageSystemAttributeNames both as AttributeName.N.
			if t.Elem().Kind() == reflect.String {
				for _, v := range item.more {
					out = reflect.Append(out, reflect.ValueOf(v).Convert(t.Elem()))
				}
			}
		}
		v.Set(out) // present, even empty: "Entries=" is an empty list
	case reflect.Map:
		entries, prefix := n, path+"."
		if !m.flat {
			entries, prefix = n.child("entry"), path+".entry."
		}
		out := reflect.MakeMap(t)
		elem := reflect.New(t.Elem()).Elem()
		for _, ix := range indexes(entries) {
			e := entries.children[ix]
			k := e.child(m.key)
			if k == nil || !k.has {
				return sqsq.MissingParameter(prefix + ix + "." + m.key)
			}
			elem.SetZero()
			if val := e.child(m.value); val != nil {
				if err := d.value(elem, t.Elem(), m, val, prefix+ix+"."+m.value, false); err != nil {
					return err
				}
			}
			out.SetMapIndex(reflect.ValueOf(k.value).Convert(t.Key()), elem)
		}
		v.Set(out)
	case reflect.Struct:
		return d.structure(v, m.elem, n, path+".")
	}
	return nil
}

// indexes returns the numeric child names of n (the items of a list, the
// entries of a map) in numeric order.
func indexes(n *qnode) []string {
	if n == nil {
		return nil
	}
	var ix []string
	for k := range n.children {
		if i, err := strconv.Atoi(k); err == nil && i > 0 {
			ix = append(ix, k)
		}
	}
	sort.Slice(ix, func(a, b int) bool {
		i, _ := strconv.Atoi(ix[a])
		j, _ := strconv.Atoi(ix[b])
		return i < j
	})
	return ix
}
