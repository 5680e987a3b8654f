package sqsq

import (
	"bytes"
	"context"
	"encoding/json"
	"time"
)

// Limits of AddPermission (semantics §3.17); the quotas of the policy it
// builds are in policy.go.
const (
	maxPermissionLabelLen   = 80
	policyVersion           = "2008-10-17"
	policyIDSuffix          = "/SQSDefaultPolicy"
	permissionLabelReason   = "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
	permissionActionsReason = "Please refer to the appropriate WSDL for a list of valid actions."
	ownerOnlyReason         = "Only the queue owner is allowed to invoke this action."
)

// permissionActions are the action names AddPermission accepts: "*" and the
// SQS actions. SendMessage, DeleteMessage and ChangeMessageVisibility also
// cover their batch forms, as on AWS.
var permissionActions = map[string]bool{
	"*": true, "AddPermission": true, "CancelMessageMoveTask": true, "ChangeMessageVisibility": true,
	"ChangeMessageVisibilityBatch": true, "CreateQueue": true, "DeleteMessage": true, "DeleteMessageBatch": true,
	"DeleteQueue": true, "GetQueueAttributes": true, "GetQueueUrl": true, "ListDeadLetterSourceQueues": true,
	"ListMessageMoveTasks": true, "ListQueueTags": true, "ListQueues": true, "PurgeQueue": true,
	"ReceiveMessage": true, "RemovePermission": true, "SendMessage": true, "SendMessageBatch": true,
	"SetQueueAttributes": true, "StartMessageMoveTask": true, "TagQueue": true, "UntagQueue": true,
}

// ownerOnlyActions are the actions cross-account permissions do not apply
// to, per the SQS Developer Guide ("Limitations of Amazon SQS custom
// policies"): AddPermission refuses to grant them. "*" stays grantable, as
// the API reference allows it.
var ownerOnlyActions = map[string]bool{
	"AddPermission": true, "CancelMessageMoveTask": true, "CreateQueue": true, "DeleteQueue": true,
	"ListMessageMoveTasks": true, "ListQueues": true, "ListQueueTags": true, "RemovePermission": true,
	"SetQueueAttributes": true, "StartMessageMoveTask": true, "TagQueue": true, "UntagQueue": true,
}

// policyDocument is the part of a queue policy AddPermission and
// RemovePermission edit. Statements are kept as raw JSON so that statements
// written with SetAttributes survive an edit unchanged.
type policyDocument struct {
	Version   string            `json:"Version"`
	ID        string            `json:"Id,omitempty"`
	Statement []json.RawMessage `json:"Statement"`
}

// permissionStatement is the statement AddPermission writes.
type permissionStatement struct {
	Sid       string               `json:"Sid"`
	Effect    string               `json:"Effect"`
	Principal map[string]oneOrMany `json:"Principal"`
	Action    oneOrMany            `json:"Action"`
	Resource  string               `json:"Resource"`
}

// oneOrMany is a policy value that AWS writes as a plain string when it
// holds one element and as a list otherwise, as in the statements
// AddPermission generates; clients comparing the Policy attribute as text
// see the same JSON as from AWS.
type oneOrMany []string

func (v oneOrMany) MarshalJSON() ([]byte, error) {
	if len(v) == 1 {
		return json.Marshal(v[0])
	}
	return json.Marshal([]string(v))
}

// AddPermission adds a statement labelled label to the queue's Policy
// attribute that allows the accounts accountIDs the actions (AddPermission),
// creating the policy if the queue has none:
//
//	{"Version":"2008-10-17","Id":"{arn}/SQSDefaultPolicy","Statement":[{"Sid":"{label}",
//	 "Effect":"Allow","Principal":{"AWS":"arn:aws:iam::{account}:root"},
//	 "Action":"SQS:{action}","Resource":"{arn}"}]}
//
// One account or one action is written as a plain string, several as a
// list, as AWS does. sqsq records policies but never enforces them.
// Errors: MissingParameter for an empty label, account list or action
// list; InvalidParameterValue for a label that is not 1–80 characters of
// [A-Za-z0-9_-], a label the policy already has ("Reason: Already
// exists."), an unknown action, an action only the queue owner may call
// (AddPermission, CancelMessageMoveTask, CreateQueue, DeleteQueue,
// ListMessageMoveTasks, ListQueues, ListQueueTags, RemovePermission,
// SetQueueAttributes, StartMessageMoveTask, TagQueue, UntagQueue: "Reason:
// Only the queue owner is allowed to invoke this action.") or a stored
// policy that is not JSON; OverLimit for more than 7 actions, or when the
// policy would be over a quota of [QueueAttributes.Policy] (more than 20
// statements, more than 50 principals across the policy, so also more than
// 50 accounts, or over 8,192 bytes). A failed call changes nothing.
func (q *Queue) AddPermission(ctx context.Context, label string, accountIDs, actions []string) error {
	if err := q.check(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validatePermission(label, accountIDs, actions); err != nil {
		return err
	}
	now, err := q.lock()
	if err != nil {
		return err
	}
	defer q.mu.Unlock()
	doc, e := q.policyDocument()
	if e != nil {
		return e
	}
	if _, ok := doc.find(label); ok {
		return invalidValue("Label", label, "Already exists.")
	}
	stmt := permissionStatement{
		Sid:       label,
		Effect:    "Allow",
		Principal: map[string]oneOrMany{"AWS": make(oneOrMany, 0, len(accountIDs))},
		Resource:  q.arn,
	}
	for _, id := range accountIDs {
		if len(id) < 4 || id[:4] != "arn:" {
			id = "arn:" + q.b.cfg.partition + ":iam::" + id + ":root"
		}
		stmt.Principal["AWS"] = append(stmt.Principal["AWS"], id)
	}
	for _, a := range actions {
		stmt.Action = append(stmt.Action, "SQS:"+a)
	}
	raw, _ := json.Marshal(stmt)
	doc.Statement = append(doc.Statement, raw)
	policy, _ := json.Marshal(doc)
	// The policy AddPermission builds meets the quotas SetQueueAttributes
	// enforces: 20 statements, 50 principals (so 51 accounts are too
	// many), 8,192 bytes (policy.go).
	if e := validatePolicy(string(policy)); e != nil {
		return e
	}
	q.settings.policy = string(policy)
	q.modified = time.Unix(0, now)
	return nil
}

// RemovePermission removes the policy statement labelled label
// (RemovePermission). Removing the last statement removes the Policy
// attribute. Errors: MissingParameter for an empty label;
// InvalidParameterValue ("Reason: can't find label.") when no statement has
// that label.
func (q *Queue) RemovePermission(ctx context.Context, label string) error {
	if err := q.check(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if label == "" {
		return MissingParameter("Label")
	}
	now, err := q.lock()
	if err != nil {
		return err
	}
	defer q.mu.Unlock()
	doc, e := q.policyDocument()
	if e != nil {
		return e
	}
	i, ok := doc.find(label)
	if !ok {
		return invalidValue("Label", label, "can't find label.")
	}
	doc.Statement = append(doc.Statement[:i], doc.Statement[i+1:]...)
	if len(doc.Statement) == 0 {
		q.settings.policy = ""
	} else {
		policy, _ := json.Marshal(doc)
		q.settings.policy = string(policy)
	}
	q.modified = time.Unix(0, now)
	return nil
}

// validatePermission checks AddPermission's parameters, in the order the
// doc comment of [Queue.AddPermission] lists them.
func validatePermission(label string, accountIDs, actions []string) *Error {
	switch {
	case label == "":
		return MissingParameter("Label")
	case len(label) > maxPermissionLabelLen || !allIDChars(label):
		return invalidValue("Label", label, permissionLabelReason)
	case len(accountIDs) == 0:
		return MissingParameter("AWSAccountIds")
	case len(actions) == 0:
		return MissingParameter("Actions")
	case len(actions) > maxPolicyActions:
		// Checked before the names, with the answer of the policy check the
		// statement would fail.
		return errTooManyActions(len(actions))
	}
	for _, id := range accountIDs {
		if id == "" {
			return invalidValue("AWSAccountIds", id, "Account ids must not be empty.")
		}
	}
	for _, a := range actions {
		switch {
		case !permissionActions[a]:
			return invalidValue("ActionName", "SQS:"+a, permissionActionsReason)
		case ownerOnlyActions[a]:
			return invalidValue("ActionName", "SQS:"+a, ownerOnlyReason)
		}
	}
	return nil
}

// policyDocument parses the queue's policy, or starts an empty one. Caller
// holds q.mu.
func (q *Queue) policyDocument() (policyDocument, *Error) {
	doc := policyDocument{Version: policyVersion, ID: q.arn + policyIDSuffix}
	if q.settings.policy == "" {
		return doc, nil
	}
	var raw struct {
		Version   string          `json:"Version"`
		ID        string          `json:"Id"`
		Statement json.RawMessage `json:"Statement"`
	}
	if err := json.Unmarshal([]byte(q.settings.policy), &raw); err != nil {
		return doc, errInvalidAttrValue(AttrPolicy)
	}
	if raw.Version != "" {
		doc.Version = raw.Version
	}
	doc.ID = raw.ID
	switch s := bytes.TrimSpace(raw.Statement); {
	case len(s) == 0 || string(s) == "null":
	case s[0] == '{': // a single statement may be written without a list
		doc.Statement = []json.RawMessage{s}
	default:
		if err := json.Unmarshal(s, &doc.Statement); err != nil {
			return doc, errInvalidAttrValue(AttrPolicy)
		}
	}
	return doc, nil
}

// find returns the index of the statement whose Sid is label.
func (d *policyDocument) find(label string) (int, bool) {
	for i, s := range d.Statement {
		var st struct {
			Sid string `json:"Sid"`
		}
		if json.Unmarshal(s, &st) == nil && st.Sid == label {
			return i, true
		}
	}
	return 0, false
}
