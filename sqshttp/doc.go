// Package sqshttp is an Amazon SQS endpoint over a [sqsq.Broker]: an
// http.Handler that speaks SQS's wire protocols, so that any SQS client —
// the AWS SDKs for Go, Java, Python or JavaScript, the AWS CLI, code that
// holds a concrete *sqs.Client — can talk to sqsq by pointing its endpoint
// at it.
//
// # In a Go test
//
// Wrap the handler in an httptest.Server and point the real SDK at it:
//
//	clk := clock.NewMock()
//	b := sqsq.NewBroker(sqsq.WithClock(clk))
//	srv := httptest.NewServer(sqshttp.NewHandler(b))
//	defer srv.Close()
//	client := sqs.New(sqs.Options{
//		Region:       "us-east-1",
//		BaseEndpoint: aws.String(srv.URL),
//		Credentials:  aws.AnonymousCredentials{},
//	})
//
// The SDK's requests, checksums, retries and error parsing then run
// exactly as against AWS, while time follows the mock clock. The
// standalone server cmd/sqsq wraps the same handler.
//
// # Protocols
//
// The handler serves, on any path:
//
//   - AWS JSON 1.0, which current SDKs use: a POST with
//     X-Amz-Target: AmazonSQS.<Operation> and a JSON body whose members
//     have the exact, case-sensitive names of the SQS model. Errors carry
//     __type (com.amazonaws.sqs#QueueDoesNotExist, …, and, as from AWS,
//     com.amazon.coral.service#InvalidParameterValueException for the common
//     errors AWS's service framework answers), a message, and the
//     x-amzn-query-error header with SQS's legacy code, from which the SDKs
//     build the same typed errors and ErrorCode() values as against AWS.
//   - The legacy Query protocol of older SDKs and hand-written clients:
//     Action=<Operation> with flattened parameters (Attribute.1.Name,
//     MessageAttribute.1.Value.DataType, SendMessageBatchRequestEntry.1.Id,
//     …) in a form-encoded POST body or a GET query string, sent to "/" or
//     to a queue URL (which then names the queue), answered with XML in the
//     http://queue.amazonaws.com/doc/2012-11-05/ namespace.
//
// Member names, list and map layouts and the XML element names are read
// from the SDK's model, not written down twice. Every request is
// translated to the broker by the [awssqs] adapter, the same code the
// in-process client runs, so the two front doors cannot drift apart. One
// difference is deliberate: a client other than the Go SDK can send an
// explicit 0 for ReceiveMessage's MaxNumberOfMessages, VisibilityTimeout
// and WaitTimeSeconds and SendMessage's DelaySeconds, and over HTTP that 0
// means 0 (a MaxNumberOfMessages of 0 is refused, as SQS refuses it).
//
// # Queue URLs
//
// Queue URLs in responses are built from the request: its Host, and https
// when it came over TLS or with X-Forwarded-Proto: https, so that a client
// reaches the queue at the URL it is given. [WithBaseURL] fixes them
// instead. A queue URL names its region unless it is the broker's
// (/queue/{region}/{account}/{name}; see [sqsq.Queue.URLAt]), so it
// reaches its queue whatever region the client signs for. Incoming queue
// URLs are resolved by their path — /{account}/{name} for the broker's
// region, /queue/{region}/{account}/{name} — and a regional host
// (sqs.{region}.…), whatever their scheme and host otherwise.
//
// # Accounts and regions
//
// One handler serves every account and region, each with its own queues
// (a scope of the broker, see [sqsq.Broker.Scope]). The region of a
// request is that of its SigV4 credential scope — the Authorization
// header's Credential=AKID/20240101/us-west-2/sqs/aws4_request, or a
// presigned URL's X-Amz-Credential — else that of a regional Host
// (sqs.us-west-2.…, us-west-2.queue.amazonaws.com), else the broker's; only
// a name shaped as an AWS region counts, so a client configured with
// region "local" stays in the broker's. The account is the access key id
// when it is exactly 12 digits (the convention of other local emulators),
// else the broker's. Clients of two regions therefore get two queues of the
// same name, with two URLs. A request that names its queue by URL is
// served in the URL's namespace, as a client that follows the URL expects
// (the JavaScript SDK sends to the QueueUrl's host); a request by name
// (GetQueueUrl, CreateQueue, ListQueues) in its own. When a queue is
// missing where a request looked but one of that name exists in another
// account or region, the answer keeps AWS's QueueDoesNotExist and its
// message, and adds where the queue is and why the request looked
// elsewhere ("sqsq: no queue orders in eu-west-1 …, the region this request
// is signed for; a queue of that name exists in us-east-1 …: {its URL}");
// [RequestInfo] carries that hint and the namespace of each request for
// an access log. A QueueUrl of another account reaches
// that account's queue, as on AWS when the queue's policy allows it (sqsq
// enforces no access policy), so cross-account dead-letter queues and move
// tasks work over the wire. A handler opens at most 64 scopes besides the
// broker's own: a request for one more is refused with InvalidClientTokenId
// (HTTP 403), so a client cycling through access keys cannot grow the
// server without bound.
//
// # Hostile input
//
// Bad requests get a well-formed AWS error in the protocol of the request,
// never a panic or an internal error: an unknown operation
// (UnknownOperationException; InvalidAction over Query), malformed JSON or a
// member of the wrong type (SerializationException), a missing member
// (MissingParameter), a body over the size limit (HTTP 413,
// RequestEntityTooLarge; see [WithMaxRequestBytes]), text that is not UTF-8
// (InvalidMessageContents for a body). Requests are not authenticated:
// SigV4 signatures are accepted and ignored, as by every local SQS
// emulator; the credential only chooses the account and region.
//
// A request whose handling panics — in the code the broker runs for its
// user, an Observer or a Faults policy — is answered as AWS answers a
// failure of its own, HTTP 500 InternalFailure, and logged with its stack
// (see [WithLogger]); the broker stays usable.
//
// # Slow clients and web pages
//
// The handler protects what it owns, the request bodies: it reads a body as
// it arrives, never allocating by the announced Content-Length, refuses
// one over [WithMaxRequestBytes] (4 MiB), and bounds the memory of all
// bodies being received at once by [WithMaxRequestBytesInFlight] (64 MiB,
// of which bodies past 64 KiB share 56 MiB, so clients stalled in large
// bodies leave room for small requests; beyond it a request gets HTTP 503
// ServiceUnavailable, which the SDKs retry). The rest belongs to the server that runs it, and cmd/sqsq sets
// it: on the http.Server a ReadHeaderTimeout, a ReadTimeout (net/http
// clears the read deadline once the body is read, so it does not cut a
// long poll's wait, which is the response's), an IdleTimeout for
// keep-alive connections and a MaxHeaderBytes, and no WriteTimeout shorter
// than the longest long poll (20 s); on the net.Listener, a limit of
// connections. A handler served where a web browser can reach it — any
// port on the loopback interface is — should be wrapped in [LoopbackOnly],
// which refuses requests that web pages send and requests for host names
// that are not this machine's (DNS rebinding).
//
// # Long polls
//
// A ReceiveMessage with a wait parks on the broker's clock and ends when
// its client goes away (the request's context). [WithDrain] ends parked
// receives early, with an empty result, for a graceful shutdown; closing
// the broker ends them with ServiceUnavailable.
package sqshttp
