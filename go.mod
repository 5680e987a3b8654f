module github.com/sqsq/sqsq

go 1.23

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/google/uuid v1.6.0
	pgregory.net/rapid v1.3.0
)

require go.uber.org/goleak v1.3.0
