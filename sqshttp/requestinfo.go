package sqshttp

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strings"
)

// RequestInfo is what the handler learned about one request, for an access
// log written around it: the handler decodes the body, so middleware need
// not parse either protocol to tell what was asked.
type RequestInfo struct {
	// Protocol is "json" (AWS JSON 1.0) or "query"; empty when no handler
	// of this package served the request.
	Protocol string
	// Operation is the SQS operation asked for, such as "SendMessage"; an
	// unknown one as the client spelled it (at most 64 bytes).
	Operation string
	// Queue is the name of the queue the request is about, when it names
	// one (QueueUrl or QueueName).
	Queue string
	// ErrorCode is the SQS error code of the answer, such as
	// "AWS.SimpleQueueService.NonExistentQueue" or "AccessDenied"; empty
	// when the request succeeded.
	ErrorCode string
	// ErrorMessage is the message of that error.
	ErrorMessage string
	// Account and Region are the namespace the request was served in: the
	// one its QueueUrl names, else the one of its credential (see the
	// package documentation).
	Account, Region string
	// Hint is sqsq's explanation of an error that a client's set-up likely
	// caused, such as a queue that exists in another region than the one
	// the request looked in; ErrorMessage ends with it too. Empty for most
	// errors.
	Hint string
}

type infoKey struct{}

// WithRequestInfo returns r with an empty RequestInfo that the handlers of
// this package ([NewHandler], [LoopbackOnly]) fill in while they serve the
// returned request. Read it once ServeHTTP has returned. If r carries one
// already (middleware around middleware), it returns r and that one, so
// every layer reads the same facts.
func WithRequestInfo(r *http.Request) (*http.Request, *RequestInfo) {
	if info := requestInfo(r); info != nil {
		return r, info
	}
	info := &RequestInfo{}
	return r.WithContext(context.WithValue(r.Context(), infoKey{}, info)), info
}

// requestInfo is r's RequestInfo, or nil when nobody asked for one.
func requestInfo(r *http.Request) *RequestInfo {
	info, _ := r.Context().Value(infoKey{}).(*RequestInfo)
	return info
}

// noteProtocol records the protocol a request speaks.
func noteProtocol(r *http.Request, isJSON bool) {
	if info := requestInfo(r); info != nil {
		info.Protocol = "query"
		if isJSON {
			info.Protocol = "json"
		}
	}
}

// noteOperation records the operation a request asks for.
func noteOperation(r *http.Request, name string) {
	if info := requestInfo(r); info != nil {
		if len(name) > 64 {
			name = name[:64]
		}
		info.Operation = name
	}
}

// noteQueue records the queue named by in, a decoded SDK input.
func noteQueue(r *http.Request, in any) {
	info := requestInfo(r)
	if info == nil {
		return
	}
	v := reflect.ValueOf(in)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	for _, field := range [...]string{"QueueUrl", "QueueName", "SourceArn"} {
		f := v.FieldByName(field)
		if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() || f.Elem().Kind() != reflect.String {
			continue
		}
		info.Queue = queueName(f.Elem().String())
		return
	}
}

// queueName is the name in a queue URL, ARN or name.
func queueName(s string) string {
	if u, err := url.Parse(s); err == nil && u.Path != "" {
		s = u.Path
	}
	if i := strings.LastIndexAny(s, "/:"); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 80 { // SQS's longest name
		s = s[:80]
	}
	return s
}

// noteError records the error a request is answered with.
func noteError(r *http.Request, e *wireError) {
	if info := requestInfo(r); info != nil {
		info.ErrorCode = e.err.Code.Info().QueryCode
		info.ErrorMessage = e.err.Message
	}
}
