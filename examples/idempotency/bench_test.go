package main

import (
	"testing"

	"github.com/sqsq/sqsq/internal/exampletest"
)

// BenchmarkKit measures the kit on the correct consumers, seeded, without
// a bubble (README's speed):
//
//	go test ./examples/idempotency -run '^$' -bench Kit -benchmem -count 3
func BenchmarkKit(b *testing.B) {
	b.Run("InboxByOrder", func(b *testing.B) { exampletest.Bench(b, Scenario(InboxByOrder)) })
	b.Run("Poll", func(b *testing.B) { exampletest.Bench(b, PollScenario(InboxByOrder)) })
}
