package durable

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
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

func init() { childRoles["diskfullcommit"] = diskFullCommit }

// diskFullCommit writes changes through the committer while the file may
// not grow: Sync fails, and the store goes on working; once the file may
// grow again, the next commit writes what failed. It prints what each Sync
// returned.
func diskFullCommit(dir string) int {
	signal.Ignore(syscall.SIGXFSZ)
	s, err := Open(dir)
	if err != nil {
		fmt.Println("open:", err)
		return 1
	}
	clk := clock.NewMock()
	b := sqsq.NewBroker(sqsq.WithClock(clk), s.Journal())
	defer b.Close()
	if err := s.Attach(b); err != nil {
		fmt.Println("attach:", err)
		return 1
	}
	ctx := context.Background()
	q, err := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "orders"})
	if err == nil {
		_, err = q.Send(ctx, sqsq.SendInput{MessageBody: "acknowledged"})
	}
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("sync before:", s.Sync(ctx))
	info, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil {
		fmt.Println(err)
		return 1
	}
	var lim, was syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Println(err)
		return 1
	}
	was = lim
	lim.Cur = uint64(info.Size())
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Println(err)
		return 1
	}
	body := strings.Repeat("x", 200<<10)
	for i := range 40 { // 8 MB: past what bbolt allocated ahead
		if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: fmt.Sprint(i, body)}); err != nil {
			fmt.Println(err)
			return 1
		}
	}
	err = s.Sync(ctx)
	fmt.Println("sync full:", err != nil && strings.Contains(err.Error(), "file too large"), err)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &was); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("sync after:", s.Sync(ctx))
	if err := s.Close(); err != nil {
		fmt.Println("close:", err)
		return 1
	}
	return 0
}

// A commit that cannot write fails Sync (sqshttp then answers 500), loses
// nothing written before, and is written by a later commit once the disk
// has room: all 41 messages are in the file after a restart.
func TestDiskFullCommit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=diskfullcommit:"+dir, "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || lines[0] != "sync before: <nil>" || !strings.HasPrefix(lines[1], "sync full: true") || lines[2] != "sync after: <nil>" {
		t.Fatalf("child said\n%s\nwant Sync to fail with EFBIG while the file may not grow, and to succeed after", out)
	}
	t.Log(lines[1])
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := mustLoad(t, s)
	if n := len(w.Scopes[0].Queues[0].Messages); n != 41 {
		t.Fatalf("%d messages after the restart; want 41", n)
	}
}
