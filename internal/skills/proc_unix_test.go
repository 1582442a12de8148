//go:build unix

package skills

import (
	"os/exec"
	"syscall"
	"testing"
)

// noGit fails the test: git (Debian's git package, which ships git
// daemon) is part of the test host.
func noGit(t *testing.T) {
	t.Helper()
	t.Fatal("git is needed for this test: install Debian's git package (it ships git daemon)")
}

// ownGroup starts cmd in its own process group, so that killGroup takes
// its children (git daemon forks one per connection).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(cmd *exec.Cmd) error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
