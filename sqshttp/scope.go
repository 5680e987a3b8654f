package sqshttp

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
	"github.com/sqsq/sqsq/internal/awsname"
)

// One endpoint serves every account and region, as AWS's SDKs see it:
// a request is for the region of its SigV4 credential scope and for the
// account of its access key id, when that is 12 digits (the convention of
// other local emulators; real key ids are never all digits). Each (account,
// region) is a scope of the broker with its own queues (sqsq.Broker.Scope).

// maxScopes bounds the scopes a handler opens besides the broker's own:
// every new access key id or region of a client would otherwise cost the
// server a namespace for good. At the bound, the scopes that hold no queue
// are let go (sqsq.Broker.Release); a request for one more while all hold
// queues is refused with InvalidClientTokenId.
const maxScopes = 64

// maxScopedClients bounds the cache of adapters of other scopes, by base
// URL and scope; beyond it a request gets an adapter of its own.
const maxScopedClients = 4 * maxScopes

type scopeKey struct{ account, region string }

type scopedClientKey struct {
	base string
	scopeKey
}

// clientFor returns the adapter serving r: the one of its account and
// region, with queue URLs that start with base.
func (h *handler) clientFor(r *http.Request, base string) (*awssqs.Client, *wireError) {
	sc := h.scopeOf(r)
	if info := requestInfo(r); info != nil {
		info.Account, info.Region = sc.account, sc.region
	}
	account, region := sc.account, sc.region
	if account == h.b.AccountID() && region == h.b.Region() {
		return h.client(base), nil
	}
	k := scopedClientKey{base, scopeKey{account, region}}
	h.scopeMu.Lock()
	defer h.scopeMu.Unlock()
	if c := h.scoped[k]; c != nil {
		return c, nil
	}
	b := h.scopes[k.scopeKey]
	if b == nil {
		if len(h.scopes) >= maxScopes {
			h.releaseEmptyScopes()
		}
		if len(h.scopes) >= maxScopes {
			return nil, newWireError(codeInvalidClientTokenId, "The security token included in the request is invalid: sqsq serves at most "+
				strconv.Itoa(maxScopes)+" accounts and regions besides its default on one endpoint, each of which holds queues now, and this request is for one more (account "+
				account+", region "+region+"); deleting every queue of one lets it go.")
		}
		if h.scopes == nil {
			h.scopes = map[scopeKey]*sqsq.Broker{}
			h.scoped = map[scopedClientKey]*awssqs.Client{}
		}
		b = h.b.Scope(account, region)
		h.scopes[k.scopeKey] = b
	}
	c := awssqs.New(b, awssqs.WithBaseURL(base), awssqs.WithRequestIDFunc(noRequestID))
	if len(h.scoped) < maxScopedClients {
		h.scoped[k] = c
	}
	return c, nil
}

// releaseEmptyScopes lets go of the scopes that hold no queue (see
// sqsq.Broker.Release), so that a client that tried made-up accounts or
// regions does not shut the next ones out. Caller holds h.scopeMu.
func (h *handler) releaseEmptyScopes() {
	for k, b := range h.scopes {
		if !b.Release() {
			continue
		}
		delete(h.scopes, k)
		for ck := range h.scoped {
			if ck.scopeKey == k {
				delete(h.scoped, ck)
			}
		}
	}
}

// requestScope is the account and region a request is for, and why the
// region is that one.
type requestScope struct {
	account, region string
	// regionFrom is where the region came from: fromCredential,
	// fromHost, or fromDefault; notRegion is the credential's region when
	// it was not shaped as one (and so ignored).
	regionFrom regionSource
	notRegion  string
}

type regionSource int

const (
	fromDefault regionSource = iota
	fromCredential
	fromHost
)

// scopeOf returns the account and region r is for. The region is the
// credential scope's (the Authorization header's, or a presigned URL's
// X-Amz-Credential), else the Host's (sqs.{region}.… or
// {region}.queue.amazonaws.com), else the broker's; only a name shaped as
// an AWS region counts, so the "local" or "elasticmq" of many set-ups
// keeps meaning the default. The account is the access key id when it is
// 12 digits, else the broker's.
func (h *handler) scopeOf(r *http.Request) requestScope {
	sc := requestScope{account: h.b.AccountID(), region: h.b.Region()}
	key, credRegion := credential(r)
	if awsname.IsAccountID(key) {
		sc.account = key
	}
	switch {
	case awsname.IsRegion(credRegion):
		sc.region, sc.regionFrom = credRegion, fromCredential
	case credRegion == "":
		if hr := awsname.HostRegion(r.Host); hr != "" {
			sc.region, sc.regionFrom = hr, fromHost
		}
	default:
		sc.notRegion = credRegion
	}
	return sc
}

// credential returns the access key id and region of r's SigV4 credential
// scope ("AKID/20240101/us-west-2/sqs/aws4_request"), or "".
func credential(r *http.Request) (key, region string) {
	var scope string
	if auth := r.Header.Get("Authorization"); auth != "" {
		_, rest, ok := strings.Cut(auth, "Credential=")
		if !ok {
			return "", ""
		}
		scope, _, _ = strings.Cut(rest, ",")
	} else if strings.Contains(r.URL.RawQuery, "X-Amz-Credential=") {
		scope = r.URL.Query().Get("X-Amz-Credential")
	}
	key, rest, ok := strings.Cut(strings.TrimSpace(scope), "/")
	if !ok {
		return "", ""
	}
	_, rest, _ = strings.Cut(rest, "/") // the date
	region, _, ok = strings.Cut(rest, "/")
	if !ok {
		return "", ""
	}
	return key, region
}
