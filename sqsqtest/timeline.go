package sqsqtest

import (
	"fmt"
	"strings"
	"time"
)

const maxPrinted = 40

// Entry is one line of a [Timeline].
type Entry struct {
	At   time.Duration // since the run started
	Text string
}

// Timeline is a run's events in order, printed as
// "t=0s receive(A) by c1 → t=30s visibility expired(A) → …", one per line,
// the first 40 of them.
type Timeline []Entry

func (tl Timeline) String() string {
	var b strings.Builder
	for i, e := range tl {
		if i == maxPrinted {
			fmt.Fprintf(&b, "\n→ … %d more", len(tl)-i)
			break
		}
		if i > 0 {
			b.WriteString("\n→ ")
		} else {
			b.WriteString("  ")
		}
		fmt.Fprintf(&b, "t=%v %s", e.At, e.Text)
	}
	return b.String()
}
