//go:build unix

package skills

import (
	"os"
	"os/exec"
	"syscall"
)

// killGroupOnCancel starts cmd in its own process group and kills the
// whole group when its context ends: git starts helpers
// (git-remote-https, ssh) that must not outlive it.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// folderIdentity is the device and inode in fi, the Lstat of the folder
// at path.
func folderIdentity(_ string, fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
