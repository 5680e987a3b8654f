package suite

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

var queueTests = []test{
	{"create, get URL, list and delete", testQueueLifecycle},
	{"create is idempotent for equal attributes", testCreateIdempotent},
	{"list queues pages with the SDK paginator", testListQueuesPaginator},
	{"queue URL in every form", testQueueURLForms},
	{"get and set attributes", testAttributes},
	{"tags", testTags},
	{"tag or untag nothing", testTagsNone},
	{"permissions", testPermissions},
	{"policy quotas", testPolicyQuotas},
	{"purge", testPurge},
}

func testQueueLifecycle(e *env) {
	api := e.api()
	if out, err := api.ListQueues(e.ctx, &sqs.ListQueuesInput{}); err != nil || out.QueueUrls != nil || out.NextToken != nil {
		e.t.Errorf("ListQueues with no queues = %+v, %v; want QueueUrls absent (nil), §3.4", out, err)
	}
	beta := e.createQueue("beta", nil)
	alpha := e.createQueue("alpha", nil)
	gamma := e.fifoQueue("gamma.fifo", nil)

	out, err := api.GetQueueUrl(e.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("alpha")})
	e.must(err, "GetQueueUrl")
	e.diff(alpha, aws.ToString(out.QueueUrl), "GetQueueUrl returns the URL CreateQueue returned")

	list, err := api.ListQueues(e.ctx, &sqs.ListQueuesInput{})
	e.must(err, "ListQueues")
	e.diff([]string{alpha, beta, gamma}, list.QueueUrls, "ListQueues lists every queue, in name order")
	e.diff((*string)(nil), list.NextToken, "no NextToken without MaxResults (§3.4)")

	list, err = api.ListQueues(e.ctx, &sqs.ListQueuesInput{QueueNamePrefix: aws.String("g")})
	e.must(err, "ListQueues")
	e.diff([]string{gamma}, list.QueueUrls, "QueueNamePrefix filters by name prefix")

	list, err = api.ListQueues(e.ctx, &sqs.ListQueuesInput{QueueNamePrefix: aws.String("A")})
	e.must(err, "ListQueues")
	e.diff([]string(nil), list.QueueUrls, "the prefix is case-sensitive, and an empty result is absent")

	_, err = api.DeleteQueue(e.ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(alpha)})
	e.must(err, "DeleteQueue")
	_, err = api.GetQueueUrl(e.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("alpha")})
	e.wantErr(err, queueDoesNotExist("GetQueueUrl"), "a deleted queue is gone")
	_, err = api.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(alpha), MessageBody: aws.String("x")})
	e.wantErr(err, queueDoesNotExist("SendMessage"), "a deleted queue takes no messages")
	_, err = api.DeleteQueue(e.ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(alpha)})
	e.wantErr(err, queueDoesNotExist("DeleteQueue"), "a deleted queue cannot be deleted again (§3.5)")

	_, err = api.CreateQueue(e.ctx, &sqs.CreateQueueInput{QueueName: aws.String("alpha")})
	e.wantErr(err, wantErr{op: "CreateQueue", is: isA[*types.QueueDeletedRecently], code: "AWS.SimpleQueueService.QueueDeletedRecently",
		status: 400, msg: "You must wait 60 seconds after deleting a queue before you can create another with the same name."},
		"the name is blocked for 60 s after DeleteQueue (§9.2)")
	e.advance(60 * time.Second)
	if again := e.createQueue("alpha", nil); again != alpha {
		e.t.Errorf("recreated queue URL %s, want %s", again, alpha)
	}
	if got := e.counts(alpha); got != [3]int{} {
		e.t.Errorf("a recreated queue starts empty, counts %v", got)
	}
}

func testCreateIdempotent(e *env) {
	url := e.createQueue("orders", map[string]string{"VisibilityTimeout": "45"})
	if again := e.createQueue("orders", map[string]string{"VisibilityTimeout": "45"}); again != url {
		e.t.Errorf("CreateQueue with equal attributes returned %s, want %s (§3.2)", again, url)
	}
	if again := e.createQueue("orders", nil); again != url {
		e.t.Errorf("CreateQueue without attributes returned %s, want %s (§3.2)", again, url)
	}
	_, err := e.api().CreateQueue(e.ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders"),
		Attributes: map[string]string{"VisibilityTimeout": "60"}})
	e.wantErr(err, wantErr{op: "CreateQueue", is: isA[*types.QueueNameExists], code: "QueueAlreadyExists", status: 400,
		msg: "A queue already exists with the same name and a different value for attribute VisibilityTimeout"},
		"a differing attribute is QueueNameExists, legacy code QueueAlreadyExists (§3.0)")
}

func testListQueuesPaginator(e *env) {
	var want []string
	for _, name := range []string{"q1", "q2", "q3", "q4", "q5"} {
		want = append(want, e.createQueue(name, nil))
	}
	e.createQueue("other", nil)
	p := sqs.NewListQueuesPaginator(e.api(), &sqs.ListQueuesInput{QueueNamePrefix: aws.String("q"), MaxResults: aws.Int32(2)})
	var got []string
	pages := 0
	for p.HasMorePages() {
		out, err := p.NextPage(e.ctx)
		e.must(err, "ListQueues page")
		pages++
		got = append(got, out.QueueUrls...)
	}
	e.diff(want, got, "the SDK's paginator walks every page")
	e.diff(3, pages, "5 queues in pages of 2 are 3 pages")

	_, err := e.api().ListQueues(e.ctx, &sqs.ListQueuesInput{MaxResults: aws.Int32(1001)})
	e.wantErr(err, wantErr{op: "ListQueues", code: "InvalidParameterValue", status: 400}, "MaxResults is 1-1000 (§3.4)")
}

func testQueueURLForms(e *env) {
	url := e.createQueue("forms", nil)
	arn := e.arn(url)
	parts := strings.Split(arn, ":") // arn:aws:sqs:REGION:ACCOUNT:NAME
	region, account := parts[3], parts[4]
	forms := []struct{ reason, ref string }{
		{"the URL CreateQueue returned", url},
		{"a bare queue name (AWS accepts it, §1.3)", "forms"},
		{"the queue's ARN", arn},
		{"an AWS-style URL", "https://sqs." + region + ".amazonaws.com/" + account + "/forms"},
		{"a legacy AWS URL", "https://queue.amazonaws.com/" + account + "/forms"},
		{"a LocalStack-style URL", "http://localhost:4566/" + account + "/forms"},
		{"a path-style URL with the region", "http://localhost:4566/queue/" + region + "/" + account + "/forms"},
	}
	for _, f := range forms {
		out, err := e.api().SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(f.ref), MessageBody: aws.String(f.reason)})
		if err != nil || out.MessageId == nil {
			e.t.Errorf("SendMessage to %s (%s): %v", f.ref, f.reason, err)
		}
	}
	if got := e.counts(url)[0]; got != len(forms) {
		e.t.Errorf("the queue holds %d messages, want %d: every form names the same queue", got, len(forms))
	}
	for _, ref := range []string{
		"https://sqs." + region + ".amazonaws.com/111122223333/forms",    // another account
		"https://sqs." + region + ".amazonaws.com/" + account + "/Forms", // names are case-sensitive
		"arn:aws:sqs:" + region + ":111122223333:forms",
	} {
		_, err := e.api().SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(ref), MessageBody: aws.String("x")})
		e.wantErr(err, queueDoesNotExist("SendMessage"), "no queue at "+ref)
	}
}

func testAttributes(e *env) {
	start := e.h.Clock.Now()
	url := e.createQueue("attrs", nil)
	out, err := e.api().GetQueueAttributes(e.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url)})
	e.must(err, "GetQueueAttributes")
	e.diff(map[string]string(nil), out.Attributes, "no AttributeNames give no Attributes member (§2.3)")

	all := e.attrs(url, "All")
	created := e.seconds(start, all["CreatedTimestamp"])
	e.diff(map[string]string{
		"ApproximateNumberOfMessages":           "0",
		"ApproximateNumberOfMessagesDelayed":    "0",
		"ApproximateNumberOfMessagesNotVisible": "0",
		"CreatedTimestamp":                      created,
		"DelaySeconds":                          "0",
		"LastModifiedTimestamp":                 created,
		"MaximumMessageSize":                    "1048576",
		"MessageRetentionPeriod":                "345600",
		"QueueArn":                              all["QueueArn"],
		"ReceiveMessageWaitTimeSeconds":         "0",
		"SqsManagedSseEnabled":                  "true",
		"VisibilityTimeout":                     "30",
	}, all, "All on a fresh standard queue (§2.3)")
	if !strings.HasPrefix(all["QueueArn"], "arn:aws:sqs:") || !strings.HasSuffix(all["QueueArn"], ":attrs") {
		e.t.Errorf("QueueArn = %q", all["QueueArn"])
	}

	e.advance(time.Minute)
	_, err = e.api().SetQueueAttributes(e.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url),
		Attributes: map[string]string{"VisibilityTimeout": "45", "DelaySeconds": "5"}})
	e.must(err, "SetQueueAttributes")
	e.diff(map[string]string{"VisibilityTimeout": "45", "DelaySeconds": "5", "LastModifiedTimestamp": e.seconds(start.Add(time.Minute), "")},
		e.attrs(url, "VisibilityTimeout", "DelaySeconds", "LastModifiedTimestamp", "Policy"),
		"a subset returns only those names; an unset Policy is omitted (§2.3)")

	_, err = e.api().SetQueueAttributes(e.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url),
		Attributes: map[string]string{"VisibilityTimeout": "43201"}})
	e.wantErr(err, wantErr{op: "SetQueueAttributes", is: isA[*types.InvalidAttributeValue], code: "InvalidAttributeValue",
		status: 400, msg: "Invalid value for the parameter VisibilityTimeout."}, "VisibilityTimeout is 0-43200 (§2.1)")
	_, err = e.api().SetQueueAttributes(e.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url),
		Attributes: map[string]string{"ContentBasedDeduplication": "true"}})
	e.wantErr(err, wantErr{op: "SetQueueAttributes", is: isA[*types.InvalidAttributeName], code: "InvalidAttributeName",
		status: 400, msg: "Unknown Attribute ContentBasedDeduplication."}, "a FIFO attribute on a standard queue (§2.1)")
	_, err = e.api().GetQueueAttributes(e.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{"Bogus"}})
	e.wantErr(err, wantErr{op: "GetQueueAttributes", is: isA[*types.InvalidAttributeName], code: "InvalidAttributeName",
		status: 400, msg: "Unknown Attribute Bogus."}, "an unknown name (§3.0)")
	e.diff("45", e.attrs(url, "VisibilityTimeout")["VisibilityTimeout"], "failed SetQueueAttributes calls change nothing")

	fifo := e.fifoQueue("attrs.fifo", map[string]string{"ContentBasedDeduplication": "True"})
	got := e.attrs(fifo, "FifoQueue", "ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit")
	e.diff(map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true", "DeduplicationScope": "queue",
		"FifoThroughputLimit": "perQueue"}, got, `FIFO attributes; "True" is accepted and returned as "true" (§2)`)
}

func testTags(e *env) {
	out, err := e.api().CreateQueue(e.ctx, &sqs.CreateQueueInput{QueueName: aws.String("tagged"),
		Tags: map[string]string{"team": "payments"}})
	e.must(err, "CreateQueue")
	url := aws.ToString(out.QueueUrl)
	tags := func() map[string]string {
		out, err := e.api().ListQueueTags(e.ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(url)})
		e.must(err, "ListQueueTags")
		return out.Tags
	}
	e.diff(map[string]string{"team": "payments"}, tags(), "CreateQueue's tags are set")
	_, err = e.api().TagQueue(e.ctx, &sqs.TagQueueInput{QueueUrl: aws.String(url),
		Tags: map[string]string{"team": "billing", "Team": "", "env": "test"}})
	e.must(err, "TagQueue")
	e.diff(map[string]string{"team": "billing", "Team": "", "env": "test"}, tags(),
		"TagQueue overwrites, keys are case-sensitive, empty values are allowed (§3.16)")
	_, err = e.api().UntagQueue(e.ctx, &sqs.UntagQueueInput{QueueUrl: aws.String(url), TagKeys: []string{"team", "Team", "env", "unknown"}})
	e.must(err, "UntagQueue")
	e.diff(map[string]string(nil), tags(), "no tags: the Tags member is absent (§3.16)")
	_, err = e.api().TagQueue(e.ctx, &sqs.TagQueueInput{QueueUrl: aws.String(url), Tags: map[string]string{"aws:x": "y"}})
	e.wantErr(err, wantErr{op: "TagQueue", code: "InvalidParameterValue", status: 400}, "the aws: prefix is reserved (§3.16)")
}

// testTagsNone: Tags is required, and an empty map is a missing one, on
// both wires: the Query protocol cannot send an empty map, so there "no
// tags" is the absent parameter, which SQS refuses with MissingParameter;
// the same request over JSON gets the same answer. An empty TagKeys list or
// an empty key is InvalidParameterValue "Tag keys must be between 1 and 128
// characters in length.", AWS's answer to botocore's TagKeys=[] (quoted in
// getmoto/moto#1686, 2018); TagKeys left out (nil) is refused by the SDK's
// own validation, as the model marks it required.
func testTagsNone(e *env) {
	url := e.createQueue("untouched", nil)
	_, err := e.api().TagQueue(e.ctx, &sqs.TagQueueInput{QueueUrl: aws.String(url), Tags: map[string]string{"keep": "me"}})
	e.must(err, "TagQueue")
	_, err = e.api().TagQueue(e.ctx, &sqs.TagQueueInput{QueueUrl: aws.String(url), Tags: map[string]string{}})
	e.wantErr(err, missingParameter("TagQueue", "Tags"), "TagQueue with an empty Tags map (§3.16)")
	_, err = e.api().UntagQueue(e.ctx, &sqs.UntagQueueInput{QueueUrl: aws.String(url), TagKeys: []string{}})
	e.wantErr(err, invalidParameter("UntagQueue", "Tag keys must be between 1 and 128 characters in length."),
		"UntagQueue with an empty TagKeys list (getmoto/moto#1686)")
	_, err = e.api().UntagQueue(e.ctx, &sqs.UntagQueueInput{QueueUrl: aws.String(url), TagKeys: []string{"keep", ""}})
	e.wantErr(err, invalidParameter("UntagQueue", "Tag keys must be between 1 and 128 characters in length."),
		"UntagQueue with an empty key, which is what botocore's TagKeys=[] sends over Query (getmoto/moto#1686)")
	out, err := e.api().ListQueueTags(e.ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(url)})
	e.must(err, "ListQueueTags")
	e.diff(map[string]string{"keep": "me"}, out.Tags, "the refused calls change no tag")
}

func testPermissions(e *env) {
	url := e.createQueue("shared", nil)
	arn := e.arn(url)
	_, err := e.api().AddPermission(e.ctx, &sqs.AddPermissionInput{QueueUrl: aws.String(url), Label: aws.String("send"),
		AWSAccountIds: []string{"111122223333"}, Actions: []string{"SendMessage", "GetQueueUrl"}})
	e.must(err, "AddPermission")
	var policy struct {
		Version, Id string
		Statement   []struct {
			Sid, Effect, Resource string
			Principal             struct{ AWS string } // one account: a plain string, as on AWS
			Action                []string
		}
	}
	e.must(json.Unmarshal([]byte(e.attrs(url, "Policy")["Policy"]), &policy), "the Policy attribute is JSON")
	if policy.Version != "2008-10-17" || policy.Id != arn+"/SQSDefaultPolicy" || len(policy.Statement) != 1 {
		e.t.Fatalf("policy after AddPermission: %+v (§3.17)", policy)
	}
	s := policy.Statement[0]
	e.diff([]string{"send", "Allow", arn}, []string{s.Sid, s.Effect, s.Resource}, "the statement's Sid, Effect and Resource")
	e.diff([]string{"SQS:SendMessage", "SQS:GetQueueUrl"}, s.Action, "actions are prefixed SQS:")
	e.diff("arn:aws:iam::111122223333:root", s.Principal.AWS, "one account becomes one root principal, not a list")

	before := e.attrs(url, "Policy")["Policy"]
	_, err = e.api().AddPermission(e.ctx, &sqs.AddPermissionInput{QueueUrl: aws.String(url), Label: aws.String("owner"),
		AWSAccountIds: []string{"111122223333"}, Actions: []string{"SendMessage", "RemovePermission"}})
	e.wantErr(err, invalidParameter("AddPermission", "Value SQS:RemovePermission for parameter ActionName is invalid. "+
		"Reason: Only the queue owner is allowed to invoke this action."), "an owner-only action cannot be granted (Developer Guide, cross-account limitations)")
	e.diff(before, e.attrs(url, "Policy")["Policy"], "a refused AddPermission leaves the Policy as it was")

	_, err = e.api().AddPermission(e.ctx, &sqs.AddPermissionInput{QueueUrl: aws.String(url), Label: aws.String("send"),
		AWSAccountIds: []string{"111122223333"}, Actions: []string{"ReceiveMessage"}})
	e.wantErr(err, invalidParameter("AddPermission", "Value send for parameter Label is invalid. Reason: Already exists."),
		"a duplicate label (§3.17)")
	_, err = e.api().RemovePermission(e.ctx, &sqs.RemovePermissionInput{QueueUrl: aws.String(url), Label: aws.String("nope")})
	e.wantErr(err, invalidParameter("RemovePermission", "Value nope for parameter Label is invalid. Reason: can't find label."),
		"an unknown label (§3.17)")
	_, err = e.api().RemovePermission(e.ctx, &sqs.RemovePermissionInput{QueueUrl: aws.String(url), Label: aws.String("send")})
	e.must(err, "RemovePermission")
	e.diff(map[string]string(nil), e.attrs(url, "Policy"), "removing the last statement removes Policy (§3.17)")
}

func testPurge(e *env) {
	url := e.createQueue("purged", nil)
	e.send(url, "in flight")
	e.receiveOne(url)
	e.send(url, "visible")
	e.sendIn(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("delayed"), DelaySeconds: 60})
	_, err := e.api().PurgeQueue(e.ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)})
	e.must(err, "PurgeQueue")
	e.diff([3]int{}, e.counts(url), "purge removes available, in-flight and delayed messages (§3.7)")
	e.send(url, "after")
	_, err = e.api().PurgeQueue(e.ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)})
	e.wantErr(err, wantErr{op: "PurgeQueue", is: isA[*types.PurgeQueueInProgress], code: "AWS.SimpleQueueService.PurgeQueueInProgress",
		status: 403, msg: "Only one PurgeQueue operation on purged is allowed every 60 seconds."}, "one purge per 60 s (§3.7)")
	e.diff([3]int{1, 0, 0}, e.counts(url), "a send after the purge is kept; a refused purge deletes nothing")
	e.advance(60 * time.Second)
	_, err = e.api().PurgeQueue(e.ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)})
	e.must(err, "PurgeQueue after 60 s")
}
