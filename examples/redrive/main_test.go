package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite testdata/output.golden with the current output")

// TestMain fails the run if the program leaves a goroutine behind (the move
// task's timer goroutine must end when the broker is closed).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestOutput runs the program and compares what it prints with the golden
// file. After an intended change, run
//
//	go test ./examples/redrive -update
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
