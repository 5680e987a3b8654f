package main

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The server holds up against clients that misbehave, and against web
// pages (see sqshttp.LoopbackOnly). What a client can make it hold:
//
//   - a connection: at most -max-conns (1024) at once, each with a
//     goroutine and about 8 KiB of buffers; the listener accepts no more
//     until one closes, so file descriptors stay bounded, and takes a slot
//     back for a waiting client from an idle keep-alive connection or a
//     parked long poll (fairness.go), so pollers cannot shut others out;
//   - request headers: at most maxHeaderBytes each, sent within
//     -read-header-timeout (10 s);
//   - a request body: buffered as it arrives, never by its announced
//     length, at most 4 MiB (sqshttp.DefaultMaxRequestBytes), sent with its
//     headers within -read-timeout (30 s); all bodies being received hold
//     at most 64 MiB together (sqshttp.DefaultMaxRequestBytesInFlight;
//     bodies past 64 KiB share 56 MiB of it, so small requests get through),
//     beyond which a request is refused with 503 ServiceUnavailable, which
//     the SDKs retry;
//   - an idle keep-alive connection: closed after -idle-timeout (60 s).
//
// The read timeout does not cut long polls: net/http clears the
// connection's read deadline once a request's body is read, so it bounds
// only the sending of the request, never the up to 20 s a ReceiveMessage
// waits before it answers. There is no write timeout, for the same
// reason.

// maxHeaderBytes bounds a request's header block, request line included.
// SQS clients send about 1 KiB (a SigV4 Authorization is the largest
// header); a Query-protocol GET, which carries its parameters in the URL,
// is limited by it too, so clients with large messages POST, as every SDK
// does.
const maxHeaderBytes = 64 << 10

// checkProtections validates the flags of the protections.
func (o options) checkProtections() error {
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"-read-header-timeout", o.readHeaderTimeout}, {"-read-timeout", o.readTimeout}, {"-idle-timeout", o.idleTimeout}} {
		if d.d <= 0 {
			return errors.New(d.name + " must be positive, not " + d.d.String())
		}
	}
	if o.maxConns < 0 {
		return errors.New("-max-conns must be 0 (no limit) or more")
	}
	return nil
}

// server is the http.Server of o, serving h.
func (o options) server(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.readHeaderTimeout,
		ReadTimeout:       o.readTimeout,
		IdleTimeout:       o.idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

// allowedHosts are the host names served besides loopback names and the
// address a connection reached: those of -allow-host, the host of -addr
// (which may be a name) and that of -base-url, whose queue URLs clients
// call.
func (o options) allowedHosts() []string {
	hosts := append([]string(nil), o.allowHosts...)
	if host, _, err := net.SplitHostPort(o.addr); err == nil && host != "" {
		hosts = append(hosts, host)
	}
	if u, err := url.Parse(o.baseURL); err == nil && u.Host != "" {
		hosts = append(hosts, u.Host)
	}
	return hosts
}

// hostList is the value of -allow-host: names from every use of the flag,
// each of which may list several, separated by commas.
type hostList []string

func (l *hostList) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, ",")
}

func (l *hostList) Set(s string) error {
	for name := range strings.SplitSeq(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" || strings.ContainsAny(name, "/ ") {
			return errors.New("want host names separated by commas, not " + s)
		}
		*l = append(*l, name)
	}
	return nil
}
