package main

import (
	"testing"

	"github.com/sqsq/sqsq/internal/exampletest"
)

// BenchmarkKit measures the kit on the sliced heartbeat, seeded, without a
// bubble (README's speed):
//
//	go test ./examples/heartbeat -run '^$' -bench Kit -benchmem -count 3
func BenchmarkKit(b *testing.B) {
	exampletest.Bench(b, Scenario(HeartbeatVersion))
}
