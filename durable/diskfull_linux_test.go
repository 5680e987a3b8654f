package durable

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

func init() { childRoles["diskfull"] = diskFull }

// diskFull opens the store in dir, forbids the file to grow (RLIMIT_FSIZE:
// writes past the limit fail with EFBIG, as they fail with ENOSPC on a
// full disk), tries to save a large World, and reports the error and what
// Load returns afterwards.
func diskFull(dir string) int {
	signal.Ignore(syscall.SIGXFSZ) // the default action would kill the process
	s, err := Open(dir)
	if err != nil {
		fmt.Println("open:", err)
		return 1
	}
	info, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil {
		fmt.Println(err)
		return 1
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Println(err)
		return 1
	}
	lim.Cur = uint64(info.Size())
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("save:", s.Save(bigWorld(3000, 1024)))
	w, err := s.Load()
	fmt.Println("load:", err, reflect.DeepEqual(w, richWorld()))
	if err := s.Close(); err != nil {
		fmt.Println("close:", err)
		return 1
	}
	return 0
}

// A Save that cannot write returns the error, and the state saved before
// is still there, in the same process and after a restart.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	s, dir := setup(t)
	mustSave(t, s, richWorld())
	s.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=diskfull:"+dir, "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "save: durable: save to "+filepath.Join(dir, FileName)+": ") ||
		!strings.Contains(lines[0], "file too large") || lines[1] != "load: <nil> true" {
		t.Fatalf("child said\n%s\nwant the Save to fail with EFBIG and Load to return the World saved before", out)
	}
	t.Log(lines[0])

	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkWorld(t, richWorld(), mustLoad(t, s))
}
