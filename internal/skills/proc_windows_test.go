package skills

import (
	"os/exec"
	"testing"
)

// noGit skips the test: the Windows tests run under Wine (make
// test-windows), where no Windows git is installed and the host's Linux
// git cannot be started from a Windows process.
func noGit(t *testing.T) {
	t.Helper()
	t.Skip("git for Windows is not on PATH: under Wine (make test-windows) none is installed, and the host's Linux git cannot be started from a Windows process")
}

// ownGroup: Windows has no process groups; git daemon's per-connection
// children end with their connection.
func ownGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
