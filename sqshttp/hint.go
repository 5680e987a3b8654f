package sqshttp

import (
	"context"
	"net/http"
	"reflect"
	"strings"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/awsname"
)

// The region trap: one endpoint serves every region, each with its own
// queues, so a client configured for another region than the one that
// created a queue looks in the wrong namespace and gets "The specified
// queue does not exist." — AWS's answer, and a true one, but it points
// nowhere. When a queue of that name exists in another namespace, the
// handler keeps AWS's code and appends where it is and why this request
// looked elsewhere, and the request log carries the same hint.

// maxHintPlaces bounds the namespaces a hint lists.
const maxHintPlaces = 3

// hintMissing explains a QueueDoesNotExist answer to in, the decoded input
// of request r, or returns "" when no queue of the name it asked for
// exists anywhere else.
func (h *handler) hintMissing(ctx context.Context, r *http.Request, in any, base string) string {
	sc := h.scopeOf(r)
	v := reflect.ValueOf(in).Elem()
	ref, byURL := stringField(v, "QueueUrl")
	if !byURL {
		ref, _ = stringField(v, "QueueName")
	}
	if !strings.Contains(ref, "/") && !strings.HasPrefix(ref, "arn:") {
		// A name (a bare QueueUrl is one too) is of the request's
		// namespace, or of QueueOwnerAWSAccountId's account in its region.
		byURL = false
		account := sc.account
		if owner, ok := stringField(v, "QueueOwnerAWSAccountId"); ok && owner != "" {
			account = owner
		}
		ref = "/queue/" + sc.region + "/" + account + "/" + ref
	}
	account, region, name, ok := h.b.Locate(ref)
	if !ok {
		return ""
	}
	var places []string
	for _, s := range h.b.Scopes() {
		if s.AccountID() == account && s.Region() == region {
			continue
		}
		q, err := s.GetQueue(ctx, name)
		if err != nil {
			continue
		}
		if len(places) == maxHintPlaces {
			places = append(places, "and more")
			break
		}
		places = append(places, s.Region()+" (account "+s.AccountID()+"): "+q.URLAt(base))
	}
	if len(places) == 0 {
		return ""
	}
	why := ""
	switch {
	case byURL && strings.HasPrefix(ref, "arn:"):
		why = "the region and account its ARN names"
	case byURL && (strings.Contains(ref, "/queue/") || awsname.HostRegion(awsname.URLHost(ref)) != ""):
		why = "the region and account its queue URL names"
	case byURL:
		why = "the account its queue URL names, in the endpoint's default region (a queue URL without /queue/{region}/ names it)"
	case sc.regionFrom == fromCredential:
		why = "the region this request is signed for"
	case sc.regionFrom == fromHost:
		why = "the region of the host this request was sent to, " + r.Host
	case sc.notRegion != "":
		why = "the endpoint's default region: this request is signed for " + sc.notRegion + ", which is not an AWS region's name"
	default:
		why = "the endpoint's default region: this request's credential names no region"
	}
	return "sqsq: no queue " + name + " in " + region + " (account " + account + "), " + why + "; a queue of that name exists in " +
		strings.Join(places, "; in ") + "."
}

// noteNamespace records the namespace of the queue URL of in, if it has
// one, as the request's (clientFor recorded the credential's).
func noteNamespace(r *http.Request, b *sqsq.Broker, in any) {
	info := requestInfo(r)
	if info == nil {
		return
	}
	ref, ok := stringField(reflect.ValueOf(in).Elem(), "QueueUrl")
	if !ok || !strings.Contains(ref, "/") {
		return // none, or a bare name: the credential's namespace
	}
	if account, region, _, ok := b.Locate(ref); ok {
		info.Account, info.Region = account, region
	}
}

// stringField is the string of the *string field name of v, if set.
func stringField(v reflect.Value, name string) (string, bool) {
	f := v.FieldByName(name)
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() || f.Elem().Kind() != reflect.String {
		return "", false
	}
	return f.Elem().String(), true
}

// withHint appends hint to e's message, and notes it for the request log.
func withHint(r *http.Request, e *wireError, hint string) *wireError {
	if hint == "" {
		return e
	}
	msg := *e.err
	msg.Message = strings.TrimSpace(msg.Message + " " + hint)
	e.err = &msg
	if info := requestInfo(r); info != nil {
		info.Hint = hint
	}
	return e
}
