// Package watermillaws holds no tests of its own. Its deps.go, built only with
// the never-set tag "deps", imports github.com/ThreeDotsLabs/watermill-aws/sqs
// so that go.mod and go.sum (kept by go mod tidy) have that package and the
// dependencies of its tests. run.sh runs that test package itself, unmodified,
// against cmd/sqsq serving on localhost:4566, where it expects LocalStack.
package watermillaws
