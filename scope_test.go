package sqsq_test

// Accounts and regions of one endpoint (Broker.Scope): separate namespaces,
// queues reachable across them by ARN and URL, dead-letter queues of
// another account allowed by a byQueue RedriveAllowPolicy, and move tasks
// between scopes.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
)

const (
	otherAccount = "111111111111"
	otherRegion  = "us-west-2"
)

// TestScopeNamespaces shows that each account and region has its own
// queues, URLs and ARNs, on the shared clock.
func TestScopeNamespaces(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	west := f.b.Scope(otherAccount, otherRegion)
	if west.AccountID() != otherAccount || west.Region() != otherRegion || west.Clock() != f.b.Clock() {
		t.Fatalf("Scope: account %s region %s, same clock %v", west.AccountID(), west.Region(), west.Clock() == f.b.Clock())
	}
	if f.b.Scope(otherAccount, otherRegion) != west {
		t.Error("a second Scope call made a second broker; want the same one")
	}
	if f.b.Scope(f.b.AccountID(), f.b.Region()) != f.b || west.Scope(f.b.AccountID(), f.b.Region()) != f.b {
		t.Error("Scope of the broker's own account and region is not the broker")
	}
	home := f.queue(t, "orders", sqsq.QueueAttributes{})
	away, err := west.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "orders",
		Attributes: sqsq.QueueAttributes{VisibilityTimeout: sqsq.Some(time.Minute)}})
	if err != nil {
		t.Fatalf("the same name in another scope: %v", err)
	}
	if home == away {
		t.Fatal("one queue for two scopes")
	}
	if got, want := away.ARN(), "arn:aws:sqs:us-west-2:111111111111:orders"; got != want {
		t.Errorf("ARN %s, want %s", got, want)
	}
	if got, want := away.URL(), "https://sqs.us-west-2.sqsq.invalid/111111111111/orders"; got != want {
		t.Errorf("URL %s, want %s: its region's host, its account's path", got, want)
	}
	if got, want := home.ARN(), "arn:aws:sqs:us-east-1:000000000000:orders"; got != want {
		t.Errorf("home ARN %s, want %s", got, want)
	}
	f.putBody(t, home, "home")
	if got := f.getBodies(t, away, sqsq.ReceiveInput{}); got != nil {
		t.Errorf("the other scope's queue of the same name received %v", got)
	}
	for _, b := range []*sqsq.Broker{f.b, west} {
		out, err := b.ListQueues(f.ctx, sqsq.ListQueuesInput{})
		if err != nil || len(out.QueueURLs) != 1 {
			t.Errorf("ListQueues of %s/%s = %v, %v; want its own queue only", b.AccountID(), b.Region(), out.QueueURLs, err)
		}
	}
	if q, err := f.b.GetQueue(f.ctx, "orders"); err != nil || q != home {
		t.Errorf("GetQueue by name = %v, %v; want the broker's own queue", q, err)
	}
}

// TestScopeOptionsShared shows that a scope has the options of the broker it
// came from, with its own account as the default SenderId.
func TestScopeOptionsShared(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t, sqsq.WithBaseURL("http://127.0.0.1:9324"), sqsq.WithInFlightLimit(1))
	other := f.b.Scope(otherAccount, "us-east-1")
	q, err := other.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := q.URL(), "http://127.0.0.1:9324/111111111111/q"; got != want {
		t.Errorf("URL %s, want %s: the base URL option is shared", got, want)
	}
	f.putBody(t, q, "a")
	f.putBody(t, q, "b")
	msgs := f.get(t, q, sqsq.ReceiveInput{MessageSystemAttributeNames: []string{sqsq.SysAll}})
	if len(msgs) != 1 || msgs[0].Attributes["SenderId"] != otherAccount {
		t.Fatalf("received %+v; want one message sent by %s", msgs, otherAccount)
	}
	if _, err := q.Receive(f.ctx, sqsq.ReceiveInput{}); !isCode(err, sqsq.CodeOverLimit) {
		t.Errorf("second receive: %v; want OverLimit, the in-flight limit option is shared", err)
	}
}

// TestScopeGetQueueAcrossScopes shows that a queue of another account is
// found by its URL (in the caller's region) and by its ARN, and that a
// DeleteQueue through another account's broker keeps the owner's name table
// right.
func TestScopeGetQueueAcrossScopes(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	partner := f.b.Scope(otherAccount, f.b.Region())
	west := f.b.Scope(otherAccount, otherRegion)
	pq, err := partner.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	wq, err := west.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "westonly"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref  string
		want *sqsq.Queue
	}{
		{pq.URL(), pq},
		{"http://localhost:9324/111111111111/shared", pq},
		{"/111111111111/shared", pq},
		{pq.ARN(), pq},
		{wq.ARN(), wq},
		{"shared", nil},                 // a bare name is the caller's own account
		{"/111111111111/westonly", nil}, // a URL names the caller's region
		{"/222222222222/shared", nil},   // no such account
		{"arn:aws:sqs:eu-west-1:111111111111:shared", nil},
	}
	for _, tt := range tests {
		q, err := f.b.GetQueue(f.ctx, tt.ref)
		switch {
		case tt.want == nil && !isCode(err, sqsq.CodeQueueDoesNotExist):
			t.Errorf("GetQueue(%q) = %v, %v; want QueueDoesNotExist", tt.ref, q, err)
		case tt.want != nil && (err != nil || q != tt.want):
			t.Errorf("GetQueue(%q) = %v, %v; want %s", tt.ref, q, err, tt.want.ARN())
		}
	}
	if err := f.b.DeleteQueue(f.ctx, pq.URL()); err != nil {
		t.Fatalf("DeleteQueue of another account's queue: %v", err)
	}
	if out, _ := partner.ListQueues(f.ctx, sqsq.ListQueuesInput{}); len(out.QueueURLs) != 0 {
		t.Errorf("the owner still lists %v", out.QueueURLs)
	}
	if _, err := partner.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "shared"}); !isCode(err, sqsq.CodeQueueDeletedRecently) {
		t.Errorf("recreate in the owner's account: %v; want QueueDeletedRecently", err)
	}
	if _, err := f.b.GetQueue(f.ctx, pq.ARN()); !isCode(err, sqsq.CodeQueueDoesNotExist) {
		t.Errorf("GetQueue of the deleted queue by ARN: %v", err)
	}
}

// TestScopePanicsOnBadNames: account and region go into ARNs and URLs.
func TestScopePanicsOnBadNames(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	for _, args := range [][2]string{{"", "us-east-1"}, {"111111111111", ""}, {"a:b", "us-east-1"}, {"111111111111", "us/east"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Scope(%q, %q) did not panic", args[0], args[1])
				}
			}()
			f.b.Scope(args[0], args[1])
		}()
	}
}

// crossAccount is a source queue in the fixture's account and a dead-letter
// queue in another account whose byQueue policy allows it.
func crossAccount(t *testing.T, f *dlqFixture, maxReceiveCount int) (partner *sqsq.Broker, src, dlq *sqsq.Queue) {
	t.Helper()
	partner = f.b.Scope(otherAccount, f.b.Region())
	dlq, err := partner.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "dlq", Attributes: sqsq.QueueAttributes{
		RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveByQueue, SourceQueueArns: []string{f.arn("src")}}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	src = f.queue(t, "src", sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
		DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: maxReceiveCount,
	})})
	return partner, src, dlq
}

// TestCrossAccountDeadLetter: a byQueue allow policy naming a source of
// another account lets it dead-letter there; the message keeps its id and
// names its source, and ListDeadLetterSourceQueues of the DLQ lists it.
func TestCrossAccountDeadLetter(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	partner, src, dlq := crossAccount(t, f, 1)
	sent := f.putBody(t, src, "poison")
	if got := f.getBodies(t, src, recvVisZero); !reflect.DeepEqual(got, []string{"poison"}) {
		t.Fatalf("first receive %v", got)
	}
	if got := f.getBodies(t, src, recvVisZero); got != nil {
		t.Fatalf("the receive past maxReceiveCount returned %v; want the move to the other account's DLQ", got)
	}
	msgs := f.get(t, dlq, recvAll)
	if len(msgs) != 1 || msgs[0].MessageId != sent.MessageId ||
		msgs[0].Attributes[sqsq.SysDeadLetterQueueSourceArn] != src.ARN() {
		t.Fatalf("the DLQ received %+v; want %s from %s", msgs, sent.MessageId, src.ARN())
	}
	if s := dlqStats(t, src); s.MovedToDLQ != 1 || s.DeadLetterFailures != 0 {
		t.Errorf("source counters %+v", s.Counters)
	}
	out, err := dlq.ListDeadLetterSourceQueues(f.ctx, sqsq.ListDeadLetterSourceQueuesInput{})
	if err != nil || !reflect.DeepEqual(out.QueueURLs, []string{src.URL()}) {
		t.Errorf("ListDeadLetterSourceQueues = %v, %v; want the other account's source %s", out.QueueURLs, err, src.URL())
	}
	// A source of the DLQ's own account with the same name comes first,
	// and paging keeps the two apart.
	if err := dlq.SetAttributes(f.ctx, sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{
		RedrivePermission: sqsq.RedriveByQueue, SourceQueueArns: []string{src.ARN(), "arn:aws:sqs:us-east-1:111111111111:src"},
	})}); err != nil {
		t.Fatal(err)
	}
	local, err := partner.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "src", Attributes: sqsq.QueueAttributes{
		RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 3}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	next := ""
	for {
		out, err := dlq.ListDeadLetterSourceQueues(f.ctx, sqsq.ListDeadLetterSourceQueuesInput{MaxResults: sqsq.Some(1), NextToken: next})
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, out.QueueURLs...)
		if next = out.NextToken; next == "" {
			break
		}
	}
	if want := []string{local.URL(), src.URL()}; !reflect.DeepEqual(pages, want) {
		t.Errorf("paged sources %v, want %v", pages, want)
	}
}

// TestCrossScopeRedrivePolicyRules: a DLQ of another account or region is
// accepted only when its byQueue policy lists the source (allowAll covers
// its own account and region, semantics §7.4); other violations keep their
// reasons. A rejected policy changes nothing.
func TestCrossScopeRedrivePolicyRules(t *testing.T) {
	t.Parallel()
	byQueue := func(arns ...string) sqsq.Optional[*sqsq.RedriveAllowPolicy] {
		return sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveByQueue, SourceQueueArns: arns})
	}
	const srcArn = "arn:aws:sqs:us-east-1:000000000000:src"
	tests := []struct {
		reason         string
		account        string
		region         string
		dlqName        string
		allow          sqsq.Optional[*sqsq.RedriveAllowPolicy]
		fifoSrc        bool
		wantReason     string // "" for accepted
		wantSourceList bool
	}{
		{reason: "another account without an allow policy (allowAll by default)", account: otherAccount, region: "us-east-1", dlqName: "dlq",
			wantReason: "Dead-letter target owner should be same as the source."},
		{reason: "another account's allowAll covers only that account", account: otherAccount, region: "us-east-1", dlqName: "dlq",
			allow:      sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveAllowAll}),
			wantReason: "Dead-letter target owner should be same as the source."},
		{reason: "another account's denyAll", account: otherAccount, region: "us-east-1", dlqName: "dlq",
			allow:      sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveDenyAll}),
			wantReason: "Dead-letter target owner should be same as the source."},
		{reason: "another account's byQueue without the source", account: otherAccount, region: "us-east-1", dlqName: "dlq",
			allow: byQueue("arn:aws:sqs:us-east-1:000000000000:someone-else"), wantReason: "Dead-letter target owner should be same as the source."},
		{reason: "another region without byQueue", account: "000000000000", region: otherRegion, dlqName: "dlq",
			wantReason: "Dead-letter target must be in same region as the source."},
		{reason: "another account's byQueue listing the source", account: otherAccount, region: "us-east-1", dlqName: "dlq",
			allow: byQueue(srcArn)},
		{reason: "another region's byQueue listing the source", account: "000000000000", region: otherRegion, dlqName: "dlq",
			allow: byQueue(srcArn)},
		{reason: "another account and region, listed", account: otherAccount, region: otherRegion, dlqName: "dlq",
			allow: byQueue(srcArn)},
		{reason: "listed, but of the other queue type", account: otherAccount, region: "us-east-1", dlqName: "dlq",
			allow: byQueue(srcArn + ".fifo"), fifoSrc: true, wantReason: "Dead-letter queue must be same type of queue as the source."},
	}
	for _, tt := range tests {
		for _, op := range []string{"CreateQueue", "SetAttributes"} {
			t.Run(op+"/"+tt.reason, func(t *testing.T) {
				t.Parallel()
				f := setupDLQ(t)
				owner := f.b.Scope(tt.account, tt.region)
				dlq, err := owner.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: tt.dlqName, Attributes: sqsq.QueueAttributes{RedriveAllowPolicy: tt.allow}})
				if err != nil {
					t.Fatal(err)
				}
				name := "src"
				if tt.fifoSrc {
					name = "src.fifo"
				}
				policy := sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 3})
				var src *sqsq.Queue
				var before []dlqQueueState
				if op == "CreateQueue" {
					attrs := sqsq.QueueAttributes{RedrivePolicy: policy}
					if tt.fifoSrc {
						attrs.FifoQueue = sqsq.Some(true)
					}
					src, err = f.b.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: name, Attributes: attrs})
				} else {
					src = f.queue(t, name, sqsq.QueueAttributes{})
					before = f.snapshot(t, src, dlq)
					err = src.SetAttributes(f.ctx, sqsq.QueueAttributes{RedrivePolicy: policy})
				}
				if tt.wantReason == "" {
					if err != nil {
						t.Fatalf("%s: %v; want accepted", tt.reason, err)
					}
					out, _ := dlq.ListDeadLetterSourceQueues(f.ctx, sqsq.ListDeadLetterSourceQueuesInput{})
					if !reflect.DeepEqual(out.QueueURLs, []string{src.URL()}) {
						t.Errorf("sources of the DLQ: %v", out.QueueURLs)
					}
					return
				}
				var e *sqsq.Error
				want := invalidRedrive(policy.Or(nil).String(), tt.wantReason)
				if !errors.As(err, &e) || e.Code != sqsq.CodeInvalidParameterValue || e.Message != want {
					t.Fatalf("%s: %v; want InvalidParameterValue %q", tt.reason, err, want)
				}
				if op == "CreateQueue" {
					if _, err := f.b.GetQueue(f.ctx, name); !isCode(err, sqsq.CodeQueueDoesNotExist) {
						t.Errorf("the rejected queue exists: %v", err)
					}
					return
				}
				f.unchanged(t, before, tt.reason, src, dlq)
			})
		}
	}
}

// TestCrossAccountAllowRecheckedOnMove: a move is checked against the
// DLQ's allow policy when it happens, as within one account; once the other
// account's DLQ allows all (its own account) only, the message stays.
func TestCrossAccountAllowRecheckedOnMove(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	_, src, dlq := crossAccount(t, f, 1)
	if err := dlq.SetAttributes(f.ctx, sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveAllowAll})}); err != nil {
		t.Fatal(err)
	}
	f.putBody(t, src, "m")
	f.getBodies(t, src, recvVisZero)
	if got := f.getBodies(t, src, recvVisZero); !reflect.DeepEqual(got, []string{"m"}) {
		t.Errorf("second receive %v; want the message delivered, its move forbidden", got)
	}
	if s := dlqStats(t, src); s.DeadLetterFailures != 1 || s.MovedToDLQ != 0 {
		t.Errorf("counters %+v", s.Counters)
	}
	if n := storedIn(t, dlq); n != 0 {
		t.Errorf("the DLQ holds %d", n)
	}
}

// TestCrossAccountMoveTaskBack: a move task on the other account's DLQ takes
// the message back to its source; it runs when only the source's account is
// called, and wakes a receiver parked there.
func TestCrossAccountMoveTaskBack(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	partner, src, dlq := crossAccount(t, f, 1)
	f.deadLetterAll(t, src, "one", "two")
	if n := storedIn(t, dlq); n != 2 {
		t.Fatalf("the DLQ holds %d, want 2", n)
	}

	type result struct {
		msgs []sqsq.Message
		err  error
	}
	done := make(chan result, 1)
	go func() {
		msgs, err := src.Receive(f.ctx, sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second), MaxNumberOfMessages: 10})
		done <- result{msgs, err}
	}()
	if err := src.WaitForReceivers(f.ctx, 1); err != nil {
		t.Fatal(err)
	}
	handle, err := partner.StartMoveTask(f.ctx, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
	if err != nil {
		t.Fatalf("StartMoveTask on the other account's DLQ: %v", err)
	}
	if handle == "" {
		t.Fatal("no handle")
	}
	f.clk.Add(time.Millisecond) // the first message moves as soon as the clock moves
	r := <-done
	if r.err != nil || !reflect.DeepEqual(msgBodies(r.msgs), []string{"one"}) {
		t.Fatalf("the parked receiver got %v, %v; want the first redriven message", msgBodies(r.msgs), r.err)
	}
	f.clk.Add(time.Second)
	// Only the source's account is called: the task still runs.
	if got := f.getBodies(t, src, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"two"}) {
		t.Errorf("after 1 s the source received %v; want the second message", got)
	}
	tasks, err := f.b.ListMoveTasks(f.ctx, dlq.ARN(), sqsq.Some(10))
	if err != nil || len(tasks) != 1 || tasks[0].Status != sqsq.MoveTaskCompleted || tasks[0].ApproximateNumberOfMessagesMoved != 2 {
		t.Errorf("ListMoveTasks through the source's account = %+v, %v", tasks, err)
	}
	if s := dlqStats(t, src); s.RedrivenIn != 2 {
		t.Errorf("source RedrivenIn %d", s.RedrivenIn)
	}
}

// TestCrossAccountMoveTaskToDestination: a move task may name a destination
// of another account, and be cancelled through any account's broker.
func TestCrossAccountMoveTaskToDestination(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	partner, src, dlq := crossAccount(t, f, 1)
	dest, err := partner.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	f.deadLetterAll(t, src, "a", "b")
	// Started through the source account's broker, of the partner's queues.
	handle := f.start(t, sqsq.StartMoveTaskInput{SourceArn: dlq.ARN(), DestinationArn: dest.ARN(), MaxNumberOfMessagesPerSecond: sqsq.Some(1)})
	f.clk.Add(time.Millisecond)
	if moved, err := partner.CancelMoveTask(f.ctx, handle); err != nil || moved != 1 {
		t.Fatalf("CancelMoveTask = %d, %v; want 1 moved", moved, err)
	}
	f.clk.Add(time.Minute)
	if got := f.getBodies(t, dest, sqsq.ReceiveInput{MaxNumberOfMessages: 10}); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("destination received %v", got)
	}
	if task := f.task(t, dlq.ARN()); task.Status != sqsq.MoveTaskCancelled {
		t.Errorf("task %+v", task)
	}
}

// TestScopeCloseClosesAll: the scopes are one endpoint; closing one closes
// every one, and WaitIdle sees the receives parked on any of them.
func TestScopeCloseClosesAll(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	west := f.b.Scope(otherAccount, otherRegion)
	q, err := west.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "q"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := q.Receive(context.Background(), sqsq.ReceiveInput{WaitTimeSeconds: sqsq.Some(20 * time.Second)})
		done <- err
	}()
	if err := q.WaitForReceivers(f.ctx, 1); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(f.ctx, time.Millisecond)
	defer cancel()
	if err := f.b.WaitIdle(short); err == nil {
		t.Error("WaitIdle of the default scope returned while another scope has a parked receive")
	}
	if err := f.b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, sqsq.ErrClosed) {
		t.Errorf("the other scope's parked receive returned %v; want ErrClosed", err)
	}
	if err := west.WaitIdle(f.ctx); err != nil {
		t.Error(err)
	}
	if _, err := west.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "later"}); !errors.Is(err, sqsq.ErrClosed) {
		t.Errorf("CreateQueue on another scope after Close: %v; want ErrClosed", err)
	}
	if _, err := f.b.Scope("222222222222", "eu-west-1").ListQueues(f.ctx, sqsq.ListQueuesInput{}); !errors.Is(err, sqsq.ErrClosed) {
		t.Errorf("a scope made after Close: %v; want ErrClosed", err)
	}
}

// TestCrossAccountDeadLetterCycleNoDeadlock: two accounts dead-letter into
// each other, and receivers on both sides run at once. A receive locks its
// queue and the DLQ in id order, which is one order across accounts.
func TestCrossAccountDeadLetterCycleNoDeadlock(t *testing.T) {
	t.Parallel()
	f := setupDLQ(t)
	partner := f.b.Scope(otherAccount, f.b.Region())
	aArn, bArn := f.arn("a"), "arn:aws:sqs:us-east-1:111111111111:b"
	b, err := partner.CreateQueue(f.ctx, sqsq.CreateQueueInput{QueueName: "b", Attributes: sqsq.QueueAttributes{
		RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveByQueue, SourceQueueArns: []string{aArn}}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	a := f.queue(t, "a", sqsq.QueueAttributes{
		RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{RedrivePermission: sqsq.RedriveByQueue, SourceQueueArns: []string{bArn}}),
		RedrivePolicy:      sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: bArn, MaxReceiveCount: 1}),
	})
	if err := b.SetAttributes(f.ctx, sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{DeadLetterTargetArn: aArn, MaxReceiveCount: 1})}); err != nil {
		t.Fatal(err)
	}
	const messages = 20
	for i := 0; i < messages; i++ {
		f.putBody(t, a, "m")
	}
	var wg sync.WaitGroup
	for _, q := range []*sqsq.Queue{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if _, err := q.Receive(f.ctx, recvVisZero); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := storedIn(t, a) + storedIn(t, b); n != messages {
		t.Errorf("%d messages stored across the two accounts, want %d", n, messages)
	}
}

func isCode(err error, code sqsq.Code) bool {
	var e *sqsq.Error
	return errors.As(err, &e) && e.Code == code
}

// A dead-letter queue in another account: its byQueue allow policy names
// the source, and the receive after the last allowed delivery moves the
// message there.
func ExampleBroker_Scope() {
	ctx, clk := context.Background(), clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	defer b.Close()
	partner := b.Scope("111111111111", "us-east-1")
	dlq, _ := partner.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "dlq",
		Attributes: sqsq.QueueAttributes{RedriveAllowPolicy: sqsq.Some(&sqsq.RedriveAllowPolicy{
			RedrivePermission: sqsq.RedriveByQueue,
			SourceQueueArns:   []string{"arn:aws:sqs:us-east-1:000000000000:orders"}})}})
	orders, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders",
		Attributes: sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(&sqsq.RedrivePolicy{
			DeadLetterTargetArn: dlq.ARN(), MaxReceiveCount: 1})}})
	orders.Send(ctx, sqsq.SendInput{MessageBody: "poison"})
	orders.Receive(ctx, sqsq.ReceiveInput{}) // the one allowed delivery
	clk.Add(30 * time.Second)
	orders.Receive(ctx, sqsq.ReceiveInput{}) // moves it
	msgs, _ := dlq.Receive(ctx, sqsq.ReceiveInput{MessageSystemAttributeNames: []string{sqsq.SysDeadLetterQueueSourceArn}})
	fmt.Println(dlq.URL())
	fmt.Println(msgs[0].Body, "from", msgs[0].Attributes[sqsq.SysDeadLetterQueueSourceArn])
	// Output:
	// https://sqs.us-east-1.sqsq.invalid/111111111111/dlq
	// poison from arn:aws:sqs:us-east-1:000000000000:orders
}

// TestScopeRelease: a namespace that holds nothing can be let go; one
// with a queue, or with a name deleted within the recreate delay, cannot;
// the root never is; and a queue created through a released broker lands in
// the namespace's current one.
func TestScopeRelease(t *testing.T) {
	t.Parallel()
	ctx, clk := context.Background(), clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk))
	defer b.Close()
	if b.Release() {
		t.Error("the root broker was released")
	}
	west := b.Scope(otherAccount, otherRegion)
	q, err := west.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if west.Release() {
		t.Error("a namespace holding a queue was released")
	}
	if err := west.DeleteQueue(ctx, q.URL()); err != nil {
		t.Fatal(err)
	}
	if west.Release() {
		t.Error("released within the recreate delay of a deleted name")
	}
	clk.Add(61 * time.Second)
	if !west.Release() || !west.Release() {
		t.Fatal("an empty namespace was not released")
	}
	if len(b.Scopes()) != 1 {
		t.Errorf("Scopes() = %d brokers after the release, want 1", len(b.Scopes()))
	}
	again, err := west.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q2"})
	if err != nil {
		t.Fatal(err)
	}
	current := b.Scope(otherAccount, otherRegion)
	if current == west {
		t.Fatal("Scope returned the released broker")
	}
	if got, err := current.GetQueue(ctx, "q2"); err != nil || got != again {
		t.Errorf("the queue created through the released broker: %v, %v; want it in the current one", got, err)
	}
}
