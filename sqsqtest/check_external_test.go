package sqsqtest_test

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/sqsq/sqsq/internal/testsize"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A failure names the line of the user's test that called the kit, never
// check.go: every kit function between the user's call and t.Log or
// t.Fatal calls Helper. testdata/userfile holds a user's tests of a
// consumer that fails, through Test, TestPlain, rapid.Check(t, s.Check)
// and Seeds, each call marked "// USER LINE"; they run in a go test of
// their own, since only the testing package prints file:line.
func TestFailuresNameTheUsersFile(t *testing.T) {
	t.Parallel()
	if testing.Short() || !testsize.Long() {
		t.Skip("builds and runs a test binary: SQSQ_LONG=1 (the long suite, in CI) runs it")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	dir := filepath.Join("testdata", "userfile")
	want := map[string]bool{} // "user_test.go:28"
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if strings.HasSuffix(line, "// USER LINE") {
				want[fmt.Sprintf("%s:%d", filepath.Base(f), i+1)] = true
			}
		}
	}
	cmd := exec.Command(goTool, "test", "-count=1", "-rapid.nofailfile", "-sqsqtest.runs=5", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the user's tests passed:\n%s", out)
	}
	loc := regexp.MustCompile(`^ +(\w+\.go:\d+): `)
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := loc.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if !want[m[1]] {
			t.Errorf("a failure line names %s, not the user's call: %q", m[1], sc.Text())
		}
		seen[m[1]] = true
	}
	if len(seen) < 3 {
		t.Errorf("failures named %d of the user's calls (want %v):\n%s", len(seen), want, out)
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}
