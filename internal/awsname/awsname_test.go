package awsname

import "testing"

func TestIsRegion(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"us-east-1": true, "us-gov-west-1": true, "ap-southeast-5": true, "cn-northwest-1": true, "eusc-de-east-1": true,
		"": false, "local": false, "elasticmq": false, "us-east": false, "us-1": false, "us--east-1": false,
		"us-east-": false, "-us-east-1": false, "US-EAST-1": false, "us-east-123": false, "u-east-1": false,
		"us-east-1a": false, "us_east-1": false, "us-east-1-": false,
	} {
		if got := IsRegion(s); got != want {
			t.Errorf("IsRegion(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestHostRegion(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"sqs.us-west-2.amazonaws.com":                   "us-west-2",
		"sqs.eu-west-1.localhost.localstack.cloud:4566": "eu-west-1",
		"sqs.eu-west-1.localhost:9324":                  "eu-west-1",
		"ap-south-1.queue.amazonaws.com":                "ap-south-1",
		"queue.amazonaws.com":                           "us-east-1",
		"127.0.0.1:9324":                                "",
		"[::1]:9324":                                    "",
		"localhost":                                     "",
		"sqs.local":                                     "", // not shaped as a region
		"sqs.localhost:9324":                            "",
	} {
		if got := HostRegion(host); got != want {
			t.Errorf("HostRegion(%q) = %q, want %q", host, got, want)
		}
	}
}

func TestIsAccountID(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"000000000000": true, "111111111111": true, "": false, "12345678901": false, "1234567890123": false, "AKIAEXAMPLE1": false} {
		if got := IsAccountID(s); got != want {
			t.Errorf("IsAccountID(%q) = %v, want %v", s, got, want)
		}
	}
}
