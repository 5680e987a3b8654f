//go:build !linux

package sqsqproc

import "os/exec"

// dieWithParent does nothing outside Linux: there, a driver killed before
// it stops the server leaves the server running.
func dieWithParent(*exec.Cmd) {}
