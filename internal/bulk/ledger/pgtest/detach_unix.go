//go:build unix

package pgtest

import (
	"os/exec"
	"syscall"
)

// detach puts cmd in a process group of its own, so that the server it
// starts does not get the signals sent to the test's group.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }
