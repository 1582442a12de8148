//go:build !unix

package skills

import (
	"os"
	"os/exec"
)

// killGroupOnCancel keeps exec's default on systems without process
// groups: the context kills git itself.
func killGroupOnCancel(*exec.Cmd) {}

// folderIdentity has no device and inode to give here.
func folderIdentity(os.FileInfo) (dev, ino uint64) { return 0, 0 }
