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

// minRepeats is the fewest consecutive copies of a block of printed lines
// (at most maxPeriod of them) that a report folds into the first copy and
// one line, if that saves minSummary lines or more: "… the same 6 lines 74 more times, to t=38m0s": a run that
// never settles goes round the same loop until the settle bound.
const (
	minRepeats = 3
	maxPeriod  = 16
)

// printedLine is a line of a report and the number of events it stands
// for.
type printedLine struct {
	at     time.Duration
	text   string
	events int
}

// report prints tl for a failure. The drawn phase prints in full (up to
// maxPrinted lines). In the settle phase, a line that names a label in
// keep prints in full; a run of minSummary or more other lines folds into
// one, "… 9 events of B, C (receive, charge, delete, done)". With keep
// empty (the failure names no message) every line prints. In both phases
// a block of lines repeated minRepeats times or more prints once, followed
// by "… the same 6 lines 74 more times, to t=38m0s". The settle phase
// prints at most limit lines (maxPrinted if limit is 0). labels are the
// scenario's labels, the only words taken for one.
func (tl Timeline) report(labels, keep map[string]bool, limit int) string {
	if limit <= 0 {
		limit = maxPrinted
	}
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
	// print prints ls, cut after max lines with the count of the events
	// left out.
	print := func(ls []printedLine, max int, more string) {
		for i, l := range ls {
			if i == max {
				left := 0
				for _, l := range ls[i:] {
					left += l.events
				}
				b.WriteString(arrow(n))
				fmt.Fprintf(&b, "… %d more events%s", left, more)
				n++
				return
			}
			line(l.at, l.text)
		}
	}
	var drawn []printedLine
	for _, e := range tl[:settle] {
		drawn = append(drawn, printedLine{e.At, e.Text, 1})
	}
	print(foldRepeats(drawn), maxPrinted, " of the drawn schedule")
	if settle == len(tl) {
		return b.String()
	}
	line(tl[settle].At, tl[settle].Text)
	rest := tl[settle+1:]
	var ls []printedLine
	for i := 0; i < len(rest); {
		j := i
		for j < len(rest) && len(keep) > 0 && !names(rest[j].Text, labels, keep) {
			j++
		}
		if j-i >= minSummary {
			ls = append(ls, printedLine{rest[i].At, summary(rest[i:j], labels), j - i})
			i = j
		} else {
			ls = append(ls, printedLine{rest[i].At, rest[i].Text, 1})
			i++
		}
	}
	print(foldRepeats(ls), limit, "")
	return b.String()
}

// foldRepeats keeps the first copy of each block of lines that repeats
// minRepeats times or more in a row (the same texts, whatever the times)
// and puts one line for the other copies after it. Of the blocks that
// start at a line, the one covering the most lines wins, the shortest on a
// tie.
func foldRepeats(ls []printedLine) []printedLine {
	var out []printedLine
	for i := 0; i < len(ls); {
		bestK, bestR := 0, 0
		for k := 1; k <= maxPeriod && i+k*minRepeats <= len(ls); k++ {
			r := 1
			for i+(r+1)*k <= len(ls) && sameTexts(ls[i:i+k], ls[i+r*k:i+(r+1)*k]) {
				r++
			}
			// Fold only where it saves lines: three copies of one line
			// stay.
			if r >= minRepeats && k*(r-1) >= minSummary && k*r > bestK*bestR {
				bestK, bestR = k, r
			}
		}
		if bestK == 0 {
			out = append(out, ls[i])
			i++
			continue
		}
		out = append(out, ls[i:i+bestK]...)
		events := 0
		for _, l := range ls[i+bestK : i+bestK*bestR] {
			events += l.events
		}
		what := fmt.Sprintf("%d lines", bestK)
		if bestK == 1 {
			what = "line"
		}
		text := fmt.Sprintf("… the same %s %d more times", what, bestR-1)
		if first, last := ls[i+bestK].at, ls[i+bestK*bestR-1].at; last != first {
			text += fmt.Sprintf(", to t=%v", last)
		}
		out = append(out, printedLine{ls[i+bestK].at, text, events})
		i += bestK * bestR
	}
	return out
}

// sameTexts reports whether two blocks of lines read the same but for
// their times.
func sameTexts(a, b []printedLine) bool {
	for i := range a {
		if a[i].text != b[i].text {
			return false
		}
	}
	return true
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

// maxLegend bounds the entries a report's legend prints: the messages
// the failure names, then the first others, then "… and 12 more".
const maxLegend = 8

// unsettledLimit bounds the settle lines a report prints of a run that did
// not settle: past the loop that kept it going, more lines say nothing.
const unsettledLimit = 40

// headline is the first line of a failure's report, and for a run that
// did not settle the first two: why it did not, then the invariant.
func (o *Outcome) headline() string {
	h := "invariant failed: " + o.Err.Error()
	if o.unsettled != "" {
		h = o.unsettled + "\n" + h
	}
	return h
}

// details is a failure's report after its headline: the legend and the
// schedule, its settle phase summarised around the messages the failure
// names.
func (o *Outcome) details() string {
	labels, keep := map[string]bool{}, map[string]bool{}
	for _, l := range o.Legend {
		labels[strings.SplitN(l, " ", 2)[0]] = true
	}
	for _, w := range words(o.headline()) {
		if labels[w] {
			keep[w] = true
		}
	}
	legend := ""
	if len(o.Legend) > 0 {
		legend = "messages: " + joinLegend(capLegend(o.Legend, keep)) + "\n"
	}
	limit := 0
	if o.unsettled != "" {
		limit = unsettledLimit
	}
	return fmt.Sprintf("%sschedule (%d steps):\n%s", legend, o.Steps, o.Timeline.report(labels, keep, limit))
}

// capLegend keeps at most maxLegend entries of legend, in order: those of
// the labels in keep first, then the first others, and counts the rest.
func capLegend(legend []string, keep map[string]bool) []string {
	if len(legend) <= maxLegend {
		return legend
	}
	chosen := map[int]bool{}
	for i, l := range legend {
		if len(chosen) < maxLegend && keep[strings.SplitN(l, " ", 2)[0]] {
			chosen[i] = true
		}
	}
	for i := 0; i < len(legend) && len(chosen) < maxLegend; i++ {
		chosen[i] = true
	}
	var out []string
	for i, l := range legend {
		if chosen[i] {
			out = append(out, l)
		}
	}
	return append(out, fmt.Sprintf("… and %d more", len(legend)-len(out)))
}
