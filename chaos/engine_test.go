package chaos_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/chaos"
	"github.com/sqsq/sqsq/sqshttp"
)

// newEngine is an Engine with cfg in force.
func newEngine(t testing.TB, cfg chaos.Config) *chaos.Engine {
	t.Helper()
	e, err := chaos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// call is a request to the default namespace.
func call(op, queue string) sqshttp.Call {
	return sqshttp.Call{Operation: op, Queue: queue, Account: "000000000000", Region: "us-east-1"}
}

// fired reports whether the Engine answered c with an error.
func fired(e *chaos.Engine, c sqshttp.Call) bool {
	return e.Intercept(context.Background(), c).Code != ""
}

// A rule matches by operation, queue (name or glob), account and region;
// an empty field matches anything.
func TestMatching(t *testing.T) {
	t.Parallel()
	other := sqshttp.Call{Operation: "SendMessage", Queue: "orders", Account: "111111111111", Region: "eu-west-1"}
	for _, tc := range []struct {
		name   string
		rule   chaos.Rule
		call   sqshttp.Call
		want   bool
		reason string
	}{
		{"any", chaos.Rule{}, call("SendMessage", "orders"), true, "an empty rule matches every call"},
		{"any, no queue", chaos.Rule{}, call("ListQueues", ""), true, ""},
		{"operation", chaos.Rule{Operation: "SendMessage"}, call("SendMessage", "orders"), true, ""},
		{"other operation", chaos.Rule{Operation: "SendMessage"}, call("SendMessageBatch", "orders"), false, "operations match exactly"},
		{"star operation", chaos.Rule{Operation: "*"}, call("PurgeQueue", "orders"), true, `"*" is any operation`},
		{"queue", chaos.Rule{Queue: "orders"}, call("SendMessage", "orders"), true, ""},
		{"queue exact", chaos.Rule{Queue: "orders"}, call("SendMessage", "orders-dlq"), false, "a name without * is exact"},
		{"queue prefix", chaos.Rule{Queue: "orders*"}, call("SendMessage", "orders-dlq"), true, ""},
		{"queue prefix other", chaos.Rule{Queue: "orders*"}, call("SendMessage", "invoices"), false, ""},
		{"prefix, no queue", chaos.Rule{Queue: "orders*"}, call("ListQueues", ""), false, "a pattern needs a queue"},
		{"glob", chaos.Rule{Queue: "*-dlq.fifo"}, call("SendMessage", "orders-dlq.fifo"), true, "path.Match"},
		{"glob class", chaos.Rule{Queue: "q[0-9]"}, call("SendMessage", "q7"), true, ""},
		{"glob class other", chaos.Rule{Queue: "q[0-9]"}, call("SendMessage", "qx"), false, ""},
		{"star queue, no queue", chaos.Rule{Queue: "*"}, call("ListQueues", ""), true, `"*" is any, like ""`},
		{"account", chaos.Rule{Account: "000000000000"}, call("SendMessage", "orders"), true, ""},
		{"other account", chaos.Rule{Account: "000000000000"}, other, false, ""},
		{"region", chaos.Rule{Region: "eu-west-1"}, other, true, ""},
		{"other region", chaos.Rule{Region: "eu-west-1"}, call("SendMessage", "orders"), false, ""},
		{"all fields", chaos.Rule{Operation: "SendMessage", Queue: "ord*", Account: "111111111111", Region: "eu-west-1"}, other, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.rule.Error = &chaos.ErrorSpec{Code: "ServiceUnavailable"}
			e := newEngine(t, chaos.Config{Rules: []chaos.Rule{tc.rule}})
			if got := fired(e, tc.call); got != tc.want {
				t.Errorf("rule %+v on %+v: fired %v, want %v (%s)", tc.rule, tc.call, got, tc.want, tc.reason)
			}
		})
	}
}

// A fault rule matches the core's calls by the operation it names; a
// rule naming DeleteMessage or DeleteMessageBatch matches the core's one
// delete operation, which covers both.
func TestFaultMatching(t *testing.T) {
	t.Parallel()
	c := func(op sqsq.Op, queue string) sqsq.Call {
		return sqsq.Call{Op: op, Queue: queue, Account: "000000000000", Region: "us-east-1"}
	}
	for _, tc := range []struct {
		name string
		rule chaos.Rule
		call sqsq.Call
		want bool
	}{
		{"any op, receive", chaos.Rule{}, c(sqsq.OpReceive, "q"), true},
		{"any op, delete", chaos.Rule{}, c(sqsq.OpDelete, "q"), true},
		{"any op, visibility", chaos.Rule{}, c(sqsq.OpChangeVisibility, "q"), true},
		{"DeleteMessage", chaos.Rule{Operation: "DeleteMessage"}, c(sqsq.OpDelete, "q"), true},
		{"DeleteMessageBatch", chaos.Rule{Operation: "DeleteMessageBatch"}, c(sqsq.OpDelete, "q"), true},
		{"DeleteMessage, receive", chaos.Rule{Operation: "DeleteMessage"}, c(sqsq.OpReceive, "q"), false},
		{"visibility batch", chaos.Rule{Operation: "ChangeMessageVisibilityBatch"}, c(sqsq.OpChangeVisibility, "q"), true},
		{"queue", chaos.Rule{Queue: "a*"}, c(sqsq.OpDelete, "b"), false},
	} {
		tc.rule.Fault = chaos.KindLostResponse
		e := newEngine(t, chaos.Config{Rules: []chaos.Rule{tc.rule}})
		if got := e.LoseResponse(tc.call); got != tc.want {
			t.Errorf("%s: LoseResponse = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// With a fixed seed, 10,000 decisions at p = 0.2 fire about 2,000 times;
// p = 0 never fires and p = 1 always does. The seed fixes the count, so
// the test cannot flake; any seed would do as well.
func TestProbability(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p        float64
		min, max int
	}{{0, 0, 0}, {0.2, 1800, 2200}, {0.5, 4800, 5200}, {1, 10000, 10000}} {
		for _, seed := range []uint64{0, 1, 42, 1 << 63} {
			e := newEngine(t, chaos.Config{Seed: seed, Rules: []chaos.Rule{{Probability: ptr(tc.p), Error: &chaos.ErrorSpec{Code: "InternalFailure"}}}})
			n := 0
			for range 10_000 {
				if fired(e, call("SendMessage", "orders")) {
					n++
				}
			}
			if n < tc.min || n > tc.max {
				t.Errorf("p=%v seed=%d: %d of 10,000 fired, want %d to %d", tc.p, seed, n, tc.min, tc.max)
			}
		}
	}
	// Across queues, too: every point starts its own sequence.
	e := newEngine(t, chaos.Config{Seed: 9, Rules: []chaos.Rule{{Probability: ptr(0.2), Error: &chaos.ErrorSpec{Code: "InternalFailure"}}}})
	n := 0
	for i := range 10_000 {
		if fired(e, call("SendMessage", fmt.Sprintf("q%d", i))) {
			n++
		}
	}
	if n < 1800 || n > 2200 {
		t.Errorf("10,000 queues once each: %d fired, want 1,800 to 2,200", n)
	}
}

// decisions returns, for each queue, whether the Engine's error rule
// fired on each of calls in turn, calls being a queue name per call.
func decisions(e *chaos.Engine, calls []string) map[string][]bool {
	out := map[string][]bool{}
	for _, q := range calls {
		out[q] = append(out[q], fired(e, call("SendMessage", q)))
	}
	return out
}

// Two engines with the same seed decide the same for the same sequence of
// calls on each queue, however the queues' calls interleave; another seed
// decides otherwise; Set, SetSeed and Reset restart every sequence.
func TestReproducible(t *testing.T) {
	t.Parallel()
	cfg := chaos.Config{Seed: 42, Rules: []chaos.Rule{{Probability: ptr(0.5), Error: &chaos.ErrorSpec{Code: "InternalFailure"}}}}
	var interleaved, grouped []string
	for range 100 {
		interleaved = append(interleaved, "a", "b", "c")
	}
	for _, q := range []string{"c", "a", "b"} {
		for range 100 {
			grouped = append(grouped, q)
		}
	}
	a := decisions(newEngine(t, cfg), interleaved)
	b := decisions(newEngine(t, cfg), grouped)
	if d := diff(a, b); d != "" {
		t.Fatalf("same seed, other interleaving:\n%s", d)
	}
	if a["a"][0] == a["b"][0] && diff(a["a"], a["b"]) == "" {
		t.Errorf("queues a and b decide alike: their sequences should be independent")
	}

	other := cfg
	other.Seed = 43
	if diff(a, decisions(newEngine(t, other), interleaved)) == "" {
		t.Errorf("seeds 42 and 43 decide alike")
	}

	e := newEngine(t, cfg)
	first := decisions(e, grouped)
	if diff(first, decisions(e, grouped)) == "" {
		t.Errorf("a second run without restart repeated the first: the sequence did not go on")
	}
	if err := e.Set(cfg); err != nil {
		t.Fatal(err)
	}
	if d := diff(first, decisions(e, grouped)); d != "" {
		t.Errorf("after Set:\n%s", d)
	}
	e.SetSeed(42)
	if d := diff(first, decisions(e, grouped)); d != "" {
		t.Errorf("after SetSeed:\n%s", d)
	}
	e.Reset()
	if e.Config().Seed != 42 || len(e.Config().Rules) != 0 || len(e.Injected()) != 0 || len(e.Counts()) != 0 {
		t.Errorf("after Reset: %+v, %d injections, counts %v", e.Config(), len(e.Injected()), e.Counts())
	}
}

// The same seed and call sequence give the same core faults: which
// message is duplicated, how many a sample returns, the shuffle and the
// shortened timeout.
func TestReproducibleFaults(t *testing.T) {
	t.Parallel()
	cfg := chaos.Config{Seed: 5, Rules: []chaos.Rule{
		{Fault: chaos.KindDuplicate, Probability: ptr(0.5)},
		{Fault: chaos.KindSample, Probability: ptr(0.5)},
		{Fault: chaos.KindReorder, Probability: ptr(0.5)},
		{Fault: chaos.KindVisibilityEndsEarly, Probability: ptr(0.5)},
		{Fault: chaos.KindLostResponse, Probability: ptr(0.5)},
	}}
	run := func(e *chaos.Engine) []string {
		var out []string
		c := sqsq.Call{Op: sqsq.OpReceive, Queue: "q", Account: "000000000000", Region: "us-east-1"}
		for i := range 200 {
			order := []int{0, 1, 2, 3, 4, 5, 6, 7}
			e.Shuffle(c, len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			out = append(out, fmt.Sprint(e.Duplicate(c, 1+i%7), e.Sample(c, 1+i%10), order,
				e.VisibilityTimeout(c, 30*time.Second), e.LoseResponse(c)))
		}
		return out
	}
	a, b := run(newEngine(t, cfg)), run(newEngine(t, cfg))
	if d := diff(a, b); d != "" {
		t.Fatalf("same seed:\n%s", d)
	}
	e := newEngine(t, cfg)
	run(e)
	counts := e.Counts()
	for _, k := range []chaos.Kind{chaos.KindDuplicate, chaos.KindSample, chaos.KindReorder, chaos.KindVisibilityEndsEarly, chaos.KindLostResponse} {
		if n := counts[k]; n < 70 || n > 130 {
			t.Errorf("%s fired %d times of 200 at p=0.5", k, n)
		}
	}
	for _, in := range e.Injected() {
		if in.Detail == "" && in.Kind != chaos.KindLostResponse {
			t.Errorf("injection without detail: %+v", in)
		}
	}
}

// Core faults stay in range: a duplicate picks an in-flight message, a
// sample returns fewer than were waiting, an early timeout is at least
// 1 ms and shorter than the timeout.
func TestFaultRanges(t *testing.T) {
	t.Parallel()
	e := newEngine(t, chaos.Config{Seed: 1, Rules: []chaos.Rule{
		{Fault: chaos.KindDuplicate}, {Fault: chaos.KindSample}, {Fault: chaos.KindVisibilityEndsEarly},
	}})
	c := sqsq.Call{Op: sqsq.OpReceive, Queue: "q"}
	sawZero := false
	for i := range 1000 {
		n := 1 + i%10
		if d := e.Duplicate(c, n); d < 0 || d >= n {
			t.Fatalf("Duplicate(%d) = %d", n, d)
		}
		s := e.Sample(c, n)
		if s < 0 || s >= n {
			t.Fatalf("Sample(%d) = %d", n, s)
		}
		sawZero = sawZero || s == 0 && n > 1
		timeout := time.Duration(1+i%30) * time.Second
		if v := e.VisibilityTimeout(c, timeout); v < time.Millisecond || v >= timeout {
			t.Fatalf("VisibilityTimeout(%v) = %v", timeout, v)
		}
	}
	if !sawZero {
		t.Errorf("a sample never returned nothing: it should, sometimes")
	}
	if v := e.VisibilityTimeout(c, time.Millisecond); v != time.Millisecond {
		t.Errorf("VisibilityTimeout(1ms) = %v, want it kept", v)
	}
	// Reject never rejects: errors are the wire's.
	if code := e.Reject(c); code != "" {
		t.Errorf("Reject = %q", code)
	}
}

// Intercept adds the latencies of every firing rule and answers the first
// firing error, with AWS's status and message when the rule gives none.
func TestIntercept(t *testing.T) {
	t.Parallel()
	e := newEngine(t, chaos.Config{Rules: []chaos.Rule{
		{Operation: "GetQueueUrl", Error: &chaos.ErrorSpec{Code: "ThrottlingException"}},
		{LatencyMs: 100},
		{Queue: "slow", LatencyMs: 50, Error: &chaos.ErrorSpec{Code: "InternalError"}},
		{Error: &chaos.ErrorSpec{Code: "ServiceUnavailable", StatusCode: 500, Message: "custom"}},
		{Queue: "slow", LatencyMs: 25},
	}})
	for _, tc := range []struct {
		call sqshttp.Call
		want sqshttp.Intervention
	}{
		{call("GetQueueUrl", "fast"), sqshttp.Intervention{Delay: 100 * time.Millisecond, Code: "ThrottlingException", Status: 400, Message: "The request was denied due to request throttling."}},
		{call("SendMessage", "slow"), sqshttp.Intervention{Delay: 175 * time.Millisecond, Code: "InternalError", Status: 500, Message: "We encountered an internal error. Please try again."}},
		{call("SendMessage", "fast"), sqshttp.Intervention{Delay: 100 * time.Millisecond, Code: "ServiceUnavailable", Status: 500, Message: "custom"}},
	} {
		if got := e.Intercept(context.Background(), tc.call); got != tc.want {
			t.Errorf("%+v:\n got %+v\nwant %+v", tc.call, got, tc.want)
		}
	}
	// Two injections for the first call (its error, the latency), three
	// for the second (latencies of rules 1, 2 and 4, error of rule 2: the
	// error of rule 3 lost), two for the third.
	counts := e.Counts()
	if counts[chaos.KindError] != 3 || counts[chaos.KindLatency] != 5 {
		t.Errorf("counts %v", counts)
	}
}

// The defaults of an error rule are AWS's for its code.
func TestErrorDefaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code   string
		status int
		msg    string
	}{
		{"InternalError", 500, "We encountered an internal error. Please try again."},
		{"InternalFailure", 500, "The request processing has failed because of an unknown error, exception or failure."},
		{"ServiceUnavailable", 503, "The request has failed due to a temporary failure of the server."},
		{"RequestThrottled", 400, "The request was denied due to request throttling."},
		{"ThrottlingException", 400, "The request was denied due to request throttling."},
		{"OverLimit", 403, "The specified action violates a limit."},
		{"AccessDenied", 400, ""},
		{"PurgeQueueInProgress", 403, ""}, // sqsq's table: AWS's status for its own codes
		{"ResourceNotFoundException", 404, ""},
	} {
		e := newEngine(t, chaos.Config{Rules: []chaos.Rule{{Error: &chaos.ErrorSpec{Code: tc.code}}}})
		iv := e.Intercept(context.Background(), call("SendMessage", "q"))
		if iv.Status != tc.status || iv.Message != tc.msg {
			t.Errorf("%s: %d %q, want %d %q", tc.code, iv.Status, iv.Message, tc.status, tc.msg)
		}
	}
}

// The injection log keeps the latest 1,000, oldest first, and counts all.
func TestInjected(t *testing.T) {
	t.Parallel()
	e := newEngine(t, chaos.Config{Rules: []chaos.Rule{{Error: &chaos.ErrorSpec{Code: "InternalFailure"}}}})
	for i := range 1500 {
		e.Intercept(context.Background(), call("SendMessage", fmt.Sprint(i)))
	}
	list := e.Injected()
	if len(list) != 1000 || list[0].Seq != 501 || list[999].Seq != 1500 || list[999].Queue != "1499" {
		t.Fatalf("%d injections, first %+v, last %+v", len(list), list[0], list[len(list)-1])
	}
	want := chaos.Injection{Seq: 1500, Kind: chaos.KindError, Rule: 0, Operation: "SendMessage", Queue: "1499",
		Account: "000000000000", Region: "us-east-1", Code: "InternalFailure", StatusCode: 500}
	if list[999] != want {
		t.Errorf("last %+v\nwant %+v", list[999], want)
	}
	if c := e.Counts(); c[chaos.KindError] != 1500 || len(c) != 1 {
		t.Errorf("counts %v", c)
	}
	e.Clear() // keeps the log
	if len(e.Injected()) != 1000 {
		t.Errorf("Clear emptied the log")
	}
}

// Without rules every decision takes the lucky branch.
func TestZeroEngine(t *testing.T) {
	t.Parallel()
	var e chaos.Engine
	c := sqsq.Call{Op: sqsq.OpReceive, Queue: "q"}
	if iv := e.Intercept(context.Background(), call("SendMessage", "q")); iv != (sqshttp.Intervention{}) {
		t.Errorf("Intercept = %+v", iv)
	}
	order := []int{0, 1, 2}
	e.Shuffle(c, 3, func(i, j int) { order[i], order[j] = order[j], order[i] })
	if e.Sample(c, 3) != 3 || e.Duplicate(c, 3) != -1 || e.LoseResponse(c) || e.VisibilityTimeout(c, time.Second) != time.Second ||
		diff([]int{0, 1, 2}, order) != "" {
		t.Errorf("the zero Engine injected something")
	}
	if cfg := e.Config(); cfg.Seed != 0 || cfg.Rules == nil || len(cfg.Rules) != 0 {
		t.Errorf("Config = %+v", cfg)
	}
}

// Decisions, changes and the log are safe for concurrent use (run with
// -race): each queue's sequence is its own whatever other goroutines do.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	cfg := chaos.Config{Seed: 11, Rules: []chaos.Rule{
		{Probability: ptr(0.3), Error: &chaos.ErrorSpec{Code: "InternalFailure"}},
		{Fault: chaos.KindLostResponse, Probability: ptr(0.3)},
	}}
	want := decisions(newEngine(t, cfg), []string{"q0", "q0", "q0", "q0", "q0", "q0", "q0", "q0"})["q0"]
	e := newEngine(t, cfg)
	var wg sync.WaitGroup
	got := make([][]bool, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := fmt.Sprintf("q%d", g)
			for range 8 {
				got[g] = append(got[g], fired(e, call("SendMessage", q)))
				e.LoseResponse(sqsq.Call{Op: sqsq.OpDelete, Queue: q})
			}
		}()
	}
	wg.Wait()
	if d := diff(want, got[0]); d != "" {
		t.Errorf("q0 under concurrency:\n%s", d)
	}
	// Changes race with decisions without harm.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 100 {
			e.SetSeed(uint64(i))
			e.Clear()
			_ = e.Set(cfg)
		}
	}()
	for range 1000 {
		fired(e, call("SendMessage", "x"))
		_ = e.Injected()
	}
	<-done
}
