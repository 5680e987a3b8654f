package sqshttp

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/ids"
	"github.com/sqsq/sqsq/internal/jsontext"
)

// A local SQS endpoint has one client that acts for someone else: the web
// browser. Any page can make it POST a form to http://127.0.0.1:9324 (a
// "simple" cross-origin request needs no CORS preflight, and the page need
// not read the answer) or load <img src="http://127.0.0.1:9324/?Action=
// PurgeQueue&…">, and a page whose host name its owner re-points at
// 127.0.0.1 (DNS rebinding) even reads the answers, being same-origin with
// the endpoint. Browsers mark such requests: an Origin header, a
// Sec-Fetch-Site header, and the Host of the page's name. SDKs, the AWS CLI
// and other programs send no Origin and name the endpoint by the host they
// were given, so refusing what browsers mark costs them nothing.

// codeAccessDenied is SQS's refusal of a request it will not serve
// ("Access to the resource https://sqs.us-east-1.amazonaws.com/ is
// denied."), HTTP 403.
const codeAccessDenied sqsq.Code = "AccessDenied"

// LoopbackOnly wraps h, an endpoint for the programs of one machine, so that
// web pages cannot drive it. It refuses, with HTTP 403 and the error code
// AccessDenied in the protocol of the request (on the paths of sqsq's own
// endpoints, /_sqsq/…, and of the LocalStack and moto endpoints it serves,
// /_localstack/… and /moto-api/…, as {"error": message, "code": "AccessDenied"}, the
// shape their clients read):
//
//   - a request whose Host is not a loopback name (localhost, *.localhost —
//     regional names such as sqs.us-west-2.localhost included —, an address
//     of 127.0.0.0/8, ::1), not the address its connection reached (the
//     server's listening address), and not one of allowHosts: a browser led
//     there by DNS rebinding sends the attacker's host name;
//   - a request with an Origin whose host is neither a loopback name nor
//     one of allowHosts, Origin: null included: a page of another site;
//   - a request without an Origin that the browser marks as cross-site
//     (Sec-Fetch-Site: cross-site), such as an image a page loads.
//
// allowHosts are host names (a port, if given, is ignored), "*.example" for
// every name under example, or "*" for any Host; "*" turns off the Host
// check only, a foreign Origin is still refused. A request without a Host
// (HTTP/1.0) passes: browsers always send one. The AWS SDKs and CLI send
// no Origin, so nothing they do changes.
//
// cmd/sqsq wraps its whole server in LoopbackOnly; wrap the handler of
// [NewHandler] in it when serving on a port a browser can reach. It is safe
// for concurrent use.
func LoopbackOnly(h http.Handler, allowHosts ...string) http.Handler {
	g := &loopbackOnly{next: h, names: map[string]bool{}, requestID: ids.NewRandom()}
	for _, a := range allowHosts {
		switch a = hostName(strings.TrimSpace(a)); {
		case a == "":
		case a == "*":
			g.anyHost = true
		case strings.HasPrefix(a, "*."):
			g.suffixes = append(g.suffixes, a[1:])
		default:
			g.names[a] = true
		}
	}
	return g
}

type loopbackOnly struct {
	next      http.Handler
	anyHost   bool
	names     map[string]bool // allowed host names, lower case
	suffixes  []string        // ".example" of "*.example"
	requestID func() string
}

func (g *loopbackOnly) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	why := g.refusal(r)
	if why == "" {
		g.next.ServeHTTP(w, r)
		return
	}
	e := newWireError(codeAccessDenied, "Access to the resource http://"+r.Host+r.URL.EscapedPath()+" is denied: "+why+
		". sqsq answers requests for loopback names (localhost, *.localhost, 127.0.0.1, [::1]), its own address and"+
		" the hosts it is told to allow (sqsq -allow-host), and none that a web page of another site sends.")
	e.status = http.StatusForbidden
	id := g.requestID()
	w.Header().Set("x-amzn-RequestId", id)
	if developerPath(r.URL.Path) {
		writeSqsqError(w, r, e)
		return
	}
	isJSON := r.Header.Get("X-Amz-Target") != "" || strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-amz-json")
	noteProtocol(r, isJSON)
	if isJSON {
		e.writeJSON(w, r)
		return
	}
	e.writeXML(w, r, id)
}

// sqsqPathPrefix starts the paths of sqsq's own endpoints beside SQS
// (cmd/sqsq's console API and admin endpoints), whose clients read errors
// as {"error": message, "code": code}, not as SQS's XML or JSON.
const sqsqPathPrefix = "/_sqsq/"

// developerPath reports whether path is one of sqsq's own endpoints or of
// the LocalStack and moto endpoints it serves too (chaos rules, reset),
// whose clients read JSON errors.
func developerPath(path string) bool {
	return strings.HasPrefix(path, sqsqPathPrefix) || strings.HasPrefix(path, "/_localstack/") || strings.HasPrefix(path, "/moto-api/")
}

// writeSqsqError answers e in the error shape of sqsq's own endpoints.
func writeSqsqError(w http.ResponseWriter, r *http.Request, e *wireError) {
	noteError(r, e)
	b := jsontext.AppendString([]byte(`{"error":`), e.err.Message)
	b = append(b, `,"code":`...)
	b = append(jsontext.AppendString(b, string(e.err.Code)), "}\n"...)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(e.status)
	_, _ = w.Write(b)
}

// refusal says why r is refused, or "" when it is not.
func (g *loopbackOnly) refusal(r *http.Request) string {
	if r.Host != "" && !g.anyHost && !g.allowed(hostName(r.Host)) && !isLocalAddr(r, hostName(r.Host)) {
		return "its Host " + r.Host + " is not a loopback name, the server's address or an allowed host"
	}
	origins := r.Header.Values("Origin")
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !g.allowed(hostName(u.Host)) {
			return "it comes from a web page of origin " + o
		}
	}
	if len(origins) == 0 && r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return "a web browser sent it for a page of another site"
	}
	return ""
}

// allowed reports whether name, a lower-case host name without port, is a
// loopback name or one of the allowed hosts.
func (g *loopbackOnly) allowed(name string) bool {
	if name == "" {
		return false
	}
	if isLoopbackName(name) || g.names[name] {
		return true
	}
	for _, s := range g.suffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// isLoopbackName reports whether name resolves to this machine by
// definition: localhost and the names under it (RFC 6761, which browsers
// honour), and the loopback addresses.
func isLoopbackName(name string) bool {
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.Unmap().IsLoopback()
}

// isLocalAddr reports whether name is the IP address r's connection
// reached, as when a client on the network names a server listening on
// 0.0.0.0 by its address. No DNS is involved, so no rebinding.
func isLocalAddr(r *http.Request, name string) bool {
	ip, err := netip.ParseAddr(name)
	if err != nil {
		return false
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	ap, err := netip.ParseAddrPort(local.String())
	return err == nil && ap.Addr().WithZone("").Unmap() == ip.WithZone("").Unmap()
}

// hostName is the lower-case host of a Host header or URL authority,
// without port, brackets or trailing dot.
func hostName(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}
