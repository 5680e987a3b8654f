package sqshttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/sqsq/sqsq/internal/suite"
)

// typeRecorder is an HTTP transport that notes the __type of each JSON
// error response it carries.
type typeRecorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	last string
}

func (r *typeRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var e struct {
		Type string `json:"__type"`
	}
	_ = json.Unmarshal(body, &e)
	r.mu.Lock()
	r.last = e.Type
	r.mu.Unlock()
	return resp, nil
}

func (r *typeRecorder) take() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.last
	r.last = ""
	return t
}

// TestJSONTypeNamespaces checks, through the real SDK, that the errors AWS
// answers from its service framework carry coral's __type
// (com.amazon.coral.service#InvalidParameterValueException, as recorded
// from AWS) while those SQS models keep com.amazonaws.sqs#, and that the
// SDK still reports the legacy code of x-amzn-query-error and maps the
// modelled ones to their types.
func TestJSONTypeNamespaces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, _ := suite.NewBroker(t)
	srv := newServer(t, b)
	rec := &typeRecorder{next: srv.Client().Transport}
	client := newClient(srv, func(o *sqs.Options) { o.HTTPClient = &http.Client{Transport: rec} })
	out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	if err != nil {
		t.Fatal(err)
	}
	url := out.QueueUrl

	tests := []struct {
		name     string
		call     func() error
		typ      string // __type on the wire
		code     string // the SDK's ErrorCode()
		modelled func(error) bool
	}{
		{"InvalidParameterValue", func() error {
			_, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 11})
			return err
		}, "com.amazon.coral.service#InvalidParameterValueException", "InvalidParameterValue", nil},
		{"MissingParameter", func() error {
			_, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("")})
			return err
		}, "com.amazon.coral.service#MissingRequiredParameterException", "MissingParameter", nil},
		{"QueueDoesNotExist", func() error {
			_, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("nope")})
			return err
		}, "com.amazonaws.sqs#QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", func(err error) bool {
			var e *types.QueueDoesNotExist
			return errors.As(err, &e)
		}},
		{"InvalidAttributeName", func() error {
			_, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: url,
				AttributeNames: []types.QueueAttributeName{"Bogus"}})
			return err
		}, "com.amazonaws.sqs#InvalidAttributeName", "InvalidAttributeName", func(err error) bool {
			var e *types.InvalidAttributeName
			return errors.As(err, &e)
		}},
	}
	for _, tt := range tests {
		err := tt.call()
		typ := rec.take()
		var api smithy.APIError
		if !errors.As(err, &api) {
			t.Errorf("%s: %v is not a smithy.APIError", tt.name, err)
			continue
		}
		if typ != tt.typ || api.ErrorCode() != tt.code {
			t.Errorf("%s: __type %q, ErrorCode %q; want %q, %q", tt.name, typ, api.ErrorCode(), tt.typ, tt.code)
		}
		if api.ErrorFault() != smithy.FaultClient {
			t.Errorf("%s: fault %v, want client", tt.name, api.ErrorFault())
		}
		if tt.modelled != nil && !tt.modelled(err) {
			t.Errorf("%s: %T is not the SDK's type", tt.name, err)
		}
		if tt.modelled == nil {
			var g *smithy.GenericAPIError
			if !errors.As(err, &g) {
				t.Errorf("%s: %T, want a *smithy.GenericAPIError", tt.name, err)
			}
		}
	}
}
