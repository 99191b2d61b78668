//go:build unix

package collect

import (
	"os/exec"
	"syscall"
)

// newGroup makes the provider the leader of a process group of its own, so
// that whatever it starts can be stopped with it (killGroup).
func newGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = 0
}

// killGroup sends SIGKILL to the process group led by pid. The caller
// guarantees that pid has not been reaped yet (a live process or a zombie
// keeps its pid, and so its group id, from being reused).
func killGroup(pid int) {
	if pid > 0 {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}
