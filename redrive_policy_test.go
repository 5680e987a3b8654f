package sqsq_test

// Black-box tests of dead-letter queues: setting, reading and removing
// RedrivePolicy and RedriveAllowPolicy (docs/sqs-semantics.md §2.1, §7.1,
// §7.4). The fixture (setupDLQ) and helpers are in redrive_helpers_test.go.

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sqsq/sqsq"
)

func TestRedrivePolicySet(t *testing.T) {
	t.Parallel()
	const want = `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":3}`
	typed := sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
		DeadLetterTargetArn: "arn:aws:sqs:us-east-1:000000000000:dlq", MaxReceiveCount: 3,
	})}
	tests := []struct {
		reason string
		onSet  bool              // SetAttributes after creation instead of CreateQueue
		wire   map[string]string // parsed with ParseQueueAttributes; nil uses typed
	}{
		{reason: "a typed policy works on CreateQueue (§7.1: both Create and Set)"},
		{reason: "a typed policy works on SetAttributes", onSet: true},
		{reason: "the JSON form with a numeric maxReceiveCount works on CreateQueue",
			wire: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":3}`}},
		{reason: "the JSON form with a string maxReceiveCount (as the console sends it) works on CreateQueue",
			wire: map[string]string{"RedrivePolicy": `{"maxReceiveCount":"3","deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq"}`}},
		{reason: "the JSON form with a numeric maxReceiveCount works on SetAttributes", onSet: true,
			wire: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:dlq", "maxReceiveCount": 3}`}},
		{reason: "the JSON form with a string maxReceiveCount works on SetAttributes", onSet: true,
			wire: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":"3"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			dlq := f.queue(t, "dlq", sqsq.QueueAttributes{})
			attrs := typed
			if tt.wire != nil {
				var err error
				if attrs, err = sqsq.ParseQueueAttributes(tt.wire); err != nil {
					t.Fatalf("ParseQueueAttributes: %v\nreason: %s", err, tt.reason)
				}
			}
			var src *sqsq.Queue
			if tt.onSet {
				src = f.queue(t, "src", sqsq.QueueAttributes{})
				if err := src.SetAttributes(f.ctx, attrs); err != nil {
					t.Fatalf("SetAttributes: %v\nreason: %s", err, tt.reason)
				}
			} else {
				src = f.queue(t, "src", attrs)
			}
			got := f.attrs(t, src)[sqsq.AttrRedrivePolicy]
			if got != want {
				t.Errorf("RedrivePolicy = %s, want %s (maxReceiveCount a JSON number, §2.1)\nreason: %s", got, want, tt.reason)
			}
			sub, err := src.GetAttributes(f.ctx, sqsq.AttrRedrivePolicy)
			if err != nil || sub[sqsq.AttrRedrivePolicy] != want || len(sub) != 1 {
				t.Errorf("GetAttributes(RedrivePolicy) = %v, %v; want only the policy", sub, err)
			}
			out, err := dlq.ListDeadLetterSourceQueues(f.ctx, sqsq.ListDeadLetterSourceQueuesInput{})
			if err != nil || !reflect.DeepEqual(out.QueueURLs, []string{src.URL()}) {
				t.Errorf("ListDeadLetterSourceQueues = %v, %v; want [%s]", out.QueueURLs, err, src.URL())
			}
		})
	}
}

func TestRedrivePolicyTypedValueIsCopied(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	dlq := f.queue(t, "dlq", sqsq.QueueAttributes{})
	p := &sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 2}
	src := f.queue(t, "src", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(p)})
	p.MaxReceiveCount = 900
	want := `{"deadLetterTargetArn":"` + dlq.ARN() + `","maxReceiveCount":2}`
	if got := f.attrs(t, src)[sqsq.AttrRedrivePolicy]; got != want {
		t.Errorf("RedrivePolicy = %s, want %s: changing the caller's value later must change nothing", got, want)
	}
}

func TestRedrivePolicyRemove(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		attrs  func(t *testing.T) sqsq.QueueAttributes
	}{
		{"setting \"\" on the wire removes the policy (§2.1)", func(t *testing.T) sqsq.QueueAttributes {
			a, err := sqsq.ParseQueueAttributes(map[string]string{"RedrivePolicy": ""})
			if err != nil {
				t.Fatalf("ParseQueueAttributes: %v", err)
			}
			return a
		}},
		{"Some(nil) removes the policy in the typed API", func(*testing.T) sqsq.QueueAttributes {
			return sqsq.QueueAttributes{RedrivePolicy: sqsq.Some[*sqsq.RedrivePolicy](nil)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setupDLQ(t)
			src, dlq := f.pair(t, "src", "dlq", 1)
			if err := src.SetAttributes(f.ctx, tt.attrs(t)); err != nil {
				t.Fatalf("SetAttributes: %v", err)
			}
			if v, ok := f.attrs(t, src)[sqsq.AttrRedrivePolicy]; ok {
				t.Errorf("All still has RedrivePolicy %s after removal; removed attributes are omitted", v)
			}
			out, err := dlq.ListDeadLetterSourceQueues(f.ctx, sqsq.ListDeadLetterSourceQueuesInput{})
			if err != nil || out.QueueURLs != nil {
				t.Errorf("ListDeadLetterSourceQueues = %v, %v; want no sources", out.QueueURLs, err)
			}
			// Without a policy nothing is dead-lettered: delivered three times.
			f.putBody(t, src, "m")
			for i := 1; i <= 3; i++ {
				if got := f.getBodies(t, src, recvVisZero); !reflect.DeepEqual(got, []string{"m"}) {
					t.Fatalf("receive %d = %v, want [m]: no policy, no move", i, got)
				}
			}
			if s := dlqStats(t, dlq); s.Visible != 0 || s.DeadLettered != 0 {
				t.Errorf("DLQ stats %+v: nothing may be moved without a policy", s)
			}
		})
	}
}

func TestRedrivePolicyCreateQueueIdempotency(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	src, dlq := f.pair(t, "src", "dlq", 4)
	same := sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 4})}
	q, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "src", Attributes: same})
	if err != nil || q != src {
		t.Errorf("CreateQueue with the same policy = %v, %v; want the existing queue", q, err)
	}
	other := sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 5})}
	_, err = f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "src", Attributes: other})
	wantErr(t, err, sqsq.CodeQueueNameExists,
		"A queue already exists with the same name and a different value for attribute RedrivePolicy",
		"a different maxReceiveCount is a different attribute value (§9.1)")
}

func TestRedrivePolicyErrors(t *testing.T) {
	t.Parallel()
	const (
		dlqArn     = "arn:aws:sqs:us-east-1:000000000000:dlq"
		missingArn = "arn:aws:sqs:us-east-1:000000000000:no-such-queue"
	)
	canon := func(arn string, n int) string {
		return `{"deadLetterTargetArn":"` + arn + `","maxReceiveCount":` + strconv.Itoa(n) + `}`
	}
	tests := []struct {
		reason string
		fifo   bool                // the source queue is FIFO
		wire   string              // RedrivePolicy JSON, through ParseQueueAttributes
		typed  *sqsq.RedrivePolicy // or the typed policy
		code   sqsq.Code
		msg    string
	}{
		{
			reason: "maxReceiveCount is mandatory despite the docs' default of 10",
			wire:   `{"deadLetterTargetArn":"` + dlqArn + `"}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{"deadLetterTargetArn":"`+dlqArn+`"}`, "Redrive policy does not contain mandatory attribute: maxReceiveCount."),
		},
		{
			reason: "an empty policy reports maxReceiveCount as the missing key",
			wire:   `{}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{}`, "Redrive policy does not contain mandatory attribute: maxReceiveCount."),
		},
		{
			reason: "deadLetterTargetArn is mandatory",
			wire:   `{"maxReceiveCount":3}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{"maxReceiveCount":3}`, "Redrive policy does not contain mandatory attribute: deadLetterTargetArn."),
		},
		{
			reason: "keys are case-sensitive: MaxReceiveCount counts as missing",
			wire:   `{"deadLetterTargetArn":"` + dlqArn + `","MaxReceiveCount":3}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{"deadLetterTargetArn":"`+dlqArn+`","MaxReceiveCount":3}`, "Redrive policy does not contain mandatory attribute: maxReceiveCount."),
		},
		{
			reason: "keys are case-sensitive: DeadLetterTargetArn counts as missing",
			wire:   `{"DeadLetterTargetArn":"` + dlqArn + `","maxReceiveCount":3}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{"DeadLetterTargetArn":"`+dlqArn+`","maxReceiveCount":3}`, "Redrive policy does not contain mandatory attribute: deadLetterTargetArn."),
		},
		{
			reason: "the dead-letter queue must exist first (wire form)",
			wire:   canon(missingArn, 3),
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(missingArn, 3), "Dead letter target does not exist."),
		},
		{
			reason: "the dead-letter queue must exist first (typed form)",
			typed:  &sqsq.RedrivePolicy{DeadLetterTargetArn: missingArn, MaxReceiveCount: 3},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(missingArn, 3), "Dead letter target does not exist."),
		},
		{
			reason: "a standard source cannot use a FIFO dead-letter queue",
			typed:  &sqsq.RedrivePolicy{DeadLetterTargetArn: "arn:aws:sqs:us-east-1:000000000000:dlq.fifo", MaxReceiveCount: 3},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon("arn:aws:sqs:us-east-1:000000000000:dlq.fifo", 3), "Dead-letter queue must be same type of queue as the source."),
		},
		{
			reason: "a FIFO source cannot use a standard dead-letter queue",
			fifo:   true,
			wire:   canon(dlqArn, 3),
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(dlqArn, 3), "Dead-letter queue must be same type of queue as the source."),
		},
		{
			reason: "maxReceiveCount 0 is below the range 1–1,000 (wire form)",
			wire:   canon(dlqArn, 0),
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(dlqArn, 0), "Invalid value for maxReceiveCount: 0, valid values are from 1 to 1000 both inclusive."),
		},
		{
			reason: "maxReceiveCount 1001 is above the range 1–1,000 (wire form)",
			wire:   canon(dlqArn, 1001),
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(dlqArn, 1001), "Invalid value for maxReceiveCount: 1001, valid values are from 1 to 1000 both inclusive."),
		},
		{
			reason: "maxReceiveCount 0 is below the range (typed form)",
			typed:  &sqsq.RedrivePolicy{DeadLetterTargetArn: dlqArn, MaxReceiveCount: 0},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(dlqArn, 0), "Invalid value for maxReceiveCount: 0, valid values are from 1 to 1000 both inclusive."),
		},
		{
			reason: "maxReceiveCount 1001 is above the range (typed form)",
			typed:  &sqsq.RedrivePolicy{DeadLetterTargetArn: dlqArn, MaxReceiveCount: 1001},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon(dlqArn, 1001), "Invalid value for maxReceiveCount: 1001, valid values are from 1 to 1000 both inclusive."),
		},
		{
			reason: "a dead-letter queue of another account is rejected (§7.1; text of AWS-compatible implementations)",
			typed:  &sqsq.RedrivePolicy{DeadLetterTargetArn: "arn:aws:sqs:us-east-1:111111111111:dlq", MaxReceiveCount: 3},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon("arn:aws:sqs:us-east-1:111111111111:dlq", 3), "Dead-letter target owner should be same as the source."),
		},
		{
			reason: "a dead-letter queue of another region is rejected (§7.1; text of AWS-compatible implementations)",
			wire:   canon("arn:aws:sqs:eu-west-1:000000000000:dlq", 3),
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon("arn:aws:sqs:eu-west-1:000000000000:dlq", 3), "Dead-letter target must be in same region as the source."),
		},
		{
			reason: "a denyAll dead-letter queue accepts no source (§7.4)",
			typed:  &sqsq.RedrivePolicy{DeadLetterTargetArn: "arn:aws:sqs:us-east-1:000000000000:deny-dlq", MaxReceiveCount: 3},
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon("arn:aws:sqs:us-east-1:000000000000:deny-dlq", 3), "Dead-letter target does not allow this queue as a source."),
		},
		{
			reason: "a byQueue dead-letter queue accepts only the sources it lists (§7.4)",
			wire:   canon("arn:aws:sqs:us-east-1:000000000000:byqueue-dlq", 3),
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(canon("arn:aws:sqs:us-east-1:000000000000:byqueue-dlq", 3), "Dead-letter target does not allow this queue as a source."),
		},
		{
			reason: "the error quotes the policy JSON as sent, key order and string count included (§2.1)",
			wire:   `{"maxReceiveCount":"3","deadLetterTargetArn":"` + missingArn + `"}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{"maxReceiveCount":"3","deadLetterTargetArn":"`+missingArn+`"}`, "Dead letter target does not exist."),
		},
		{
			reason: "a range error quotes the policy JSON as sent, string count included (§2.1)",
			wire:   `{"deadLetterTargetArn":"` + dlqArn + `","maxReceiveCount":"0"}`,
			code:   sqsq.CodeInvalidParameterValue,
			msg:    invalidRedrive(`{"deadLetterTargetArn":"`+dlqArn+`","maxReceiveCount":"0"}`, "Invalid value for maxReceiveCount: 0, valid values are from 1 to 1000 both inclusive."),
		},
	}
	for _, tt := range tests {
		for _, op := range []string{"CreateQueue", "SetAttributes"} {
			t.Run(op+"/"+tt.reason, func(t *testing.T) {
				t.Parallel()
				f := setupDLQ(t)
				dlqs := []*sqsq.Queue{
					f.queue(t, "dlq", sqsq.QueueAttributes{}),
					f.queue(t, "dlq.fifo", sqsq.QueueAttributes{}),
					f.queue(t, "deny-dlq", sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{
						RedrivePermission: sqsq.RedriveDenyAll,
					})}),
					f.queue(t, "byqueue-dlq", sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{
						RedrivePermission: sqsq.RedriveByQueue,
						SourceQueueArns:   []string{f.arn("someone-else"), f.arn("someone-else.fifo")},
					})}),
				}
				name := "src"
				if tt.fifo {
					name = "src.fifo"
				}
				// The error may come from parsing the wire form already.
				apply := func(attrs func(sqsq.QueueAttributes) error) error {
					if tt.typed != nil {
						return attrs(sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(tt.typed)})
					}
					a, err := sqsq.ParseQueueAttributes(map[string]string{"RedrivePolicy": tt.wire})
					if err != nil {
						return err
					}
					return attrs(a)
				}
				if op == "SetAttributes" {
					src := f.queue(t, name, sqsq.QueueAttributes{})
					f.put(t, src, sqsq.SendInput{MessageBody: "kept", MessageGroupId: groupIf(tt.fifo), MessageDeduplicationId: groupIf(tt.fifo)})
					qs := append([]*sqsq.Queue{src}, dlqs...)
					before := f.snapshot(t, qs...)
					err := apply(func(a sqsq.QueueAttributes) error { return src.SetAttributes(f.ctx, a) })
					wantErr(t, err, tt.code, tt.msg, tt.reason)
					f.unchanged(t, before, tt.reason, qs...)
				} else {
					before := f.snapshot(t, dlqs...)
					err := apply(func(a sqsq.QueueAttributes) error {
						if tt.fifo {
							a.FifoQueue = sqsq.Some(true)
						}
						_, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: name, Attributes: a})
						return err
					})
					wantErr(t, err, tt.code, tt.msg, tt.reason)
					f.unchanged(t, before, tt.reason, dlqs...)
					_, err = f.b.GetQueue(f.ctx, name)
					wantErr(t, err, sqsq.CodeQueueDoesNotExist, "", "a failed CreateQueue creates nothing")
				}
				for _, dlq := range dlqs {
					out, err := dlq.ListDeadLetterSourceQueues(f.ctx, sqsq.ListDeadLetterSourceQueuesInput{})
					if err != nil || out.QueueURLs != nil {
						t.Errorf("%s sources = %v, %v; a rejected policy is not stored", dlq.Name(), out.QueueURLs, err)
					}
				}
			})
		}
	}
}

func TestRedriveAllowPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		allow  *sqsq.RedriveAllowPolicy // on the DLQ; nil: none
		wire   string                   // or the JSON form
		want   string                   // RedriveAllowPolicy as GetAttributes returns it
		ok     bool                     // the source "src" may use the DLQ
	}{
		{reason: "without an allow policy every queue of the account may use the DLQ", ok: true},
		{reason: "allowAll lets any source in", allow: &sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveAllowAll},
			want: `{"redrivePermission":"allowAll"}`, ok: true},
		{reason: "denyAll keeps every source out", wire: `{"redrivePermission":"denyAll"}`,
			want: `{"redrivePermission":"denyAll"}`},
		{reason: "byQueue lets a listed source in",
			allow: &sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveByQueue, SourceQueueArns: []string{
				"arn:aws:sqs:us-east-1:000000000000:other", "arn:aws:sqs:us-east-1:000000000000:src"}},
			want: `{"redrivePermission":"byQueue","sourceQueueArns":["arn:aws:sqs:us-east-1:000000000000:other","arn:aws:sqs:us-east-1:000000000000:src"]}`,
			ok:   true},
		{reason: "byQueue keeps out a source it does not list",
			wire: `{"redrivePermission":"byQueue","sourceQueueArns":["arn:aws:sqs:us-east-1:000000000000:other"]}`,
			want: `{"redrivePermission":"byQueue","sourceQueueArns":["arn:aws:sqs:us-east-1:000000000000:other"]}`},
		{reason: "byQueue accepts 10 ARNs, the maximum",
			allow: &sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveByQueue, SourceQueueArns: tenArns("arn:aws:sqs:us-east-1:000000000000:src")},
			want:  `{"redrivePermission":"byQueue","sourceQueueArns":["` + strings.Join(tenArns("arn:aws:sqs:us-east-1:000000000000:src"), `","`) + `"]}`,
			ok:    true},
	}
	for _, tt := range tests {
		for _, op := range []string{"CreateQueue", "SetAttributes"} {
			t.Run(op+"/"+tt.reason, func(t *testing.T) {
				t.Parallel()
				f := setupDLQ(t)
				var a sqsq.QueueAttributes
				if tt.allow != nil {
					a.RedriveAllowPolicy = sqsq.Some(tt.allow)
				}
				if tt.wire != "" {
					var err error
					if a, err = sqsq.ParseQueueAttributes(map[string]string{"RedriveAllowPolicy": tt.wire}); err != nil {
						t.Fatalf("ParseQueueAttributes: %v", err)
					}
				}
				dlq := f.queue(t, "dlq", a)
				got, has := f.attrs(t, dlq)[sqsq.AttrRedriveAllowPolicy]
				if got != tt.want || has != (tt.want != "") {
					t.Errorf("RedriveAllowPolicy = %q (present %v), want %q", got, has, tt.want)
				}
				policy := sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 2})}
				var err error
				if op == "CreateQueue" {
					_, err = f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "src", Attributes: policy})
				} else {
					src := f.queue(t, "src", sqsq.QueueAttributes{})
					before := f.snapshot(t, src, dlq)
					err = src.SetAttributes(f.ctx, policy)
					if !tt.ok {
						f.unchanged(t, before, tt.reason, src, dlq)
					}
				}
				if tt.ok {
					wantErr(t, err, "", "", tt.reason)
				} else {
					wantErr(t, err, sqsq.CodeInvalidParameterValue,
						invalidRedrive(`{"deadLetterTargetArn":"`+dlq.ARN()+`","maxReceiveCount":2}`, "Dead-letter target does not allow this queue as a source."),
						tt.reason)
				}
			})
		}
	}
}

// groupIf is a group (and deduplication) id for a FIFO send, "" otherwise.
func groupIf(fifo bool) string {
	if fifo {
		return "g"
	}
	return ""
}

// tenArns is 10 distinct queue ARNs, the last one last.
func tenArns(last string) []string {
	var arns []string
	for i := 0; i < 9; i++ {
		arns = append(arns, "arn:aws:sqs:us-east-1:000000000000:q"+strconv.Itoa(i))
	}
	return append(arns, last)
}

func TestRedriveAllowPolicyErrors(t *testing.T) {
	t.Parallel()
	eleven := append(tenArns("arn:aws:sqs:us-east-1:000000000000:q9"), "arn:aws:sqs:us-east-1:000000000000:q10")
	tests := []struct {
		reason string
		wire   string                   // through ParseQueueAttributes
		typed  *sqsq.RedriveAllowPolicy // or typed
	}{
		{reason: "sourceQueueArns only go with byQueue, not allowAll (§7.4)",
			wire: `{"redrivePermission":"allowAll","sourceQueueArns":["arn:aws:sqs:us-east-1:000000000000:src"]}`},
		{reason: "sourceQueueArns only go with byQueue, not denyAll (typed)",
			typed: &sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveDenyAll, SourceQueueArns: []string{"arn:aws:sqs:us-east-1:000000000000:src"}}},
		{reason: "sourceQueueArns with allowAll (typed)",
			typed: &sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveAllowAll, SourceQueueArns: []string{"arn:aws:sqs:us-east-1:000000000000:src"}}},
		{reason: "byQueue takes at most 10 ARNs; use allowAll for more (§7.4)",
			typed: &sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveByQueue, SourceQueueArns: eleven}},
		{reason: "11 ARNs are too many on the wire too",
			wire: `{"redrivePermission":"byQueue","sourceQueueArns":["` + strings.Join(eleven, `","`) + `"]}`},
		{reason: "an unknown permission is invalid", wire: `{"redrivePermission":"allowSome"}`},
		{reason: "redrivePermission is mandatory", wire: `{"sourceQueueArns":[]}`},
	}
	for _, tt := range tests {
		for _, op := range []string{"CreateQueue", "SetAttributes"} {
			t.Run(op+"/"+tt.reason, func(t *testing.T) {
				t.Parallel()
				f := setupDLQ(t)
				apply := func(do func(sqsq.QueueAttributes) error) error {
					if tt.typed != nil {
						return do(sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(tt.typed)})
					}
					a, err := sqsq.ParseQueueAttributes(map[string]string{"RedriveAllowPolicy": tt.wire})
					if err != nil {
						return err
					}
					return do(a)
				}
				if op == "CreateQueue" {
					err := apply(func(a sqsq.QueueAttributes) error {
						_, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "dlq", Attributes: a})
						return err
					})
					wantErr(t, err, sqsq.CodeInvalidParameterValue, "", tt.reason)
					_, err = f.b.GetQueue(f.ctx, "dlq")
					wantErr(t, err, sqsq.CodeQueueDoesNotExist, "", "a failed CreateQueue creates nothing")
					return
				}
				dlq := f.queue(t, "dlq", sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveDenyAll})})
				before := f.snapshot(t, dlq)
				err := apply(func(a sqsq.QueueAttributes) error { return dlq.SetAttributes(f.ctx, a) })
				wantErr(t, err, sqsq.CodeInvalidParameterValue, "", tt.reason)
				f.unchanged(t, before, tt.reason, dlq)
			})
		}
	}
}

func TestRedriveAllowPolicyRemove(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	dlq := f.queue(t, "dlq", sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveDenyAll})})
	a, err := sqsq.ParseQueueAttributes(map[string]string{"RedriveAllowPolicy": ""})
	if err != nil {
		t.Fatalf("ParseQueueAttributes: %v", err)
	}
	if err := dlq.SetAttributes(f.ctx, a); err != nil {
		t.Fatalf("SetAttributes: %v", err)
	}
	if v, ok := f.attrs(t, dlq)[sqsq.AttrRedriveAllowPolicy]; ok {
		t.Errorf("All still has RedriveAllowPolicy %s after removal", v)
	}
	f.queue(t, "src", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})})
}
