// Package golden compares a program's output with a golden file. Run a test
// with -update to rewrite the file, then review its diff.
package golden

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files with the current output")

// Check fails t unless got equals the content of the file at path. With
// -update it first writes got there.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("output differs from %s (run with -update to accept it)\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
