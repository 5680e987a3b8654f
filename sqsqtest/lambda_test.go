package sqsqtest_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/sqsq/sqsq/sqsqtest"
)

// lambdaCharge commits the charge of order, once per order with an inbox.
func lambdaCharge(env *sqsqtest.Env, order string, inbox bool) error {
	return env.Commit("charge "+order, func(tx *sqsqtest.Tx) error {
		if _, seen := tx.Get(order); inbox && seen {
			tx.Suppress(order)
			return nil
		}
		tx.Put(order, "charged")
		tx.Effect("charge:" + order)
		return nil
	})
}

func lambdaKey(order string) string { return "charge:" + order }

// lambdaFirst reports whether rec is delivered for the first time.
func lambdaFirst(rec events.SQSMessage) bool { return rec.Attributes["ApproximateReceiveCount"] == "1" }

// lambdaFailure names rec in a partial batch response.
func lambdaFailure(rec events.SQSMessage) events.SQSBatchItemFailure {
	return events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId}
}

// partialLambda is a correct payments function: it works for a drawn while
// (which may outlast its timeout), charges each order through an inbox,
// and reports the records it could not charge (a declined payment is
// drawn). On a FIFO queue it stops at the first failure and reports the
// rest of the batch, as Lambda asks.
func partialLambda(fifo bool) func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
	return func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
		return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			env.WorkBetween(0, 4*time.Second)
			var resp events.SQSEventResponse
			for i, rec := range ev.Records {
				err := error(nil)
				if lambdaFirst(rec) && env.Draw("decline "+rec.Body, 4) == 3 {
					err = errors.New("declined")
				}
				if err == nil {
					err = lambdaCharge(env, rec.Body, true)
				}
				if err != nil && fifo {
					for _, rest := range ev.Records[i:] {
						resp.BatchItemFailures = append(resp.BatchItemFailures, lambdaFailure(rest))
					}
					break
				}
				if err != nil {
					resp.BatchItemFailures = append(resp.BatchItemFailures, lambdaFailure(rec))
				}
			}
			return resp, nil
		}
	}
}

func lambdaScenario(fifo bool) sqsqtest.Scenario {
	s := sqsqtest.Scenario{
		Messages:        []string{"order-1", "order-2", "order-3", "order-4"},
		MaxReceiveCount: 3, Redrive: true,
		Faults: sqsqtest.AllFaults(5), Crash: 10,
		Lambda:       partialLambda(fifo),
		LambdaConfig: sqsqtest.LambdaConfig{ReportBatchItemFailures: true},
		Invariants: []sqsqtest.Invariant{
			sqsqtest.EffectOnce(lambdaKey),
			sqsqtest.NothingLeft(),
		},
	}
	if fifo {
		s.FIFO = true
		s.GroupOf = func(order string) string {
			if strings.HasSuffix(order, "1") || strings.HasSuffix(order, "3") {
				return "odd"
			}
			return "even"
		}
		s.Invariants = append(s.Invariants, sqsqtest.GroupOrder(lambdaKey))
	}
	return s
}

// A correct function — idempotent, partial batch responses by MessageId —
// passes hundreds of schedules of faults, crashes, timeouts, declines,
// dead-letter moves and redrives, on standard and FIFO queues, with and
// without a batching window.
func TestLambdaCorrectFunctionPassesSeeds(t *testing.T) {
	t.Parallel()
	window := lambdaScenario(false)
	window.LambdaConfig.BatchSize, window.LambdaConfig.MaximumBatchingWindow = 20, 2*time.Second
	for name, s := range map[string]sqsqtest.Scenario{
		"standard": lambdaScenario(false),
		"window":   window,
		"fifo":     lambdaScenario(true),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var timeouts, invocations int
			for seed := uint64(1); seed <= 500; seed++ {
				o := s.Run(sqsqtest.Seed(seed))
				if o.Err != nil {
					t.Fatalf("seed %d: %v", seed, o)
				}
				for _, e := range o.Timeline {
					timeouts += strings.Count(e.Text, "timed out")
					invocations += strings.Count(e.Text, "lambda invokes")
				}
			}
			if timeouts == 0 || invocations < 1000 {
				t.Errorf("%d invocations, %d timeouts in 500 runs", invocations, timeouts)
			}
		})
	}
}

// lambdaLucky is the one-consumer run of the lucky schedule: every message is
// sent, then one invocation gets them all.
func lambdaLucky(t *testing.T, s sqsqtest.Scenario) *sqsqtest.Outcome {
	t.Helper()
	s.Consumers = 1
	o := s.Run(sqsqtest.Lucky())
	if o.Err != nil {
		t.Fatalf("%v", o)
	}
	return o
}

func lambdaHasLine(o *sqsqtest.Outcome, text string) bool {
	for _, e := range o.Timeline {
		if strings.Contains(e.Text, text) {
			return true
		}
	}
	return false
}

// Without ReportBatchItemFailures an error fails the whole batch: the
// records charged before it come back and are charged again.
func TestLambdaErrorFailsTheWholeBatch(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{
		Messages: []string{"order-1", "order-2", "order-3"},
		Lambda: func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
			return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
				for _, rec := range ev.Records {
					if rec.Body == "order-2" && lambdaFirst(rec) {
						return events.SQSEventResponse{}, errors.New("payment declined")
					}
					if err := lambdaCharge(env, rec.Body, false); err != nil {
						return events.SQSEventResponse{}, err
					}
				}
				return events.SQSEventResponse{}, nil
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.EffectOnce(lambdaKey)},
	}
	o := lambdaLucky(t, sqsqtest.Scenario{Messages: s.Messages, Lambda: s.Lambda})
	if !lambdaHasLine(o, "c1 returned an error: payment declined: batch failed, A,B,C back") {
		t.Errorf("no failed batch:\n%v", o)
	}
	if o.Ledger.Deliveries["A"] != 2 || o.Ledger.Deliveries["C"] != 2 || o.Ledger.Effects["charge:order-1"] != 2 {
		t.Errorf("A and C should be redelivered, A charged twice: %+v\n%v", o.Ledger, o)
	}
	f := s.Find(1, 200)
	if f.Runs == 0 || !strings.Contains(f.Shrunk.Err.Error(), "committed 2 times") {
		t.Fatalf("the double charge was not found: %v", f)
	}
}

// With ReportBatchItemFailures the mapping deletes what the response does
// not name; a response naming something that is not a MessageId of the
// batch fails the whole batch; without ReportBatchItemFailures a response
// is ignored.
func TestLambdaPartialBatchResponse(t *testing.T) {
	t.Parallel()
	respond := func(id func(i int, rec events.SQSMessage) string) func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
		return func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
			return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
				var resp events.SQSEventResponse
				for i, rec := range ev.Records {
					if rec.Body == "order-2" && lambdaFirst(rec) {
						resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id(i, rec)})
						continue
					}
					if err := lambdaCharge(env, rec.Body, false); err != nil {
						return resp, err
					}
				}
				return resp, nil
			}
		}
	}
	byID := respond(func(_ int, rec events.SQSMessage) string { return rec.MessageId })
	messages := []string{"order-1", "order-2", "order-3"}
	on := sqsqtest.LambdaConfig{ReportBatchItemFailures: true}

	t.Run("DeletesOnlyTheSuccesses", func(t *testing.T) {
		t.Parallel()
		o := lambdaLucky(t, sqsqtest.Scenario{Messages: messages, Lambda: byID, LambdaConfig: on})
		for _, line := range []string{"c1 returned batchItemFailures B: they stay in flight", "lambda delete batch(A,C)",
			"visibility expired(B)", "lambda delete batch(B)"} {
			if !lambdaHasLine(o, line) {
				t.Errorf("no %q:\n%v", line, o)
			}
		}
		if d := o.Ledger.Deliveries; d["A"] != 1 || d["B"] != 2 || d["C"] != 1 {
			t.Errorf("deliveries %v:\n%v", d, o)
		}
		for _, order := range messages {
			if n := o.Ledger.Effects[lambdaKey(order)]; n != 1 {
				t.Errorf("%s charged %d times", order, n)
			}
		}
	})
	for name, id := range map[string]func(int, events.SQSMessage) string{
		"IndexIsNotAMessageId":  func(i int, _ events.SQSMessage) string { return fmt.Sprint(i) },
		"EmptyItemIdentifier":   func(int, events.SQSMessage) string { return "" },
		"ReceiptHandleIsNotOne": func(_ int, rec events.SQSMessage) string { return rec.ReceiptHandle },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := lambdaLucky(t, sqsqtest.Scenario{Messages: messages, Lambda: respond(id), LambdaConfig: on})
			if !lambdaHasLine(o, "not a MessageId of the batch: batch failed, A,B,C back") {
				t.Errorf("the invalid response did not fail the batch:\n%v", o)
			}
			if d := o.Ledger.Deliveries; d["A"] != 2 || d["C"] != 2 {
				t.Errorf("deliveries %v:\n%v", d, o)
			}
		})
	}
	t.Run("IgnoredWithoutReportBatchItemFailures", func(t *testing.T) {
		t.Parallel()
		o := lambdaLucky(t, sqsqtest.Scenario{Messages: messages, Lambda: byID})
		if !lambdaHasLine(o, "c1 returned 1 batchItemFailures, ignored: ReportBatchItemFailures is off") ||
			!lambdaHasLine(o, "lambda delete batch(A,B,C)") {
			t.Errorf("the response was not ignored:\n%v", o)
		}
		if o.Ledger.Deliveries["B"] != 1 || o.Ledger.Effects["charge:order-2"] != 0 {
			t.Errorf("B should be deleted unprocessed: %+v", o.Ledger)
		}
	})
	t.Run("FailedDeleteRedelivers", func(t *testing.T) {
		t.Parallel()
		// The mapping's deletes meet the queue's faults: a failed one
		// leaves the message to come back.
		s := sqsqtest.Scenario{Messages: messages[:1], Lambda: byID, LambdaConfig: on,
			Faults: sqsqtest.Rates{sqsqtest.FailDelete: 30}, Invariants: []sqsqtest.Invariant{sqsqtest.EffectOnce(lambdaKey)}}
		f := s.Find(1, 300)
		if f.Runs == 0 || !lambdaHasLine(f.Shrunk, "lambda delete batch(A): failed for A ServiceUnavailable") {
			t.Fatalf("no double charge after a failed delete: %v", f)
		}
	})
}

// On a FIFO queue a function that stops at the first failure and reports
// the rest keeps each group's order; one that goes on after a failure
// gets the later records deleted (Lambda deletes what is not reported)
// and the group's order broken.
func TestLambdaFIFOGroupOrder(t *testing.T) {
	t.Parallel()
	s := lambdaScenario(true)
	s.Faults, s.Crash, s.MaxReceiveCount, s.Redrive = nil, 0, 0, false
	s.Seeds(t, 1, 300)

	buggy := s
	buggy.Lambda = func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
		return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			var resp events.SQSEventResponse
			for _, rec := range ev.Records {
				if lambdaFirst(rec) && env.Draw("decline "+rec.Body, 4) == 3 {
					resp.BatchItemFailures = append(resp.BatchItemFailures, lambdaFailure(rec))
					continue // the bug: the group goes on
				}
				if err := lambdaCharge(env, rec.Body, true); err != nil {
					resp.BatchItemFailures = append(resp.BatchItemFailures, lambdaFailure(rec))
				}
			}
			return resp, nil
		}
	}
	f := buggy.Find(1, 500)
	if f.Runs == 0 {
		t.Fatal("the broken group order was not found")
	}
	if !strings.Contains(f.Shrunk.Err.Error(), "committed before") || !lambdaHasLine(f.Shrunk, "is deleted though") {
		t.Errorf("want a group order failure with the mapping's note: %v", f)
	}
}

// An invocation that outlives the function timeout is killed: its context
// is done with DeadlineExceeded, its later kit calls fail with ErrCrashed
// and change nothing, the batch fails, and a fresh environment (the
// function's init again) takes the slot.
func TestLambdaTimeoutFencesTheInvocation(t *testing.T) {
	t.Parallel()
	inits := 0
	var seen []error
	o := lambdaLucky(t, sqsqtest.Scenario{
		Messages:     []string{"order-1"},
		LambdaConfig: sqsqtest.LambdaConfig{Timeout: 3 * time.Second},
		Lambda: func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
			inits++
			return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
				if d, ok := ctx.Deadline(); !ok || d != env.Now().Add(3*time.Second) {
					seen = append(seen, fmt.Errorf("deadline %v, %v", d, ok))
				}
				for _, rec := range ev.Records {
					if lambdaFirst(rec) {
						env.Work(5 * time.Second) // longer than the timeout
						seen = append(seen, ctx.Err())
					}
					err := lambdaCharge(env, rec.Body, false)
					if lambdaFirst(rec) {
						seen = append(seen, err)
					}
				}
				return events.SQSEventResponse{}, nil
			}
		},
	})
	if !lambdaHasLine(o, "c1 timed out after 3s: killed, batch failed, A back") {
		t.Errorf("no timeout:\n%v", o)
	}
	if len(seen) != 2 || seen[0] != context.DeadlineExceeded || seen[1] != sqsqtest.ErrCrashed {
		t.Errorf("the killed invocation saw %v", seen)
	}
	if o.Ledger.Effects["charge:order-1"] != 1 || o.Ledger.Deliveries["A"] != 2 || inits != 2 {
		t.Errorf("effects %v, deliveries %v, %d inits:\n%v", o.Ledger.Effects, o.Ledger.Deliveries, inits, o)
	}
	if o.Timeline[len(o.Timeline)-1].At < 30*time.Second {
		t.Errorf("A came back before its visibility timeout:\n%v", o)
	}
}

// A function timeout longer than the queue's visibility timeout (AWS asks
// for a visibility of six times the timeout) lets the message come back
// while the first invocation still runs: a second invocation gets it.
func TestLambdaTimeoutAboveVisibilityDuplicates(t *testing.T) {
	t.Parallel()
	s := sqsqtest.Scenario{
		Messages:     []string{"order-1"},
		Visibility:   30 * time.Second,
		LambdaConfig: sqsqtest.LambdaConfig{Timeout: 60 * time.Second},
		Lambda: func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
			return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
				if lambdaFirst(ev.Records[0]) {
					env.Work(45 * time.Second) // a slow first try
				}
				for _, rec := range ev.Records {
					if err := lambdaCharge(env, rec.Body, false); err != nil {
						return events.SQSEventResponse{}, err
					}
				}
				return events.SQSEventResponse{}, nil
			}
		},
		Invariants: []sqsqtest.Invariant{sqsqtest.NoConcurrentProcessing()},
	}
	o := s.Run(sqsqtest.Lucky())
	if o.Err == nil || !strings.Contains(o.Err.Error(), "two consumers at once") {
		t.Errorf("want a concurrent processing failure, got %v", o)
	}
	if o.Ledger.Concurrent != 1 || o.Ledger.Deliveries["A"] != 2 || o.Ledger.Effects["charge:order-1"] != 2 {
		t.Errorf("ledger %+v:\n%v", o.Ledger, o)
	}
	var order []string
	for _, e := range o.Timeline {
		for _, line := range []string{"lambda invokes c1 with A", "visibility expired(A)", "lambda invokes c2 with A",
			"c2 handles A while c1 still does", "charge order-1"} {
			if strings.Contains(e.Text, line) {
				order = append(order, fmt.Sprintf("t=%v %s", e.At, line))
			}
		}
	}
	want := []string{"t=0s lambda invokes c1 with A", "t=30s visibility expired(A)", "t=30s c2 handles A while c1 still does",
		"t=30s lambda invokes c2 with A", "t=30s charge order-1", "t=45s charge order-1"}
	if strings.Join(order, "; ") != strings.Join(want, "; ") {
		t.Errorf("timeline:\n%s\nwant\n%s\n%v", strings.Join(order, "\n"), strings.Join(want, "\n"), o)
	}
}

// A crash drawn before a kit call of the handler kills the invocation:
// the batch fails and nothing of it is deleted.
func TestLambdaCrashFailsTheBatch(t *testing.T) {
	t.Parallel()
	s := lambdaScenario(false)
	s.Faults, s.MaxReceiveCount, s.Redrive, s.Crash = nil, 0, false, 30
	for seed := uint64(1); seed <= 300; seed++ {
		o := s.Run(sqsqtest.Seed(seed))
		if o.Err != nil {
			t.Fatalf("seed %d: %v", seed, o)
		}
		for i, e := range o.Timeline {
			if !strings.Contains(e.Text, "crashed before commit charge") {
				continue
			}
			c := strings.Fields(e.Text)[0]
			for _, later := range o.Timeline[i+1:] {
				if strings.HasPrefix(later.Text, c+"'s invocation crashed: batch failed") {
					return
				}
				if strings.HasPrefix(later.Text, "lambda delete") {
					break
				}
			}
		}
	}
	t.Fatal("no crashed invocation failed its batch in 300 runs")
}

// A panic is an invocation error, and the environment exits: the run goes
// on and the batch comes back.
func TestLambdaPanicFailsTheBatch(t *testing.T) {
	t.Parallel()
	inits := 0
	o := lambdaLucky(t, sqsqtest.Scenario{
		Messages: []string{"order-1"},
		Lambda: func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
			inits++
			return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
				if lambdaFirst(ev.Records[0]) {
					panic("nil map")
				}
				return events.SQSEventResponse{}, lambdaCharge(env, ev.Records[0].Body, false)
			}
		},
	})
	if !lambdaHasLine(o, "c1 panicked: nil map: batch failed, A back") || o.Ledger.Effects["charge:order-1"] != 1 || inits != 2 {
		t.Errorf("%d inits:\n%v", inits, o)
	}
}

// The event is the one Lambda builds: records in receive order, with the
// system attributes Lambda passes, the body's MD5, the source ARN and
// region, and a Lambda context.
func TestLambdaEvent(t *testing.T) {
	t.Parallel()
	for _, fifo := range []bool{false, true} {
		var got events.SQSEvent
		var requestID string
		s := sqsqtest.Scenario{
			Messages: []string{"order-1", "order-2"}, FIFO: fifo,
			Lambda: func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
				return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
					got = ev
					if lc, ok := lambdacontext.FromContext(ctx); ok {
						requestID = lc.AwsRequestID
					}
					return events.SQSEventResponse{}, nil
				}
			},
		}
		lambdaLucky(t, s)
		if len(got.Records) != 2 || got.Records[0].Body != "order-1" || got.Records[1].Body != "order-2" || requestID == "" {
			t.Fatalf("fifo %v: event %+v, request id %q", fifo, got, requestID)
		}
		want := []string{"ApproximateReceiveCount", "SentTimestamp", "SenderId", "ApproximateFirstReceiveTimestamp"}
		if fifo {
			want = append(want, "MessageGroupId", "MessageDeduplicationId", "SequenceNumber")
		}
		for _, rec := range got.Records {
			sum := md5.Sum([]byte(rec.Body))
			arn := strings.Split(rec.EventSourceARN, ":")
			if rec.EventSource != "aws:sqs" || len(arn) != 6 || arn[2] != "sqs" || rec.AWSRegion != arn[3] ||
				rec.Md5OfBody != hex.EncodeToString(sum[:]) || rec.MessageId == "" || rec.ReceiptHandle == "" {
				t.Errorf("fifo %v: record %+v", fifo, rec)
			}
			for _, k := range want {
				if rec.Attributes[k] == "" {
					t.Errorf("fifo %v: no %s in %v", fifo, k, rec.Attributes)
				}
			}
			if len(rec.Attributes) != len(want) {
				t.Errorf("fifo %v: attributes %v, want %v", fifo, rec.Attributes, want)
			}
		}
	}
}

// With a batching window the mapping polls until the batch is full or the
// window ends: a lone message waits for the window, and messages sent
// meanwhile join the batch.
func TestLambdaBatchingWindow(t *testing.T) {
	t.Parallel()
	nop := func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
		return func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{}, nil
		}
	}
	cfg := sqsqtest.LambdaConfig{BatchSize: 20, MaximumBatchingWindow: 5 * time.Second}
	o := lambdaLucky(t, sqsqtest.Scenario{Messages: []string{"a"}, Lambda: nop, LambdaConfig: cfg})
	var at time.Duration = -1
	for _, e := range o.Timeline {
		if e.Text == "lambda invokes c1 with A" {
			at = e.At
		}
	}
	if at != 5*time.Second {
		t.Errorf("invoked at %v, want at the end of the window:\n%v", at, o)
	}

	// "If your batch window is greater than 0, and (batch window) +
	// (function timeout) > (queue visibility timeout), then your effective
	// queue visibility timeout is (batch window) + (function timeout) +
	// 30s": a 28 s invocation after a 5 s window, with a 30 s timeout and
	// a 30 s visibility, is not duplicated.
	slow := func(env *sqsqtest.Env) sqsqtest.LambdaHandler {
		return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			env.Work(28 * time.Second)
			return events.SQSEventResponse{}, lambdaCharge(env, ev.Records[0].Body, false)
		}
	}
	o = sqsqtest.Scenario{Messages: []string{"a"}, Visibility: 30 * time.Second, Lambda: slow,
		LambdaConfig: sqsqtest.LambdaConfig{MaximumBatchingWindow: 5 * time.Second, Timeout: 30 * time.Second}}.Run(sqsqtest.Lucky())
	if o.Err != nil || o.Ledger.Deliveries["A"] != 1 || o.Ledger.Effects["charge:a"] != 1 || lambdaHasLine(o, "visibility expired") {
		t.Errorf("the window did not extend the visibility timeout:\n%v", o)
	}

	s := sqsqtest.Scenario{Messages: []string{"a", "b", "c", "d", "e"}, Consumers: 1, Lambda: nop, LambdaConfig: cfg}
	for seed := uint64(1); seed <= 200; seed++ {
		o := s.Run(sqsqtest.Seed(seed))
		for i, e := range o.Timeline {
			if strings.HasPrefix(e.Text, "receive(") && strings.Contains(e.Text, "by c1 (batching window)") {
				for _, later := range o.Timeline[i+1:] {
					if strings.HasPrefix(later.Text, "lambda invokes c1 with ") && strings.Count(later.Text, ",") >= 1 {
						return
					}
				}
			}
		}
	}
	t.Fatal("no batch gathered over a window in 200 runs")
}

// What Lambda would refuse to create is refused.
func TestLambdaConfigChecked(t *testing.T) {
	t.Parallel()
	nop := func(env *sqsqtest.Env) sqsqtest.LambdaHandler { return nil }
	for _, c := range []struct {
		fifo bool
		cfg  sqsqtest.LambdaConfig
		want string
	}{
		{false, sqsqtest.LambdaConfig{BatchSize: 11}, "at least 1s"},
		{false, sqsqtest.LambdaConfig{BatchSize: 10001, MaximumBatchingWindow: time.Second}, "at most 10,000"},
		{true, sqsqtest.LambdaConfig{BatchSize: 11, MaximumBatchingWindow: time.Second}, "at most 10 on a FIFO queue"},
		{true, sqsqtest.LambdaConfig{MaximumBatchingWindow: time.Second}, "not supported for FIFO"},
		{false, sqsqtest.LambdaConfig{MaximumBatchingWindow: 301 * time.Second}, "from 0 to 5m"},
		{false, sqsqtest.LambdaConfig{MaximumBatchingWindow: 1500 * time.Millisecond}, "whole seconds"},
		{false, sqsqtest.LambdaConfig{Timeout: 901 * time.Second}, "from 1s to 15m"},
	} {
		o := sqsqtest.Scenario{Messages: []string{"a"}, FIFO: c.fifo, Lambda: nop, LambdaConfig: c.cfg}.Run(sqsqtest.Lucky())
		if o.Err == nil || !strings.Contains(o.Err.Error(), c.want) {
			t.Errorf("%+v (FIFO %v): got %v, want %q", c.cfg, c.fifo, o.Err, c.want)
		}
	}
	two := sqsqtest.Scenario{Messages: []string{"a"}, Lambda: nop,
		Consumer: func(*sqsqtest.Env) sqsqtest.Handler { return nil }}
	if o := two.Run(sqsqtest.Lucky()); o.Err == nil || !strings.Contains(o.Err.Error(), "exactly one of") {
		t.Errorf("two shapes accepted: %v", o.Err)
	}
}
