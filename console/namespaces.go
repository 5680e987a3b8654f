package console

import (
	"cmp"
	"net/http"
	"strconv"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/awsname"
)

// One sqsq endpoint serves every AWS account and region, each a namespace
// of queues (a scope of the broker, sqsq.Broker.Scope). The console shows
// one at a time: every endpoint under /_sqsq/api/queues takes ?account=
// and ?region=, each defaulting to the console's broker's, and
// GET /_sqsq/api/namespaces lists those with queues.

// maxNamespaces bounds the namespaces the console creates: as many as
// sqshttp opens for SDK requests (64 besides the default), so that a
// script cannot grow the endpoint without end through the console either.
const maxNamespaces = 1 + 64

// namespace is a namespace as GET /_sqsq/api/namespaces lists it.
type namespace struct {
	Account string `json:"account"`
	Region  string `json:"region"`
	Queues  int    `json:"queues"`
	// Default is true for the console's broker's: the namespace of a
	// request without account or region.
	Default bool `json:"default"`
}

// listNamespaces answers GET /_sqsq/api/namespaces: the default namespace,
// then every other that has a queue, in order of account, then region.
func (c *console) listNamespaces(w http.ResponseWriter, r *http.Request) {
	out := []namespace{}
	for _, b := range c.b.Scopes() {
		n := len(b.Queues())
		ns := namespace{Account: b.AccountID(), Region: b.Region(), Queues: n, Default: b == c.b}
		switch {
		case ns.Default:
			out = append([]namespace{ns}, out...)
		case n > 0:
			out = append(out, ns)
		}
	}
	writeJSON(w, http.StatusOK, struct {
		Namespaces []namespace `json:"namespaces"`
	}{out})
}

// scope returns the broker of the namespace r names (?account=, ?region=),
// or answers 404 ResourceNotFoundException when the endpoint has no such
// namespace: the console never creates one to read it. With create (for
// POST /_sqsq/api/queues) a missing namespace is created, as a signed SDK
// request would create it, if the account is 12 digits and the region
// shaped as an AWS region (400 InvalidParameterValue otherwise), and if the
// endpoint has fewer than maxNamespaces (403 OverLimit otherwise).
func (c *console) scope(w http.ResponseWriter, r *http.Request, create bool) (*sqsq.Broker, bool) {
	query := r.URL.Query()
	account, region := cmp.Or(query.Get("account"), c.b.AccountID()), cmp.Or(query.Get("region"), c.b.Region())
	if account == c.b.AccountID() && region == c.b.Region() {
		return c.b, true
	}
	scopes := c.b.Scopes()
	for _, b := range scopes {
		if b.AccountID() == account && b.Region() == region {
			return b, true
		}
	}
	switch {
	case !create:
		writeError(w, http.StatusNotFound, sqsq.CodeResourceNotFound, "no namespace of account "+strconv.Quote(account)+" in region "+
			strconv.Quote(region)+" on this endpoint; GET /_sqsq/api/namespaces lists them")
	case !awsname.IsAccountID(account):
		fail(w, sqsq.InvalidParameter("account", account, "it must be 12 digits."))
	case !awsname.IsRegion(region):
		fail(w, sqsq.InvalidParameter("region", region, "it must be shaped as an AWS region, such as eu-west-1."))
	case len(scopes) >= maxNamespaces:
		writeError(w, http.StatusForbidden, sqsq.CodeOverLimit, "this endpoint has "+strconv.Itoa(len(scopes))+
			" namespaces, its most; create queues in one of them")
	default:
		return c.b.Scope(account, region), true
	}
	return nil, false
}
