// Package procstat reads another process's CPU time and memory from Linux's
// /proc, for the tests and programs that measure a server in a child
// process (the load test of sqshttp, the soak of internal/soak), so that the
// client's own work is not counted.
package procstat

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// CPU returns the CPU time process pid has used so far: the sum of its
// threads' time on a CPU (schedstat, in nanoseconds), or utime+stime in
// clock ticks when the kernel has no schedstat. The schedstat sum leaves out
// threads that have exited; a Go server keeps its threads, and the
// nanosecond resolution matters more for short measurements.
func CPU(pid int) (time.Duration, error) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var ns int64
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread exited
		}
		fields := strings.Fields(string(b))
		if len(fields) == 0 {
			continue
		}
		v, _ := strconv.ParseInt(fields[0], 10, 64)
		ns += v
	}
	if ns > 0 {
		return time.Duration(ns), nil
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: count fields from
	// after its closing parenthesis, where field 3 (state) begins.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 > len(s) {
		return 0, fmt.Errorf("procstat: cannot parse /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 13 {
		return 0, fmt.Errorf("procstat: short /proc/%d/stat", pid)
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)                 // field 14, utime
	st, _ := strconv.ParseInt(f[12], 10, 64)                 // field 15, stime
	return time.Duration(ut+st) * 10 * time.Millisecond, nil // CLK_TCK is 100 on Linux
}

// Memory is a process's resident memory, in bytes.
type Memory struct {
	RSS int64 // resident now (VmRSS)
	HWM int64 // peak resident so far (VmHWM)
	// Of RSS: the program's own memory (RssAnon), and the pages of
	// mapped files (RssFile), such as a bbolt file, which the kernel can
	// drop and read again; 0 where the kernel does not say.
	Anon, File int64
}

// ReadMemory reads the resident memory of process pid from
// /proc/pid/status.
func ReadMemory(pid int) (Memory, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, err
	}
	var m Memory
	var found int
	for line := range strings.SplitSeq(string(b), "\n") {
		name, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var dst *int64
		switch name {
		case "VmRSS":
			dst = &m.RSS
		case "VmHWM":
			dst = &m.HWM
		case "RssAnon":
			dst = &m.Anon
		case "RssFile":
			dst = &m.File
		default:
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("procstat: %s in /proc/%d/status: %w", name, pid, err)
		}
		*dst = kb << 10
		if name == "VmRSS" || name == "VmHWM" {
			found++
		}
	}
	if found < 2 {
		return Memory{}, errors.New("procstat: no VmRSS or VmHWM in /proc/" + strconv.Itoa(pid) + "/status")
	}
	return m, nil
}
