package main

import (
	"bytes"
	"errors"
	"flag"
	"log/slog"
	"strings"
	"testing"
)

// -log-level takes the four names the README lists, in any case, prints
// its default as the README writes it, and refuses anything else in plain
// words, listing the names.
func TestLogLevelFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		arg  string
		want slog.Level
	}{
		{"debug", slog.LevelDebug}, {"info", slog.LevelInfo}, {"warn", slog.LevelWarn}, {"error", slog.LevelError},
		{"DEBUG", slog.LevelDebug}, {"Warn", slog.LevelWarn},
	} {
		o, err := parseFlags([]string{"-log-level", tc.arg}, new(bytes.Buffer))
		if err != nil || o.logLevel != tc.want {
			t.Errorf("-log-level %s: %v, %v; want %v", tc.arg, o.logLevel, err, tc.want)
		}
	}
	if o, err := parseFlags(nil, new(bytes.Buffer)); err != nil || o.logLevel != slog.LevelInfo {
		t.Errorf("no -log-level: %v, %v; want info", o.logLevel, err)
	}

	for _, bad := range []string{"verbose", "warning", "", "-4"} {
		var stderr bytes.Buffer
		_, err := parseFlags([]string{"-log-level", bad}, &stderr)
		var usage usageError
		if !errors.As(err, &usage) || usage.code != 2 {
			t.Errorf("-log-level %q: %v, want a usage error", bad, err)
		}
		first, _, _ := strings.Cut(stderr.String(), "\n")
		want := `invalid value "` + bad + `" for flag -log-level: "` + bad + `" is not a log level: use debug, info, warn or error`
		if first != want {
			t.Errorf("-log-level %q: stderr starts\n%s\nwant\n%s", bad, first, want)
		}
		if strings.Contains(stderr.String(), "slog") {
			t.Errorf("-log-level %q: slog's jargon on stderr:\n%s", bad, stderr.String())
		}
	}

	var help bytes.Buffer
	if _, err := parseFlags([]string{"-h"}, &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	if !strings.Contains(help.String(), "info, warn or error (default info)\n") || strings.Contains(help.String(), "INFO") {
		t.Errorf("-h does not show the default as info:\n%s", help.String())
	}
}
