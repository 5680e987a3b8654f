package sqsqtest_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq/internal/suite"
	"github.com/sqsq/sqsq/sqsqtest"
)

// suite.API is what consumer code written against the SDK declares: every
// operation of *sqs.Client. env.SQS() must satisfy it unchanged.
var (
	_ suite.API = (*sqs.Client)(nil)
	_ suite.API = (*sqsqtest.SQS)(nil)
	// The SDK's paginators take the client through these.
	_ sqs.ListQueuesAPIClient                 = (*sqsqtest.SQS)(nil)
	_ sqs.ListDeadLetterSourceQueuesAPIClient = (*sqsqtest.SQS)(nil)
)

// TestSQSMethodSet fails when the SDK in go.mod has an operation that
// *sqsqtest.SQS lacks, or one whose signature differs, so an SDK upgrade
// that adds an operation is caught here.
func TestSQSMethodSet(t *testing.T) {
	t.Parallel()
	suite.CheckMethodSet(t, reflect.TypeFor[*sqsqtest.SQS](), "*sqsqtest.SQS")
}

// crashed reports whether err says the consumer died: its loop must end.
func crashed(err error) bool { return errors.Is(err, sqsqtest.ErrCrashed) }

// errorsQueueScenario is a consumer that owns its receive loop: it tags its
// errors queue and checks it is listed, charges each order, and parks a
// poison message in the errors queue (looking at how full it is first)
// instead of failing on it forever.
func errorsQueueScenario() sqsqtest.Scenario {
	return sqsqtest.Scenario{
		Messages: []string{"order-1", "poison-2", "order-3"},
		Queues:   []string{"errors"},
		Crash:    5,
		Faults:   sqsqtest.Rates{sqsqtest.Duplicate: 5, sqsqtest.LoseDelete: 5, sqsqtest.ShortPoll: 10},
		Loop: func(ctx context.Context, env *sqsqtest.Env) {
			api := suite.API(env.SQS()) // as production code would hold it
			url, errURL := env.QueueURL(), env.URL("errors")
			if _, err := api.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: &errURL, Tags: map[string]string{"team": "payments"}}); err != nil {
				return // crashed
			}
			tags, err := api.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: &errURL})
			if err != nil {
				return
			}
			if tags.Tags["team"] != "payments" {
				panic(fmt.Sprintf("tags of errors: %v", tags.Tags))
			}
			list, err := api.ListQueues(ctx, &sqs.ListQueuesInput{})
			if err != nil {
				return
			}
			if !slices.Contains(list.QueueUrls, errURL) || !slices.Contains(list.QueueUrls, url) {
				panic(fmt.Sprintf("ListQueues: %v", list.QueueUrls))
			}
			for ctx.Err() == nil {
				out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 20, MaxNumberOfMessages: 10})
				if crashed(err) {
					return
				} else if err != nil {
					continue
				}
				for _, m := range out.Messages {
					if !park(ctx, env, api, errURL, m) {
						continue
					}
					if _, err := api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: m.ReceiptHandle}); crashed(err) {
						return
					}
				}
			}
		},
		Invariants: []sqsqtest.Invariant{
			sqsqtest.NothingLeft(),
			{Name: "every order charged, the poison parked", Check: func(r *sqsqtest.Result) error {
				for _, b := range []string{"order-1", "order-3"} {
					if r.Ledger.Effects["charge:"+b] == 0 {
						return fmt.Errorf("%s never charged", b)
					}
				}
				if r.Ledger.Effects["charge:poison-2"] != 0 {
					return errors.New("the poison message was charged")
				}
				if !slices.Contains(r.Sent["errors"], "poison-2") {
					return fmt.Errorf("poison-2 not sent to errors: %v", r.Sent)
				}
				for q, bodies := range r.Sent {
					for _, b := range bodies {
						if q != "errors" || b != "poison-2" {
							return fmt.Errorf("sent %s to %s", b, q)
						}
					}
				}
				if st := r.Queues["errors"]; st.Visible != len(r.Sent["errors"]) {
					return fmt.Errorf("errors queue holds %d, %d were sent", st.Visible, len(r.Sent["errors"]))
				}
				return nil
			}},
		},
	}
}

// park handles one message: a poison message goes to the errors queue,
// anything else is charged. It reports whether to delete the message.
func park(ctx context.Context, env *sqsqtest.Env, api suite.API, errURL string, m types.Message) bool {
	body := aws.ToString(m.Body)
	if strings.HasPrefix(body, "poison") {
		if _, err := api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &errURL,
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages}}); err != nil {
			return false
		}
		_, err := api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &errURL, MessageBody: m.Body})
		return err == nil
	}
	return env.Commit("charge "+body, func(tx *sqsqtest.Tx) error {
		tx.Effect("charge:" + body)
		return nil
	}) == nil
}

// hasStep reports whether some line of the timeline contains text.
func hasStep(tl sqsqtest.Timeline, text string) bool {
	return slices.ContainsFunc(tl, func(e sqsqtest.Entry) bool { return strings.Contains(e.Text, text) })
}

func TestSQSLoopErrorsQueue(t *testing.T) {
	t.Parallel()
	s := errorsQueueScenario()
	s.Seeds(t, 1, 200)
	// The steps are in the timeline under their names.
	seen := map[string]int{}
	steps := []string{"tag queue errors (team)", "list tags of errors", "list queues", "receive from queue",
		"get attributes of errors", "send(B) to errors", "crashed before"}
	for seed := uint64(1); seed <= 60; seed++ {
		o := s.Run(sqsqtest.Seed(seed))
		if o.Err != nil {
			t.Fatalf("seed %d: %v", seed, o)
		}
		for _, step := range steps {
			if hasStep(o.Timeline, step) {
				seen[step]++
			}
		}
	}
	for _, step := range steps {
		if seen[step] == 0 {
			t.Errorf("no %q in 60 runs", step)
		}
	}
}

// A consumer that purges the queue while it holds a message: the broker
// tells no observer of a purge, and the run must not keep the purged
// message's visibility deadline (the clock would advance to it and the
// timeline would show it expire), nor count it as left in the queue.
func TestSQSPurgeForgetsDeadlines(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{
		Messages: []string{"a", "b"}, Consumers: 1, Steps: 60,
		Loop: func(ctx context.Context, env *sqsqtest.Env) {
			api, url := env.SQS(), env.QueueURL()
			for ctx.Err() == nil {
				out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 5})
				if crashed(err) {
					return
				}
				if err == nil && len(out.Messages) > 0 {
					if _, err := api.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: &url}); crashed(err) {
						return
					}
				}
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.NothingLeft(), {Name: "purged messages are not left", Check: func(r *sqsqtest.Result) error {
			if len(r.Left) > 0 {
				return fmt.Errorf("left: %v", r.Left)
			}
			return nil
		}}},
	}
	purged := 0
	for seed := uint64(1); seed <= 100; seed++ {
		o := s.Run(sqsqtest.Seed(seed))
		if o.Err != nil {
			t.Fatalf("seed %d: %v", seed, o)
		}
		// A message's visibility may expire only if no purge that worked
		// came between its last receive and the expiry. (A purge within
		// 60 s of another fails, PurgeQueueInProgress, and leaves the
		// message in flight.)
		for i, e := range o.Timeline {
			if e.Text == "c1 purge queue queue" {
				purged++
			}
			l, ok := strings.CutPrefix(e.Text, "visibility expired(")
			if !ok {
				continue
			}
			l = strings.TrimSuffix(l, ")")
			for j := i - 1; j >= 0; j-- {
				p := o.Timeline[j].Text
				if p == "c1 purge queue queue" {
					t.Fatalf("seed %d: %s after a purge:\n%v", seed, e.Text, o)
				}
				if strings.HasPrefix(p, "receive(") && slices.Contains(strings.Split(strings.SplitN(p[len("receive("):], ")", 2)[0], ","), l) {
					break
				}
			}
		}
	}
	if purged == 0 {
		t.Fatal("no purge in 100 runs")
	}
}

// The kit offers a receive only while the queue has visible messages, and
// a purge through the SDK-shaped client, which the broker reports to no
// observer, empties it at once: no receive after it finds the queue empty.
func TestSQSPurgeEndsReceives(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{
		Messages: []string{"a", "b", "c", "d"}, Consumers: 2,
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			api, url := env.SQS(), env.QueueURL()
			return func(ctx context.Context, m sqsqtest.Msg) error {
				_, err := api.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: &url})
				return err
			}
		},
	}
	purged := 0
	for seed := uint64(1); seed <= 200; seed++ {
		o := s.Run(sqsqtest.Seed(seed))
		for _, e := range o.Timeline {
			if strings.HasSuffix(e.Text, " purge queue queue") {
				purged++
			}
			if strings.HasSuffix(e.Text, ": empty") {
				t.Fatalf("seed %d: a receive found the queue empty:\n%v", seed, o)
			}
		}
	}
	if purged == 0 {
		t.Fatal("no purge in 200 runs")
	}
}

// A consumer that redrives its own dead-letter queue and reports to an
// audit queue it creates: the move task's messages come back as the clock
// passes their instants, the created queue is one of the run's, and the
// run settles.
func TestSQSConsumerRedrivesAndCreatesQueue(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{
		Messages: []string{"job-1", "job-2"}, MaxReceiveCount: 1, Visibility: 10 * time.Second, Consumers: 1,
		Loop: func(ctx context.Context, env *sqsqtest.Env) {
			api, url, dlqURL := env.SQS(), env.QueueURL(), env.URL("queue-dlq")
			created, err := api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("audit")})
			if err != nil {
				return
			}
			audit := created.QueueUrl
			attrs, err := api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &dlqURL,
				AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
			if err != nil {
				return
			}
			dlqArn := attrs.Attributes[string(types.QueueAttributeNameQueueArn)]
			for ctx.Err() == nil {
				out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 20,
					MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
				if crashed(err) {
					return
				} else if err != nil {
					continue
				}
				if len(out.Messages) == 0 {
					// Anything in the DLQ goes back to the queue.
					d, err := api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &dlqURL,
						AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages}})
					if err == nil && d.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessages)] != "0" {
						_, _ = api.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: &dlqArn})
					}
					continue
				}
				for _, m := range out.Messages {
					body := aws.ToString(m.Body)
					// The first try of each job fails: it goes to the DLQ
					// on its next receive.
					tried := false
					if env.Commit("try "+body, func(tx *sqsqtest.Tx) error {
						_, tried = tx.Get(body)
						tx.Put(body, "tried")
						if tried {
							tx.Effect("done:" + body)
						}
						return nil
					}) != nil || !tried {
						continue
					}
					if _, err := api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: audit, MessageBody: aws.String("done " + body)}); err != nil {
						continue
					}
					_, _ = api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: m.ReceiptHandle})
				}
			}
		},
		Invariants: []sqsqtest.Invariant{
			sqsqtest.NothingLeft(),
			{Name: "every job done and audited", Check: func(r *sqsqtest.Result) error {
				for _, b := range r.Bodies {
					if r.Ledger.Effects["done:"+b] == 0 {
						return fmt.Errorf("%s never done", b)
					}
					if !slices.Contains(r.Sent["audit"], "done "+b) {
						return fmt.Errorf("%s not audited: %v", b, r.Sent)
					}
				}
				if _, ok := r.Queues["audit"]; !ok {
					return fmt.Errorf("the created queue is not among the run's: %v", r.Queues)
				}
				if r.Queues["audit"].Visible != len(r.Sent["audit"]) {
					return fmt.Errorf("audit holds %d messages, %d were sent", r.Queues["audit"].Visible, len(r.Sent["audit"]))
				}
				return nil
			}},
		},
	}
	redrives := 0
	for seed := uint64(1); seed <= 50; seed++ {
		o := s.Run(sqsqtest.Seed(seed))
		if o.Err != nil {
			t.Fatalf("seed %d: %v", seed, o)
		}
		if !hasStep(o.Timeline, "c1 create queue audit") {
			t.Fatalf("seed %d: no create step:\n%v", seed, o)
		}
		if hasStep(o.Timeline, "c1 start move task from queue-dlq") {
			redrives++
			if o.Ledger.Redriven == 0 {
				t.Errorf("seed %d: a move task moved nothing: %+v", seed, o.Ledger)
			}
		}
		if hasStep(o.Timeline, "redrive(") {
			t.Errorf("seed %d: the kit redrove, not the consumer:\n%v", seed, o)
		}
	}
	if redrives == 0 {
		t.Fatal("the consumer never redrove in 50 runs")
	}
}

// everyOperation calls each of the SDK's 23 operations once, through the
// kit, on a queue it creates and on the scenario's dead-letter queue, and
// leaves a message of its queue in flight when it purges the queue, and
// another when it deletes it. It panics (the run fails) on an error it does not expect.
func everyOperation(ctx context.Context, env *sqsqtest.Env) {
	api, dlqURL := suite.API(env.SQS()), env.URL("queue-dlq")
	must := func(_ any, err error) {
		if crashed(err) {
			panic("no crash expected")
		}
		if err != nil {
			panic(err)
		}
	}
	if _, err := api.PurgeQueue(ctx, nil); err == nil {
		panic("a nil input was accepted")
	}
	created, err := api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("scratch")})
	must(created, err)
	url := created.QueueUrl
	if env.URL("scratch") != aws.ToString(url) {
		panic("the created queue is not one of the run's")
	}
	must(api.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("scratch")}))
	must(api.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: url, Attributes: map[string]string{"VisibilityTimeout": "60"}}))
	must(api.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: url, Tags: map[string]string{"env": "test"}}))
	must(api.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: url}))
	must(api.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: url, TagKeys: []string{"env"}}))
	must(api.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: url, Label: aws.String("p1"),
		AWSAccountIds: []string{"111122223333"}, Actions: []string{"SendMessage"}}))
	must(api.RemovePermission(ctx, &sqs.RemovePermissionInput{QueueUrl: url, Label: aws.String("p1")}))
	must(api.ListQueues(ctx, &sqs.ListQueuesInput{QueueNamePrefix: aws.String("scr")}))
	must(api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("n1")}))
	must(api.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: url, Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("2"), MessageBody: aws.String("n2")}, {Id: aws.String("3"), MessageBody: aws.String("n3")}}}))
	var msgs []types.Message
	for len(msgs) < 3 {
		out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10})
		must(out, err)
		msgs = append(msgs, out.Messages...)
	}
	must(api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: url, ReceiptHandle: msgs[0].ReceiptHandle, VisibilityTimeout: 90}))
	must(api.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: url, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
		{Id: aws.String("1"), ReceiptHandle: msgs[1].ReceiptHandle, VisibilityTimeout: 90}}}))
	must(api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: msgs[0].ReceiptHandle}))
	must(api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: url, Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("1"), ReceiptHandle: msgs[1].ReceiptHandle}}}))
	attrs, err := api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &dlqURL,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	must(attrs, err)
	dlqArn := attrs.Attributes[string(types.QueueAttributeNameQueueArn)]
	must(api.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: &dlqURL}))
	task, err := api.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: &dlqArn})
	must(task, err)
	// The DLQ is empty: the task has completed by now, so the cancel fails.
	if _, err := api.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: task.TaskHandle}); crashed(err) {
		panic("no crash expected")
	}
	must(api.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: &dlqArn}))
	must(api.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: url})) // n3 is in flight
	must(api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("n4")}))
	for got := 0; got == 0; {
		out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url})
		must(out, err)
		got = len(out.Messages)
	}
	must(api.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: url})) // n4 is in flight
	if env.URL("scratch") != "" {
		panic("a deleted queue is still one of the run's")
	}
}

// Every operation is one step under its name, in the order the consumer
// made them, and the in-flight messages of the purged, then deleted, queue
// leave nothing for the clock to advance to.
func TestSQSEveryOperationIsAStep(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{
		Messages: []string{"m"}, Consumers: 1, MaxReceiveCount: 1,
		Loop: func(ctx context.Context, env *sqsqtest.Env) {
			everyOperation(ctx, env)
			api, url := env.SQS(), env.QueueURL()
			for ctx.Err() == nil {
				out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 20})
				if crashed(err) {
					return
				}
				for _, m := range out.Messages {
					_, _ = api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: m.ReceiptHandle})
				}
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.NothingLeft(), {Name: "the scratch queue is gone", Check: func(r *sqsqtest.Result) error {
			if _, ok := r.Queues["scratch"]; ok {
				return errors.New("scratch is still among the run's queues")
			}
			if !slices.Equal(r.Sent["scratch"], []string{"n1", "n2", "n3", "n4"}) {
				return fmt.Errorf("sent %v", r.Sent)
			}
			return nil
		}}},
	}
	want := []string{
		"c1 purge queue: MissingParameter",
		"c1 create queue scratch", "c1 get URL of scratch", "c1 set attributes of scratch (VisibilityTimeout)",
		"c1 tag queue scratch (env)", "c1 list tags of scratch", "c1 untag queue scratch (env)",
		"c1 add permission p1 to scratch", "c1 remove permission p1 from scratch", "c1 list queues scr*",
		`c1 send("n1") to scratch`, `c1 send batch("n2","n3") to scratch`, "by c1",
		`c1 extend("n1", 90s)`, `c1 extend batch("n2", 90s)`, `c1 delete("n1")`, `c1 delete batch("n2")`,
		"c1 get attributes of queue-dlq", "c1 list dead-letter sources of queue-dlq",
		"c1 start move task from queue-dlq", "c1 cancel move task", "c1 list move tasks of queue-dlq",
		"c1 purge queue scratch", `c1 send("n4") to scratch`, `receive("n4") by c1`, "c1 delete queue scratch",
	}
	for seed := uint64(1); seed <= 20; seed++ {
		o := s.Run(sqsqtest.Seed(seed))
		if o.Err != nil {
			t.Fatalf("seed %d: %v", seed, o)
		}
		i := 0
		for _, e := range o.Timeline {
			if i < len(want) && strings.HasPrefix(e.Text, "c1 ") && !strings.Contains(e.Text, want[i]) {
				t.Fatalf("seed %d: step %q, want %q next:\n%v", seed, e.Text, want[i], o)
			}
			if i < len(want) && strings.Contains(e.Text, want[i]) {
				i++
			}
			if strings.HasPrefix(e.Text, `visibility expired("`) {
				t.Fatalf("seed %d: %s: a message of a purged or deleted queue expired:\n%v", seed, e.Text, o)
			}
		}
		if i < len(want) {
			t.Fatalf("seed %d: no step %q:\n%v", seed, want[i], o)
		}
	}
}

// Msg.Message is the SDK's message of m, each call its own: writing
// through one message's pointers changes no other.
func TestMsgAsSDKMessage(t *testing.T) {
	t.Parallel()
	m := sqsqtest.Msg{MessageId: "id", ReceiptHandle: "rh", Body: "body", Attributes: map[string]string{"SenderId": "me"}}
	a, b := m.Message(), m.Message()
	want := types.Message{MessageId: aws.String("id"), ReceiptHandle: aws.String("rh"), Body: aws.String("body"),
		Attributes: map[string]string{"SenderId": "me"}}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("Message() = %+v, want %+v", a, want)
	}
	*a.Body, *a.MessageId, *a.ReceiptHandle = "x", "y", "z"
	if *b.Body != "body" || *b.MessageId != "id" || *b.ReceiptHandle != "rh" || m.Body != "body" {
		t.Errorf("a write through one message reached another: %q %q %q, m.Body %q", *b.Body, *b.MessageId, *b.ReceiptHandle, m.Body)
	}
}
