package chaos

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/sqsq/sqsq"
)

// maxBody bounds the body of a request to the API.
const maxBody = 1 << 20

// The paths [Engine.Handler] serves.
const (
	pathFaults            = "/_sqsq/api/faults"
	pathInjected          = "/_sqsq/api/faults/injected"
	pathLocalStackFaults  = "/_localstack/chaos/faults"
	pathLocalStackEffects = "/_localstack/chaos/effects"
)

// Handler returns the HTTP API that reads and changes e's rules while it
// runs. Mount it beside the SQS handler and the console (whose /_sqsq/
// pattern is less specific):
//
//	api := engine.Handler()
//	mux.Handle("/_sqsq/api/faults", api)
//	mux.Handle("/_sqsq/api/faults/", api)
//	mux.Handle("/_localstack/chaos/", api)
//
// It serves:
//
//	GET    /_sqsq/api/faults            the Config in force
//	PUT    /_sqsq/api/faults            put a Config in force (LocalStack's part too)
//	DELETE /_sqsq/api/faults            remove every rule (Clear)
//	GET    /_sqsq/api/faults/injected   {"injections": [...], "counts": {...}}
//	GET    /_localstack/chaos/faults    LocalStack's rules
//	POST   /_localstack/chaos/faults    replace LocalStack's rules
//	PATCH  /_localstack/chaos/faults    add rules
//	DELETE /_localstack/chaos/faults    remove the rules given (equal in every field)
//	GET    /_localstack/chaos/effects   {"latency": ms}
//	POST   /_localstack/chaos/effects   set the latency
//
// Every change answers the state now in force, as LocalStack's API does. A
// body that is not valid changes nothing and is answered 400 with
// {"error": "rules[2].probability: …", "code": "InvalidParameterValue"},
// the console's error shape; a body over 1 MiB 413; another method 405
// with Allow. Like the console, the API changes what the endpoint does:
// serve it only where foreign web pages cannot reach it (see
// sqshttp.LoopbackOnly).
func (e *Engine) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(pathFaults, methods{"GET": e.getFaults, "PUT": e.putFaults, "DELETE": e.deleteFaults})
	mux.Handle(pathInjected, methods{"GET": e.getInjected})
	mux.Handle(pathLocalStackFaults, methods{"GET": e.getLocalStack, "POST": e.postLocalStack, "PATCH": e.patchLocalStack, "DELETE": e.deleteLocalStack})
	mux.Handle(pathLocalStackEffects, methods{"GET": e.getEffects, "POST": e.postEffects})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, codeUnknownOperation, "no such endpoint: "+r.URL.Path+"; the fault API serves "+pathFaults+", "+pathInjected+", "+pathLocalStackFaults+" and "+pathLocalStackEffects)
	})
	return mux
}

// Codes of the API's own errors, as in the console.
const (
	codeUnknownOperation      sqsq.Code = "UnknownOperationException"
	codeInvalidAction         sqsq.Code = "InvalidAction"
	codeRequestEntityTooLarge sqsq.Code = "RequestEntityTooLarge"
)

func (e *Engine) getFaults(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, e.Config())
}

func (e *Engine) putFaults(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	cfg, err := ParseConfig(body)
	if err == nil {
		err = e.Set(cfg)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, sqsq.CodeInvalidParameterValue, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, e.Config())
}

func (e *Engine) deleteFaults(w http.ResponseWriter, _ *http.Request) {
	e.Clear()
	writeJSON(w, http.StatusOK, e.Config())
}

func (e *Engine) getInjected(w http.ResponseWriter, _ *http.Request) {
	list, counts := e.log.list()
	writeJSON(w, http.StatusOK, struct {
		Injections []Injection     `json:"injections"`
		Counts     map[Kind]uint64 `json:"counts"`
	}{list, counts})
}

// localStackRules returns LocalStack's rules in force, never nil (an
// empty list is [] in JSON, as LocalStack answers).
func (e *Engine) localStackRules() []LocalStackRule {
	if ls := e.Config().LocalStack; ls != nil {
		return ls.Faults
	}
	return []LocalStackRule{}
}

func (e *Engine) getLocalStack(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, e.localStackRules())
}

func (e *Engine) postLocalStack(w http.ResponseWriter, r *http.Request) {
	e.changeLocalStack(w, r, func(ls *LocalStackConfig, rules []LocalStackRule) { ls.Faults = rules })
}

func (e *Engine) patchLocalStack(w http.ResponseWriter, r *http.Request) {
	e.changeLocalStack(w, r, func(ls *LocalStackConfig, rules []LocalStackRule) { ls.Faults = append(ls.Faults, rules...) })
}

func (e *Engine) deleteLocalStack(w http.ResponseWriter, r *http.Request) {
	e.changeLocalStack(w, r, func(ls *LocalStackConfig, rules []LocalStackRule) {
		ls.Faults = slices.DeleteFunc(ls.Faults, func(have LocalStackRule) bool {
			return slices.ContainsFunc(rules, have.equal)
		})
	})
}

// changeLocalStack reads a JSON array of LocalStack rules from r, applies
// change to LocalStack's part of the Config with them and answers the
// rules now in force.
func (e *Engine) changeLocalStack(w http.ResponseWriter, r *http.Request, change func(*LocalStackConfig, []LocalStackRule)) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	raw, cerr := document(body)
	if cerr != nil {
		cerr.Message = "want a JSON array of rules, such as [{\"service\": \"sqs\", \"operation\": \"SendMessage\"}]: " + cerr.Message
		writeError(w, http.StatusBadRequest, sqsq.CodeInvalidParameterValue, cerr.Error())
		return
	}
	rules, cerr := parseLocalStackRules("", raw)
	if cerr == nil {
		if err := validateLocalStackRules("", rules); err != nil {
			cerr = err.(*ConfigError)
		}
	}
	if cerr != nil {
		writeError(w, http.StatusBadRequest, sqsq.CodeInvalidParameterValue, cerr.Error())
		return
	}
	cfg, err := e.update(func(cfg *Config) {
		if cfg.LocalStack == nil {
			cfg.LocalStack = &LocalStackConfig{}
		}
		change(cfg.LocalStack, rules)
	})
	if err != nil { // cannot happen: both parts were valid
		writeError(w, http.StatusBadRequest, sqsq.CodeInvalidParameterValue, err.Error())
		return
	}
	out := []LocalStackRule{}
	if cfg.LocalStack != nil {
		out = cfg.LocalStack.Faults
	}
	writeJSON(w, http.StatusOK, out)
}

// effects is the body of /_localstack/chaos/effects.
type effects struct {
	Latency int `json:"latency"`
}

func (e *Engine) latency() int {
	if ls := e.Config().LocalStack; ls != nil {
		return ls.Latency
	}
	return 0
}

func (e *Engine) getEffects(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, effects{e.latency()})
}

func (e *Engine) postEffects(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	ms, cerr := parseEffects(body)
	if cerr != nil {
		writeError(w, http.StatusBadRequest, sqsq.CodeInvalidParameterValue, cerr.Error())
		return
	}
	cfg, _ := e.update(func(cfg *Config) { // valid: ms was checked
		if cfg.LocalStack == nil {
			cfg.LocalStack = &LocalStackConfig{}
		}
		cfg.LocalStack.Latency = ms
	})
	latency := 0
	if cfg.LocalStack != nil {
		latency = cfg.LocalStack.Latency
	}
	writeJSON(w, http.StatusOK, effects{latency})
}

// parseEffects reads {"latency": ms}, latency required.
func parseEffects(body []byte) (int, *ConfigError) {
	raw, cerr := document(body)
	if cerr != nil {
		return 0, cerr
	}
	members, cerr := object("", raw, "latency")
	if cerr != nil {
		return 0, cerr
	}
	if len(members) == 0 || isNull(members[0].value) {
		return 0, errAt("latency", "required: the latency in milliseconds, such as {\"latency\": 200}")
	}
	ms, cerr := intValue("latency", members[0].value)
	if cerr != nil {
		return 0, cerr
	}
	if err := checkLatency("latency", ms); err != nil {
		return 0, err.(*ConfigError)
	}
	return ms, nil
}

// readBody reads r's body, at most maxBody bytes, answering 413 itself
// when it is longer.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, codeRequestEntityTooLarge, "the body is larger than the limit of 1 MiB")
		return nil, false
	case err != nil:
		writeError(w, http.StatusBadRequest, sqsq.CodeInvalidParameterValue, "reading the body: "+err.Error())
		return nil, false
	}
	return body, true
}

// methods serves a path by method, answering 405 with Allow (and a JSON
// error) for the others. HEAD is served as GET.
type methods map[string]http.HandlerFunc

func (m methods) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	if h, ok := m[method]; ok {
		h(w, r)
		return
	}
	allow := make([]string, 0, len(m)+1)
	for k := range m {
		allow = append(allow, k)
		if k == http.MethodGet {
			allow = append(allow, http.MethodHead)
		}
	}
	slices.Sort(allow)
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeError(w, http.StatusMethodNotAllowed, codeInvalidAction, r.Method+" "+r.URL.Path+" is not served; use "+strings.Join(allow, " or "))
}

// apiError is the body of every error answer, as the console's.
type apiError struct {
	Error string    `json:"error"`
	Code  sqsq.Code `json:"code"`
}

func writeError(w http.ResponseWriter, status int, code sqsq.Code, msg string) {
	writeJSON(w, status, apiError{Error: msg, Code: code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
