// Package golibs holds interoperability tests that run real client libraries
// of the Go ecosystem against sqsq, in a module of their own so that the main
// module gains none of their dependencies:
//
//   - gocdk: a drivertest.Harness of ours runs the Go CDK's pubsub
//     conformance suite (gocloud.dev/pubsub/drivertest) for the awssnssqs
//     driver's SQS topics and subscriptions, against sqshttp.NewHandler in an
//     httptest.Server on the real clock.
//   - watermillaws: nothing but the module requirements for watermill-aws;
//     run.sh runs watermill-aws's own SQS test package
//     (github.com/ThreeDotsLabs/watermill-aws/sqs, unmodified, from the
//     module cache) against the cmd/sqsq binary on localhost:4566, where
//     those tests expect LocalStack.
//
// Run them with run.sh (CI does, from .ci/run).
package golibs
