package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// TestEveryRegionAndAccount: one server answers each region and account
// in its own namespace, chosen by the request's credential; -region and
// -account-id are the defaults. The receivers endpoint reaches a queue of
// another scope with ?account= and ?region=.
func TestEveryRegionAndAccount(t *testing.T) {
	t.Parallel()
	s := start(t, "-clock", "virtual", "-region", "eu-west-1")
	ctx := context.Background()
	signed := func(region, key string) *sqs.Client {
		return sqs.New(sqs.Options{Region: region, BaseEndpoint: aws.String(s.url),
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: key, SecretAccessKey: "secret"}, nil
			})})
	}
	tests := []struct {
		client  *sqs.Client
		wantArn string
	}{
		{s.client, "arn:aws:sqs:eu-west-1:000000000000:q"}, // unsigned: the defaults
		{signed("us-west-2", "AKIDEXAMPLE"), "arn:aws:sqs:us-west-2:000000000000:q"},
		{signed("us-west-2", "111111111111"), "arn:aws:sqs:us-west-2:111111111111:q"},
	}
	for _, tt := range tests {
		out, err := tt.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
		if err != nil {
			t.Fatal(err)
		}
		attrs, err := tt.client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl,
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
		if err != nil || attrs.Attributes["QueueArn"] != tt.wantArn {
			t.Errorf("QueueArn %v, %v; want %s", attrs, err, tt.wantArn)
		}
	}
	if code := s.admin(t, "GET", "/_sqsq/queues/q/receivers?atLeast=0&account=111111111111&region=us-west-2", "", nil); code != http.StatusOK {
		t.Errorf("receivers of another scope's queue: %d", code)
	}
	if code := s.admin(t, "GET", "/_sqsq/queues/q/receivers?atLeast=0&account=222222222222", "", nil); code != http.StatusNotFound {
		t.Errorf("receivers of a scope without the queue: %d, want 404", code)
	}
	if code := s.admin(t, "GET", "/_sqsq/queues/q/receivers?atLeast=0&region="+strings.Repeat("x", 65), "", nil); code != http.StatusBadRequest {
		t.Errorf("receivers with a bad region: %d, want 400", code)
	}
}
