package sqsq_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

func TestPurge(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "in flight")
	inflight := f.receiveOne(t, f.q, sqsq.ReceiveInput{}).ReceiptHandle
	f.send(t, f.q, "available")
	f.sendInput(t, f.q, sqsq.SendInput{MessageBody: "delayed", DelaySeconds: sqsq.Some(time.Minute)})
	if err := f.q.Purge(f.ctx); err != nil {
		t.Fatal(err)
	}
	s := stats(t, f.q)
	got := []int64{int64(s.Visible), int64(s.InFlight), int64(s.Delayed), s.Purged}
	if d := diff([]int64{0, 0, 0, 3}, got); d != "" {
		t.Errorf("visible, in flight, delayed, purged after PurgeQueue (all states go, §3.7):\n%s", d)
	}
	f.clk.Add(time.Hour) // nothing comes back when delays and visibility end
	if s := stats(t, f.q); s.Visible+s.InFlight+s.Delayed != 0 {
		t.Errorf("purged messages came back: %+v", s)
	}
	wantErr(t, f.q.Delete(f.ctx, inflight), "", "", "a purged message's handle deletes as a deleted one's (§3.7)")
	wantErr(t, f.q.ChangeVisibility(f.ctx, inflight, 0), sqsq.CodeInvalidParameterValue, goneMsg(inflight),
		"a purged message cannot change visibility (§4.5)")
}

func TestPurgeKeepsLaterSends(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.send(t, f.q, "before")
	if err := f.q.Purge(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.send(t, f.q, "after") // the same clock instant as the purge
	msgs := f.receive(t, f.q, sqsq.ReceiveInput{MaxNumberOfMessages: 10})
	if d := diff([]string{"after"}, bodies(msgs)); d != "" {
		t.Errorf("a send after the purge at the same instant is kept (§3.7 [EMU]):\n%s", d)
	}
}

func TestPurgeInterval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		after  time.Duration
		code   sqsq.Code
	}{
		{"at once", 0, sqsq.CodePurgeQueueInProgress},
		{"59 s later", 59 * time.Second, sqsq.CodePurgeQueueInProgress},
		{"just under 60 s later", 60*time.Second - time.Millisecond, sqsq.CodePurgeQueueInProgress},
		{"60 s later", 60 * time.Second, ""},
		{"later still", time.Hour, ""},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			if err := f.q.Purge(f.ctx); err != nil {
				t.Fatal(err)
			}
			f.clk.Add(tt.after)
			f.send(t, f.q, "m")
			before := stats(t, f.q)
			err := f.q.Purge(f.ctx)
			wantErr(t, err, tt.code, "", tt.reason)
			if tt.code == "" {
				if s := stats(t, f.q); s.Visible != 0 {
					t.Errorf("the second purge left %d messages\nreason: %s", s.Visible, tt.reason)
				}
				return
			}
			wantErr(t, err, tt.code, "Only one PurgeQueue operation on test-queue is allowed every 60 seconds.", tt.reason)
			if d := diff(before, stats(t, f.q)); d != "" {
				t.Errorf("a refused purge changed the queue:\n%s\nreason: %s", d, tt.reason)
			}
			var e *sqsq.Error
			if errors.As(err, &e); e.Code.Info().HTTPStatus != 403 {
				t.Errorf("PurgeQueueInProgress HTTP status = %d, want 403 (§3.0)", e.Code.Info().HTTPStatus)
			}
		})
	}
}

func TestPurgeRefusedDoesNotExtendTheWindow(t *testing.T) {
	t.Parallel()
	f := setup(t)
	if err := f.q.Purge(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.clk.Add(30 * time.Second)
	if err := f.q.Purge(f.ctx); !errors.Is(err, sqsq.ErrPurgeQueueInProgress) {
		t.Fatalf("second purge: %v", err)
	}
	f.clk.Add(30 * time.Second)
	wantErr(t, f.q.Purge(f.ctx), "", "", "the window counts from the purge that ran, not the refused one")
}

func TestPurgeIntervalOption(t *testing.T) {
	t.Parallel()
	f := setup(t, sqsq.WithPurgeInterval(0))
	for i := 0; i < 3; i++ {
		if err := f.q.Purge(f.ctx); err != nil {
			t.Fatalf("purge %d with the rule disabled: %v", i, err)
		}
	}
}

func TestTags(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tags := func() map[string]string {
		t.Helper()
		m, err := f.q.Tags(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := tags(); m != nil {
		t.Errorf("Tags of an untagged queue = %#v, want nil (§3.16)", m)
	}
	steps := []struct {
		reason string
		do     func() error
		want   map[string]string
	}{
		{"tags are added", func() error { return f.q.Tag(f.ctx, map[string]string{"team": "a", "env": "dev"}) },
			map[string]string{"team": "a", "env": "dev"}},
		{"a key that exists is overwritten, others kept", func() error { return f.q.Tag(f.ctx, map[string]string{"team": "b"}) },
			map[string]string{"team": "b", "env": "dev"}},
		{"keys are case-sensitive", func() error { return f.q.Tag(f.ctx, map[string]string{"Team": "c"}) },
			map[string]string{"team": "b", "Team": "c", "env": "dev"}},
		{"an empty value is allowed", func() error { return f.q.Tag(f.ctx, map[string]string{"empty": ""}) },
			map[string]string{"team": "b", "Team": "c", "env": "dev", "empty": ""}},
		{"allowed punctuation, spaces and Unicode letters", func() error {
			return f.q.Tag(f.ctx, map[string]string{"a_b.c:d/e=f+g-h@i j": "Ünïcødé 1_.:/=+-@"})
		}, map[string]string{"team": "b", "Team": "c", "env": "dev", "empty": "", "a_b.c:d/e=f+g-h@i j": "Ünïcødé 1_.:/=+-@"}},
		{"untag removes; unknown keys are ignored", func() error { return f.q.Untag(f.ctx, "env", "nope", "TEAM") },
			map[string]string{"team": "b", "Team": "c", "empty": "", "a_b.c:d/e=f+g-h@i j": "Ünïcødé 1_.:/=+-@"}},
		{"untagging everything leaves no tags (nil)", func() error {
			return f.q.Untag(f.ctx, "team", "Team", "empty", "a_b.c:d/e=f+g-h@i j")
		}, nil},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.reason, err)
		}
		got := tags()
		if d := diff(st.want, got); d != "" {
			t.Errorf("Tags:\n%s\nreason: %s", d, st.reason)
		}
	}
}

func TestTagsAreCopies(t *testing.T) {
	t.Parallel()
	f := setup(t)
	in := map[string]string{"k": "v"}
	if err := f.q.Tag(f.ctx, in); err != nil {
		t.Fatal(err)
	}
	in["k"] = "changed"
	out, err := f.q.Tags(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	out["k"] = "changed too"
	again, err := f.q.Tags(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(map[string]string{"k": "v"}, again); d != "" {
		t.Errorf("the queue's tags are shared with a caller's map:\n%s", d)
	}
}

func TestTagErrorsChangeNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		tags   map[string]string
	}{
		{"the aws: prefix is reserved", map[string]string{"aws:team": "a"}},
		{"the aws: prefix is reserved in any case", map[string]string{"AWS:team": "a"}},
		{"a key of 129 characters is too long", map[string]string{strings.Repeat("k", 129): "a"}},
		{"an empty key", map[string]string{"": "a"}},
		{"a key with a disallowed character", map[string]string{"team!": "a"}},
		{"a value of 257 characters is too long", map[string]string{"k": strings.Repeat("v", 257)}},
		{"a value with a disallowed character", map[string]string{"k": "a*b"}},
		{"one bad key fails the whole call", map[string]string{"good": "1", "aws:bad": "2"}},
		{"51 tags are too many", numberedTags(51, "")},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			if err := f.q.Tag(f.ctx, map[string]string{"existing": "x", "good": "0"}); err != nil {
				t.Fatal(err)
			}
			before, err := f.q.Tags(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			wantErr(t, f.q.Tag(f.ctx, tt.tags), sqsq.CodeInvalidParameterValue, "", tt.reason)
			after, err := f.q.Tags(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d := diff(before, after); d != "" {
				t.Errorf("a failed Tag changed the tags:\n%s\nreason: %s", d, tt.reason)
			}
			_, err = f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "tagged", Tags: tt.tags})
			wantErr(t, err, sqsq.CodeInvalidParameterValue, "", "CreateQueue with these tags: "+tt.reason)
			if _, err := f.b.GetQueue(f.ctx, "tagged"); !errors.Is(err, sqsq.ErrQueueDoesNotExist) {
				t.Errorf("CreateQueue with bad tags created the queue\nreason: %s", tt.reason)
			}
		})
	}
}

func TestTagLimits(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tags := map[string]string{strings.Repeat("k", 128): strings.Repeat("v", 256), "aws": "not a prefix", "awsx:y": "fine"}
	if err := f.q.Tag(f.ctx, tags); err != nil {
		t.Fatalf("a 128-character key, a 256-character value and keys merely starting with aws: %v", err)
	}
	got, err := f.q.Tags(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(tags, got); d != "" {
		t.Error(d)
	}
}

// numberedTags is n tags k0…, each with a value of prefix and its number.
func numberedTags(n int, prefix string) map[string]string {
	tags := make(map[string]string, n)
	for i := range n {
		tags["k"+strconv.Itoa(i)] = prefix + strconv.Itoa(i)
	}
	return tags
}

// TestTagCount: a queue holds at most 50 tags; keys it has already do not
// count again, so retagging a full queue works.
func TestTagCount(t *testing.T) {
	t.Parallel()
	f := setup(t)
	if err := f.q.Tag(f.ctx, numberedTags(50, "a")); err != nil {
		t.Fatalf("50 tags: %v", err)
	}
	if err := f.q.Tag(f.ctx, numberedTags(50, "b")); err != nil {
		t.Fatalf("new values for the 50 keys: %v", err)
	}
	err := f.q.Tag(f.ctx, map[string]string{"one-more": "x"})
	wantErr(t, err, sqsq.CodeInvalidParameterValue, "Too many tags added for queue "+f.q.Name()+".", "the 51st tag")
	if err := f.q.Untag(f.ctx, "k0"); err != nil {
		t.Fatal(err)
	}
	if err := f.q.Tag(f.ctx, map[string]string{"one-more": "x"}); err != nil {
		t.Errorf("a 50th tag after an untag: %v", err)
	}
	_, err = f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "over", Tags: numberedTags(51, "")})
	wantErr(t, err, sqsq.CodeInvalidParameterValue, "Too many tags added for queue over.", "CreateQueue with 51 tags")
	if _, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "full", Tags: numberedTags(50, "")}); err != nil {
		t.Errorf("CreateQueue with 50 tags: %v", err)
	}
}

func TestCreateQueueTags(t *testing.T) {
	t.Parallel()
	f := setup(t)
	q, err := f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "tagged", Tags: map[string]string{"team": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := q.Tags(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(map[string]string{"team": "a"}, got); d != "" {
		t.Errorf("tags given at creation:\n%s", d)
	}
}

func TestErrorsIs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	_, err := f.b.GetQueue(f.ctx, "missing")
	if !errors.Is(err, sqsq.ErrQueueDoesNotExist) {
		t.Errorf("errors.Is(%v, ErrQueueDoesNotExist) = false", err)
	}
	if errors.Is(err, sqsq.ErrQueueNameExists) {
		t.Errorf("errors.Is(%v, ErrQueueNameExists) = true; sentinels match on the code", err)
	}
	wrapped := fmt.Errorf("while resolving: %w", err)
	if !errors.Is(wrapped, sqsq.ErrQueueDoesNotExist) {
		t.Errorf("errors.Is through a wrapper = false")
	}
	var e *sqsq.Error
	if !errors.As(wrapped, &e) || e.Code != sqsq.CodeQueueDoesNotExist || e.Receiver {
		t.Errorf("errors.As through a wrapper: %+v", e)
	}
	if got, want := err.Error(), "sqsq: QueueDoesNotExist: The specified queue does not exist."; got != want {
		t.Errorf("Error() (-want +got):\n-%q\n+%q", want, got)
	}

	sentinels := []struct {
		reason string
		err    error
		target *sqsq.Error
	}{
		{"a bad receipt handle", f.q.Delete(f.ctx, "INVALID"), sqsq.ErrReceiptHandleIsInvalid},
		{"an empty batch", func() error { _, err := f.q.DeleteBatch(f.ctx, nil); return err }(), sqsq.ErrEmptyBatchRequest},
		{"a bad attribute value", f.q.SetAttributes(f.ctx, sqsq.QueueAttributes{DelaySeconds: sqsq.Some(time.Hour)}), sqsq.ErrInvalidAttributeValue},
		{"an empty body", func() error { _, err := f.q.Send(f.ctx, sqsq.SendInput{}); return err }(), sqsq.ErrMissingParameter},
		{"a bad parameter", func() error { _, err := f.q.Receive(f.ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 11}); return err }(), sqsq.ErrInvalidParameterValue},
	}
	for _, s := range sentinels {
		if !errors.Is(s.err, s.target) {
			t.Errorf("errors.Is(%v, %v) = false\nreason: %s", s.err, s.target, s.reason)
		}
	}
}

func TestCodeInfo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		code   sqsq.Code
		want   sqsq.CodeInfo
	}{
		{"QueueDoesNotExist travels with the legacy NonExistentQueue code",
			sqsq.CodeQueueDoesNotExist, sqsq.CodeInfo{WireType: "QueueDoesNotExist", QueryCode: "AWS.SimpleQueueService.NonExistentQueue", HTTPStatus: 400, Modeled: true}},
		{"QueueNameExists is QueueAlreadyExists in the legacy protocol",
			sqsq.CodeQueueNameExists, sqsq.CodeInfo{WireType: "QueueNameExists", QueryCode: "QueueAlreadyExists", HTTPStatus: 400, Modeled: true}},
		{"PurgeQueueInProgress is a 403",
			sqsq.CodePurgeQueueInProgress, sqsq.CodeInfo{WireType: "PurgeQueueInProgress", QueryCode: "AWS.SimpleQueueService.PurgeQueueInProgress", HTTPStatus: 403, Modeled: true}},
		{"OverLimit is a 403",
			sqsq.CodeOverLimit, sqsq.CodeInfo{WireType: "OverLimit", QueryCode: "OverLimit", HTTPStatus: 403, Modeled: true}},
		{"InvalidParameterValue is not modelled: its __type is InvalidParameterValueException",
			sqsq.CodeInvalidParameterValue, sqsq.CodeInfo{WireType: "InvalidParameterValueException", QueryCode: "InvalidParameterValue", HTTPStatus: 400, Modeled: false}},
		{"MissingParameter is not modelled: its __type is MissingRequiredParameterException",
			sqsq.CodeMissingParameter, sqsq.CodeInfo{WireType: "MissingRequiredParameterException", QueryCode: "MissingParameter", HTTPStatus: 400, Modeled: false}},
		{"ReceiptHandleIsInvalid keeps its name in both protocols",
			sqsq.CodeReceiptHandleIsInvalid, sqsq.CodeInfo{WireType: "ReceiptHandleIsInvalid", QueryCode: "ReceiptHandleIsInvalid", HTTPStatus: 400, Modeled: true}},
		{"BatchEntryIdsNotDistinct has the AWS.SimpleQueueService prefix",
			sqsq.CodeBatchEntryIdsNotDistinct, sqsq.CodeInfo{WireType: "BatchEntryIdsNotDistinct", QueryCode: "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", HTTPStatus: 400, Modeled: true}},
		{"ResourceNotFoundException is a 404",
			sqsq.CodeResourceNotFound, sqsq.CodeInfo{WireType: "ResourceNotFoundException", QueryCode: "ResourceNotFoundException", HTTPStatus: 404, Modeled: true}},
		{"an unknown code is a sender error named after itself",
			sqsq.Code("Mystery"), sqsq.CodeInfo{WireType: "Mystery", QueryCode: "Mystery", HTTPStatus: 400}},
	}
	for _, tt := range tests {
		if d := diff(tt.want, tt.code.Info()); d != "" {
			t.Errorf("%s.Info():\n%s\nreason: %s", tt.code, d, tt.reason)
		}
	}
}
