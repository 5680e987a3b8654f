package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/sqsq/sqsq/internal/golden"
	"github.com/sqsq/sqsq/internal/racexit"
)

// TestMain fails the run if the program leaves a goroutine behind (the move
// task's timer goroutine must end when the broker is closed).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(racexit.Exit))
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
	golden.Check(t, filepath.Join("testdata", "output.golden"), got.Bytes())
}
