package sqshttp_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sqsq/sqsq/sqshttp"
)

// TestLoopbackOnly: which requests LoopbackOnly passes to its handler and
// which it refuses, with 403 AccessDenied in the request's protocol.
func TestLoopbackOnly(t *testing.T) {
	t.Parallel()
	called := 0
	h := sqshttp.LoopbackOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { called++ }),
		"sqs.internal:9324", "*.ci.example", "[fd00::7]", " Queue.Local. ")
	lan := &net.TCPAddr{IP: net.ParseIP("192.168.1.5"), Port: 9324}
	tests := []struct {
		name   string
		host   string
		header map[string]string
		local  net.Addr // the address the connection reached; nil: none known
		pass   bool
	}{
		{"localhost", "localhost:9324", nil, nil, true},
		{"localhost without port", "localhost", nil, nil, true},
		{"a regional name under localhost", "sqs.eu-west-1.localhost:9324", nil, nil, true},
		{"127.0.0.1", "127.0.0.1:9324", nil, nil, true},
		{"127.1.2.3", "127.1.2.3", nil, nil, true},
		{"::1", "[::1]:9324", nil, nil, true},
		{"IPv4-mapped loopback", "[::ffff:127.0.0.1]:9324", nil, nil, true},
		{"no Host (HTTP/1.0)", "", nil, nil, true},
		{"an allowed name, port ignored", "sqs.internal:80", nil, nil, true},
		{"an allowed name, any case and a trailing dot", "QUEUE.local.:1", nil, nil, true},
		{"under an allowed wildcard", "a.b.ci.example", nil, nil, true},
		{"an allowed IPv6 address", "[fd00::7]:9324", nil, nil, true},
		{"the address the connection reached", "192.168.1.5:9324", nil, lan, true},
		{"the wildcard's own name", "ci.example", nil, nil, false},
		{"a foreign name", "evil.example:9324", nil, nil, false},
		{"a name ending like localhost", "evillocalhost:9324", nil, nil, false},
		{"localhost as a subdomain", "localhost.evil.example", nil, nil, false},
		{"another LAN address", "192.168.1.6:9324", nil, lan, false},
		{"a LAN address, no connection known", "192.168.1.5:9324", nil, nil, false},
		{"0.0.0.0", "0.0.0.0:9324", nil, nil, false},
		{"loopback Origin", "localhost", map[string]string{"Origin": "http://localhost:3000"}, nil, true},
		{"allowed Origin", "localhost", map[string]string{"Origin": "https://x.ci.example"}, nil, true},
		{"foreign Origin", "localhost", map[string]string{"Origin": "http://evil.example"}, nil, false},
		{"foreign Origin, allowed Sec-Fetch-Site", "localhost", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "same-site"}, nil, false},
		{"Origin null", "localhost", map[string]string{"Origin": "null"}, nil, false},
		{"Origin of a LAN page", "192.168.1.5", map[string]string{"Origin": "http://192.168.1.5"}, lan, false},
		{"cross-site without Origin", "localhost", map[string]string{"Sec-Fetch-Site": "cross-site"}, nil, false},
		{"same-origin without Origin", "localhost", map[string]string{"Sec-Fetch-Site": "same-origin"}, nil, true},
	}
	for _, tt := range tests {
		for _, proto := range []string{"JSON", "Query"} {
			r := httptest.NewRequest("POST", "/", strings.NewReader("{}"))
			r.Host = tt.host
			if proto == "JSON" {
				r.Header.Set("Content-Type", "application/x-amz-json-1.0")
				r.Header.Set("X-Amz-Target", "AmazonSQS.PurgeQueue")
			} else {
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			if tt.local != nil {
				r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, tt.local))
			}
			before := called
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			passed := called > before
			if passed != tt.pass {
				t.Errorf("%s (%s): passed = %v, want %v (%d %s)", tt.name, proto, passed, tt.pass, w.Code, w.Body)
				continue
			}
			if passed {
				continue
			}
			want := `"__type":"com.amazon.coral.service#AccessDeniedException"`
			if proto == "Query" {
				want = "<Code>AccessDenied</Code>"
			}
			if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), want) || w.Header().Get("x-amzn-RequestId") == "" {
				t.Errorf("%s (%s): %d %v %s; want 403 with %s", tt.name, proto, w.Code, w.Header(), w.Body, want)
			}
		}
	}
}

// TestLoopbackOnlyAnyHost: "*" accepts every Host but still refuses a
// foreign Origin.
func TestLoopbackOnlyAnyHost(t *testing.T) {
	t.Parallel()
	h := sqshttp.LoopbackOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), "*")
	for _, tt := range []struct {
		host, origin string
		want         int
	}{
		{"sqs:9324", "", http.StatusOK},
		{"anything.example", "", http.StatusOK},
		{"localhost", "http://evil.example", http.StatusForbidden},
	} {
		r := httptest.NewRequest("GET", "/?Action=ListQueues", nil)
		r.Host = tt.host
		if tt.origin != "" {
			r.Header.Set("Origin", tt.origin)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tt.want {
			t.Errorf("Host %s Origin %q: %d, want %d", tt.host, tt.origin, w.Code, tt.want)
		}
	}
}
