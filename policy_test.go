package sqsq_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

// testStatement is a policy statement with n actions, principals AWS
// account principals (none when 0) and conditions condition keys, spread
// over two operators.
func testStatement(sid string, actions, principals, conditions int) string {
	var acts, accts, strs, arns []string
	for i := 0; i < actions; i++ {
		acts = append(acts, fmt.Sprintf(`"SQS:Action%d"`, i))
	}
	for i := 0; i < principals; i++ {
		accts = append(accts, fmt.Sprintf(`"%012d"`, i))
	}
	for i := 0; i < conditions; i++ {
		if i%2 == 0 {
			strs = append(strs, fmt.Sprintf(`"aws:Key%d":["a","b"]`, i))
		} else {
			arns = append(arns, fmt.Sprintf(`"aws:Key%d":"c"`, i))
		}
	}
	s := `{"Sid":"` + sid + `","Effect":"Allow","Action":[` + strings.Join(acts, ",") + `],"Resource":"*"`
	if principals > 0 {
		s += `,"Principal":{"AWS":[` + strings.Join(accts, ",") + `]}`
	}
	if conditions > 0 {
		s += `,"Condition":{"StringEquals":{` + strings.Join(strs, ",") + `},"ArnLike":{` + strings.Join(arns, ",") + `}}`
	}
	return s + "}"
}

// testPolicy is a policy document of statements.
func testPolicy(statements ...string) string {
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(statements, ",") + `]}`
}

// testStatements is n statements of one action each.
func testStatements(n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, testStatement(fmt.Sprintf("s%d", i), 1, 0, 0))
	}
	return out
}

// paddedPolicy is a one-statement policy of exactly size bytes.
func paddedPolicy(size int) string {
	p := testPolicy(testStatement("", 1, 0, 0))
	return testPolicy(testStatement(strings.Repeat("p", size-len(p)), 1, 0, 0))
}

func TestPolicyQuotas(t *testing.T) {
	t.Parallel()
	const over = sqsq.CodeOverLimit
	tests := []struct {
		reason string
		policy string
		code   sqsq.Code // "" for accepted
		msg    string
	}{
		{"20 statements are allowed", testPolicy(testStatements(20)...), "", ""},
		{"21 statements: AWS's answer in dapr/components-contrib#1780 and aws/aws-cdk#16303",
			testPolicy(testStatements(21)...), over, "21 statements were found in the submitted policy, max allowed is 20"},
		{"Statement may be a single object", `{"Statement":` + testStatement("one", 7, 1, 1) + `}`, "", ""},
		{"7 actions in a statement are allowed", testPolicy(testStatement("a", 7, 0, 0)), "", ""},
		{"10 actions in a statement: AWS's answer in ministryofjustice/cloud-platform-environments#9082",
			testPolicy(testStatement("a", 10, 0, 0)), over, "10 actions were found in a statement from the submitted policy, max allowed is 7"},
		{"actions are counted per statement", testPolicy(testStatement("a", 7, 0, 0), testStatement("b", 7, 0, 0)), "", ""},
		{"NotAction counts as Action",
			testPolicy(`{"Effect":"Deny","Principal":"*","NotAction":["SQS:A","SQS:B","SQS:C","SQS:D","SQS:E","SQS:F","SQS:G","SQS:H"],"Resource":"*"}`),
			over, "8 actions were found in a statement from the submitted policy, max allowed is 7"},
		{"50 principals across the policy are allowed", testPolicy(testStatement("a", 1, 25, 0), testStatement("b", 1, 25, 0)), "", ""},
		{"51 principals across the policy (message by analogy: no AWS text is public)",
			testPolicy(testStatement("a", 1, 25, 0), testStatement("b", 1, 26, 0)), over, "51 principals were found in the submitted policy, max allowed is 50"},
		{"every value of a Principal map counts, and * counts one",
			testPolicy(testStatement("a", 1, 48, 0),
				`{"Effect":"Allow","Principal":{"Service":["sns.amazonaws.com","events.amazonaws.com"]},"Action":"SQS:SendMessage"}`,
				`{"Effect":"Allow","Principal":"*","Action":"SQS:SendMessage"}`),
			over, "51 principals were found in the submitted policy, max allowed is 50"},
		{"10 conditions in a statement are allowed", testPolicy(testStatement("a", 1, 1, 10)), "", ""},
		{"conditions are counted per statement: 20 statements of one condition each, the SNS subscription pattern (aws/aws-cdk#16303)",
			testPolicy(func() []string {
				var s []string
				for i := 0; i < 20; i++ {
					s = append(s, testStatement(fmt.Sprintf("sns%d", i), 1, 1, 1))
				}
				return s
			}()...), "", ""},
		{"11 conditions in a statement, counted by key across operators (message by analogy)",
			testPolicy(testStatement("a", 1, 1, 11)), over, "11 conditions were found in a statement from the submitted policy, max allowed is 10"},
		{"8,192 bytes are allowed", paddedPolicy(8192), "", ""},
		{"8,193 bytes: AWS's answer in aws/aws-sdk-net#378", paddedPolicy(8193), over, "Submitted policy is over max allowed size."},
		{"the size is checked before the text is parsed", "{" + strings.Repeat(" ", 8192), over, "Submitted policy is over max allowed size."},
		{"text that is not JSON: AWS's answer in terraform-provider-aws#42209", "{not json",
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter Policy."},
		{"JSON that is not an object", `["Statement"]`, sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter Policy."},
		{"a Statement that is not an object or a list of objects", `{"Statement":"Allow"}`,
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter Policy."},
		{"an Action that is not a string or list of strings", testPolicy(`{"Effect":"Allow","Action":7}`),
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter Policy."},
		{"a Condition that is not operators of keys", testPolicy(`{"Effect":"Allow","Condition":{"StringEquals":"x"}}`),
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter Policy."},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			const kept = `{"Version":"2012-10-17","Statement":[]}`
			f.set(t, sqsq.QueueAttributes{Policy: sqsq.Some(kept)})
			before := f.allAttrs(t, f.q)
			f.clk.Add(time.Minute)

			err := f.q.SetAttributes(f.ctx, sqsq.QueueAttributes{Policy: sqsq.Some(tt.policy)})
			wantErr(t, err, tt.code, tt.msg, "SetQueueAttributes: "+tt.reason)
			if tt.code != "" {
				if d := diff(before, f.allAttrs(t, f.q)); d != "" {
					t.Errorf("a refused SetAttributes changed the queue:\n%s", d)
				}
			} else if got := policyOf(t, f); got != tt.policy {
				t.Errorf("Policy = %s, want it stored as set", got)
			}

			_, err = f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "new",
				Attributes: sqsq.QueueAttributes{Policy: sqsq.Some(tt.policy)}})
			wantErr(t, err, tt.code, tt.msg, "CreateQueue: "+tt.reason)
			if _, err := f.b.GetQueue(f.ctx, "new"); tt.code != "" && !errors.Is(err, sqsq.ErrQueueDoesNotExist) {
				t.Errorf("a refused CreateQueue created the queue (GetQueue: %v)", err)
			}
		})
	}
}

func TestAddPermissionPolicyQuotas(t *testing.T) {
	t.Parallel()
	accounts := func(n int) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, fmt.Sprintf("%012d", i))
		}
		return out
	}
	tests := []struct {
		reason   string
		existing string // the policy set before AddPermission; "" for none
		accounts []string
		code     sqsq.Code
		msg      string
	}{
		{"50 accounts are allowed", "", accounts(50), "", ""},
		{"51 accounts are 51 principals", "", accounts(51), sqsq.CodeOverLimit,
			"51 principals were found in the submitted policy, max allowed is 50"},
		{"the principals of the existing policy count too", testPolicy(testStatement("mine", 1, 45, 0)), accounts(6), sqsq.CodeOverLimit,
			"51 principals were found in the submitted policy, max allowed is 50"},
		{"a 21st statement", testPolicy(testStatements(20)...), accounts(1), sqsq.CodeOverLimit,
			"21 statements were found in the submitted policy, max allowed is 20"},
		{"a statement that takes the policy over 8,192 bytes", paddedPolicy(8100), accounts(1), sqsq.CodeOverLimit,
			"Submitted policy is over max allowed size."},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			if tt.existing != "" {
				f.set(t, sqsq.QueueAttributes{Policy: sqsq.Some(tt.existing)})
			}
			before := f.allAttrs(t, f.q)
			f.clk.Add(time.Minute)
			wantErr(t, f.q.AddPermission(f.ctx, "added", tt.accounts, []string{"SendMessage"}), tt.code, tt.msg, tt.reason)
			if tt.code != "" {
				if d := diff(before, f.allAttrs(t, f.q)); d != "" {
					t.Errorf("a refused AddPermission changed the queue:\n%s", d)
				}
			}
		})
	}
}

func TestUntagKeyErrorsChangeNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		keys   []string
	}{
		{"no keys: AWS's answer to botocore's TagKeys=[] (getmoto/moto#1686)", nil},
		{"an empty key", []string{""}},
		{"an empty key among good ones fails the whole call", []string{"keep", ""}},
		{"a key of 129 characters", []string{strings.Repeat("k", 129)}},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			if err := f.q.Tag(f.ctx, map[string]string{"keep": "x"}); err != nil {
				t.Fatal(err)
			}
			wantErr(t, f.q.Untag(f.ctx, tt.keys...), sqsq.CodeInvalidParameterValue,
				"Tag keys must be between 1 and 128 characters in length.", tt.reason)
			got, err := f.q.Tags(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d := diff(map[string]string{"keep": "x"}, got); d != "" {
				t.Errorf("a refused Untag changed the tags:\n%s", d)
			}
		})
	}
	f := setup(t)
	if err := f.q.Untag(f.ctx, strings.Repeat("k", 128)); err != nil {
		t.Errorf("Untag of a 128-character key = %v, want success", err)
	}
}
