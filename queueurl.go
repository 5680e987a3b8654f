package sqsq

import (
	"net/url"
	"strings"

	"github.com/sqsq/sqsq/internal/awsname"
)

// A queue URL names one queue from every scope of an endpoint, whatever
// region its caller is in: a client that follows a URL sqsq returned — the
// JavaScript SDK sends to the URL's host, and a consumer may run with
// another region than the producer that created the queue — reaches that
// queue. So a URL carries its region unless it is the endpoint's default:
//
//	{base}/{account}/{name}                    the default region's (AWS's shape)
//	{base}/queue/{region}/{account}/{name}     any other region's (LocalStack's path form)
//
// and a regional host (https://sqs.eu-west-1.amazonaws.com/…,
// sqs.eu-west-1.localhost) names its region as on AWS, so URLs on such a
// base keep AWS's shape.

// queuePathPrefix starts the path of a queue URL that names its region.
const queuePathPrefix = "/queue/"

// URLAt returns q's URL as an endpoint reached at base serves it (base is a
// scheme and host, such as "http://127.0.0.1:9324"): base/account/name
// when q is in the endpoint's default region (that of the [NewBroker]
// whose scopes q's broker belongs to) or in the region base's host names
// (sqs.{region}.…), else base/queue/region/account/name. [Broker.GetQueue]
// of any scope of the endpoint resolves it to q.
func (q *Queue) URLAt(base string) string {
	return q.b.urlAt(trimSlash(base), q.name)
}

func (b *Broker) queueURL(name string) string { return b.urlAt(b.cfg.baseURL, name) }

func (b *Broker) urlAt(base, name string) string {
	region := b.cfg.region
	if region == b.w.root.cfg.region || awsname.HostRegion(awsname.URLHost(base)) == region {
		return base + "/" + b.cfg.accountID + "/" + name
	}
	return base + queuePathPrefix + region + "/" + b.cfg.accountID + "/" + name
}

// Locate reports which account, region and queue name ref — a queue name,
// URL or ARN — names, as [Broker.GetQueue] of b reads it (a name is of b's
// account and region; a URL's region is the one it carries, else the
// endpoint's default), without looking the queue up. ok is false when ref
// names no queue at all (an empty name, a URL without account and name, an
// ARN of another service).
func (b *Broker) Locate(ref string) (account, region, name string, ok bool) {
	switch {
	case strings.HasPrefix(ref, "arn:"): // arn:PARTITION:sqs:REGION:ACCOUNT:NAME
		parts := strings.Split(ref, ":")
		if len(parts) != 6 || parts[1] != b.cfg.partition || parts[2] != "sqs" {
			return "", "", "", false
		}
		return parts[4], parts[3], parts[5], true
	case strings.Contains(ref, "/"):
		return b.splitURL(ref)
	default:
		return b.cfg.accountID, b.cfg.region, ref, ref != ""
	}
}

// resolve turns a name, URL or ARN into a queue name of this broker, or
// into the ARN of a queue of another scope (foreign).
func (b *Broker) resolve(ref string) (name, foreign string, ok bool) {
	if name := b.ownName(ref); name != "" {
		return name, "", true
	}
	return b.resolveParsed(ref)
}

// ownName is the queue name in ref if ref is a URL as b hands them out,
// else "". Such URLs come back on most calls; parsing them was a twentieth
// of a call through the SDK-shaped client.
func (b *Broker) ownName(ref string) string {
	b.ownURLOnce.Do(func() {
		if own := b.queueURL(""); b.resolveURL(own+"q") == "q" {
			b.ownURL = own
		}
	})
	if b.ownURL == "" {
		return ""
	}
	rest, found := strings.CutPrefix(ref, b.ownURL)
	if !found {
		return ""
	}
	for i := 0; i < len(rest); i++ { // strings.ContainsAny(rest, "/?#%"), at a fifth of its cost
		switch rest[i] {
		case '/', '?', '#', '%':
			return ""
		}
	}
	return rest
}

// resolveParsed is resolve by Locate.
func (b *Broker) resolveParsed(ref string) (name, foreign string, ok bool) {
	account, region, name, ok := b.Locate(ref)
	switch {
	case !ok:
		return "", "", false
	case account == b.cfg.accountID && region == b.cfg.region:
		return name, "", true
	case strings.HasPrefix(ref, "arn:"):
		return "", ref, true
	}
	return "", "arn:" + b.cfg.partition + ":sqs:" + region + ":" + account + ":" + name, true
}

// resolveURL is the name resolve reads in the URL u when u names a queue
// of b, else "".
func (b *Broker) resolveURL(u string) string {
	if account, region, name, ok := b.splitURL(u); ok && account == b.cfg.accountID && region == b.cfg.region {
		return name
	}
	return ""
}

// splitURL reads the region, account and queue name of a queue URL
// (semantics §1.3: its last two path segments are account and name; see
// the top of this file for the region). The scheme and the rest of the
// host are ignored.
func (b *Broker) splitURL(ref string) (account, region, name string, ok bool) {
	host, path := "", ref
	if strings.ContainsAny(ref, "?#%") { // escapes or a query: let net/url read it
		if u, err := url.Parse(ref); err == nil && u.Path != "" {
			host, path = u.Host, u.Path
		}
	} else if _, rest, found := strings.Cut(ref, "://"); found {
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return "", "", "", false
		}
		host, path = rest[:i], rest[i:]
	}
	path = strings.Trim(path, "/")
	path, name = cutLast(path)
	path, account = cutLast(path)
	region = b.w.root.cfg.region
	if hr := awsname.HostRegion(host); hr != "" {
		region = hr
	}
	if before, r := cutLast(path); (before == "queue" || strings.HasSuffix(before, "/queue")) && scopeName(r) {
		region = r // ".../queue/{region}/{account}/{name}"
	}
	return account, region, name, name != "" && account != ""
}

// cutLast splits a path at its last '/': "a/b/c" is "a/b" and "c"; "c" is
// "" and "c".
func cutLast(path string) (before, last string) {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return "", path
	}
	return path[:i], path[i+1:]
}
