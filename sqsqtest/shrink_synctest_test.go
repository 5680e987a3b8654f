//go:build go1.25

package sqsqtest

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// Inside bubbles, as Scenario.Test plays them, the step shrinker plays
// each of its runs in a bubble of its own, and reports the same schedule
// as without one.
//
// Not parallel: it sets rapid's flags.
func TestStepShrinkInBubbles(t *testing.T) {
	t.Chdir(t.TempDir())
	setFlag(t, "rapid.seed", 1)
	s := chargeThenDelete("a", "b", "c")
	report := func(run player) string {
		tb := &fakeTB{}
		rapidCheck(&rapidTB{TB: tb}, func(t *rapid.T) { s.check(t, run) })
		out := strings.Join(tb.lines, "\n")
		if !tb.failed {
			t.Fatalf("no failure:\n%s", out)
		}
		i := strings.Index(out, "sqsqtest: shrank")
		if i < 0 {
			t.Fatalf("rapid's schedule was not shrunk by steps:\n%s", out)
		}
		return out[i:]
	}
	plain, bubbled := report(s.play), report(s.inBubbles(t))
	if plain != bubbled {
		t.Errorf("in bubbles:\n%s\nwithout:\n%s", bubbled, plain)
	}
}
