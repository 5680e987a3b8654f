package sqshttp

import (
	"net/http"
	"net/url"
	"testing"
)

func TestIsRegion(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"us-east-1": true, "us-gov-west-1": true, "ap-southeast-5": true, "cn-northwest-1": true, "eusc-de-east-1": true,
		"": false, "local": false, "elasticmq": false, "us-east": false, "us-1": false, "us--east-1": false,
		"us-east-": false, "-us-east-1": false, "US-EAST-1": false, "us-east-123": false, "u-east-1": false,
		"us-east-1a": false, "us_east-1": false, "us-east-1-": false,
	} {
		if got := isRegion(s); got != want {
			t.Errorf("isRegion(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestHostRegion(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"sqs.us-west-2.amazonaws.com":                   "us-west-2",
		"sqs.eu-west-1.localhost.localstack.cloud:4566": "eu-west-1",
		"ap-south-1.queue.amazonaws.com":                "ap-south-1",
		"queue.amazonaws.com":                           "us-east-1",
		"127.0.0.1:9324":                                "",
		"[::1]:9324":                                    "",
		"localhost":                                     "",
		"sqs.local":                                     "local", // not a region: isRegion refuses it
	} {
		if got := hostRegion(host); got != want {
			t.Errorf("hostRegion(%q) = %q, want %q", host, got, want)
		}
	}
}

func TestCredential(t *testing.T) {
	t.Parallel()
	tests := []struct {
		auth, query string
		key, region string
	}{
		{"AWS4-HMAC-SHA256 Credential=111111111111/20240101/us-west-2/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=ab", "",
			"111111111111", "us-west-2"},
		{"AWS4-HMAC-SHA256 Credential=AKID/20240101/eu-west-1/sqs/aws4_request,SignedHeaders=host,Signature=ab", "", "AKID", "eu-west-1"},
		{"", "X-Amz-Credential=" + url.QueryEscape("222222222222/20240101/ap-south-1/sqs/aws4_request"), "222222222222", "ap-south-1"},
		{"AWS4-HMAC-SHA256 Credential=AKID", "", "", ""},
		{"Basic dXNlcjpwYXNz", "", "", ""},
		{"", "Action=ListQueues", "", ""},
	}
	for _, tt := range tests {
		r := &http.Request{Header: http.Header{}, URL: &url.URL{RawQuery: tt.query}}
		if tt.auth != "" {
			r.Header.Set("Authorization", tt.auth)
		}
		if key, region := credential(r); key != tt.key || region != tt.region {
			t.Errorf("credential(%q, %q) = %q, %q; want %q, %q", tt.auth, tt.query, key, region, tt.key, tt.region)
		}
	}
}
