package main

import (
	"io"
	"testing"

	"github.com/sqsq/sqsq/internal/racexit"
)

// The flags are all this test checks: running the tool takes a server and
// minutes, and belongs to a measurement, not to the quick suite.
func TestParseFlags(t *testing.T) {
	c, err := parseFlags([]string{"-messages", "5", "-size", "1024", "-purge", "-data-sync", "100ms"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.messages != 5 || c.size != 1024 || !c.purge || !c.drain || c.workers != 16 || c.dataSync != "100ms" {
		t.Errorf("parsed %+v", c)
	}
	for _, bad := range [][]string{{"-messages", "0"}, {"-size", "30000"}, {"-workers", "0"}, {"extra"}} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestMain skips the race detector's exit pause when the tests pass.
func TestMain(m *testing.M) { racexit.Main(m) }
