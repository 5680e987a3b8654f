// Package sqsqtest is sqsq's test kit: brokers on a mock clock for tests,
// fault policies that show a consumer the unlucky side of SQS on purpose,
// and a harness that runs a consumer under drawn schedules, checks your
// invariants and shrinks a failure to the shortest schedule, printed as a
// timeline.
//
// # Testing your consumer
//
// Write the handler as ordinary code: it gets a message, commits its effect
// through the run's ledger and deletes the message (through [Env.Queue], or
// [Env.SQS] for code written against the AWS SDK's *sqs.Client). Describe
// the world in a [Scenario] and let rapid draw the schedules:
//
//	func TestChargeOnce(t *testing.T) {
//		s := sqsqtest.Scenario{
//			Messages:        []string{"order-1", "order-2", "order-3"},
//			MaxReceiveCount: 2, Redrive: true, // a DLQ, and redrives
//			Faults:          sqsqtest.AllFaults(5), Crash: 10,
//			Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
//				q := env.Queue()
//				return func(ctx context.Context, m sqsqtest.Msg) error {
//					if err := env.Commit("charge", func(tx *sqsqtest.Tx) error {
//						if _, seen := tx.Get("inbox:" + m.Body); seen {
//							tx.Suppress(m.Body) // a redelivery: already charged
//							return nil
//						}
//						tx.Put("inbox:"+m.Body, "charged")
//						tx.Effect("charge:" + m.Body)
//						return nil
//					}); err != nil {
//						return err
//					}
//					return q.Delete(ctx, m.ReceiptHandle)
//				}
//			},
//			Invariants: []sqsqtest.Invariant{
//				sqsqtest.EffectOnce(func(order string) string { return "charge:" + order }),
//				sqsqtest.NothingLeft(),
//			},
//		}
//		s.Test(t) // 1000 schedules drawn by rapid, in testing/synctest bubbles
//	}
//
// (On Go 1.24, without testing/synctest: s.TestPlain(t).)
//
// Each run draws sends, deliveries to two interleaved consumers, crashes
// before any kit call, clock advances past visibility deadlines,
// redrives and faults; then it settles and checks the invariants. Remove
// the inbox and rapid reports the double charge, shrunk to a timeline like
//
//	messages: A = "order-1" (…1); B = "order-2" (…2); C = "order-3" (…3)
//	schedule (4 steps):
//	  t=0s send(A)
//	→ t=0s receive(A) by c1
//	→ t=0s c1 charge(A): charge:order-1
//	→ t=0s c1 crashed before delete(A)
//	→ t=0s settle: faults and crashes off
//	→ t=0s … 10 events of B, C (send, receive, charge, delete, done)
//	→ t=30s visibility expired(A)
//	→ t=30s receive(A) by c1
//	→ t=30s c1 charge(A): charge:order-1
//	→ t=30s c1 delete(A)
//	→ t=30s c1 done with A
//
// The steps counted are those drawn; what follows "settle" is the settle
// phase, which runs the consumers without faults until nothing is left to
// do, so the invariants judge a finished run. A run that never gets there
// (a message failing on every try) says so on the report's first line,
// "the run did not settle in 400 steps: A was received 57 times and never
// deleted", and the loop it went round prints once. Failure lines name the
// user's test, not the kit.
//
// Rapid writes a failing schedule under testdata/rapid/ of the package
// and replays it first on the next run: ignore that directory in version
// control, or pass -rapid.nofailfile. Its search is random unless
// -rapid.seed is set, so a shrunk schedule can differ from run to run.
//
// [Scenario.Seeds] plays seeded schedules instead and prints the failing
// seed, its schedule shrunk by steps ([Scenario.Shrink]); [Scenario.Find] searches and shrinks without a *testing.T, to
// measure how fast a bug is found. While such a loop of runs plays
// (Seeds, Find, Shrink, TestPlain, Test), the kit raises GOGC to 400,
// unless it is higher or off, and puts back what it found when the last
// loop ends: on the kit's small heap the collector otherwise took a
// seventh of a run. The [Ledger] keeps delivery attempts,
// effect commits, duplicate suppressions, dead-letter moves and the oldest
// message age apart, because they are different numbers.
//
// # Consumer shapes
//
// A scenario's consumer is written as production code is:
//
//   - Consumer: a per-message [Handler]; the kit receives (up to
//     Scenario.Batch at a time) and calls it for each message in order,
//     stopping a FIFO group at its first failure.
//   - BatchConsumer: a [BatchHandler] gets each receive's messages at once
//     and may process them in goroutines it starts and waits for.
//   - Loop: the consumer owns its receive loop and calls ReceiveMessage
//     (long polls included) through [Env.SQS], which has the *sqs.Client
//     methods, on the scenario's queues (the source, its dead-letter queue
//     and Scenario.Queues, such as an outbox).
//   - Lambda: an AWS Lambda SQS handler ([LambdaHandler], aws-lambda-go's
//     events types), invoked as Lambda's event source mapping does
//     ([LambdaConfig]): batch size and batching window, deletes on
//     success, partial batch responses, the function timeout (a killed
//     invocation is fenced like a crash) against the visibility timeout.
//
// Business code need not know the kit: keep your store interface and give
// the test an implementation of it that commits through [Env.Commit].
//
// # Determinism and goroutines
//
// A run is a pure function of its draws. Consumers run as goroutines, but
// every kit call parks its goroutine until the schedule picks it, and the
// kit picks only once every goroutine of the run is parked or done, so
// exactly one call touches the world at a time, in the drawn order. Time
// is virtual: it moves only in drawn advances and idle gaps, never past a
// consumer's [Env.Sleep] or [Env.Work]; message ids are counters. Every
// decision comes from a [Source] and its lucky value is 0, so shrinking
// towards 0 removes faults, crashes, gaps and steps. A drawn action is an
// index into the actions possible at that step, so rapid, dropping one
// step, changes what the later ones mean; before it reports a failure the
// kit shrinks the schedule again by steps ([Scenario.Shrink]), dropping
// the messages and consumers, with all their steps, that the failure
// does not need.
//
// To know when every goroutine is parked the kit needs to see them.
// [Scenario.Test] runs the schedules inside a testing/synctest bubble (Go
// 1.25+): consumers may then start goroutines with go statements, wait for
// them with sync.WaitGroup, channels or errgroup, and use time.Sleep,
// timers and tickers, whose clock is the run's. Outside a bubble
// ([Scenario.Run], [Scenario.Find], rapid.Check(t, s.Check)) the kit runs
// the goroutines it starts itself (the consumers' and [Env.Go]'s) as
// coroutines, one at a time: each runs from the call the schedule picked
// to its next kit call, so a goroutine of [Env.Go] starts once its
// starter has parked, and one that waits outside the kit for another
// (a channel, a WaitGroup, a real timer) waits for ever; after 30 seconds
// of real time with no kit call the kit says so on standard error and
// fails the run. A kit call made while the goroutine holds
// runtime.LockOSThread stops the program there (the runtime does not
// switch coroutines of a locked thread): such consumers need
// [Scenario.Test]. The kit fails a run whose consumer calls it from a
// goroutine it did not start. Either way consumer code must be
// deterministic given the schedule: no map-order or wall-clock decisions
// that change what it does.
//
// A crash kills a consumer right before one of its kit calls: that call
// and every later one of the consumer's goroutines fail with [ErrCrashed]
// and change nothing, and a fresh consumer, built again by the scenario's
// function, takes its place. Nothing panics.
//
// # Faults
//
// A [Policy] implements sqsq.Faults: short-poll sampling, duplicate
// delivery and reordering on standard queues; lost receive, delete and
// visibility-change responses; failed deletes and visibility changes;
// throttling. Install one on any broker with sqsq.WithFaults, drawing from
// [Seed] (reproducible; [SeedFaults] logs the seed when a test fails) or
// [Rapid]. The broker never lets a policy break FIFO ordering or group
// locking.
//
// # Helpers
//
// [NewBroker] makes a broker on a mock clock at [Epoch] that closes when
// the test ends; [Advance] moves the clock (move a mock from one goroutine
// or only through Advance: concurrent clock.Mock.Add calls lose time);
// [WaitParked] waits until long polls have armed their timers, so an
// advance reaches them; [Drain]
// empties a queue; [History] lists everything that happened to one
// message. They take the smallest testing interface they need, so they run
// under *testing.T and *rapid.T alike.
package sqsqtest
