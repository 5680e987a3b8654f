package sqsqproc

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill the server if the program that started
// it dies first (killed, or a SIGQUIT dump), so no sqsq is left serving.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
