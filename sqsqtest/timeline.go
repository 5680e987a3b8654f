package sqsqtest

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// settleText is the timeline's line between the drawn schedule and the
// settle phase.
const settleText = "settle: faults and crashes off"

// maxPrinted bounds the lines a report prints of each phase, drawn and
// settle: a longer phase is cut, with the count of what was left out.
const maxPrinted = 200

// minSummary is the shortest run of settle lines, none naming a label of
// the failure, that a report folds into one line.
const minSummary = 3

// Entry is one line of a [Timeline].
type Entry struct {
	At   time.Duration // since the run started
	Text string
}

// Timeline is a run's events in order, printed as
// "t=0s receive(A) by c1 → t=30s visibility expired(A) → …", one per line,
// every one of them. [Outcome.String] prints a failure's timeline with its
// settle phase summarised.
type Timeline []Entry

func (tl Timeline) String() string {
	var b strings.Builder
	for i, e := range tl {
		b.WriteString(arrow(i))
		fmt.Fprintf(&b, "t=%v %s", e.At, e.Text)
	}
	return b.String()
}

// arrow starts the i-th printed line.
func arrow(i int) string {
	if i == 0 {
		return "  "
	}
	return "\n→ "
}

// report prints tl for a failure. The drawn phase prints in full (up to
// maxPrinted lines). In the settle phase, a line that names a label in
// keep prints in full; a run of minSummary or more other lines folds into
// one, "… 9 events of B, C (receive, charge, delete, done)". With keep
// empty (the failure names no message) every line prints. labels are the
// scenario's labels, the only words taken for one.
func (tl Timeline) report(labels, keep map[string]bool) string {
	settle := len(tl)
	for i, e := range tl {
		if e.Text == settleText {
			settle = i
			break
		}
	}
	var b strings.Builder
	n := 0 // lines printed
	line := func(at time.Duration, text string) {
		b.WriteString(arrow(n))
		fmt.Fprintf(&b, "t=%v %s", at, text)
		n++
	}
	for i, e := range tl[:settle] {
		if i == maxPrinted {
			b.WriteString(arrow(n))
			fmt.Fprintf(&b, "… %d more events of the drawn schedule", settle-i)
			n++
			break
		}
		line(e.At, e.Text)
	}
	if settle == len(tl) {
		return b.String()
	}
	line(tl[settle].At, tl[settle].Text)
	rest := tl[settle+1:]
	printed := 0
	for i := 0; i < len(rest); {
		if printed == maxPrinted {
			b.WriteString(arrow(n))
			fmt.Fprintf(&b, "… %d more events", len(rest)-i)
			break
		}
		j := i
		for j < len(rest) && len(keep) > 0 && !names(rest[j].Text, labels, keep) {
			j++
		}
		if j-i >= minSummary {
			line(rest[i].At, summary(rest[i:j], labels))
			i = j
		} else {
			line(rest[i].At, rest[i].Text)
			i++
		}
		printed++
	}
	return b.String()
}

// summary folds uninvolved lines into one: how many, the labels they
// name and what happened to them.
func summary(es []Entry, labels map[string]bool) string {
	var ls, kinds []string
	for _, e := range es {
		for _, w := range words(e.Text) {
			if labels[w] && !contains(ls, w) {
				ls = append(ls, w)
			}
		}
		if k := kindOf(e.Text); !contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	text := fmt.Sprintf("… %d events", len(es))
	if len(ls) > 0 {
		text += " of " + strings.Join(ls, ", ")
	}
	return text + " (" + strings.Join(kinds, ", ") + ")"
}

// names reports whether text names a label in keep.
func names(text string, labels, keep map[string]bool) bool {
	for _, w := range words(text) {
		if labels[w] && keep[w] {
			return true
		}
	}
	return false
}

// words splits text into its runs of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// kindOf names what a timeline line reports, for a summary: "receive",
// "delete", "done"… — for a consumer's commit, the name it gave it.
func kindOf(text string) string {
	for _, k := range []struct{ prefix, kind string }{
		{"receive by", "empty receive"}, {"receive(", "receive"}, {"visibility expired", "expiry"},
		{"send(", "send"}, {"redrive", "redrive"}, {"idle for", "idle"},
	} {
		if strings.HasPrefix(text, k.prefix) {
			return k.kind
		}
	}
	for _, k := range []string{"moved to DLQ", "visible again"} {
		if strings.Contains(text, k) {
			return k
		}
	}
	// "c1 delete(A)", "c1 charge(A): …", "c2 done with A": the word after
	// the consumer.
	fs := strings.Fields(text)
	if len(fs) < 2 {
		return text
	}
	w := fs[1]
	if i := strings.IndexAny(w, "(:"); i > 0 {
		w = w[:i]
	}
	if w == "is" { // "c1 is slow: …"
		return "slow"
	}
	return w
}

// headline is the first line of a failure's report.
func (o *Outcome) headline() string { return "invariant failed: " + o.Err.Error() }

// details is a failure's report after its headline: the legend and the
// schedule, its settle phase summarised around the messages the failure
// names.
func (o *Outcome) details() string {
	labels, keep := map[string]bool{}, map[string]bool{}
	for _, l := range o.Legend {
		labels[strings.SplitN(l, " ", 2)[0]] = true
	}
	for _, w := range words(o.Err.Error()) {
		if labels[w] {
			keep[w] = true
		}
	}
	legend := ""
	if len(o.Legend) > 0 {
		legend = "messages: " + joinLegend(o.Legend) + "\n"
	}
	return fmt.Sprintf("%sschedule (%d steps):\n%s", legend, o.Steps, o.Timeline.report(labels, keep))
}
