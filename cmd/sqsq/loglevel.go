package main

import (
	"fmt"
	"log/slog"
	"strings"
)

// levelFlag is -log-level: one of the four names the README documents,
// in any case. slog's own parser (flag.TextVar) answers a typo in its
// jargon and prints the default as INFO, which the docs never write.
type levelFlag struct{ level *slog.Level }

// levelNames are the values -log-level takes, in the order the usage and
// errors list them.
var levelNames = []struct {
	name  string
	level slog.Level
}{{"debug", slog.LevelDebug}, {"info", slog.LevelInfo}, {"warn", slog.LevelWarn}, {"error", slog.LevelError}}

// String is the level's name; "" for the zero levelFlag, so that the flag
// package, which omits defaults equal to the zero value's text, prints
// "(default info)".
func (f levelFlag) String() string {
	if f.level == nil {
		return ""
	}
	for _, n := range levelNames {
		if n.level == *f.level {
			return n.name
		}
	}
	return strings.ToLower(f.level.String())
}

// Set takes a level's name, in any case, and refuses any other word with
// the list of names.
func (f levelFlag) Set(s string) error {
	for _, n := range levelNames {
		if strings.EqualFold(s, n.name) {
			*f.level = n.level
			return nil
		}
	}
	return fmt.Errorf("%q is not a log level: use debug, info, warn or error", s)
}
