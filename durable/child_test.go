package durable

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The test binary started again as a child process plays one of these
// roles, named in $SQSQ_DURABLE_CHILD as role:dir:
//
//	hold:DIR      open the store in DIR, print "ready", hold it until stdin closes
//	hold-save:DIR the same, after saving richWorld
//
// diskfull_linux_test.go adds its own role.
func runChild(spec string) int {
	role, dir, _ := strings.Cut(spec, ":")
	if run := childRoles[role]; run != nil {
		return run(dir)
	}
	fmt.Println("unknown role", role)
	return 2
}

var childRoles = map[string]func(dir string) int{
	"hold":      func(dir string) int { return hold(dir, false) },
	"hold-save": func(dir string) int { return hold(dir, true) },
}

func hold(dir string, save bool) int {
	s, err := Open(dir)
	if err != nil {
		fmt.Println("open:", err)
		return 1
	}
	if save {
		if err := s.Save(richWorld()); err != nil {
			fmt.Println("save:", err)
			return 1
		}
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := s.Close(); err != nil {
		fmt.Println("close:", err)
		return 1
	}
	return 0
}

// child is the test binary running a role in another process.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	exited chan error
}

// startChild starts a child in role on dir and waits for its first line,
// which must be "ready".
func startChild(t *testing.T, role, dir string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// Under -race the runtime sleeps 1 s at exit unless told not to.
	cmd.Env = append(os.Environ(), childEnv+"="+role+":"+dir, "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout), exited: make(chan error, 1)}
	line, err := c.out.ReadString('\n')
	if line != "ready\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child %s: first line %q, %v; want ready", role, line, err)
	}
	go func() {
		_, _ = io.Copy(io.Discard, c.out)
		c.exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = c.wait(t)
	})
	return c
}

// wait waits for the child to exit (a hang guard, not a timing) and
// returns how it exited.
func (c *child) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-c.exited:
		c.exited <- err // for the next wait
		return err
	case <-time.After(time.Minute):
		t.Fatal("child did not exit")
		return nil
	}
}
