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
//	go test ./examples/fifo -update
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

// TestOutputIsStable runs the program twice: the mock clock and the
// deterministic queue make every run print the same thing.
func TestOutputIsStable(t *testing.T) {
	t.Parallel()
	var a, b bytes.Buffer
	if err := run(&a); err != nil {
		t.Fatal(err)
	}
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("two runs differ:\n--- first\n%s\n--- second\n%s", a.Bytes(), b.Bytes())
	}
}

// TestMain skips the race detector's exit pause when the tests pass.
func TestMain(m *testing.M) { racexit.Main(m) }
