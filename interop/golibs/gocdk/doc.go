// Package gocdk runs the Go CDK's pubsub conformance suite
// (gocloud.dev/pubsub/drivertest) for the awssnssqs driver's SQS topics and
// subscriptions against sqshttp, through a harness of its own; see
// conformance_test.go.
package gocdk
