package sqshttp

import (
	"net/http"
	"net/url"
	"testing"
)

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
