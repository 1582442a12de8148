//go:build unix

package skills

import (
	"os/exec"
	"syscall"
)

// oNoFollow makes opening a symlink fail instead of following it.
const oNoFollow = syscall.O_NOFOLLOW

// killGroupOnCancel starts cmd in its own process group and kills the
// whole group when its context ends: git starts helpers
// (git-remote-https, ssh) that must not outlive it.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
