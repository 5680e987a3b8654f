package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/output.golden with the current output")

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
	golden := filepath.Join("testdata", "output.golden")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, got.Bytes()) {
		t.Errorf("output differs from %s (run with -update to accept it)\n--- want\n%s\n--- got\n%s", golden, want, got.Bytes())
	}
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
