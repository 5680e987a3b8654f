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

// CheckEdited is Check for output that differs from the golden file in a
// known way: it fails t unless got equals edit applied to the file's
// content. why says what edit changes; -update refuses, since got is not
// the file's content.
func CheckEdited(t testing.TB, path string, got []byte, why string, edit func(want []byte) []byte) {
	t.Helper()
	if *update {
		t.Fatalf("-update: %s holds the full output, and this run's differs from it (%s)", path, why)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want = edit(want); !bytes.Equal(want, got) {
		t.Errorf("output differs from %s, %s\n--- want\n%s\n--- got\n%s", path, why, want, got)
	}
}
