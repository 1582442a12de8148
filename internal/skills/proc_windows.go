package skills

import (
	"os"
	"os/exec"

	"golang.org/x/sys/windows"
)

// killGroupOnCancel keeps exec's default on Windows, which has no process
// groups to kill: the context kills git itself. (A job object would take
// its helpers too: the skill sandbox's work, issue 24 item 2.)
func killGroupOnCancel(*exec.Cmd) {}

// folderIdentity is the volume serial number and 64-bit file index of the
// folder at path — Windows' device and inode, which os.SameFile compares
// too — read from a handle opened without following a final reparse point
// (as fi, an Lstat, did not). 0, 0 when it cannot be opened.
func folderIdentity(path string, _ os.FileInfo) (dev, ino uint64) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, 0
	}
	// FILE_FLAG_BACKUP_SEMANTICS opens a folder; no access right is
	// needed to read its identity.
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return 0, 0
	}
	defer windows.CloseHandle(h)
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return 0, 0
	}
	return uint64(d.VolumeSerialNumber), uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow)
}
