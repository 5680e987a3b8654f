package sqshttp

import (
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
)

// serveQuery serves the legacy Query protocol: Action=<Op> and flattened
// parameters in a form-encoded POST body or a GET query string, sent to
// "/" or to a queue's URL, answered with XML in SQS's 2012-11-05
// namespace.
func (h *handler) serveQuery(w http.ResponseWriter, r *http.Request, id string) {
	params, werr := h.queryParams(r)
	if werr != nil {
		werr.writeXML(w, r, id)
		return
	}
	action := params.Get("Action")
	noteOperation(r, action)
	atQueue := r.URL.Path != "" && r.URL.Path != "/"
	if action == "" {
		if atQueue {
			e := newWireError(codeUnknownOperation, "An unknown operation was requested.")
			e.status = http.StatusNotFound
			e.writeXML(w, r, id)
			return
		}
		newWireError(codeMissingAction, "The request must contain the parameter Action.").writeXML(w, r, id)
		return
	}
	o := operations[action]
	if o == nil || (atQueue && !o.queueLevel) {
		newWireError(codeInvalidAction, "The action "+action+" is not valid for this endpoint.").writeXML(w, r, id)
		return
	}
	in := reflect.New(o.input)
	zeros, err := decodeQuery(params, in.Interface())
	if err != nil {
		errorFor(err).writeXML(w, r, id)
		return
	}
	emptyBatch(in.Elem())
	base := h.baseURL(r)
	if atQueue { // the queue URL names the queue unless a QueueUrl is given
		if f := in.Elem().FieldByName("QueueUrl"); f.IsNil() {
			u := base + r.URL.EscapedPath()
			f.Set(reflect.ValueOf(&u))
		}
	}
	out, werr := h.invoke(r, o, base, in.Interface(), zeros)
	if werr != nil {
		werr.writeXML(w, r, id)
		return
	}
	xw := &xmlWriter{}
	xw.buf = append(xw.buf, `<?xml version="1.0"?><`...)
	xw.buf = append(xw.buf, o.name...)
	xw.buf = append(xw.buf, `Response xmlns="`+queryNamespace+`">`...)
	if o.result {
		xw.buf = append(xw.buf, '<')
		xw.buf = append(xw.buf, o.name...)
		xw.buf = append(xw.buf, "Result>"...)
		out.Serialize(xw)
		xw.buf = append(xw.buf, "</"...)
		xw.buf = append(xw.buf, o.name...)
		xw.buf = append(xw.buf, "Result>"...)
	}
	xw.buf = append(xw.buf, "<ResponseMetadata><RequestId>"...)
	xw.buf = appendXMLText(xw.buf, id)
	xw.buf = append(xw.buf, "</RequestId></ResponseMetadata></"...)
	xw.buf = append(xw.buf, o.name...)
	xw.buf = append(xw.buf, "Response>"...)
	hdr := w.Header()
	hdr.Set("Content-Type", xmlContentType)
	hdr.Set("Content-Length", strconv.Itoa(len(xw.buf)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(xw.buf)
}

// emptyBatch makes the absent Entries of a batch input an empty list. The
// Query protocol has no way to send an empty list: a batch without entries
// comes as nothing at all, or as botocore's "Entries=", and SQS answers
// both with EmptyBatchRequest, as it answers an empty list over JSON, not
// with MissingParameter.
func emptyBatch(in reflect.Value) {
	if f := in.FieldByName("Entries"); f.IsValid() && f.IsNil() {
		f.Set(reflect.MakeSlice(f.Type(), 0, 0))
	}
}

// queryParams returns the parameters of a Query request: those of the URL
// and, for a POST, those of its form-encoded body.
func (h *handler) queryParams(r *http.Request) (url.Values, *wireError) {
	malformed := func(err error) *wireError {
		return newWireError(codeMalformedQueryString, "The query string is malformed: "+err.Error())
	}
	params, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, malformed(err)
	}
	if r.Method != http.MethodPost && r.Method != http.MethodPut {
		h.discard(r)
		return params, nil
	}
	buf, werr := h.readBody(r)
	if werr != nil {
		return nil, werr
	}
	form, err := url.ParseQuery(strings.TrimSpace(buf.String()))
	h.putBody(buf)
	if err != nil {
		return nil, malformed(err)
	}
	for k, vs := range form {
		params[k] = append(params[k], vs...)
	}
	return params, nil
}
