module github.com/sqsq/sqsq

go 1.24

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/google/uuid v1.6.0
	pgregory.net/rapid v1.3.0
)

require (
	github.com/aws/aws-lambda-go v1.54.0
	github.com/aws/aws-sdk-go-v2 v1.48.0
	github.com/aws/aws-sdk-go-v2/service/sqs v1.53.0
	github.com/aws/smithy-go v1.28.9
	go.etcd.io/bbolt v1.4.3
	go.uber.org/goleak v1.3.0
)

require (
	github.com/aws/aws-sdk-go-v2/internal/configsources v1.5.12 // indirect
	github.com/aws/aws-sdk-go-v2/internal/endpoints/v2 v2.8.12 // indirect
	golang.org/x/sys v0.29.0 // indirect
)
