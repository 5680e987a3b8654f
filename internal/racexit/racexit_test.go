package racexit

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	if code, ok := os.LookupEnv("RACEXIT_CHILD"); ok {
		n, _ := strconv.Atoi(code)
		Exit(n)
	}
	Main(m)
}

// The child is this test binary, which exits at once through Exit with the
// code asked for: the code reaches the parent.
func TestExitKeepsTheCode(t *testing.T) {
	t.Parallel()
	for _, want := range []int{0, 3} {
		cmd := exec.Command(os.Args[0], "-test.run", "^$")
		cmd.Env = append(os.Environ(), "RACEXIT_CHILD="+strconv.Itoa(want))
		err := cmd.Run()
		got := 0
		if e, ok := err.(*exec.ExitError); ok {
			got = e.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("exit code %d, want %d", got, want)
		}
	}
}

// Every test package of the module ends through Exit (a TestMain that calls
// Main or Exit, or goleak's Cleanup with Exit): one that forgets pays the
// second again. Directories with a go.mod of their own are other modules.
func TestEveryPackageUsesExit(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root {
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		tests, _ := filepath.Glob(filepath.Join(path, "*_test.go"))
		if len(tests) == 0 || filepath.Base(path) == "racexit" { // this package's TestMain calls Main
			return nil
		}
		for _, f := range tests {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if strings.Contains(string(b), "racexit.Main(m)") || strings.Contains(string(b), "racexit.Exit") {
				return nil
			}
		}
		t.Errorf("%s: no TestMain ends through racexit (add main_test.go with func TestMain(m *testing.M) { racexit.Main(m) })", path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
