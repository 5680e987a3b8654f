package sqsq_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

func TestDefaultAttributes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	created := strconv.FormatInt(epoch.Unix(), 10)
	want := map[string]string{
		"ApproximateNumberOfMessages":           "0",
		"ApproximateNumberOfMessagesDelayed":    "0",
		"ApproximateNumberOfMessagesNotVisible": "0",
		"CreatedTimestamp":                      created,
		"DelaySeconds":                          "0",
		"LastModifiedTimestamp":                 created,
		"MaximumMessageSize":                    "1048576",
		"MessageRetentionPeriod":                "345600",
		"QueueArn":                              "arn:aws:sqs:us-east-1:000000000000:test-queue",
		"ReceiveMessageWaitTimeSeconds":         "0",
		"SqsManagedSseEnabled":                  "true",
		"VisibilityTimeout":                     "30",
	}
	if d := diff(want, f.allAttrs(t, f.q)); d != "" {
		t.Errorf("GetAttributes(All) of a fresh standard queue (§2.3):\n%s", d)
	}
}

func TestGetAttributes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "visible")
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "delayed", DelaySeconds: sqsq.Some(time.Minute)})
	f.send(t, f.q, "in flight")
	f.receiveOne(t, f.q, sqsq.ReceiveInput{})
	tests := []struct {
		reason string
		names  []string
		want   map[string]string
		code   sqsq.Code
		msg    string
	}{
		{"no names give an empty result", nil, map[string]string{}, "", ""},
		{"a subset returns only those names", []string{"VisibilityTimeout", "DelaySeconds"},
			map[string]string{"VisibilityTimeout": "30", "DelaySeconds": "0"}, "", ""},
		{"the counters are exact", []string{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"},
			map[string]string{"ApproximateNumberOfMessages": "1", "ApproximateNumberOfMessagesNotVisible": "1", "ApproximateNumberOfMessagesDelayed": "1"}, "", ""},
		{"an unset optional attribute is omitted, not an error", []string{"Policy", "KmsMasterKeyId", "VisibilityTimeout"},
			map[string]string{"VisibilityTimeout": "30"}, "", ""},
		{"an unknown name is InvalidAttributeName", []string{"VisibilityTimeout", "Bogus"}, nil,
			sqsq.CodeInvalidAttributeName, "Unknown Attribute Bogus."},
		{"attribute names are case-sensitive", []string{"visibilityTimeout"}, nil,
			sqsq.CodeInvalidAttributeName, "Unknown Attribute visibilityTimeout."},
		{"FifoQueue is not an attribute of a standard queue", []string{"FifoQueue"}, nil,
			sqsq.CodeInvalidAttributeName, "Unknown Attribute FifoQueue."},
	}
	for _, tt := range tests {
		got, err := f.q.GetAttributes(f.ctx, tt.names...)
		wantErr(t, err, tt.code, tt.msg, tt.reason)
		if tt.code != "" {
			continue
		}
		if len(tt.want) == 0 && len(got) == 0 {
			continue
		}
		if d := diff(tt.want, got); d != "" {
			t.Errorf("GetAttributes(%v):\n%s\nreason: %s", tt.names, d, tt.reason)
		}
	}
}

func TestParseQueueAttributes(t *testing.T) {
	t.Parallel()
	sec := func(n int) sqsq.Optional[time.Duration] { return sqsq.Some(time.Duration(n) * time.Second) }
	invalid := func(name string) string { return "Invalid value for the parameter " + name + "." }
	unknown := func(name string) string { return "Unknown Attribute " + name + "." }
	tests := []struct {
		reason string
		in     map[string]string
		want   sqsq.QueueAttributes
		code   sqsq.Code
		msg    string
	}{
		{"an empty map sets nothing", map[string]string{}, sqsq.QueueAttributes{}, "", ""},

		{"VisibilityTimeout -1 is below 0", map[string]string{"VisibilityTimeout": "-1"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("VisibilityTimeout")},
		{"VisibilityTimeout 0 is the minimum", map[string]string{"VisibilityTimeout": "0"}, sqsq.QueueAttributes{VisibilityTimeout: sec(0)}, "", ""},
		{"VisibilityTimeout 43200 (12 h) is the maximum", map[string]string{"VisibilityTimeout": "43200"}, sqsq.QueueAttributes{VisibilityTimeout: sec(43200)}, "", ""},
		{"VisibilityTimeout 43201 is above 12 h", map[string]string{"VisibilityTimeout": "43201"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("VisibilityTimeout")},
		{"VisibilityTimeout abc is not a number", map[string]string{"VisibilityTimeout": "abc"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("VisibilityTimeout")},
		{"VisibilityTimeout empty is not a number", map[string]string{"VisibilityTimeout": ""}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("VisibilityTimeout")},
		{"VisibilityTimeout 1.5 is not whole seconds", map[string]string{"VisibilityTimeout": "1.5"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("VisibilityTimeout")},
		{"a number too large for any integer is out of range", map[string]string{"VisibilityTimeout": "99999999999999999999999"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("VisibilityTimeout")},
		{"a number too large for a Duration in seconds is out of range", map[string]string{"VisibilityTimeout": "9223372036854775807"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("VisibilityTimeout")},

		{"DelaySeconds -1 is below 0", map[string]string{"DelaySeconds": "-1"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("DelaySeconds")},
		{"DelaySeconds 0 is the minimum", map[string]string{"DelaySeconds": "0"}, sqsq.QueueAttributes{DelaySeconds: sec(0)}, "", ""},
		{"DelaySeconds 900 is the maximum", map[string]string{"DelaySeconds": "900"}, sqsq.QueueAttributes{DelaySeconds: sec(900)}, "", ""},
		{"DelaySeconds 901 is above 15 min", map[string]string{"DelaySeconds": "901"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("DelaySeconds")},

		{"MessageRetentionPeriod 59 is below 1 min", map[string]string{"MessageRetentionPeriod": "59"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("MessageRetentionPeriod")},
		{"MessageRetentionPeriod 60 is the minimum", map[string]string{"MessageRetentionPeriod": "60"}, sqsq.QueueAttributes{MessageRetentionPeriod: sec(60)}, "", ""},
		{"MessageRetentionPeriod 1209600 (14 days) is the maximum", map[string]string{"MessageRetentionPeriod": "1209600"}, sqsq.QueueAttributes{MessageRetentionPeriod: sec(1209600)}, "", ""},
		{"MessageRetentionPeriod 1209601 is above 14 days", map[string]string{"MessageRetentionPeriod": "1209601"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("MessageRetentionPeriod")},

		{"MaximumMessageSize 1023 is below 1 KiB", map[string]string{"MaximumMessageSize": "1023"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("MaximumMessageSize")},
		{"MaximumMessageSize 1024 is the minimum", map[string]string{"MaximumMessageSize": "1024"}, sqsq.QueueAttributes{MaximumMessageSize: sqsq.Some(1024)}, "", ""},
		{"MaximumMessageSize 1048576 is the maximum", map[string]string{"MaximumMessageSize": "1048576"}, sqsq.QueueAttributes{MaximumMessageSize: sqsq.Some(1048576)}, "", ""},
		{"MaximumMessageSize 1048577 is above 1 MiB", map[string]string{"MaximumMessageSize": "1048577"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("MaximumMessageSize")},
		{"MaximumMessageSize big is not a number", map[string]string{"MaximumMessageSize": "big"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("MaximumMessageSize")},

		{"ReceiveMessageWaitTimeSeconds -1 is below 0", map[string]string{"ReceiveMessageWaitTimeSeconds": "-1"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("ReceiveMessageWaitTimeSeconds")},
		{"ReceiveMessageWaitTimeSeconds 20 is the maximum", map[string]string{"ReceiveMessageWaitTimeSeconds": "20"}, sqsq.QueueAttributes{ReceiveMessageWaitTimeSeconds: sec(20)}, "", ""},
		{"ReceiveMessageWaitTimeSeconds 21 is above 20", map[string]string{"ReceiveMessageWaitTimeSeconds": "21"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("ReceiveMessageWaitTimeSeconds")},

		{"KmsDataKeyReusePeriodSeconds 59 is below 1 min", map[string]string{"KmsDataKeyReusePeriodSeconds": "59"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("KmsDataKeyReusePeriodSeconds")},
		{"KmsDataKeyReusePeriodSeconds 86400 is the maximum", map[string]string{"KmsDataKeyReusePeriodSeconds": "86400"}, sqsq.QueueAttributes{KmsDataKeyReusePeriodSeconds: sec(86400)}, "", ""},
		{"KmsDataKeyReusePeriodSeconds 86401 is above 24 h", map[string]string{"KmsDataKeyReusePeriodSeconds": "86401"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("KmsDataKeyReusePeriodSeconds")},

		{"Policy is kept verbatim", map[string]string{"Policy": `{"Version":"2012-10-17"}`}, sqsq.QueueAttributes{Policy: sqsq.Some(`{"Version":"2012-10-17"}`)}, "", ""},
		{"an empty Policy removes it", map[string]string{"Policy": ""}, sqsq.QueueAttributes{Policy: sqsq.Some("")}, "", ""},
		{"True is accepted for a boolean", map[string]string{"SqsManagedSseEnabled": "True"}, sqsq.QueueAttributes{SqsManagedSseEnabled: sqsq.Some(true)}, "", ""},
		{"false is a boolean", map[string]string{"SqsManagedSseEnabled": "false"}, sqsq.QueueAttributes{SqsManagedSseEnabled: sqsq.Some(false)}, "", ""},
		{"yes is not a boolean", map[string]string{"SqsManagedSseEnabled": "yes"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("SqsManagedSseEnabled")},
		{"FifoQueue parses (CreateQueue decides where it is allowed)", map[string]string{"FifoQueue": "true"}, sqsq.QueueAttributes{FifoQueue: sqsq.Some(true)}, "", ""},
		{"SSE-KMS and SSE-SQS together are refused",
			map[string]string{"KmsMasterKeyId": "alias/aws/sqs", "SqsManagedSseEnabled": "true"}, sqsq.QueueAttributes{},
			sqsq.CodeInvalidAttributeName, "You can use one type of server-side encryption (SSE) at one time. You can either enable KMS SSE or SQS SSE."},
		{"several attributes parse together",
			map[string]string{"VisibilityTimeout": "60", "DelaySeconds": "5", "MaximumMessageSize": "2048"},
			sqsq.QueueAttributes{VisibilityTimeout: sec(60), DelaySeconds: sec(5), MaximumMessageSize: sqsq.Some(2048)}, "", ""},

		{"an unknown name is InvalidAttributeName", map[string]string{"Bogus": "1"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeName, unknown("Bogus")},
		{"names are case-sensitive", map[string]string{"visibilitytimeout": "30"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeName, unknown("visibilitytimeout")},
		{"All is not settable", map[string]string{"All": "1"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeName, unknown("All")},
		{"ApproximateNumberOfMessages is read-only", map[string]string{"ApproximateNumberOfMessages": "0"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeName, unknown("ApproximateNumberOfMessages")},
		{"ApproximateNumberOfMessagesNotVisible is read-only", map[string]string{"ApproximateNumberOfMessagesNotVisible": "0"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeName, unknown("ApproximateNumberOfMessagesNotVisible")},
		{"ApproximateNumberOfMessagesDelayed is read-only", map[string]string{"ApproximateNumberOfMessagesDelayed": "0"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeName, unknown("ApproximateNumberOfMessagesDelayed")},
		{"CreatedTimestamp is read-only", map[string]string{"CreatedTimestamp": "0"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeName, unknown("CreatedTimestamp")},
		{"LastModifiedTimestamp is read-only", map[string]string{"LastModifiedTimestamp": "0"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeName, unknown("LastModifiedTimestamp")},
		{"QueueArn is read-only", map[string]string{"QueueArn": "arn:aws:sqs:us-east-1:000000000000:x"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeName, unknown("QueueArn")},
		{"the first bad name in sorted order is reported",
			map[string]string{"VisibilityTimeout": "-5", "DelaySeconds": "-5"}, sqsq.QueueAttributes{}, sqsq.CodeInvalidAttributeValue, invalid("DelaySeconds")},
	}
	for _, tt := range tests {
		got, err := sqsq.ParseQueueAttributes(tt.in)
		wantErr(t, err, tt.code, tt.msg, tt.reason)
		if d := diff(tt.want, got); d != "" {
			t.Errorf("ParseQueueAttributes(%v):\n%s\nreason: %s", tt.in, d, tt.reason)
		}
	}
}

func TestSetAttributes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.clk.Add(90 * time.Second)
	attrs, err := sqsq.ParseQueueAttributes(map[string]string{
		"VisibilityTimeout":             "120",
		"DelaySeconds":                  "15",
		"MaximumMessageSize":            "4096",
		"MessageRetentionPeriod":        "86400",
		"ReceiveMessageWaitTimeSeconds": "20",
		"SqsManagedSseEnabled":          "False",
	})
	if err != nil {
		t.Fatal(err)
	}
	f.set(t, attrs)
	want := map[string]string{
		"ApproximateNumberOfMessages":           "0",
		"ApproximateNumberOfMessagesDelayed":    "0",
		"ApproximateNumberOfMessagesNotVisible": "0",
		"CreatedTimestamp":                      strconv.FormatInt(epoch.Unix(), 10),
		"DelaySeconds":                          "15",
		"LastModifiedTimestamp":                 strconv.FormatInt(epoch.Unix()+90, 10),
		"MaximumMessageSize":                    "4096",
		"MessageRetentionPeriod":                "86400",
		"QueueArn":                              "arn:aws:sqs:us-east-1:000000000000:test-queue",
		"ReceiveMessageWaitTimeSeconds":         "20",
		"SqsManagedSseEnabled":                  "false",
		"VisibilityTimeout":                     "120",
	}
	if d := diff(want, f.allAttrs(t, f.q)); d != "" {
		t.Errorf("after SetAttributes 90 s after creation (booleans read back lower-case, §2; LastModifiedTimestamp moves, §2.2):\n%s", d)
	}

	// Unset fields keep their current values.
	f.clk.Add(10 * time.Second)
	f.set(t, sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(45 * time.Second)})
	want["VisibilityTimeout"] = "45"
	want["LastModifiedTimestamp"] = strconv.FormatInt(epoch.Unix()+100, 10)
	if d := diff(want, f.allAttrs(t, f.q)); d != "" {
		t.Errorf("a second SetAttributes changes only what it sets:\n%s", d)
	}

	// True reads back as true.
	attrs, err = sqsq.ParseQueueAttributes(map[string]string{"SqsManagedSseEnabled": "True"})
	if err != nil {
		t.Fatal(err)
	}
	f.set(t, attrs)
	got, err := f.q.GetAttributes(f.ctx, "SqsManagedSseEnabled")
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(map[string]string{"SqsManagedSseEnabled": "true"}, got); d != "" {
		t.Errorf(`"True" is accepted and returned as "true" (§2):`+"\n%s", d)
	}
}

func TestTagsDoNotTouchLastModified(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.clk.Add(time.Minute)
	if err := f.q.Tag(f.ctx, map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	got, err := f.q.GetAttributes(f.ctx, "LastModifiedTimestamp")
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(map[string]string{"LastModifiedTimestamp": strconv.FormatInt(epoch.Unix(), 10)}, got); d != "" {
		t.Errorf("tagging changed LastModifiedTimestamp (sqsq: no, §2.2):\n%s", d)
	}
}

func TestPolicyAttribute(t *testing.T) {
	t.Parallel()
	f := setup(t)
	const policy = `{"Version":"2012-10-17","Statement":[]}`
	f.set(t, sqsq.QueueAttributes{Policy: sqsq.Some(policy)})
	if got := f.allAttrs(t, f.q)["Policy"]; got != policy {
		t.Errorf("Policy after setting it = %q, want %q", got, policy)
	}
	got, err := f.q.GetAttributes(f.ctx, "Policy")
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(map[string]string{"Policy": policy}, got); d != "" {
		t.Errorf("GetAttributes(Policy):\n%s", d)
	}
	f.set(t, sqsq.QueueAttributes{Policy: sqsq.Some("")})
	if v, ok := f.allAttrs(t, f.q)["Policy"]; ok {
		t.Errorf(`Policy after setting "" = %q, want it omitted from All (§2.1)`, v)
	}
}

func TestPolicyAtCreation(t *testing.T) {
	t.Parallel()
	f := setup(t)
	q := f.create(t, "with-policy", sqsq.QueueAttributes{Policy: sqsq.Some(`{}`)})
	if got := f.allAttrs(t, q)["Policy"]; got != `{}` {
		t.Errorf("Policy given at creation = %q, want {}", got)
	}
}

func TestKmsAttributes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, sqsq.QueueAttributes{KmsMasterKeyId: sqsq.Some("alias/aws/sqs")})
	got, err := f.q.GetAttributes(f.ctx, "KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds", "SqsManagedSseEnabled")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"KmsMasterKeyId": "alias/aws/sqs", "KmsDataKeyReusePeriodSeconds": "300", "SqsManagedSseEnabled": "false"}
	if d := diff(want, got); d != "" {
		t.Errorf("with SSE-KMS configured the reuse period appears and SSE-SQS reads false (§2.1):\n%s", d)
	}
}

func TestSetAttributesErrorsChangeNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		attrs  sqsq.QueueAttributes
		code   sqsq.Code
		msg    string
	}{
		{"VisibilityTimeout -1 s", sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(-time.Second)},
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter VisibilityTimeout."},
		{"VisibilityTimeout 43201 s", sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(43201 * time.Second)},
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter VisibilityTimeout."},
		{"VisibilityTimeout 1.5 s is not whole seconds", sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(1500 * time.Millisecond)},
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter VisibilityTimeout."},
		{"DelaySeconds 901 s", sqsq.QueueAttributes{DelaySeconds: sqsq.Some(901 * time.Second)},
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter DelaySeconds."},
		{"MessageRetentionPeriod 59 s", sqsq.QueueAttributes{MessageRetentionPeriod: sqsq.Some(59 * time.Second)},
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter MessageRetentionPeriod."},
		{"MessageRetentionPeriod 1209601 s", sqsq.QueueAttributes{MessageRetentionPeriod: sqsq.Some(1209601 * time.Second)},
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter MessageRetentionPeriod."},
		{"MaximumMessageSize 1023", sqsq.QueueAttributes{MaximumMessageSize: sqsq.Some(1023)},
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter MaximumMessageSize."},
		{"MaximumMessageSize 1048577", sqsq.QueueAttributes{MaximumMessageSize: sqsq.Some(1048577)},
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter MaximumMessageSize."},
		{"ReceiveMessageWaitTimeSeconds 21 s", sqsq.QueueAttributes{ReceiveMessageWaitTimeSeconds: sqsq.Some(21 * time.Second)},
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter ReceiveMessageWaitTimeSeconds."},
		{"a valid attribute next to an invalid one is not applied either (atomic, §3.6)",
			sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(99 * time.Second), DelaySeconds: sqsq.Some(901 * time.Second)},
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter DelaySeconds."},
		{"FifoQueue true on a standard queue", sqsq.QueueAttributes{FifoQueue: sqsq.Some(true)},
			sqsq.CodeInvalidAttributeName, "Unknown Attribute FifoQueue."},
		{"FifoQueue false on a standard queue, even with a valid attribute beside it",
			sqsq.QueueAttributes{FifoQueue: sqsq.Some(false), VisibilityTimeout: sqsq.Some(99 * time.Second)},
			sqsq.CodeInvalidAttributeName, "Unknown Attribute FifoQueue."},
		{"SSE-KMS and SSE-SQS at once",
			sqsq.QueueAttributes{KmsMasterKeyId: sqsq.Some("alias/k"), SqsManagedSseEnabled: sqsq.Some(true)},
			sqsq.CodeInvalidAttributeName, "You can use one type of server-side encryption (SSE) at one time. You can either enable KMS SSE or SQS SSE."},
		{"a Policy above 8,192 bytes: AWS's answer in aws/aws-sdk-net#378", sqsq.QueueAttributes{Policy: sqsq.Some(strings.Repeat(" ", 8193))},
			sqsq.CodeOverLimit, "Submitted policy is over max allowed size."},
		{"a Policy that is not JSON (terraform-provider-aws#42209)", sqsq.QueueAttributes{Policy: sqsq.Some("{not json")},
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter Policy."},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			f.send(t, f.q, "m")
			f.clk.Add(time.Minute) // a wrongly updated LastModifiedTimestamp would show
			before, beforeStats := f.allAttrs(t, f.q), stats(t, f.q)
			wantErr(t, f.q.SetAttributes(f.ctx, tt.attrs), tt.code, tt.msg, tt.reason)
			if d := diff(before, f.allAttrs(t, f.q)); d != "" {
				t.Errorf("a failed SetAttributes changed the attributes:\n%s\nreason: %s", d, tt.reason)
			}
			if d := diff(beforeStats, stats(t, f.q)); d != "" {
				t.Errorf("a failed SetAttributes changed the queue:\n%s\nreason: %s", d, tt.reason)
			}
		})
	}
}

func TestCreateQueueAttributeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		attrs  sqsq.QueueAttributes
		code   sqsq.Code
		msg    string
	}{
		{"VisibilityTimeout 43201 s", sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(43201 * time.Second)},
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter VisibilityTimeout."},
		{"MaximumMessageSize 1023", sqsq.QueueAttributes{MaximumMessageSize: sqsq.Some(1023)},
			sqsq.CodeInvalidAttributeValue, "Invalid value for the parameter MaximumMessageSize."},
		{"FifoQueue false on a standard queue", sqsq.QueueAttributes{FifoQueue: sqsq.Some(false)},
			sqsq.CodeInvalidAttributeName, "Unknown Attribute FifoQueue."},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			_, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "bad", Attributes: tt.attrs})
			wantErr(t, err, tt.code, tt.msg, tt.reason)
			wantErr(t, func() error { _, err := f.b.GetQueue(f.ctx, "bad"); return err }(),
				sqsq.CodeQueueDoesNotExist, "", "a failed CreateQueue creates nothing: "+tt.reason)
		})
	}
}

func TestCreateQueueWithAttributes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	q := f.create(t, "custom", sqsq.QueueAttributes{
		VisibilityTimeout:             sqsq.Some(0 * time.Second),
		DelaySeconds:                  sqsq.Some(900 * time.Second),
		MaximumMessageSize:            sqsq.Some(1024),
		MessageRetentionPeriod:        sqsq.Some(60 * time.Second),
		ReceiveMessageWaitTimeSeconds: sqsq.Some(20 * time.Second),
	})
	got, err := q.GetAttributes(f.ctx, "VisibilityTimeout", "DelaySeconds", "MaximumMessageSize",
		"MessageRetentionPeriod", "ReceiveMessageWaitTimeSeconds")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"VisibilityTimeout": "0", "DelaySeconds": "900", "MaximumMessageSize": "1024",
		"MessageRetentionPeriod": "60", "ReceiveMessageWaitTimeSeconds": "20"}
	if d := diff(want, got); d != "" {
		t.Errorf("boundary values given at creation:\n%s", d)
	}
}

func TestServerSideEncryptionKindsAreExclusive(t *testing.T) {
	t.Parallel()
	// §2.1: SSE-KMS and SSE-SQS are mutually exclusive; with a KmsMasterKeyId
	// set, SqsManagedSseEnabled reads false [OBS].
	bothOn := func(m map[string]string) bool {
		return m["KmsMasterKeyId"] != "" && m["SqsManagedSseEnabled"] == "true"
	}
	t.Run("setting a KMS key turns SSE-SQS off", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		f.set(t, sqsq.QueueAttributes{KmsMasterKeyId: sqsq.Some("alias/k")})
		if m := f.allAttrs(t, f.q); bothOn(m) {
			t.Errorf("both SSE kinds on: %v", m)
		}
	})
	t.Run("enabling SSE-SQS on a queue with a KMS key never leaves both on", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		f.set(t, sqsq.QueueAttributes{KmsMasterKeyId: sqsq.Some("alias/k")})
		before := f.allAttrs(t, f.q)
		err := f.q.SetAttributes(f.ctx, sqsq.QueueAttributes{SqsManagedSseEnabled: sqsq.Some(true)})
		after := f.allAttrs(t, f.q)
		if bothOn(after) {
			t.Errorf("SetAttributes(SqsManagedSseEnabled=true) on a KMS queue: err %v, attributes %v; want an "+
				"InvalidAttributeName error or SSE-KMS switched off, never both on", err, after)
		}
		if err != nil {
			wantErr(t, err, sqsq.CodeInvalidAttributeName, "", "the exclusivity error of §2.1")
			if d := diff(before, after); d != "" {
				t.Errorf("a failed SetAttributes changed the attributes:\n%s", d)
			}
		}
	})
}
