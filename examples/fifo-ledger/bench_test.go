package main

import (
	"testing"

	"github.com/sqsq/sqsq/internal/exampletest"
)

// BenchmarkKit measures the kit on the sequential consumer, seeded,
// without a bubble (README's speed):
//
//	go test ./examples/fifo-ledger -run '^$' -bench Kit -benchmem -count 3
func BenchmarkKit(b *testing.B) {
	exampletest.Bench(b, Scenario(Sequential))
}
