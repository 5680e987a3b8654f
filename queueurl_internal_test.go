package sqsq

import "testing"

// resolve reads a URL of b's own shape without parsing it: for every
// broker and scope, and every ref near that shape, it gives what parsing
// gives, and it takes the short way for the URLs b hands out.
func TestResolveOwnURL(t *testing.T) {
	t.Parallel()
	var brokers []*Broker
	for _, opts := range [][]Option{
		nil,
		{WithBaseURL("http://127.0.0.1:9324")},
		{WithBaseURL("http://localhost:4566/"), WithRegion("eu-west-1")},
		{WithBaseURL("https://sqs.eu-west-1.amazonaws.com"), WithRegion("eu-west-1")},
		{WithBaseURL("https://sqs.eu-west-1.amazonaws.com")}, // a host of another region than the broker's
		{WithBaseURL("https://sqs.us-west-2.amazonaws.com"), WithRegion("eu-west-1"), WithAccountID("123456789012")},
	} {
		b := NewBroker(opts...)
		brokers = append(brokers, b, b.Scope("111111111111", b.Region()), b.Scope("000000000000", "ap-south-1"))
	}
	short := 0
	for _, b := range brokers {
		for _, other := range brokers {
			for _, ref := range []string{
				other.queueURL("orders"), other.queueURL("o.fifo"), other.queueURL(""), other.queueURL("a/b"),
				other.queueURL("orders") + "/", other.queueURL("orders") + "?x=1", other.queueURL("a%2Fb"),
				other.queueURL("orders") + "#f", other.queueARN("orders"), "orders",
			} {
				name, foreign, ok := b.resolve(ref)
				wName, wForeign, wOK := b.resolveParsed(ref)
				if name != wName || foreign != wForeign || ok != wOK {
					t.Errorf("%s in %s/%s: resolve = %q, %q, %v; parsed: %q, %q, %v",
						ref, b.AccountID(), b.Region(), name, foreign, ok, wName, wForeign, wOK)
				}
				if b.ownName(ref) != "" {
					short++
				}
			}
		}
		if b.ownName(b.queueURL("orders")) != "orders" && b.resolveURL(b.queueURL("orders")) == "orders" {
			t.Errorf("%s/%s parses its own URLs: resolve should not", b.AccountID(), b.Region())
		}
	}
	if short == 0 {
		t.Error("resolve never took the short way")
	}
}
