package console

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// The page works offline: no embedded file loads or links anything from
// elsewhere. A URL may appear only in a // comment (a pointer to docs).
func TestUIOffline(t *testing.T) {
	t.Parallel()
	url := regexp.MustCompile(`(?i)https?://|(src|href|url)\s*[=(]\s*["']?//`)
	n := 0
	err := fs.WalkDir(uiFiles, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, err := fs.ReadFile(uiFiles, path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if url.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				t.Errorf("%s:%d refers to another site: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("read %d embedded files, want 3: %v", n, err)
	}
}
