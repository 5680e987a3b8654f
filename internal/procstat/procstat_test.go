package procstat

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func requireProc(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
}

func TestCPUGrowsWithWork(t *testing.T) {
	t.Parallel()
	requireProc(t)
	before, err := CPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Burn CPU until the reading moves: a tick is at most 10 ms.
	deadline := time.Now().Add(10 * time.Second)
	x := 0
	for {
		for i := range 1_000_000 {
			x += i
		}
		after, err := CPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if after > before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("CPU stayed at %v after 10 s of work (%d)", before, x)
		}
	}
}

func TestReadMemory(t *testing.T) {
	t.Parallel()
	requireProc(t)
	m, err := ReadMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS <= 0 || m.HWM < m.RSS {
		t.Errorf("memory %+v: want 0 < RSS <= HWM", m)
	}
}

func TestMissingProcess(t *testing.T) {
	t.Parallel()
	requireProc(t)
	// Pid -1 names no process: both readers fail rather than report zero.
	if _, err := CPU(-1); err == nil {
		t.Error("CPU(-1): no error")
	}
	if _, err := ReadMemory(-1); err == nil {
		t.Error("ReadMemory(-1): no error")
	}
}
