package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/sqsq/sqsq/internal/golden"
	"github.com/sqsq/sqsq/internal/racexit"
)

// TestOutput runs the program and compares what it prints with the golden
// file. After an intended change, run
//
//	go test ./examples/consumer -update
//
// and review the diff of testdata/output.golden.
func TestOutput(t *testing.T) {
	t.Parallel()
	var got bytes.Buffer
	if err := run(&got); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "output.golden"), got.Bytes())
}

// TestMain skips the race detector's exit pause when the tests pass.
func TestMain(m *testing.M) { racexit.Main(m) }
