// Package awsname knows the shapes of AWS names that sqsq reads out of
// requests and URLs: regions, account ids, and the regional host names of
// SQS endpoints. The core uses it to resolve queue URLs, sqshttp to choose
// a request's account and region.
package awsname

import "strings"

// IsAccountID reports whether s is 12 digits.
func IsAccountID(s string) bool { return len(s) == 12 && only(s, "0123456789") }

// IsRegion reports whether s has the shape of an AWS region: lower-case
// words joined by '-', the first of 2–4 letters, the last a number of 1–2
// digits (us-east-1, us-gov-west-1, ap-southeast-5).
func IsRegion(s string) bool {
	first, rest, ok := strings.Cut(s, "-")
	i := strings.LastIndexByte(rest, '-')
	if !ok || i < 0 || len(s) > 32 || len(first) < 2 || len(first) > 4 || !only(first, "abcdefghijklmnopqrstuvwxyz") {
		return false
	}
	middle, num := rest[:i], rest[i+1:]
	return middle != "" && middle[0] != '-' && middle[len(middle)-1] != '-' && !strings.Contains(middle, "--") &&
		only(middle, "abcdefghijklmnopqrstuvwxyz-") && num != "" && len(num) <= 2 && only(num, "0123456789")
}

// HostRegion is the region a regional SQS host name names —
// sqs.{region}.… (AWS's, and sqs.eu-west-1.localhost), {region}.queue.…
// (AWS's legacy form), queue.amazonaws.com (us-east-1) — or "" for any
// other host or a name not shaped as a region (sqs.local). A port is
// ignored.
func HostRegion(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		host = host[:i] // the port
	}
	region := ""
	if rest, ok := strings.CutPrefix(host, "sqs."); ok {
		region, _, _ = strings.Cut(rest, ".")
	} else if r, rest, ok := strings.Cut(host, "."); ok && strings.HasPrefix(rest, "queue.") {
		region = r
	} else if host == "queue.amazonaws.com" { // the legacy endpoint of us-east-1
		region = "us-east-1"
	}
	if !IsRegion(region) {
		return ""
	}
	return region
}

// URLHost is the host (and port) of a URL or of a base such as
// "https://host:port", or "" when u has no scheme.
func URLHost(u string) string {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return ""
	}
	host, _, _ := strings.Cut(rest, "/")
	return host
}

// only reports whether every byte of s is one of chars.
func only(s, chars string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(chars, s[i]) < 0 {
			return false
		}
	}
	return true
}
