package sqsq

import (
	"bytes"
	"encoding/json"
)

// Quotas of a queue's Policy attribute: the policy quota table of the SQS
// Developer Guide ("Quotas related to policies": 8,192 bytes, 20
// statements, 7 actions, 50 principals, 10 conditions). sqsq records
// policies without enforcing them, but refuses one over a quota as AWS
// does, with 403 OverLimit, on CreateQueue, SetQueueAttributes and
// AddPermission alike.
const (
	maxPolicyBytes      = 8192
	maxPolicyStatements = 20
	maxPolicyActions    = 7 // per statement
	maxPolicyPrincipals = 50
	maxPolicyConditions = 10 // per statement
)

// validatePolicy checks a Policy value that is not "" (which removes the
// policy) against the quotas above and refuses text that is not a JSON
// policy document.
//
// The messages of the size, statement and action quotas are AWS's answers
// to SetQueueAttributes, quoted in public reports: "Submitted policy is over
// max allowed size." (aws/aws-sdk-net#378, justeattakeaway/JustSaying#1021),
// "21 statements were found in the submitted policy, max allowed is 20"
// (dapr/components-contrib#1780, aws/aws-cdk#16303), "10 actions were found
// in a statement from the submitted policy, max allowed is 7"
// (ministryofjustice/cloud-platform-environments#9082). No AWS answer for
// principals or conditions is public; their messages follow the same
// pattern by analogy.
//
// What is counted:
//   - size: bytes of the value as sent, checked first, before parsing (AWS
//     gives the size answer for a policy of any content);
//   - statements: the elements of Statement, which may also be a single
//     object (one statement);
//   - actions: per statement, as AWS's message says, the names in Action
//     and NotAction, each a string or a list of strings;
//   - principals: across the whole policy, as in the table and in the
//     statements message ("in the submitted policy"): "*" is one, and in a
//     map every value counts, a string as one and a list by its length, for
//     Principal and NotPrincipal;
//   - conditions: per statement, one per condition key under each operator
//     ({"ArnEquals":{"aws:SourceArn":[a, b]},"StringEquals":{"aws:SourceAccount":c}}
//     is two conditions; a key's list of values is one condition). Per
//     statement rather than per policy because AWS accepts policies of more
//     than 10 statements with one condition each: the SNS subscription
//     pattern, one statement with an aws:SourceArn condition per topic,
//     reaches 20 statements before AWS refuses the 21st statement
//     (aws/aws-cdk#16303), and 13 such statements were accepted in
//     justeattakeaway/JustSaying#1218.
//
// Text that is not a JSON object, or whose Statement, Action, Principal or
// Condition do not have the shapes above, fails with InvalidAttributeValue
// "Invalid value for the parameter Policy.", AWS's answer to a value that is
// not a policy document (hashicorp/terraform-provider-aws#42209,
// aws/aws-cdk#15602). Beyond these shapes sqsq does not check the IAM
// policy grammar.
func validatePolicy(p string) *Error {
	if len(p) > maxPolicyBytes {
		return newError(CodeOverLimit, "Submitted policy is over max allowed size.")
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(p), &doc); err != nil || doc == nil {
		return errInvalidAttrValue(AttrPolicy)
	}
	statements, ok := policyStatements(doc["Statement"])
	if !ok {
		return errInvalidAttrValue(AttrPolicy)
	}
	if n := len(statements); n > maxPolicyStatements {
		return newError(CodeOverLimit, "%d statements were found in the submitted policy, max allowed is %d", n, maxPolicyStatements)
	}
	principals := 0
	for _, raw := range statements {
		var st struct {
			Action, NotAction, Principal, NotPrincipal, Condition json.RawMessage
		}
		if err := json.Unmarshal(raw, &st); err != nil {
			return errInvalidAttrValue(AttrPolicy)
		}
		a, ok1 := countStrings(st.Action)
		na, ok2 := countStrings(st.NotAction)
		p, ok3 := countPrincipals(st.Principal)
		np, ok4 := countPrincipals(st.NotPrincipal)
		c, ok5 := countConditions(st.Condition)
		if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
			return errInvalidAttrValue(AttrPolicy)
		}
		if a+na > maxPolicyActions {
			return errTooManyActions(a + na)
		}
		if c > maxPolicyConditions {
			return newError(CodeOverLimit, "%d conditions were found in a statement from the submitted policy, max allowed is %d", c, maxPolicyConditions)
		}
		principals += p + np
	}
	if principals > maxPolicyPrincipals {
		return newError(CodeOverLimit, "%d principals were found in the submitted policy, max allowed is %d", principals, maxPolicyPrincipals)
	}
	return nil
}

// errTooManyActions is AWS's answer to a statement of n actions, n over the
// quota.
func errTooManyActions(n int) *Error {
	return newError(CodeOverLimit, "%d actions were found in a statement from the submitted policy, max allowed is %d", n, maxPolicyActions)
}

// policyStatements splits a Statement value into its statements: none when
// absent or null, one for an object, the elements of a list of objects.
func policyStatements(raw json.RawMessage) ([]json.RawMessage, bool) {
	s := bytes.TrimSpace(raw)
	switch {
	case len(s) == 0 || string(s) == "null":
		return nil, true
	case s[0] == '{':
		return []json.RawMessage{s}, true
	case s[0] != '[':
		return nil, false
	}
	var list []json.RawMessage
	if err := json.Unmarshal(s, &list); err != nil {
		return nil, false
	}
	for _, st := range list {
		if t := bytes.TrimSpace(st); len(t) == 0 || t[0] != '{' {
			return nil, false
		}
	}
	return list, true
}

// countStrings counts a policy value that is a string or a list of
// strings; absent counts zero.
func countStrings(raw json.RawMessage) (int, bool) {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 || string(s) == "null" {
		return 0, true
	}
	var one string
	if json.Unmarshal(s, &one) == nil {
		return 1, true
	}
	var many []string
	if json.Unmarshal(s, &many) == nil {
		return len(many), true
	}
	return 0, false
}

// countPrincipals counts a Principal value: "*", or a map from principal
// type (AWS, Service, Federated, CanonicalUser) to a string or a list.
func countPrincipals(raw json.RawMessage) (int, bool) {
	s := bytes.TrimSpace(raw)
	if len(s) > 0 && s[0] == '"' {
		return countStrings(s)
	}
	if len(s) == 0 || string(s) == "null" {
		return 0, true
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(s, &m); err != nil {
		return 0, false
	}
	n := 0
	for _, v := range m {
		c, ok := countStrings(v)
		if !ok {
			return 0, false
		}
		n += c
	}
	return n, true
}

// countConditions counts the condition keys of a Condition block, an
// object of operators each holding an object of keys.
func countConditions(raw json.RawMessage) (int, bool) {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 || string(s) == "null" {
		return 0, true
	}
	var ops map[string]map[string]json.RawMessage
	if err := json.Unmarshal(s, &ops); err != nil {
		return 0, false
	}
	n := 0
	for _, keys := range ops {
		n += len(keys)
	}
	return n, true
}
