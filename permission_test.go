package sqsq_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

// policyOf returns the queue's Policy attribute, "" when it has none.
func policyOf(t *testing.T, f *fixture) string {
	t.Helper()
	attrs, err := f.q.GetAttributes(f.ctx, "Policy")
	if err != nil {
		t.Fatal(err)
	}
	return attrs["Policy"]
}

func TestAddPermission(t *testing.T) {
	t.Parallel()
	f := setup(t)
	if err := f.q.AddPermission(f.ctx, "send-from-b", []string{"111122223333"}, []string{"SendMessage", "GetQueueUrl"}); err != nil {
		t.Fatal(err)
	}
	arn := f.q.ARN()
	want := `{"Version":"2008-10-17","Id":"` + arn + `/SQSDefaultPolicy","Statement":[` +
		`{"Sid":"send-from-b","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},` +
		`"Action":["SQS:SendMessage","SQS:GetQueueUrl"],"Resource":"` + arn + `"}]}`
	if got := policyOf(t, f); got != want {
		t.Errorf("Policy after AddPermission (shape of §3.17):\n-want %s\n+got  %s", want, got)
	}

	f.clk.Add(time.Minute)
	if err := f.q.AddPermission(f.ctx, "all", []string{"444455556666", "777788889999"}, []string{"*"}); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Statement []json.RawMessage }
	if err := json.Unmarshal([]byte(policyOf(t, f)), &doc); err != nil {
		t.Fatal(err)
	}
	wantAll := `{"Sid":"all","Effect":"Allow","Principal":{"AWS":["arn:aws:iam::444455556666:root","arn:aws:iam::777788889999:root"]},` +
		`"Action":"SQS:*","Resource":"` + arn + `"}`
	if len(doc.Statement) != 2 || string(doc.Statement[1]) != wantAll {
		t.Errorf("a second AddPermission appends a statement; want second %s, got %s", wantAll, doc.Statement)
	}
	attrs, _ := f.q.GetAttributes(f.ctx, "LastModifiedTimestamp")
	if got, want := attrs["LastModifiedTimestamp"], strconv.FormatInt(f.clk.Now().Unix(), 10); got != want {
		t.Errorf("LastModifiedTimestamp = %s, want %s (the Policy attribute changed)", got, want)
	}

	if err := f.q.RemovePermission(f.ctx, "send-from-b"); err != nil {
		t.Fatal(err)
	}
	if got := policyOf(t, f); strings.Contains(got, "send-from-b") || !strings.Contains(got, `"Sid":"all"`) {
		t.Errorf("RemovePermission removes only its statement: %s", got)
	}
	if err := f.q.RemovePermission(f.ctx, "all"); err != nil {
		t.Fatal(err)
	}
	if got := policyOf(t, f); got != "" {
		t.Errorf("removing the last statement removes Policy (§3.17), got %s", got)
	}
}

// TestAddPermissionOneOrMany checks the statement's Principal and Action:
// AWS writes one account or one action as a plain string and several as a
// list (a one-account, one-action AddPermission on AWS stores
// "Principal":{"AWS":"arn:aws:iam::111111111111:root"} and
// "Action":"SQS:SendMessage").
func TestAddPermissionOneOrMany(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason             string
		accounts, actions  []string
		principal, actionJ string
	}{
		{"one account and one action are plain strings", []string{"111111111111"}, []string{"SendMessage"},
			`"arn:aws:iam::111111111111:root"`, `"SQS:SendMessage"`},
		{"several accounts are a list", []string{"111111111111", "222222222222"}, []string{"ReceiveMessage"},
			`["arn:aws:iam::111111111111:root","arn:aws:iam::222222222222:root"]`, `"SQS:ReceiveMessage"`},
		{"several actions are a list", []string{"111111111111"}, []string{"DeleteMessage", "ChangeMessageVisibility"},
			`"arn:aws:iam::111111111111:root"`, `["SQS:DeleteMessage","SQS:ChangeMessageVisibility"]`},
		{"an ARN is kept as given, * becomes SQS:*", []string{"arn:aws:iam::333333333333:root"}, []string{"*"},
			`"arn:aws:iam::333333333333:root"`, `"SQS:*"`},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			if err := f.q.AddPermission(f.ctx, "grant", tt.accounts, tt.actions); err != nil {
				t.Fatal(err)
			}
			arn := f.q.ARN()
			want := `{"Version":"2008-10-17","Id":"` + arn + `/SQSDefaultPolicy","Statement":[` +
				`{"Sid":"grant","Effect":"Allow","Principal":{"AWS":` + tt.principal + `},"Action":` + tt.actionJ +
				`,"Resource":"` + arn + `"}]}`
			if got := policyOf(t, f); got != want {
				t.Errorf("%s:\n-want %s\n+got  %s", tt.reason, want, got)
			}
		})
	}
}

// TestAddPermissionOwnerOnlyActions checks that AddPermission refuses to
// grant the actions cross-account permissions do not apply to (SQS
// Developer Guide, "Limitations of Amazon SQS custom policies") and leaves
// the Policy attribute as it was, also when a grantable action comes first.
func TestAddPermissionOwnerOnlyActions(t *testing.T) {
	t.Parallel()
	ownerOnly := []string{"AddPermission", "CancelMessageMoveTask", "CreateQueue", "DeleteQueue",
		"ListMessageMoveTasks", "ListQueues", "ListQueueTags", "RemovePermission", "SetQueueAttributes",
		"StartMessageMoveTask", "TagQueue", "UntagQueue"}
	for _, action := range ownerOnly {
		for _, actions := range [][]string{{action}, {"SendMessage", action}} {
			t.Run(strings.Join(actions, "+"), func(t *testing.T) {
				t.Parallel()
				f := setup(t)
				if err := f.q.AddPermission(f.ctx, "existing", []string{"111111111111"}, []string{"SendMessage"}); err != nil {
					t.Fatal(err)
				}
				before := policyOf(t, f)
				f.clk.Add(time.Minute)
				wantErr(t, f.q.AddPermission(f.ctx, "owner", []string{"111111111111"}, actions),
					sqsq.CodeInvalidParameterValue,
					"Value SQS:"+action+" for parameter ActionName is invalid. Reason: Only the queue owner is allowed to invoke this action.",
					"only the queue owner may call "+action)
				if after := policyOf(t, f); after != before {
					t.Errorf("a refused grant changed the Policy:\n-before %s\n+after  %s", before, after)
				}
			})
		}
	}
	// The grantable actions stay grantable, and so does "*", which covers
	// the owner-only actions too but is the API's documented wildcard.
	f := setup(t)
	if err := f.q.AddPermission(f.ctx, "everything", []string{"111111111111"}, []string{"*"}); err != nil {
		t.Errorf("granting * = %v, want success", err)
	}
	if err := f.q.AddPermission(f.ctx, "reader", []string{"111111111111"},
		[]string{"GetQueueAttributes", "GetQueueUrl", "ListDeadLetterSourceQueues", "PurgeQueue", "ReceiveMessage", "DeleteMessageBatch"}); err != nil {
		t.Errorf("granting queue-level actions = %v, want success", err)
	}
}

func TestAddPermissionExtendsASetPolicy(t *testing.T) {
	t.Parallel()
	f := setup(t)
	own := `{"Version":"2012-10-17","Statement":{"Sid":"mine","Effect":"Deny","Principal":"*","Action":"SQS:*","Resource":"*"}}`
	f.set(t, sqsq.QueueAttributes{Policy: sqsq.Some(own)})
	if err := f.q.AddPermission(f.ctx, "added", []string{"111122223333"}, []string{"ReceiveMessage"}); err != nil {
		t.Fatal(err)
	}
	got := policyOf(t, f)
	for _, part := range []string{`"Version":"2012-10-17"`, `{"Sid":"mine","Effect":"Deny","Principal":"*","Action":"SQS:*","Resource":"*"}`, `"Sid":"added"`} {
		if !strings.Contains(got, part) {
			t.Errorf("policy %s lacks %s: a set policy keeps its statements and version", got, part)
		}
	}
	wantErr(t, f.q.AddPermission(f.ctx, "mine", []string{"111122223333"}, []string{"SendMessage"}),
		sqsq.CodeInvalidParameterValue, "Value mine for parameter Label is invalid. Reason: Already exists.",
		"a label of a statement written with SetAttributes counts too")
	if err := f.q.RemovePermission(f.ctx, "mine"); err != nil {
		t.Fatal(err)
	}
	if got := policyOf(t, f); strings.Contains(got, `"mine"`) {
		t.Errorf("RemovePermission removes a statement written with SetAttributes: %s", got)
	}
}

func TestPermissionErrorsChangeNothing(t *testing.T) {
	t.Parallel()
	eight := []string{"SendMessage", "ReceiveMessage", "DeleteMessage", "ChangeMessageVisibility",
		"GetQueueAttributes", "GetQueueUrl", "PurgeQueue", "ListQueueTags"}
	tests := []struct {
		reason   string
		label    string
		accounts []string
		actions  []string
		remove   bool
		code     sqsq.Code
		msg      string
	}{
		{"a duplicate label is refused (§3.17)", "existing", []string{"111122223333"}, []string{"SendMessage"}, false,
			sqsq.CodeInvalidParameterValue, "Value existing for parameter Label is invalid. Reason: Already exists."},
		{"an unknown label cannot be removed (§3.17)", "nope", nil, nil, true,
			sqsq.CodeInvalidParameterValue, "Value nope for parameter Label is invalid. Reason: can't find label."},
		{"a label is required", "", []string{"111122223333"}, []string{"SendMessage"}, false,
			sqsq.CodeMissingParameter, "The request must contain the parameter Label."},
		{"RemovePermission needs a label", "", nil, nil, true,
			sqsq.CodeMissingParameter, "The request must contain the parameter Label."},
		{"a label is 1-80 characters of [A-Za-z0-9_-]", "no spaces", []string{"111122223333"}, []string{"SendMessage"}, false,
			sqsq.CodeInvalidParameterValue, "Value no spaces for parameter Label is invalid. Reason: Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"},
		{"a label of 81 characters is too long", strings.Repeat("l", 81), []string{"111122223333"}, []string{"SendMessage"}, false,
			sqsq.CodeInvalidParameterValue, ""},
		{"accounts are required", "x", nil, []string{"SendMessage"}, false,
			sqsq.CodeMissingParameter, "The request must contain the parameter AWSAccountIds."},
		{"actions are required", "x", []string{"111122223333"}, nil, false,
			sqsq.CodeMissingParameter, "The request must contain the parameter Actions."},
		{"at most 7 actions per statement (§3.17)", "x", []string{"111122223333"}, eight, false,
			sqsq.CodeOverLimit, "8 actions were found in a statement from the submitted policy, max allowed is 7"},
		{"an unknown action is refused", "x", []string{"111122223333"}, []string{"Launch"}, false,
			sqsq.CodeInvalidParameterValue, "Value SQS:Launch for parameter ActionName is invalid. Reason: Please refer to the appropriate WSDL for a list of valid actions."},
		{"an owner-only action cannot be granted (Developer Guide: cross-account access)", "x", []string{"111122223333"}, []string{"RemovePermission"}, false,
			sqsq.CodeInvalidParameterValue, "Value SQS:RemovePermission for parameter ActionName is invalid. Reason: Only the queue owner is allowed to invoke this action."},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			if err := f.q.AddPermission(f.ctx, "existing", []string{"111122223333"}, []string{"SendMessage"}); err != nil {
				t.Fatal(err)
			}
			before := f.allAttrs(t, f.q)
			f.clk.Add(time.Minute)
			var err error
			if tt.remove {
				err = f.q.RemovePermission(f.ctx, tt.label)
			} else {
				err = f.q.AddPermission(f.ctx, tt.label, tt.accounts, tt.actions)
			}
			wantErr(t, err, tt.code, tt.msg, tt.reason)
			if d := diff(before, f.allAttrs(t, f.q)); d != "" {
				t.Errorf("a failed call changed the queue:\n%s", d)
			}
		})
	}
}

func TestPermissionLimits(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for i := 0; i < 20; i++ {
		if err := f.q.AddPermission(f.ctx, "l"+strconv.Itoa(i), []string{"111122223333"}, []string{"SendMessage"}); err != nil {
			t.Fatalf("statement %d: %v", i+1, err)
		}
	}
	wantErr(t, f.q.AddPermission(f.ctx, "l20", []string{"111122223333"}, []string{"SendMessage"}),
		sqsq.CodeOverLimit, "21 statements were found in the submitted policy, max allowed is 20",
		"a policy holds at most 20 statements (policy quotas; AWS's text in dapr/components-contrib#1780)")
}

func TestPermissionOnDeletedQueue(t *testing.T) {
	t.Parallel()
	f := setup(t)
	if err := f.q.DeleteQueue(f.ctx); err != nil {
		t.Fatal(err)
	}
	wantErr(t, f.q.AddPermission(f.ctx, "x", []string{"111122223333"}, []string{"SendMessage"}),
		sqsq.CodeQueueDoesNotExist, "", "a deleted queue has no policy to edit")
	wantErr(t, f.q.RemovePermission(f.ctx, "x"), sqsq.CodeQueueDoesNotExist, "", "a deleted queue has no policy to edit")
	live := f.create(t, "live", sqsq.QueueAttributes{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := live.AddPermission(ctx, "x", []string{"1"}, []string{"SendMessage"}); err != context.Canceled {
		t.Errorf("AddPermission with an ended context = %v, want context.Canceled", err)
	}
}
