// Package chaos injects faults into a sqsq endpoint from rules: the
// unlucky side of Amazon SQS (duplicates, sampled short polls, reordering,
// lost responses, visibility timeouts that end early) and errors and
// latency on the wire, seeded and reproducible, for clients in any
// language. cmd/sqsq loads rules with -faults FILE and serves
// [Engine.Handler] to change them while it runs; LocalStack's Chaos API is
// served too, at LocalStack's paths.
//
// An [Engine] is both a [sqsq.Faults] policy, which the broker consults at
// its decision points, and a [sqshttp.Interceptor], which the handler
// consults before it serves each request:
//
//	cfg, err := chaos.LoadFile("faults.json") // or chaos.ParseConfig(data)
//	…
//	engine, err := chaos.New(cfg)
//	…
//	b := sqsq.NewBroker(sqsq.WithFaults(engine))
//	h := sqshttp.NewHandler(b, sqshttp.WithInterceptor(engine))
//
// # Rules
//
// A configuration is a seed and a list of rules:
//
//	{"seed": 42, "rules": [
//	  {"operation": "ReceiveMessage", "queue": "orders*", "account": "000000000000", "region": "us-east-1",
//	   "probability": 0.2, "fault": "duplicate"},
//	  {"operation": "SendMessage", "probability": 0.1,
//	   "error": {"code": "ServiceUnavailable", "statusCode": 503, "message": "Try again."}},
//	  {"latencyMs": 200}
//	]}
//
// A rule matches a call by these fields, each optional:
//
//   - operation: an SQS operation as the wire names it, case and all
//     (AddPermission, CancelMessageMoveTask, ChangeMessageVisibility,
//     ChangeMessageVisibilityBatch, CreateQueue, DeleteMessage,
//     DeleteMessageBatch, DeleteQueue, GetQueueAttributes, GetQueueUrl,
//     ListDeadLetterSourceQueues, ListMessageMoveTasks, ListQueueTags,
//     ListQueues, PurgeQueue, ReceiveMessage, RemovePermission, SendMessage,
//     SendMessageBatch, SetQueueAttributes, StartMessageMoveTask, TagQueue,
//     UntagQueue); "" or "*" is any.
//   - queue: a queue name, or a pattern in path.Match syntax ("orders*",
//     "*-dlq.fifo", "q[0-9]"). A pattern matches only calls that name a
//     queue; "" or "*" matches every call.
//   - account, region: the namespace, exactly; "" is any.
//   - probability: the chance, 0 to 1, that the rule fires on a call it
//     matches; 1 when absent.
//
// and has an effect: a fault, or an error, a latency or both.
//
//   - error: {"code", "statusCode", "message"} is answered instead of the
//     call, in the call's protocol (AWS JSON or Query), so an SDK's retry
//     logic sees what it sees from AWS. code is required; statusCode
//     (400–599) and message default to AWS's for the code: InternalError
//     500 "We encountered an internal error. Please try again.",
//     InternalFailure 500 "The request processing has failed because of an
//     unknown error, exception or failure.", ServiceUnavailable 503 "The
//     request has failed due to a temporary failure of the server.",
//     ThrottlingException and RequestThrottled 400 "The request was denied
//     due to request throttling.", OverLimit 403 "The specified action
//     violates a limit."; any other code the status SQS gives it (404 for
//     ResourceNotFoundException, 403 for PurgeQueueInProgress) or 400, and
//     the message "<code> (injected fault).".
//   - latencyMs: a delay before the answer, 0 to 300,000 ms, in real time
//     whatever the broker's clock. It ends early when the client goes away.
//   - fault: one of the kinds below, which the broker injects. A fault rule
//     has no error or latency (make those a second rule).
//
// The errors and latencies of every rule that matches a request and fires
// are applied together: the delays add up, and the first firing error is
// answered.
//
// [ParseConfig] is strict: an unknown or repeated field, a value of the
// wrong type or out of range is an error, one, naming the field:
//
//	rules[2].probability: 1.5 is not between 0 and 1
//	rules[0].fault: "dup" is not one of duplicate, sample, reorder, lostResponse, visibilityEndsEarly
//	rules[1]: unknown field "probabilty" (the fields are operation, queue, …)
//
// # Faults
//
// Each fault is something SQS does on its own, which a consumer must
// survive; AWS's documentation says so (see Sources for the pages):
//
//   - duplicate (ReceiveMessage): a message another consumer holds is
//     delivered again, with a new receipt handle, drawn uniformly from those
//     in flight. AWS: standard queues deliver at least once, and "you might
//     get that message copy again when you receive messages".
//   - sample (ReceiveMessage): a short poll returns k of the n messages it
//     could, k drawn uniformly from 0 to n-1, maybe none. AWS: a short poll
//     samples "a weighted random set of machines", so with few messages "you
//     might not receive any messages in a particular ReceiveMessage
//     response". A long poll is never sampled.
//   - reorder (ReceiveMessage): a receive returns its messages shuffled
//     (which may by chance be their order). AWS: standard queues make "a
//     best-effort attempt to maintain the order", and "messages may
//     occasionally arrive out of order".
//   - lostResponse (ReceiveMessage, DeleteMessage, DeleteMessageBatch,
//     ChangeMessageVisibility, ChangeMessageVisibilityBatch): the call is
//     applied — received messages are in flight, a deleted message is gone —
//     and the caller gets ServiceUnavailable (503), as when any network
//     failure between SQS and the client loses the response. AWS: "it is
//     possible for a consumer to not receive a message even when Amazon SQS
//     marks the message as delivered". The broker decides on each entry of
//     a batch as on a single call, so a rule naming DeleteMessage or
//     DeleteMessageBatch matches both operations alike (and the same for
//     ChangeMessageVisibility and its batch); a lost entry fails with
//     ServiceUnavailable in the batch's Failed list. The SDKs retry a 503:
//     each retry is decided anew.
//   - visibilityEndsEarly (ReceiveMessage): a received message becomes
//     visible again before its visibility timeout ends: the real timeout is
//     drawn uniformly from [1 ms, timeout), while the receiver is told the
//     timeout it asked for. AWS: "When using standard queues, visibility
//     timeout isn't a guarantee against receiving a message twice."
//
// The broker never consults duplicate, sample, reorder or
// visibilityEndsEarly on FIFO queues, which SQS delivers exactly once and
// in order; lostResponse applies to FIFO queues too.
//
// # Determinism
//
// Every decision — whether a rule fires, which message a duplicate
// delivers, how many a sample returns, the shuffle, the shortened timeout —
// is a pure function of (seed, rule index, decision point, n), mixed by
// SplitMix64's finaliser; nothing else is random. The decision point is
// what is decided about, on what: for errors and latency the wire
// operation ("SendMessage"), for faults the operation and fault
// ("ReceiveMessage#duplicate", "DeleteMessage#lostResponse"; the core's
// operation, which covers the batch entries), each with the account,
// region and queue of the call (hashed with FNV-1a, the same in every
// process). n counts the decisions made at that point since the rules were
// last set: the first is 0. The rule index is the rule's place in
// Config.Rules (LocalStack's rules are numbered apart, from 2^32, so
// adding a rule of one list moves no draw of the other).
//
// So the same seed and rules and the same sequence of calls at each
// decision point — per operation and queue — give the same faults,
// whatever other queues and operations do meanwhile, and whatever the
// wall clock says. With concurrent clients of one queue, the order in
// which their calls reach the server decides which call gets which
// decision. The core's decision points follow the queue's state: a
// duplicate is decided only when messages are in flight, a sample only on
// a short poll that finds messages, so on a mock clock they too are
// reproducible. [Engine.Set], [Engine.SetSeed], [Engine.Clear],
// [Engine.Reset] and every change through the API restart every sequence
// at 0. Each [Injection] names its decision's n.
//
// # The fault API
//
// [Engine.Handler] serves the rules over HTTP (GET, PUT and DELETE
// /_sqsq/api/faults, GET /_sqsq/api/faults/injected for the latest 1,000
// injections and counts per kind) and LocalStack's Chaos API. Its errors
// are the console's: {"error": "rules[2].probability: …", "code":
// "InvalidParameterValue"}, and a refused change changes nothing.
//
// # LocalStack compatibility
//
// /_localstack/chaos/faults and /_localstack/chaos/effects work as
// LocalStack documents them, so its users' rules and its SDK's chaos
// client (localstack-sdk-python's ChaosClient) work unchanged: GET lists
// the rules, POST replaces them, PATCH adds, DELETE removes the rules
// equal in every field to those given; each answers the rules now in
// force. A rule {"service", "region", "operation", "probability",
// "description", "error": {"statusCode", "code"}} matches by its fields,
// any when absent ([{}] fails every call), and answers its error, by
// default 503 ServiceUnavailable, with LocalStack's outage message
// "Service 'sqs' not accessible due to an outage". A rule for another
// service is kept and listed, and never matches. GET and POST on effects
// read and set {"latency": ms}, added to every SQS request. Bodies are
// checked against LocalStack's schema (no unknown fields, statusCode
// 400–599, …). LocalStack's rules and latency show in GET
// /_sqsq/api/faults under "localstack", are replaced by PUT there
// (absent: none), and draw from the same seed. Where sqsq differs:
//
//   - Decisions are seeded and reproducible, as above; LocalStack's are
//     random.
//   - Rules are consulted in order, the Config's first; every firing one
//     applies (the first error wins). LocalStack stops at the first match.
//   - An operation matches exactly, in the wire's case ("SendMessage");
//     the service "sqs" in any case. A rule for SQS whose operation is a
//     real one in another case ("sendMessage") is refused with the right
//     spelling, where LocalStack would keep a rule that never fires.
//   - LocalStack's rules have no message field; errors carry the outage
//     message above whatever their code.
//   - Latency is at most 300,000 ms, and delays SQS requests, not the
//     fault API.
//   - DELETE of a rule that is not there changes nothing and answers 200;
//     DELETE with no body is refused (POST [] removes every rule).
//   - A body that is not valid is answered 400 in the console's error
//     shape; LocalStack's own error body is not documented.
//
// # Performance
//
// The rules in force are compiled (operations, namespaces and queue
// patterns, probabilities as 53-bit thresholds) into an immutable set
// behind an atomic pointer. With no rules, Intercept and each Faults method
// is a pointer load and a return; a rule that does not match costs a few
// string comparisons; only a rule that matches takes a lock, to count its
// decision. On the 2-core machine the package was written on:
//
//	go test -run '^$' -bench 'Intercept|Faults|Endpoint' -benchtime 1s -count 5 ./chaos
//
//	BenchmarkIntercept/rules=0                7.5 ns/op   0 allocs/op
//	BenchmarkIntercept/rules=1/none-match    15.3 ns/op   0 allocs/op
//	BenchmarkIntercept/rules=10/none-match   34.6 ns/op   0 allocs/op
//	BenchmarkIntercept/rules=10/one-matches 133.8 ns/op   0 allocs/op
//	BenchmarkFaults/rules=0                  14.1 ns/op   0 allocs/op  (six decision points)
//	BenchmarkFaults/rules=10                 82.3 ns/op   0 allocs/op
//
// A request through the handler costs about 11 µs (BenchmarkEndpoint: a
// send, a receive and a delete, 32–38 µs), so ten rules that do not match
// add well under 1 % per request, inside the noise of that benchmark.
//
// # Sources
//
// AWS, for the errors' defaults: the SQS API Reference's Common Errors
// (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/CommonErrors.html,
// the list common to every AWS API: InternalFailure 500,
// ServiceUnavailable 503, ThrottlingException 400 and their texts), and
// SQS's error shapes RequestThrottled and OverLimit (their descriptions in
// the SDKs' references, e.g.
// https://docs.aws.amazon.com/botocore/latest/reference/services/sqs/client/exceptions/OverLimit.html).
// OverLimit's 403 is what sqsq answers for it everywhere (sqsq.CodeOverLimit,
// from AWS responses LocalStack recorded). InternalError is not in the SQS
// reference: its text is S3's for that code.
//
// AWS, for the faults:
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/standard-queues-at-least-once-delivery.html
// (duplicate),
// the ReceiveMessage reference as the AWS SDK for .NET carries it
// (https://docs.aws.amazon.com/sdkfornet/latest/apidocs/items/MSQSSQSReceiveMessageStringNET45.html)
// and
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/best-practices-setting-up-long-polling.html
// ("false empty responses (when messages are available but aren't
// included in a response)") (sample),
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/standard-queues.html
// (reorder),
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/avoiding-inconsistent-message-processing.html
// (lostResponse),
// https://docs.aws.amazon.com/sdk-for-java/v1/developer-guide/examples-sqs-visibility-timeout.html
// (visibilityEndsEarly; the same note is in the SDK for C++ guide).
//
// LocalStack: the Chaos API guide
// (https://docs.localstack.cloud/user-guide/chaos-engineering/chaos-api,
// from the localstack-docs repository), the FaultRule and
// NetworkEffectsConfig schemas of its OpenAPI document and the chaos client
// and tests of localstack-sdk-python
// (localstack/sdk/chaos/client.py, tests/integration/test_chaos.py).
package chaos
