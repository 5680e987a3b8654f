package suite

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// policyDoc is a policy of statements statements, the first with actions
// actions, principals AWS principals and conditions condition keys; the
// others have one action, no principal and no condition.
func policyDoc(statements, actions, principals, conditions int) string {
	var acts, accts, conds []string
	for i := 0; i < actions; i++ {
		acts = append(acts, fmt.Sprintf(`"SQS:Action%d"`, i))
	}
	for i := 0; i < principals; i++ {
		accts = append(accts, fmt.Sprintf(`"%012d"`, i))
	}
	for i := 0; i < conditions; i++ {
		conds = append(conds, fmt.Sprintf(`"aws:Key%d":"v"`, i))
	}
	first := `{"Sid":"s0","Effect":"Allow","Action":[` + strings.Join(acts, ",") + `],"Resource":"*"`
	if principals > 0 {
		first += `,"Principal":{"AWS":[` + strings.Join(accts, ",") + `]}`
	}
	if conditions > 0 {
		first += `,"Condition":{"StringEquals":{` + strings.Join(conds, ",") + `}}`
	}
	stmts := []string{first + "}"}
	for i := 1; i < statements; i++ {
		stmts = append(stmts, fmt.Sprintf(`{"Sid":"s%d","Effect":"Allow","Action":"SQS:SendMessage","Resource":"*"}`, i))
	}
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(stmts, ",") + `]}`
}

func overLimit(op, msg string) wantErr {
	return wantErr{op: op, is: isA[*types.OverLimit], code: "OverLimit", status: 403, msg: msg}
}

// testPolicyQuotas: the policy quotas of the SQS Developer Guide (8,192
// bytes, 20 statements, 7 actions, 50 principals, 10 conditions) answered
// with 403 OverLimit on SetQueueAttributes, CreateQueue and AddPermission
// (§2 Policy row). The statement, action and size texts are AWS's, quoted in
// dapr/components-contrib#1780, ministryofjustice/cloud-platform-environments#9082
// and aws/aws-sdk-net#378; the principal and condition texts follow them by
// analogy (no AWS text is public). Text that is not a policy document is
// InvalidAttributeValue (terraform-provider-aws#42209).
func testPolicyQuotas(e *env) {
	url := e.createQueue("policed", nil)
	kept := policyDoc(20, 7, 50, 10)
	_, err := e.api().SetQueueAttributes(e.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url),
		Attributes: map[string]string{"Policy": kept}})
	e.must(err, "SetQueueAttributes of a policy at every quota")

	tests := []struct {
		reason, policy string
		want           wantErr
	}{
		{"21 statements", policyDoc(21, 1, 0, 0),
			overLimit("SetQueueAttributes", "21 statements were found in the submitted policy, max allowed is 20")},
		{"10 actions in a statement", policyDoc(1, 10, 0, 0),
			overLimit("SetQueueAttributes", "10 actions were found in a statement from the submitted policy, max allowed is 7")},
		{"51 principals", policyDoc(1, 1, 51, 0),
			overLimit("SetQueueAttributes", "51 principals were found in the submitted policy, max allowed is 50")},
		{"11 conditions in a statement", policyDoc(1, 1, 0, 11),
			overLimit("SetQueueAttributes", "11 conditions were found in a statement from the submitted policy, max allowed is 10")},
		{"8,193 bytes", policyDoc(1, 1, 0, 0)[:1] + strings.Repeat(" ", 8193-len(policyDoc(1, 1, 0, 0))) + policyDoc(1, 1, 0, 0)[1:],
			overLimit("SetQueueAttributes", "Submitted policy is over max allowed size.")},
		{"text that is not a policy document", "{not json",
			wantErr{op: "SetQueueAttributes", is: isA[*types.InvalidAttributeValue], code: "InvalidAttributeValue", status: 400,
				msg: "Invalid value for the parameter Policy."}},
	}
	for _, tt := range tests {
		_, err := e.api().SetQueueAttributes(e.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url),
			Attributes: map[string]string{"Policy": tt.policy}})
		e.wantErr(err, tt.want, "SetQueueAttributes of a policy of "+tt.reason)
		e.diff(kept, e.attrs(url, "Policy")["Policy"], "a refused policy leaves the Policy as it was: "+tt.reason)
	}

	_, err = e.api().CreateQueue(e.ctx, &sqs.CreateQueueInput{QueueName: aws.String("overpoliced"),
		Attributes: map[string]string{"Policy": policyDoc(21, 1, 0, 0)}})
	e.wantErr(err, overLimit("CreateQueue", "21 statements were found in the submitted policy, max allowed is 20"),
		"CreateQueue checks the quotas too")
	_, err = e.api().GetQueueUrl(e.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("overpoliced")})
	e.wantErr(err, queueDoesNotExist("GetQueueUrl"), "a refused CreateQueue creates no queue")

	shared := e.createQueue("shared-quota", nil)
	var accounts []string
	for i := 0; i < 51; i++ {
		accounts = append(accounts, fmt.Sprintf("%012d", i))
	}
	_, err = e.api().AddPermission(e.ctx, &sqs.AddPermissionInput{QueueUrl: aws.String(shared), Label: aws.String("many"),
		AWSAccountIds: accounts, Actions: []string{"SendMessage"}})
	e.wantErr(err, overLimit("AddPermission", "51 principals were found in the submitted policy, max allowed is 50"),
		"AddPermission builds the policy, which has the same quotas: 51 accounts are 51 principals")
	e.diff(map[string]string(nil), e.attrs(shared, "Policy"), "a refused AddPermission writes no Policy")
	_, err = e.api().AddPermission(e.ctx, &sqs.AddPermissionInput{QueueUrl: aws.String(shared), Label: aws.String("many"),
		AWSAccountIds: accounts[:50], Actions: []string{"SendMessage"}})
	e.must(err, "AddPermission of 50 accounts")
}
